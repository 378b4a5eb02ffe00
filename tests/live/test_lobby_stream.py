"""The lobby's stream, `GET /api/v1/lobby/events` (live.streams.lobby_events), across two web
processes: a match created, joined, left or cancelled on one is told on the other, a match's
moves are not. Every event goes through the hidden-information scanner (tests/live/sse.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.httpclient import http

from .sse import Event, Stream
from .test_streams import Player, _move

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]

FIELDS = {"match", "version", "status", "open_seats"}


def _lobby(stream: Stream, match_id: str, *, never: str | None = None) -> Event:
    """The next `lobby` event of `match_id` (earlier tests' matches may pass by meanwhile);
    none of match `never` on the way."""
    while True:
        event = stream.next(timeout=10)
        assert isinstance(event, Event), f"expected an event, got {event!r}"
        assert event.event == "lobby", event
        assert set(event.data) == FIELDS, event.data
        assert event.data["match"] != never, event.data
        if event.data["match"] == match_id:
            return event


def _ready(stream: Stream) -> None:
    assert stream.status == 200, stream.body
    first = stream.next(timeout=10)
    assert isinstance(first, Event) and first.event == "ready" and first.id is None, first


def test_a_match_entering_changing_in_and_leaving_the_lobby(live: Any) -> None:
    one, two = live.bases
    watcher = Stream(f"{two}/api/v1/lobby/events")  # anonymous: the lobby is public
    _ready(watcher)
    a, b, c = Player(one), Player(one), Player(one)
    created = a.post(one, "/api/v1/matches", {"seats": 3, "deals": 1})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    entered = _lobby(watcher, match_id)
    assert entered.data == {
        "match": match_id,
        "version": created.json()["version"],
        "status": "waiting",
        "open_seats": 2,
    }
    assert b.post(one, f"/api/v1/matches/{match_id}/join").status_code == 200
    joined = _lobby(watcher, match_id)
    assert joined.data["status"] == "waiting" and joined.data["open_seats"] == 1
    assert joined.data["version"] > entered.data["version"]
    assert b.post(one, f"/api/v1/matches/{match_id}/leave").status_code == 200
    left = _lobby(watcher, match_id)
    assert left.data["open_seats"] == 2 and left.data["version"] > joined.data["version"]
    assert b.post(one, f"/api/v1/matches/{match_id}/join").status_code == 200
    assert _lobby(watcher, match_id).data["open_seats"] == 1
    assert c.post(one, f"/api/v1/matches/{match_id}/join").status_code == 200
    started = _lobby(watcher, match_id)
    assert started.data["status"] == "active" and started.data["open_seats"] == 0
    # Play is not the lobby's news: a move sends nothing to the lobby's streams.
    _move(one, [a, b, c], match_id)
    assert watcher.next(timeout=5, heartbeats=True) == ": heartbeat"  # LIVE_HEARTBEAT_SECONDS=1


def test_a_cancelled_match_leaves_the_lobby(live: Any) -> None:
    one, two = live.bases
    a = Player(one)
    watcher = a.stream(two, "/api/v1/lobby/events")  # signed in: the same events
    _ready(watcher)
    created = a.post(one, "/api/v1/matches", {"seats": 2, "deals": 1})
    match_id = created.json()["id"]
    assert _lobby(watcher, match_id).data["status"] == "waiting"
    assert a.post(one, f"/api/v1/matches/{match_id}/cancel").status_code == 200
    cancelled = _lobby(watcher, match_id)
    assert cancelled.data["status"] == "cancelled" and cancelled.data["open_seats"] == 1


def test_a_full_table_never_enters_the_lobby_and_bad_requests_are_refused(live: Any) -> None:
    one, two = live.bases
    a = Player(one)
    watcher = Stream(f"{two}/api/v1/lobby/events")
    _ready(watcher)
    with_bots = a.post(one, "/api/v1/matches", {"seats": 2, "bots": ["greedy"], "deals": 1})
    assert with_bots.status_code == 201 and with_bots.json()["status"] == "active"
    waiting = a.post(one, "/api/v1/matches", {"seats": 2, "deals": 1}).json()["id"]
    # The bots' table started full: never in the lobby, never told. The next news is the other.
    told = _lobby(watcher, waiting, never=with_bots.json()["id"])
    assert told.data["status"] == "waiting"
    for method in ("POST", "DELETE"):
        refused = http.request(method, f"{two}/api/v1/lobby/events", timeout=20)
        assert refused.status_code == 405 and refused.headers["allow"] == "GET"
        assert refused.json()["code"] == "method_not_allowed"
    bad = http.get(f"{two}/api/v1/lobby/events", headers={"Authorization": "Token nope"})
    assert bad.status_code == 401 and bad.json()["code"] == "not_authenticated"


def test_lobby_streams_count_against_the_stream_cap(live: Any) -> None:
    one, _ = live.bases
    a = Player(one)
    held = [a.stream(one, "/api/v1/lobby/events") for _ in range(3)]  # LIVE_STREAMS_PER_PLAYER
    for stream in held:
        _ready(stream)
    over = a.get(one, "/api/v1/lobby/events")
    assert over.status_code == 429 and over.json()["code"] == "throttled"
