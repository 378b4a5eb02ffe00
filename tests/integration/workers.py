"""Real Celery processes for the integration tests: a worker and beat, started with the same
commands as docs/operations.md "The full stack" and docker-compose.yml (`celery -A pisyedili_api
worker` / `beat`), on the test database and a Redis of their own (`PrivateRedis`, a free port:
the tests stop and start it for real, and never touch another Redis), on queues of their own.

The test process sends its tasks to the same Redis and queues (the Django settings Celery reads
are switched for the module) and stops being eager, so nothing runs in-process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.backing_services import PrivateRedis

ROOT = Path(__file__).resolve().parents[2]
CELERY = str(Path(sys.executable).with_name("celery"))


def wait_for(condition: Callable[[], Any], timeout: float, what: str, every: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out after {timeout}s waiting for {what}"
        time.sleep(every)


class Stack:
    """Worker and beat processes on `redis` and queues of their own; `start_*` / `kill_*` as a
    test needs, `redis.stop()` / `redis.start()` for a broker outage."""

    def __init__(self, database_url: str, redis: PrivateRedis, tmp: Path):
        self.redis = redis
        suffix = uuid.uuid4().hex[:8]
        self.bot_queue = f"test-bots-{suffix}"
        self.scoring_queue = f"test-scoring-{suffix}"
        self.analysis_queue = f"test-analysis-{suffix}"
        self.default_queue = f"test-default-{suffix}"
        self.env = {
            **os.environ,
            # The deployment's settings (docs/operations.md "Settings"), not the test suite's
            # (which run every task in-process).
            "DJANGO_SETTINGS_MODULE": "pisyedili_api.settings",
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": redis.url,
            "CELERY_BOT_QUEUE": self.bot_queue,
            "CELERY_SCORING_QUEUE": self.scoring_queue,
            "CELERY_ANALYSIS_QUEUE": self.analysis_queue,
            "CELERY_TASK_DEFAULT_QUEUE": self.default_queue,
            "CELERY_BEAT_SCHEDULE_FILENAME": str(tmp / "celerybeat-schedule"),
            # Quicker than production (5 s / 3 s) so the tests wait less.
            "GAMES_SWEEP_SECONDS": "1",
            "GAMES_STUCK_SECONDS": "2",
            "CONN_MAX_AGE": "0",
        }
        self.worker: subprocess.Popen[bytes] | None = None
        self.beat: subprocess.Popen[bytes] | None = None
        self.log_dir = tmp

    def _spawn(self, args: list[str], name: str) -> subprocess.Popen[bytes]:
        log = open(self.log_dir / f"{name}-{time.monotonic_ns()}.log", "wb")  # noqa: SIM115
        # A session of its own: SIGKILL reaches the whole process group (prefork children too).
        return subprocess.Popen(
            [CELERY, "-A", "pisyedili_api", *args],
            env=self.env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def start_worker(self) -> subprocess.Popen[bytes]:
        # The deployed command (docs/operations.md "Queues and workers"); without -Q it consumes
        # the bots, scoring, analysis and default queues of its settings. Solo pool: one process
        # the test can kill.
        self.worker = self._spawn(
            ["worker", "-l", "warning", "-P", "solo", "--without-gossip", "--without-mingle"],
            "worker",
        )
        return self.worker

    def start_beat(self) -> subprocess.Popen[bytes]:
        self.beat = self._spawn(["beat", "-l", "warning"], "beat")
        return self.beat

    def kill_worker(self) -> None:
        """SIGKILL: no shutdown, no ack, whatever the worker was doing."""
        assert self.worker is not None
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait(timeout=30)

    def stop(self) -> None:
        for process in (self.worker, self.beat):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=20)

    def idle(self) -> bool:
        """Nothing queued on the worker's queues and the worker between tasks: it answers a
        remote-control query (its solo pool answers only between tasks) with no task active or
        reserved."""
        import redis

        from pisyedili_api.celery import app

        # The worker first: a task that finished has sent the tasks it sends (on its commit),
        # so the queues read after it hold them.
        try:
            inspect = app.control.inspect(timeout=1.0)
            active, reserved = inspect.active(), inspect.reserved()
        except (OSError, redis.exceptions.ConnectionError):
            # A connection of this process's pool that a restart of the Redis closed (the web
            # tier is a process of its own: nothing here has used the pool since): anew.
            return False
        if not active or any(active.values()) or any((reserved or {}).values()):
            return False
        client = redis.Redis.from_url(self.redis.url, socket_timeout=2)
        try:
            queues = (self.bot_queue, self.scoring_queue, self.analysis_queue, self.default_queue)
            return not any(client.llen(queue) for queue in queues)
        finally:
            client.close()

    def settle(self, timeout: float = 120) -> None:
        """Wait for the worker, if it runs, to finish what the test left it: a task that writes
        after the test (the luck and skill estimates of a match that just ended) would otherwise
        deadlock with the database flush of the test's teardown."""
        if self.worker is None or self.worker.poll() is not None or not self.redis.running():
            return
        wait_for(self.idle, timeout, "the worker to finish the test's tasks", every=0.2)

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-3000:] for p in self.log_dir.glob("*.log"))
