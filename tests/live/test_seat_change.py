"""A caller whose seat changes while their stream or long-poll is open (live.streams): a player
who leaves a waiting table is never sent the view of the seat they left, which the next player
to take it holds with their own hand. The stream ends with `reconnect` (`seat`; a WebSocket
closes 1013) and its opening again decides what they may see; a waiting long-poll answers as the
request would now. Every event is scanned for hidden information as it arrives (tests/live/sse.py,
tests/live/ws.py): a card of the seat's new holder fails the test."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from games.models import Match
from games.selectors import match_view_for_player
from players.models import Player as PlayerRow

from .sse import Event
from .test_streams import Player
from .ws import Message, Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def _waiting_table(base: str, spectators: str) -> tuple[Player, Player, str]:
    """A three-seat table of one deal, waiting, with its creator and a second player seated."""
    creator, leaver = Player(base), Player(base)
    body = {"seats": 3, "deals": 1, "spectators": spectators}
    created = creator.post(base, "/api/v1/matches", body)
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    assert leaver.post(base, f"/api/v1/matches/{match_id}/join").status_code == 200
    return creator, leaver, match_id


def _fill_the_seat_left(base: str, leaver: Player, match_id: str) -> None:
    """`leaver` leaves; two others take the seats, and the match starts (hands dealt)."""
    assert leaver.post(base, f"/api/v1/matches/{match_id}/leave").status_code == 200
    for _ in range(2):
        assert Player(base).post(base, f"/api/v1/matches/{match_id}/join").status_code == 200
    assert Match.objects.get(id=match_id).status == Match.Status.ACTIVE


@pytest.mark.parametrize("spectators", ["public", "none"])
def test_a_stream_of_a_seat_its_player_left_ends_and_opens_again_as_what_they_are_now(
    live: Any, spectators: str
) -> None:
    one, two = live.bases
    _creator, leaver, match_id = _waiting_table(one, spectators)
    path = f"/api/v1/matches/{match_id}/events"
    stream = leaver.stream(two, path)
    assert stream.status == 200
    first = stream.next()
    assert isinstance(first, Event) and first.event == "state" and first.data["you"] == 1
    _fill_the_seat_left(one, leaver, match_id)
    ended = stream.next()
    assert isinstance(ended, Event), ended
    assert (ended.event, ended.data) == ("reconnect", {"reason": "seat"})
    assert stream.next() is None  # the end: no view of the seat after it
    again = leaver.stream(two, path, **{"Last-Event-ID": first.id or ""})
    if spectators == "none":
        assert again.status == 403 and b"spectators_not_allowed" in again.body
        return
    view = again.next()
    assert isinstance(view, Event) and view.event == "state"
    assert view.data["you"] is None and view.data["hand"] == [] and view.data["status"] == "active"


def test_a_match_socket_of_a_seat_its_player_left_closes_1013(live: Any) -> None:
    one, two = live.bases
    _creator, leaver, match_id = _waiting_table(one, "public")
    url = f"{two.replace('http', 'ws', 1)}/api/v1/matches/{match_id}/events"
    socket = Socket(url, leaver.headers)
    first = socket.next()
    assert isinstance(first, Message) and first.event == "state" and first.data["you"] == 1
    _fill_the_seat_left(one, leaver, match_id)
    assert socket.next() is None and socket.close_code == 1013


@pytest.mark.parametrize("spectators", ["public", "none"])
def test_a_waiting_long_poll_of_a_player_who_left_their_seat_answers_as_now(
    live: Any, spectators: str
) -> None:
    one, two = live.bases
    _creator, leaver, match_id = _waiting_table(one, spectators)
    version = leaver.get(one, f"/api/v1/matches/{match_id}/state").json()["version"]
    answer: dict[str, Any] = {}

    def poll() -> None:
        path = f"/api/v1/matches/{match_id}/state?after_version={version}&wait=20"
        answer["response"] = leaver.get(two, path)

    waiting = threading.Thread(target=poll)
    waiting.start()
    _fill_the_seat_left(one, leaver, match_id)
    waiting.join(40)
    response = answer["response"]
    if spectators == "none":
        assert response.status_code == 403, response.text
        assert response.json()["code"] == "spectators_not_allowed"
        return
    assert response.status_code == 200, response.text
    view = response.json()
    assert view["version"] > version and view["you"] is None and view["hand"] == []


def test_the_threaded_long_poll_reads_the_seat_again_after_its_wait(live: Any) -> None:
    """The long-poll of the WSGI form (games.selectors.match_view_for_player, a thread that
    waits): the seat it answers for is the caller's in the match it answers with."""
    one, _two = live.bases
    _creator, leaver, match_id = _waiting_table(one, "public")
    version = Match.objects.get(id=match_id).version
    found: dict[str, Any] = {}

    def poll() -> None:
        try:
            player = PlayerRow.objects.get(id=leaver.id)
            found["answer"] = match_view_for_player(
                match_id=match_id, player=player, after_version=version, wait=20
            )
        finally:
            connection.close()

    waiting = threading.Thread(target=poll)
    waiting.start()
    _fill_the_seat_left(one, leaver, match_id)
    waiting.join(40)
    match, seat = found["answer"]
    assert match.version > version and seat is None
