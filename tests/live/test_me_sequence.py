"""A player's `me` sequence when its store loses it (live.hub): Redis restarted empty (or the
player's keys evicted), or the in-process hub's process started again. The new sequence starts
past every id of the old one, so a client that resumes with an id it got before the loss is told
`resync`, never sent the new numbering's later events as if it had seen the earlier ones; and a
client that resumes within the new numbering gets every event after its id, each once."""

from __future__ import annotations

import asyncio
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson
import pytest
from django.conf import settings as django_settings

from live import hub
from live.streams import _me_catch_up


def _tell(player: str, count: int) -> None:
    for n in range(count):
        hub.publish(None, [(player, {"type": "your_turn", "match": f"m{n}", "version": n})])


def _lose(player: str) -> None:
    """What a Redis restarted empty does to this player's keys (only theirs: the suite's Redis
    is shared), or a restart to the in-process hub's."""
    if django_settings.LIVE_REDIS_URL:
        hub._redis().client.delete(*(f"{hub._prefix()}:me:{player}:{k}" for k in ("seq", "log")))
    else:
        with hub._local_lock:
            hub._local_seq.pop(player, None)
            hub._local_log.pop(player, None)
            hub._local_written.pop(player, None)


def _resume(player: str, after: int) -> list[tuple[str, int | None]]:
    # On a thread of its own: a browser test before this one may leave this thread's loop running.
    with ThreadPoolExecutor(1) as thread:
        _, events = thread.submit(asyncio.run, _me_catch_up(player, after)).result()
    return [(e.name, e.id) for e in events]


@pytest.mark.parametrize("store", ["redis", "in-process"])
def test_a_sequence_lost_starts_again_past_every_old_id(store: str, settings: Any) -> None:
    if store == "in-process":
        settings.LIVE_REDIS_URL = ""
    elif not settings.LIVE_REDIS_URL:
        pytest.skip("needs LIVE_REDIS_URL (make test gives the suite's Redis)")
    player = str(uuid.uuid4())
    ready, _ = hub.me_log(player, 0)  # a fresh connect's `ready`, before any event
    _tell(player, 3)
    old, logged = hub.me_log(player, ready)
    assert old == ready + 3 and [e["seq"] for e in logged] == [ready + 1, ready + 2, ready + 3]

    _lose(player)
    _tell(player, 10)  # more events than the old sequence had given
    new, logged = hub.me_log(player, 0)
    assert new > old + 10 and len(logged) == 10
    # Every old id resumes as `resync` (re-read your matches): events after it are gone.
    for after in (ready, ready + 1, old):
        assert _resume(player, after) == [("resync", new)]
    # Within the new numbering: every event after the id, each once, in order.
    first = logged[0]["seq"]
    assert _resume(player, first + 6) == [("your_turn", first + n) for n in range(7, 10)]


@pytest.mark.parametrize("store", ["redis", "in-process"])
def test_a_sequence_and_its_log_go_once_their_ttl_has_passed(store: str, settings: Any) -> None:
    """LIVE_ME_TTL after a player's last event, their sequence and log are gone, in Redis (the
    keys expire) and in the in-process hub (dropped at its next publish or read: a process that
    serves for months keeps the players of the last week only); a resume is then a `resync`."""
    if store == "in-process":
        settings.LIVE_REDIS_URL = ""
    elif not settings.LIVE_REDIS_URL:
        pytest.skip("needs LIVE_REDIS_URL (make test gives the suite's Redis)")
    settings.LIVE_ME_TTL = 1
    player, other = str(uuid.uuid4()), str(uuid.uuid4())
    _tell(player, 3)
    old, logged = hub.me_log(player, 0)
    assert len(logged) == 3
    time.sleep(1.5)
    _tell(other, 1)  # any player's event, after the first player's time
    if store == "in-process":
        with hub._local_lock:
            assert player not in hub._local_seq and player not in hub._local_log
    new, logged = hub.me_log(player, 0)
    assert logged == [] and new > old
    assert _resume(player, old) == [("resync", new)]


def test_a_match_message_and_its_players_events_are_one_message_the_matchs_first(
    settings: Any,
) -> None:
    """A writer's match message and its players' `me` events reach every web process as one
    Redis message (live.hub._PUBLISH_LUA: one array, the match's message first), each event
    with its sequence: one message for the hub to take apart, not one each."""
    if not settings.LIVE_REDIS_URL:
        pytest.skip("needs LIVE_REDIS_URL (make test gives the suite's Redis)")
    match, players = str(uuid.uuid4()), [str(uuid.uuid4()), str(uuid.uuid4())]
    subscription = hub._redis().client.pubsub()
    subscription.subscribe(f"{hub._prefix()}:events")
    try:
        assert subscription.get_message(timeout=2)["type"] == "subscribe"
        message = {"match": match, "version": 7, "status": "active"}
        told = [(p, {"type": "your_turn", "match": match, "version": 7}) for p in players]
        hub.publish(message, told)
        hub.publish(None, told[:1])  # events with no match message: an array of their own
        got: list[Any] = []
        deadline = time.monotonic() + 5
        while len(got) < 2 and time.monotonic() < deadline:
            raw = subscription.get_message(timeout=0.5)
            if raw and raw["type"] == "message" and match.encode() in raw["data"]:
                got.append(orjson.loads(raw["data"]))
    finally:
        subscription.close()
    first, second = got
    assert first[0] == message and [m["player"] for m in first[1:]] == players
    assert all(m["event"]["type"] == "your_turn" and m["event"]["seq"] for m in first[1:])
    assert [m["player"] for m in second] == players[:1]
