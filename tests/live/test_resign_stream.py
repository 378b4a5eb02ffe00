"""A resignation on the match stream (live.streams): the other seat and the spectators get the
event `resigned` (public facts only; every event scanned for hidden information as it
arrives, tests/live/sse.py), then the view that shows it; once no person is left the match is
abandoned and the streams close."""

from __future__ import annotations

from typing import Any

import pytest

from .sse import Event, Stream
from .test_streams import _clean, _table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def _until_resigned(stream: Stream) -> tuple[Event, Event]:
    """The `resigned` event (the views of earlier versions may come first) and the view after
    it."""
    for _ in range(50):
        event = stream.next()
        assert isinstance(event, Event), f"expected an event, got {event!r}"
        if event.event == "resigned":
            view = stream.next()
            assert isinstance(view, Event) and view.event == "state", view
            return event, view
        assert event.event == "state", event
    raise AssertionError("no resigned event")


def test_seats_and_spectators_see_a_resignation_then_the_abandoned_match(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    path = f"/api/v1/matches/{match_id}/events"
    seat = a.stream(two, path)
    spectator = Stream(f"{two}{path}")
    assert seat.status == 200 and spectator.status == 200
    first = b.post(one, f"/api/v1/matches/{match_id}/resign")
    assert first.status_code == 200, first.text
    version = first.json()["version"]
    for stream, viewer in ((seat, a), (spectator, None)):
        event, view = _until_resigned(stream)
        assert event.id is None and event.data == {
            "match": match_id,
            "version": version,
            "status": "active",
            "seat": 1,
            "absent": False,
        }
        if viewer is not None:
            _clean(view, viewer, match_id)
        else:
            assert view.data["you"] is None and view.data["hand"] == []
        assert view.data["resigned"] == [1] and int(view.id or 0) >= version
        assert view.data["version"] >= version
    # The bot plays seat 1; a gives up too: nobody is left, the match is abandoned at once.
    last = a.post(one, f"/api/v1/matches/{match_id}/resign")
    assert last.status_code == 200, last.text
    assert last.json()["status"] == "abandoned"
    for stream in (seat, spectator):
        event, view = _until_resigned(stream)
        assert event.data["seat"] == 0 and event.data["status"] == "abandoned"
        assert view.data["status"] == "abandoned" and view.data["phase"] == "match_over"
        assert view.data["resigned"] == [1, 0] and view.data["legal_moves"] == []
        close = stream.next()
        assert isinstance(close, Event) and close.event == "close"
        assert close.data["reason"] == "match_over"
        assert stream.next() is None
