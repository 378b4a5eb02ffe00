"""Each server process freezes what it loaded out of the garbage collector's way once it is
ready (pisyedili_api.heap): the uvicorn worker at its lifespan startup, a Celery worker process
when it is ready. Each is checked in
a fresh interpreter, through the hook the server itself calls, against one that has not run
it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Prints the permanent generation's size before and after the server's own hook, then the
# number of collections traced (LIVE_TRACE_FILE) after one more collection.
_SCRIPT = r"""
import asyncio, gc, json, os, sys
hook = sys.argv[1]
if hook == "asgi":
    from live.asgi import application
    before = gc.get_freeze_count()

    async def lifespan():
        inbox = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
        sent = []

        async def receive():
            return inbox.pop(0)

        async def send(message):
            sent.append(message["type"])

        await application({"type": "lifespan"}, receive, send)
        assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"], sent

    asyncio.run(lifespan())
else:
    import django
    django.setup()
    from celery.signals import worker_process_init
    import pisyedili_api.celery  # noqa: F401  (connects the hook)
    before = gc.get_freeze_count()
    worker_process_init.send(sender=None)
gc.collect()
trace = os.environ["LIVE_TRACE_FILE"] + f".gc.{os.getpid()}"
lines = open(trace).read().splitlines() if os.path.exists(trace) else []
print(json.dumps({"before": before, "after": gc.get_freeze_count(), "traced": lines}))
"""


@pytest.mark.parametrize("hook", ["asgi", "celery"])
def test_a_server_process_freezes_what_it_loaded(hook: str, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "pisyedili_api.settings",
        "DJANGO_SECRET_KEY": "test-heap",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "",
        "LIVE_REDIS_URL": "",
        "EMBEDDED_BEAT": "0",
        "LIVE_TRACE_FILE": str(tmp_path / "trace"),
    }
    run = subprocess.run(
        [sys.executable, "-c", _SCRIPT, hook],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["before"] == 0  # nothing frozen until the hook runs
    # Django, DRF, the apps and the views loaded by the URL conf: far more than a bare
    # interpreter's few thousand objects.
    assert found["after"] > 50_000, found["after"]
    # The collection after the hook was traced: time, generation 2, its pause in ms.
    at, generation, pause = found["traced"][-1].split()
    assert generation == "2" and float(pause) >= 0 and float(at) > 0
