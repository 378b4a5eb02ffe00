"""Table talk on the match stream (live.streams): the phrase a seat says reaches the other
seat's stream and a spectator's, as the event `talk` (ids only; every event scanned for hidden
information as it arrives, tests/live/sse.py and ws.py), without a version change or an event
id; over the WebSocket form too, with a resignation's event."""

from __future__ import annotations

from typing import Any

import pytest

from .sse import Event, Stream
from .test_streams import _clean, _move, _table
from .ws import Message, Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def test_seats_and_spectators_hear_a_phrase(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    path = f"/api/v1/matches/{match_id}/events"
    seat = a.stream(two, path)
    spectator = Stream(f"{two}{path}")
    first = _clean(seat.next(), a, match_id)
    assert first.event == "state"
    assert spectator.next().event == "state"  # type: ignore[union-attr]
    said = b.post(one, f"/api/v1/matches/{match_id}/talk", {"phrase": "well_played"})
    assert said.status_code == 200, said.text
    for stream in (seat, spectator):
        event = stream.next()
        assert isinstance(event, Event) and event.event == "talk", event
        assert event.id is None and event.data == said.json()
        assert event.data["seat"] == 1 and event.data["phrase"] == "well_played"
    # The stream goes on as before: the next move's view follows.
    after = _move(one, [a, b], match_id)
    event = _clean(seat.next(), a, match_id)
    assert event.event == "state" and event.data["version"] == after["version"]
    # A long-poll is not woken by talk: it answers the next version.
    version = after["version"]
    b.post(one, f"/api/v1/matches/{match_id}/talk", {"phrase": "oops"})
    polled = a.get(two, f"/api/v1/matches/{match_id}/state?after_version={version}&wait=1")
    assert polled.status_code == 200 and polled.json()["version"] == version


def test_talk_and_a_resignation_over_a_websocket(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    socket = Socket(f"{two.replace('http://', 'ws://', 1)}/api/v1/matches/{match_id}/events",
                    a.headers)  # fmt: skip
    assert socket.status == 101
    first = socket.next()
    assert isinstance(first, Message) and first.event == "state"
    said = b.post(one, f"/api/v1/matches/{match_id}/talk", {"phrase": "oops"}).json()
    talk = socket.next()
    assert isinstance(talk, Message) and talk.event == "talk"
    assert talk.id is None and talk.data == said
    resigned = b.post(one, f"/api/v1/matches/{match_id}/resign").json()
    event = socket.next()
    assert isinstance(event, Message) and event.event == "resigned", event
    assert event.id is None and event.data["seat"] == 1
    assert event.data["version"] == resigned["version"]
    view = socket.next()
    assert isinstance(view, Message) and view.event == "state"
    assert view.data["resigned"] == [1]
    socket.close()
