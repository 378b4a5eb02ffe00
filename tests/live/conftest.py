"""Two uvicorn processes of live.asgi on the test database and the shared Redis (as a
client only, under a channel prefix of this run), for the live-play tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from tests.helpers import next_test
from tests.httpclient import http

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


_Opened = TypeVar("_Opened")


def reopened_once_a_slot_is_free(open_: Callable[[], _Opened], what: str) -> _Opened:
    """`open_()` (a stream or a socket, with a `status`) again every 0.5 s while it is refused
    429, up to 10 s: a connection gives its stream slot back once its server sees it end;
    `what` names the ended connection in the failure."""
    deadline = time.monotonic() + 10
    while (opened := open_()).status == 429:  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, f"{what} never gave its slot back"
        time.sleep(0.5)
    return opened


class Servers:
    """`count` uvicorn processes of live.asgi on free ports (`start_on`: one more, on a
    given port), started as the deployment's command starts them."""

    def __init__(self, env: dict[str, str], count: int, log_dir: Path):
        self.env = env  # for another server of the same kind (tests)
        self.log_dir = log_dir
        self.bases: list[str] = []
        self.procs: list[subprocess.Popen[bytes]] = []
        for _ in range(count):
            self._launch(free_port())
        self._wait_started()

    def start_on(self, port: int) -> str:
        """One more process, on `port`; its base URL once it answers."""
        self._launch(port)
        self._wait_started()
        return self.bases[-1]

    def _launch(self, port: int) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_dir / f"uvicorn{len(self.procs)}.log", "wb")  # noqa: SIM115
        self.procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "live.asgi:application",
                 "--host", "127.0.0.1", "--port", str(port), "--no-access-log",
                 "--http", "live.asgi:HttpProtocol",
                 "--timeout-graceful-shutdown", "10"],
                cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            )
        )  # fmt: skip
        self.bases.append(f"http://127.0.0.1:{port}")

    def _wait_started(self) -> None:
        """Until every process answers; a start that fails stops them all, so none outlives
        the test."""
        try:
            self._wait_answering()
        except BaseException:
            self.stop()
            raise

    def _wait_answering(self) -> None:
        """Until each serves as an operator is told to wait for before the next restart:
        `GET /api/v1/health` answers 200 (docs/operations.md "Restarts and deploys")."""
        for base, proc in zip(self.bases, self.procs, strict=True):
            if proc.poll() is not None:
                continue  # stopped by the test already
            deadline = time.monotonic() + 30
            while True:
                assert proc.poll() is None, f"uvicorn for {base} exited"
                try:
                    if http.get(f"{base}/api/v1/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, f"uvicorn for {base} did not start"
                time.sleep(0.2)

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(autouse=True)
def _streams_closed() -> Iterator[None]:
    """Every stream a test opened stops with it, before its leak check (tests/live/sse.py)."""
    from .sse import close_all

    yield
    close_all()


@pytest.fixture(scope="session")
def live_env(django_db_setup: Any) -> Iterator[dict[str, str]]:
    """The environment of the live tests' web processes: the test database, the shared Redis
    (as a client only) under a channel prefix of this test process, small stream caps."""
    from django.conf import settings
    from django.db import connection

    db = connection.settings_dict
    if not db["ENGINE"].endswith("postgresql"):
        pytest.skip("needs DATABASE_URL=postgres://…")
    redis_url = os.environ.get("CELERY_BROKER_URL", "")
    if not redis_url.startswith("redis://"):
        pytest.skip("needs CELERY_BROKER_URL=redis://…")
    prefix = f"test-live-{uuid.uuid4().hex[:12]}"
    yield {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": "",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "LIVE_REDIS_URL": redis_url,
        "LIVE_CHANNEL_PREFIX": prefix,
        "LIVE_HEARTBEAT_SECONDS": "1",
        "LIVE_STREAMS_PER_PLAYER": "3",
        "LIVE_STREAMS_PER_IP": "3",
        "LIVE_SEND_TIMEOUT": "3",
        "DATABASE_POOL_MAX": "6",
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "PYTHONUNBUFFERED": "1",
    }
    import redis

    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(f"{prefix}:*"))
    if keys:
        client.delete(*keys)


# The running pair of `live`, kept from one test to the next while the worker's next test needs
# it too, stopped before any other (tests.helpers.next_test): at most one pair of each worker
# holds PostgreSQL connections, and only while its live tests run.
_kept: dict[str, Servers] = {}


@pytest.fixture
def live(live_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """Two web processes (a move on one, its events on the other), started once for a run of a
    worker's live tests one after another; no test stops them (a test that stops or restarts a
    server starts its own on `live_env`). The test database's rows are committed by the
    servers, so the tests use `transactional_db`."""
    prefix = live_env["LIVE_CHANNEL_PREFIX"]
    if "servers" in _kept and not _slots_given_back(live_env["LIVE_REDIS_URL"], prefix):
        _kept.pop("servers").stop()  # as a new pair would, none held
    if "servers" not in _kept:
        servers = Servers(live_env, 2, tmp_path_factory.mktemp("uvicorn"))
        servers.prefix = prefix  # type: ignore[attr-defined]
        _kept["servers"] = servers
    yield _kept["servers"]
    following = next_test()
    if following is None or "live" not in getattr(following, "fixturenames", ()):
        _kept.pop("servers").stop()


def _slots_given_back(redis_url: str, prefix: str, seconds: float = 10) -> bool:
    """Whether every stream slot of a living process (live.hub) is given back within `seconds`:
    the last test's streams, closed by the client, end once their server writes to them (its
    heartbeat, every second), so that a test starts with every cap free, as on new servers."""
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    deadline = time.monotonic() + seconds
    while True:
        held = [
            member
            for key in client.scan_iter(f"{prefix}:stream-slots:*")
            for member in client.smembers(key)
            if client.exists(f"{prefix}:stream-lease:{member.rsplit('|', 1)[0]}")
        ]
        if not held:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
