"""The private production stack of the benches that need one (bench/live.py, bench/soak.py).

Everything runs in a temporary directory, on free ports, and is removed by `stop` (logs copied
out first if asked): a PostgreSQL of its own (initdb + pg_ctl, as the postgres user when run as
root, which initdb refuses), a redis-server of its own, and the application's processes with the
commands of docs/operations.md: uvicorn (ASGI) for the web tier, Celery
workers and beat. The processes' environment points at the private services only: nothing of
the caller's environment that names a URL or PostgreSQL's port is passed on, so a bench never
connects to another PostgreSQL or Redis.

    stack = Stack("soak", fsync=False)
    try:
        stack.services_start()            # PostgreSQL, Redis, migrations
        stack.uvicorn(workers=2)
        stack.worker("w0")
        stack.wait_web()
        ...                                # requests to stack.base
    finally:
        stack.stop()
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import psycopg
from common import ANALYSIS_PRIORITY, child_pids, cpu_seconds, free_port, rss_mb, wait_until_up

ROOT = Path(__file__).resolve().parent.parent
PY = Path(sys.executable)
PG_BIN = Path(os.environ.get("BENCH_PG_BIN", "/usr/lib/postgresql/15/bin"))


class Stack:
    """PostgreSQL, Redis and the application's processes of one bench run, in `self.dir`.

    `fsync=False` runs PostgreSQL without fsync (commits stay synchronous, so a crash of the
    server process loses no acknowledged commit; only the machine's would): for a bench that
    counts correctness, not the cost of a durable write. `env`: settings added to every
    process's environment (they may also be set on `self.env` before a process starts)."""

    def __init__(
        self,
        name: str,
        *,
        database: str = "pisyedili",
        fsync: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix=f"pisyedili-{name}-"))
        self.dir.chmod(0o711)  # the postgres user reaches its data directory through it
        self.pg_port, self.redis_port, self.web_port = free_port(), free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.web_port}"
        self.fsync = fsync
        self.pg_dir = self.dir / "postgres"
        self.pg_dir.mkdir()
        self.pg_user = "postgres" if os.geteuid() == 0 else None
        if self.pg_user:
            shutil.chown(self.pg_dir, user=self.pg_user)
        self.database = database
        self.database_url = f"postgres://postgres@127.0.0.1:{self.pg_port}/{database}"
        self.redis: subprocess.Popen[bytes] | None = None
        self.web: subprocess.Popen[bytes] | None = None
        self.web_stop_signal = signal.SIGTERM
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self.beat: subprocess.Popen[bytes] | None = None
        redis = f"redis://127.0.0.1:{self.redis_port}"
        inherited = {k: v for k, v in os.environ.items() if "://" not in v and ":5432" not in v}
        self.env = {
            **inherited,
            "DATABASE_URL": self.database_url,
            "CELERY_BROKER_URL": f"{redis}/0",
            "REDIS_URL": f"{redis}/1",
            "CACHE_URL": f"{redis}/1",
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "CELERY_BEAT_SCHEDULE_FILENAME": str(self.dir / "celerybeat-schedule"),
            "PYTHONUNBUFFERED": "1",
            # Moves are counted (the throttle's cost is measured) but never refused.
            "THROTTLE_MATCH_MOVE": "100000/sec",
            "THROTTLE_MATCH": "100000/min",  # tables made by the dozen
            **(env or {}),
        }

    def services_start(self) -> None:
        """PostgreSQL (a new cluster and the database), Redis, then the migrations."""
        data = str(self.pg_dir / "data")
        self._pg("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        self.pg_start()
        with psycopg.connect(self.admin_url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {self.database}")
        self.redis_start()
        migrate = [str(PY), "manage.py", "migrate", "--noinput", "-v0"]
        subprocess.run(migrate, cwd=ROOT, env=self.env, check=True)

    # ---- PostgreSQL ----

    def _pg(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(PG_BIN / args[0]), *args[1:]],
            user=self.pg_user,
            cwd=self.dir,
            capture_output=True,
            check=check,
            timeout=120,
        )

    def pg_start(self) -> None:
        options = (
            f"-p {self.pg_port} -k {self.pg_dir} -c listen_addresses=127.0.0.1"
            " -c max_connections=200"
        )
        if not self.fsync:
            options += " -c fsync=off -c full_page_writes=off"
        data, log = str(self.pg_dir / "data"), str(self.pg_dir / "postgres.log")
        self._pg("pg_ctl", "-D", data, "-l", log, "-o", options, "-w", "-t", "60", "start")

    def pg_stop(self, mode: str = "fast") -> None:
        """pg_ctl stop: `fast`, or `immediate` (no shutdown checkpoint: crash recovery at the
        next start)."""
        self._pg("pg_ctl", "-D", str(self.pg_dir / "data"), "-m", mode, "-w", "stop", check=False)

    def pg_pid(self) -> int:
        return int((self.pg_dir / "data" / "postmaster.pid").read_text().split()[0])

    def admin_url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.pg_port}/postgres"

    def connect(self) -> psycopg.Connection:
        return psycopg.connect(self.database_url, autocommit=True)

    def pg_connections(self) -> int:
        """The connections to the application's database now."""
        with psycopg.connect(self.admin_url()) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [self.database]
            ).fetchone()
        return int(row[0]) if row else 0

    # ---- Redis ----

    def redis_start(self) -> None:
        command = ["redis-server", "--bind", "127.0.0.1", "--port", str(self.redis_port)]
        command += ["--save", "", "--appendonly", "no", "--dir", str(self.dir)]
        command += ["--maxclients", "20000"]
        self.redis = self.spawn("redis", command)
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", self.redis_port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def redis_stop(self) -> None:
        """SIGTERM: no persistence, so it comes back empty."""
        self.halt(self.redis, signal.SIGTERM)

    # ---- the application ----

    def spawn(self, name: str, command: list[str]) -> subprocess.Popen[bytes]:
        """`command` in a session of its own (a signal to the group reaches its children too),
        its output appended to `<name>.log`."""
        log = open(self.dir / f"{name}.log", "ab")  # noqa: SIM115 (the child keeps it)
        return subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

    def uvicorn(self, workers: int) -> None:
        """The web tier: uvicorn live.asgi with its deployed options."""
        command = [str(PY.with_name("uvicorn")), "live.asgi:application"]
        command += ["--host", "127.0.0.1", "--port", str(self.web_port)]
        command += ["--workers", str(workers), "--loop", "uvloop"]
        command += ["--http", "live.asgi:HttpProtocol", "--no-access-log"]
        command += ["--backlog", "8192", "--ws-ping-interval", "0"]
        command += ["--ws-per-message-deflate", "false", "--ws-max-size", "4096"]
        command += ["--no-proxy-headers", "--timeout-graceful-shutdown", "10"]
        self.web = self.spawn("web", command)
        self.web_stop_signal = signal.SIGTERM

    def wait_web(self, seconds: float = 60) -> None:
        """Until the web tier answers; exit if it does not (its log is `web.log`)."""
        wait_until_up(self.base, seconds=seconds)

    def web_children(self) -> list[int]:
        """The web tier's worker processes: its master's children."""
        assert self.web is not None
        return child_pids(self.web.pid)

    def worker(self, node: str, *options: str, idle: bool = False, concurrency: int = 1) -> None:
        """A Celery worker named `node`, `concurrency` processes (`-c`, 1 unless told), with
        `options` (e.g. `-Q analysis`), at the idle CPU priority with `idle` (the analysis
        worker's)."""
        command = [str(PY.with_name("celery")), "-A", "pisyedili_api", "worker", "-l", "warning"]
        command += ["-c", str(concurrency), "-n", f"{node}@%h"]
        command += ["--without-gossip", "--without-mingle"]
        command += list(options)
        if idle:
            command = [*ANALYSIS_PRIORITY, *command]
        self.workers[node] = self.spawn(f"worker-{node}", command)

    def worker_kill(self, node: str) -> None:
        """SIGKILL: no warm shutdown, no ack, the pool child with it."""
        self.halt(self.workers.pop(node), signal.SIGKILL)

    def beat_start(self) -> None:
        command = [str(PY.with_name("celery")), "-A", "pisyedili_api", "beat", "-l", "warning"]
        command += ["-s", str(self.dir / "celerybeat-schedule")]
        self.beat = self.spawn("beat", command)

    def halt(self, process: subprocess.Popen[bytes] | None, sig: int) -> None:
        """`sig` to the process's group; SIGKILL after 15 s."""
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, sig)
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=15)
        except ProcessLookupError:
            pass

    # ---- what the tiers spend ----

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time (user + system) so far of each tier: the web processes, PostgreSQL's, the
        Celery workers', Redis's, the ended children of each included (a backend that closed
        its connection, reaped by the postmaster), and this bench's own (`load`), without its
        ended children: those are the stack's processes, counted in their tiers while they
        run, whose whole lifetime would otherwise land in the phase that reaps one."""
        assert self.web is not None and self.redis is not None
        pg = self.pg_pid()
        tiers = {
            "web": {self.web.pid, *child_pids(self.web.pid)},
            "postgres": {pg, *child_pids(pg)},
            "workers": {p for w in self.workers.values() for p in (w.pid, *child_pids(w.pid))},
            "redis": {self.redis.pid},
        }
        spent = {tier: cpu_seconds(pids) for tier, pids in tiers.items()}
        spent["load"] = cpu_seconds([os.getpid()], ended_children=False)
        return spent

    def web_rss_mb(self) -> float:
        """RSS of the web tier's master and its worker processes."""
        assert self.web is not None
        return rss_mb({self.web.pid, *child_pids(self.web.pid)})

    # ---- the end ----

    def stop(self, keep_logs: Path | None = None) -> None:
        """Everything this run started, then its directory (the logs copied to `keep_logs`)."""
        self.halt(self.web, self.web_stop_signal)
        for process in (*self.workers.values(), self.beat):
            self.halt(process, signal.SIGTERM)
        self.halt(self.redis, signal.SIGTERM)
        if (self.pg_dir / "data" / "postmaster.pid").exists():
            self.pg_stop("fast")
        if keep_logs is not None:
            keep_logs.mkdir(parents=True, exist_ok=True)
            for log in [*self.dir.glob("*.log"), self.pg_dir / "postgres.log"]:
                if log.exists():
                    shutil.copy(log, keep_logs / log.name)
        shutil.rmtree(self.dir, ignore_errors=True)
