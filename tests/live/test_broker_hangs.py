"""A move while the broker's Redis hangs (stopped by a signal: it neither answers nor refuses
a connection, as behind a network that drops its packets), on a uvicorn process of its own
whose broker is a private Redis that this test starts and stops (never the suite's): the move
answers within seconds, not for as long as the hang lasts; the bot's turn it could not send is
the sweeper's to send again once Redis answers (docs/architecture.md, Tasks)."""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from pathlib import Path

import pytest

from tests.backing_services import PrivateRedis

from .conftest import Servers
from .test_streams import Player

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]

# How long the test lets Redis hang at most (a move that waits for it waits this long).
HANG_SECONDS = 25


def test_a_move_answers_while_the_broker_s_redis_hangs(live_env: dict[str, str], tmp_path: Path):
    redis = PrivateRedis().start()
    env = {
        **live_env,
        "CELERY_BROKER_URL": redis.url,  # no worker: the bot's turns wait in the queue
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "DJANGO_SETTINGS_MODULE": "pisyedili_api.settings",  # not the suite's: tasks eager
        "CELERY_BOT_QUEUE": f"test-hang-{uuid.uuid4().hex[:8]}",
    }
    server = Servers(env, 1, tmp_path)
    base = server.bases[0]
    try:
        person = Player(base)
        for _ in range(20):  # a match against the bot where the person opens
            created = person.post(base, "/api/v1/matches", {"seats": 2, "bots": ["greedy"]})
            assert created.status_code == 201, created.text
            match_id = created.json()["id"]
            state = person.get(base, f"/api/v1/matches/{match_id}/state").json()
            plays = [m for m in state["legal_moves"] if m["action"] == "play"]
            if state["turn"] == state["you"] and plays:
                break
        else:
            raise AssertionError("the person never opened with a card to play")
        assert redis.process is not None
        os.kill(redis.process.pid, signal.SIGSTOP)
        woken = threading.Timer(HANG_SECONDS, os.kill, (redis.process.pid, signal.SIGCONT))
        woken.start()
        try:
            body = {**plays[0], "version": state["version"]}  # the bot's turn follows
            started = time.monotonic()
            moved = person.post(base, f"/api/v1/matches/{match_id}/moves", body)
            took = time.monotonic() - started
        finally:
            woken.cancel()
            os.kill(redis.process.pid, signal.SIGCONT)
        assert moved.status_code == 200, moved.text
        assert moved.json()["version"] == state["version"] + 1 and moved.json()["turn"] == 1
        assert took < 8, took  # its throttle's count and the bot's send, each given up in time
    finally:
        server.stop()
        redis.stop()
