"""The streams' WebSocket form (live.asgi `_websocket`) across two web processes: the
same paths, views, authentication (header or ticket), resume, stream slots and refusals as the
event streams, each event one JSON text message `{"event", "id", "data"}`. Every message is
scanned for hidden information as it arrives (tests/live/ws.py)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from .conftest import Servers, reopened_once_a_slot_is_free
from .test_streams import Player, _move, _play_to_the_end, _table
from .ws import Message, Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def _ws(base: str) -> str:
    return base.replace("http://", "ws://", 1)


def _message(item: Message | str | None, event: str) -> Message:
    assert isinstance(item, Message) and item.event == event, f"expected {event}, got {item!r}"
    return item


def test_a_move_on_one_process_reaches_a_websocket_on_the_other(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    # A browser's way: a ticket to this stream in the URL, no Authorization header.
    path = f"/api/v1/matches/{match_id}/events"
    ticket = a.post(one, "/api/v1/auth/stream-ticket", {"path": path}).json()["ticket"]
    socket = Socket(f"{_ws(two)}/api/v1/matches/{match_id}/events?ticket={ticket}")
    assert socket.status == 101
    first = _message(socket.next(), "state")
    state = a.get(one, f"/api/v1/matches/{match_id}/state").json()
    # The same view as GET state (and the stream's event), id = the version.
    assert first.data == state and first.id == state["version"]
    for _ in range(3):
        after = _move(one, [a, b], match_id)
        event = _message(socket.next(), "state")
        assert event.id == after["version"] == event.data["version"]
        assert event.data["you"] == 0 and len(event.data["hand"]) == event.data["hand_counts"][0]
    assert socket.next(timeout=5, heartbeats=True) == "heartbeat"  # LIVE_HEARTBEAT_SECONDS=1
    socket.close()
    # The ticket reopens this socket (a reconnect, on the other process) and no other.
    again = Socket(f"{_ws(one)}/api/v1/matches/{match_id}/events?ticket={ticket}")
    assert again.status == 101 and _message(again.next(), "state").id == after["version"]
    again.close()
    other = Socket(f"{_ws(one)}/api/v1/me/events?ticket={ticket}")
    assert other.status == 401 and other.body["code"] == "not_authenticated"


def test_a_websocket_resumes_after_its_last_id_and_spectators_get_the_public_view(
    live: Any,
) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    version = a.get(one, f"/api/v1/matches/{match_id}/state").json()["version"]
    path = f"/api/v1/matches/{match_id}/events"
    # Up to date (last_event_id in the query, or the Last-Event-ID header): nothing until the
    # next change, then exactly it.
    current = Socket(f"{_ws(two)}{path}?last_event_id={version}", a.headers)
    header = Socket(f"{_ws(one)}{path}", {**b.headers, "Last-Event-ID": str(version)})
    spectator = Socket(f"{_ws(two)}{path}")  # anonymous, on a `spectators: public` match
    seen = _message(spectator.next(), "state")
    assert seen.data["you"] is None and seen.data["hand"] == [] and seen.data["legal_moves"] == []
    assert current.next(timeout=3, heartbeats=True) == "heartbeat"
    assert header.next(timeout=3, heartbeats=True) == "heartbeat"
    _move(one, [a, b], match_id)
    assert _message(current.next(), "state").id == version + 1
    assert _message(header.next(), "state").data["you"] == 1
    public = _message(spectator.next(), "state")
    assert public.id == version + 1 and public.data["hand"] == []
    bad = Socket(f"{_ws(two)}{path}?last_event_id=x", a.headers)
    assert bad.status == 400 and bad.body["code"] == "invalid"


def test_websockets_are_refused_as_the_streams_are(live: Any) -> None:
    one, two = live.bases
    _, _, match_id = _table(one, spectators="none")
    outsider = Player(one)
    refused = Socket(f"{_ws(two)}/api/v1/matches/{match_id}/events", outsider.headers)
    assert refused.status == 403 and refused.body["code"] == "spectators_not_allowed"
    missing = Socket(f"{_ws(one)}/api/v1/matches/{uuid.uuid4()}/events", outsider.headers)
    assert missing.status == 404 and missing.body["code"] == "not_found"
    bad_token = Socket(f"{_ws(two)}/api/v1/me/events", {"Authorization": "Token nope"})
    assert bad_token.status == 401 and bad_token.body["code"] == "not_authenticated"
    # Messages in the caller's language, the code unchanged.
    turkish = Socket(
        f"{_ws(two)}/api/v1/me/events", {"Authorization": "Token nope", "Accept-Language": "tr"}
    )
    assert turkish.status == 401 and turkish.body["code"] == "not_authenticated"
    assert turkish.body["message"] != bad_token.body["message"]
    # Only the streams' paths speak WebSocket.
    other = Socket(f"{_ws(one)}/api/v1/matches/{match_id}/state", outsider.headers)
    assert other.status == 404 and other.body["code"] == "not_found"


def test_websockets_take_the_same_stream_slots(live: Any) -> None:
    one, two = live.bases
    a, _, match_id = _table(one)
    held = [Socket(f"{_ws(one if i % 2 else two)}/api/v1/me/events", a.headers) for i in range(2)]
    stream = a.stream(one, "/api/v1/me/events")  # LIVE_STREAMS_PER_PLAYER=3, streams included
    assert [s.status for s in held] == [101, 101] and stream.status == 200
    over = Socket(f"{_ws(two)}/api/v1/matches/{match_id}/events", a.headers)
    assert over.status == 429 and over.body["code"] == "throttled"
    held[0].close()
    again = reopened_once_a_slot_is_free(
        lambda: Socket(f"{_ws(one)}/api/v1/me/events", a.headers), "a closed socket"
    )
    assert again.status == 101


def test_me_and_lobby_over_websocket(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    mine = Socket(f"{_ws(two)}/api/v1/me/events", a.headers)
    ready = _message(mine.next(), "ready")
    assert ready.id == ready.data["seq"]
    lobby = Socket(f"{_ws(two)}/api/v1/lobby/events")
    assert _message(lobby.next(), "ready").id is None  # the lobby's events have no ids
    seen: list[Message] = []
    for _ in range(4):
        after = _move(one, [a, b], match_id)
        if after["turn"] == 0 and after["you"] == 1:  # the turn came to a (not a's own draw)
            event = _message(mine.next(), "your_turn")
            assert event.data["match"] == match_id and event.data["version"] == after["version"]
            seen.append(event)
    assert [e.id for e in seen] == list(range(ready.id + 1, ready.id + 1 + len(seen)))
    created = a.post(one, "/api/v1/matches", {"seats": 2, "deals": 1})
    assert created.status_code == 201, created.text
    news = _message(lobby.next(), "lobby")
    assert news.data == {
        "match": created.json()["id"],
        "version": created.json()["version"],
        "status": "waiting",
        "open_seats": 1,
    }
    assert a.post(one, f"/api/v1/matches/{news.data['match']}/cancel").status_code == 200


def test_the_websocket_closes_when_the_match_is_over(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    socket = Socket(f"{_ws(two)}/api/v1/matches/{match_id}/events", b.headers)
    _play_to_the_end(one, [a, b], match_id)
    last: Message | None = None
    while isinstance(item := socket.next(), Message) and item.event == "state":
        last = item
    close = _message(item, "close")
    assert close.data["reason"] == "match_over"
    assert last is not None and last.data["status"] == "finished"
    assert socket.next() is None and socket.close_code == 1000  # the server closed it


def test_a_websocket_from_an_origin_the_cors_settings_refuse(
    live: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    one, _ = live.bases
    a, _, match_id = _table(one)
    allowed = "http://play.example"
    env = {**live.env, "CORS_ALLOWED_ORIGINS": allowed}
    server = Servers(env, 1, tmp_path_factory.mktemp("uvicorn-cors"))
    try:
        base = _ws(server.bases[0])
        path = f"/api/v1/matches/{match_id}/events"
        other = Socket(f"{base}{path}", a.headers, origin="http://elsewhere.example")
        assert other.status == 403 and other.body["code"] == "forbidden"
        assert "CORS_ALLOWED_ORIGINS" in other.body["message"]
        page = Socket(f"{base}{path}", a.headers, origin=allowed)
        assert page.status == 101 and _message(page.next(), "state").data["you"] == 0
        page.close()
        native = Socket(f"{base}{path}", a.headers)  # no Origin: no browser, not bound by CORS
        assert native.status == 101
        native.close()
        # The same origins for a page's HTTP requests (django-cors-headers).
        preflight = httpx.options(
            f"{server.bases[0]}/api/v1/me",
            headers={"Origin": "http://elsewhere.example", "Access-Control-Request-Method": "GET"},
        )
        assert "access-control-allow-origin" not in preflight.headers
    finally:
        server.stop()
