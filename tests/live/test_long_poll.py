"""Waiting long-polls (`GET …/state?after_version=V&wait=S`) under live.asgi wait on the
event loop: one that waits holds up no other request of its process, neither another long-poll
nor a stream being opened. (test_streams.py: a long-poll answers a move on the other process.)

Every middleware is async-capable, so that a stream's opening (Django's ASGI application) runs
through the chain without a thread switch around each one.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import orjson
import pytest
import redis
from django.conf import settings
from django.utils.module_loading import import_string

from games.models import Match

from .test_streams import Event, _move, _table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]


def test_every_middleware_runs_on_the_event_loop() -> None:
    sync_only = [
        path
        for path in settings.MIDDLEWARE
        if not getattr(import_string(path), "async_capable", False)
    ]
    assert sync_only == []


def test_a_waiting_long_poll_holds_up_no_other_request(live: Any) -> None:
    one, two = live.bases
    a, _, quiet = _table(one)
    c, d, busy = _table(one)
    version = a.get(two, f"/api/v1/matches/{quiet}/state").json()["version"]
    answers: dict[str, Any] = {}

    def poll(name: str, player: Any, match_id: str, after: int, wait: int) -> None:
        started = time.monotonic()
        query = f"?after_version={after}&wait={wait}"
        answers[name] = player.get(two, f"/api/v1/matches/{match_id}/state{query}")
        answers[f"{name} seconds"] = time.monotonic() - started

    # Several long-polls on a match that does not move, all waiting on process `two`.
    waiting = [
        threading.Thread(target=poll, args=(f"quiet{i}", a, quiet, version, 12)) for i in range(4)
    ]
    for thread in waiting:
        thread.start()
    time.sleep(1.5)
    # Meanwhile, on the same process: a stream opens and sends its first view at once ...
    started = time.monotonic()
    stream = c.stream(two, f"/api/v1/matches/{busy}/events")
    first = stream.next(timeout=10)
    assert isinstance(first, Event) and first.event == "state"
    assert time.monotonic() - started < 5
    # ... and a long-poll on a match that moves answers the move.
    busy_version = first.data["version"]
    other = threading.Thread(target=poll, args=("busy", c, busy, busy_version, 25))
    other.start()
    time.sleep(0.5)
    moved = _move(one, [c, d], busy)
    other.join(10)
    assert answers["busy"].status_code == 200, answers["busy"].text
    assert answers["busy"].json()["version"] == moved["version"]
    assert answers["busy seconds"] < 5
    assert not any(name.startswith("quiet") for name in answers)  # they still wait
    stream.close()
    for thread in waiting:
        thread.join(30)
    assert [answers[f"quiet{i}"].status_code for i in range(4)] == [200] * 4
    assert all(answers[f"quiet{i}"].json()["version"] == version for i in range(4))


@pytest.mark.parametrize("woken", [False, True], ids=["at its timeout", "by a version"])
def test_a_long_poll_whose_match_is_gone_when_it_answers_is_not_found(
    live: Any, live_env: dict[str, str], woken: bool
) -> None:
    """A match deleted (by an operator) while a long-poll waits on it: the poll answers 404
    `not_found`, at its timeout or when a version message wakes it, never the view its checks
    read before the wait."""
    one, two = live.bases
    a, _, match_id = _table(one)
    version = a.get(two, f"/api/v1/matches/{match_id}/state").json()["version"]
    answers: list[Any] = []
    wait = 6

    def poll() -> None:
        started = time.monotonic()
        query = f"?after_version={version}&wait={wait}"
        answers.append(a.get(two, f"/api/v1/matches/{match_id}/state{query}"))
        answers.append(time.monotonic() - started)

    waiting = threading.Thread(target=poll)
    waiting.start()
    time.sleep(1.5)
    Match.objects.filter(id=match_id).delete()
    if woken:  # the message of a version committed before the deletion (live.hub's wire)
        message = {"match": match_id, "version": version + 1, "status": "active"}
        channel = f"{live_env['LIVE_CHANNEL_PREFIX']}:events"
        redis.Redis.from_url(live_env["LIVE_REDIS_URL"]).publish(channel, orjson.dumps(message))
    waiting.join(timeout=wait + 10)
    response, seconds = answers
    assert response.status_code == 404, response.text
    assert response.json()["code"] == "not_found"
    assert (seconds < wait - 2) if woken else (seconds >= wait - 0.5)
