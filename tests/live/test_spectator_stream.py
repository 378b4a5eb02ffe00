"""Spectators of live play across two web processes (live.streams): the public view pushed to
signed-in and anonymous spectators, the ASGI long-poll, and the per-address cap of anonymous
streams. Every event is scanned for hidden information as it arrives (tests/live/sse.py): a
spectator may see no card of any hand nor of the stock."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from tests.httpclient import http
from tests.leakscan import scan_body

from .sse import Event, Stream
from .test_streams import Player, _move, _table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def _public(event: Event | str | None) -> Event:
    assert isinstance(event, Event), f"expected an event, got {event!r}"
    if event.event == "state":
        view = event.data
        assert view["you"] is None and view["hand"] == [] and view["legal_moves"] == []
        assert event.id == str(view["version"])
    return event


def test_spectators_get_the_public_view_after_every_move_until_the_end(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    path = f"/api/v1/matches/{match_id}/events"
    anonymous = Stream(f"{two}{path}")
    watcher = Player(one)
    signed_in = watcher.stream(two, path)
    assert anonymous.status == 200 and signed_in.status == 200
    seat_view = a.get(one, f"/api/v1/matches/{match_id}/state").json()
    for stream in (anonymous, signed_in):
        first = _public(stream.next())
        assert first.event == "state" and first.data["version"] == seat_view["version"]
        assert first.data["hand_counts"] == seat_view["hand_counts"] == [7, 7]
        assert first.data["stock_count"] == seat_view["stock_count"]
    for _ in range(400):
        state = a.get(one, f"/api/v1/matches/{match_id}/state").json()
        if state["status"] == "finished":
            break
        if state["phase"] == "deal_over":
            time.sleep(0.1)  # scoring runs on commit
            continue
        after = _move(one, [a, b], match_id)
        for stream in (anonymous, signed_in):
            event = _public(stream.next())
            # A later view may already have come (changes in quick succession are one view).
            assert event.event == "state" and int(event.id or 0) >= after["version"]
            assert event.data["top_card"] is not None or event.data["phase"] == "opening"
    else:
        raise AssertionError("the deal did not end")
    for stream in (anonymous, signed_in):
        last = None
        while isinstance(event := stream.next(), Event) and event.event == "state":
            last = _public(event)
        assert isinstance(event, Event) and event.event == "close"
        assert event.data["reason"] == "match_over"
        assert last is None or last.data["status"] in ("active", "finished")
        assert stream.next() is None


def test_a_spectator_long_polls_on_the_hub(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    version = a.get(one, f"/api/v1/matches/{match_id}/state").json()["version"]
    answer: dict[str, Any] = {}

    def poll() -> None:
        url = f"{two}/api/v1/matches/{match_id}/state?after_version={version}&wait=20"
        answer["response"] = http.get(url, timeout=40)

    waiting = threading.Thread(target=poll)
    waiting.start()
    time.sleep(1.0)
    assert "response" not in answer  # it waits
    moved = _move(one, [a, b], match_id)
    waiting.join(15)
    response = answer["response"]
    assert response.status_code == 200, response.text
    view = response.json()
    assert view["version"] == moved["version"] and view["you"] is None and view["hand"] == []
    path = f"/api/v1/matches/{match_id}/state"
    assert not scan_body(path, view, response.text, None)


def _anonymous_streams(base: str, path: str, count: int) -> list[Stream]:
    """`count` anonymous streams, waiting for slots that streams of earlier tests still hold
    (a closed stream's slot comes back once its server notices)."""
    streams: list[Stream] = []
    deadline = time.monotonic() + 15
    while len(streams) < count:
        stream = Stream(f"{base}{path}")
        if stream.status == 200:
            streams.append(stream)
        else:
            assert stream.status == 429 and time.monotonic() < deadline, stream.body
            time.sleep(0.5)
    return streams


def test_anonymous_spectators_are_capped_per_address(live: Any) -> None:
    one, two = live.bases
    a, _, match_id = _table(one)
    path = f"/api/v1/matches/{match_id}/events"
    # LIVE_STREAMS_PER_IP=3 over both processes (the slots are in Redis).
    held = _anonymous_streams(one, path, 2) + _anonymous_streams(two, path, 1)
    over = http.get(f"{two}{path}", timeout=10)
    assert over.status_code == 429 and over.json()["code"] == "throttled"
    assert "address" in over.json()["message"]
    # A signed-in spectator counts on their own player's slots, not the address's.
    watcher = Player(one)
    signed_in = watcher.stream(two, path)
    assert signed_in.status == 200
    assert isinstance(signed_in.next(), Event)
    signed_in.close()
    held.pop().close()
    again = _anonymous_streams(one, path, 1)
    assert again[0].status == 200
    for stream in [*held, *again]:
        stream.close()
