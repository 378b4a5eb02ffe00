"""Live play across two web processes: the move on one, the events on the other (live.streams).

Every event's data goes through the hidden-information scanner (tests/leakscan.py) as the
viewer that received it, right after it arrived (the scanner compares with the database now).
"""

from __future__ import annotations

import base64
import json
import socket
import time
import uuid
from typing import Any
from unittest import mock

import httpx
import psutil
import pytest

from tests.httpclient import http
from tests.leakscan import scan_body

from .conftest import reopened_once_a_slot_is_free
from .sse import Event, Stream

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


class Player:
    def __init__(self, base: str):
        name = f"lv{uuid.uuid4().hex[:10]}"
        response = http.post(
            f"{base}/api/v1/auth/register", json={"username": name, "password": "s3cret-pass"}
        )
        assert response.status_code == 201, response.text
        self.id = response.json()["id"]
        self.token = response.json()["token"]
        self.headers = {"Authorization": f"Token {self.token}"}

    def get(self, base: str, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
        return http.get(f"{base}{path}", headers={**self.headers, **(headers or {})}, timeout=40)

    def post(self, base: str, path: str, body: Any = None) -> httpx.Response:
        return http.post(f"{base}{path}", json=body, headers=self.headers, timeout=40)

    def stream(self, base: str, path: str, **headers: str) -> Stream:
        return Stream(f"{base}{path}", {**self.headers, **headers})


def _table(base: str, spectators: str = "public") -> tuple[Player, Player, str]:
    """Two people at a two-seat match of one deal, started (created and joined on `base`)."""
    a, b = Player(base), Player(base)
    body = {"seats": 2, "deals": 1, "spectators": spectators}
    created = a.post(base, "/api/v1/matches", body)
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    assert b.post(base, f"/api/v1/matches/{match_id}/join").status_code == 200
    return a, b, match_id


def _move(base: str, players: list[Player], match_id: str) -> dict[str, Any]:
    """The seat on turn plays its first legal move; its view after the move."""
    for player in players:
        state = player.get(base, f"/api/v1/matches/{match_id}/state").json()
        if state["turn"] == state["you"] and state["legal_moves"]:
            body = {**state["legal_moves"][0], "version": state["version"]}
            response = player.post(base, f"/api/v1/matches/{match_id}/moves", body)
            assert response.status_code == 200, response.text
            return response.json()
    raise AssertionError("nobody is on turn")


def _play_to_the_end(base: str, players: list[Player], match_id: str) -> None:
    """The seats on turn play their first legal move until the match is finished."""
    for _ in range(400):
        state = players[0].get(base, f"/api/v1/matches/{match_id}/state").json()
        if state["status"] == "finished":
            return
        if state["phase"] == "deal_over":
            time.sleep(0.1)  # scoring runs on commit
            continue
        _move(base, players, match_id)
    raise AssertionError("the deal did not end")


def _clean(event: Event | str | None, viewer: Player, match_id: str) -> Event:
    assert isinstance(event, Event), f"expected an event, got {event!r}"
    path = f"/api/v1/matches/{match_id}/events"
    found = scan_body(path, event.data, json.dumps(event.data), viewer.id)
    assert not found, found
    return event


def test_a_move_on_one_process_reaches_a_stream_on_the_other(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    stream = a.stream(two, f"/api/v1/matches/{match_id}/events")
    assert stream.status == 200
    first = _clean(stream.next(), a, match_id)
    state = a.get(one, f"/api/v1/matches/{match_id}/state").json()
    # The first event is the seat's view, the same body as GET state, with id = version.
    assert first.event == "state" and first.data == state and first.id == str(state["version"])
    for _ in range(3):
        after = _move(one, [a, b], match_id)
        event = _clean(stream.next(), a, match_id)
        assert event.event == "state"
        assert event.id == str(after["version"]) == str(event.data["version"])
        assert event.data["you"] == 0 and len(event.data["hand"]) == event.data["hand_counts"][0]
    assert stream.next(timeout=5, heartbeats=True) == ": heartbeat"  # LIVE_HEARTBEAT_SECONDS=1
    stream.close()


def test_resume_with_last_event_id_skips_what_was_seen_and_sends_what_was_not(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    version = a.get(one, f"/api/v1/matches/{match_id}/state").json()["version"]
    # Up to date: nothing until the next change (a heartbeat comes first), then exactly it.
    current = a.stream(two, f"/api/v1/matches/{match_id}/events", **{"Last-Event-ID": str(version)})
    assert current.next(timeout=5, heartbeats=True) == ": heartbeat"
    after = _move(one, [a, b], match_id)
    event = _clean(current.next(), b if after["you"] else a, match_id)
    assert event.id == str(version + 1)
    current.close()
    # Behind: the current view at once.
    behind = b.stream(one, f"/api/v1/matches/{match_id}/events", **{"Last-Event-ID": str(version)})
    event = _clean(behind.next(timeout=5), b, match_id)
    assert event.id == str(version + 1) and event.data["you"] == 1
    behind.close()
    # An id the match never had: the current view, not silence until the match catches up.
    ahead = a.stream(two, f"/api/v1/matches/{match_id}/events", **{"Last-Event-ID": "999999"})
    event = _clean(ahead.next(timeout=5), a, match_id)
    assert event.id == str(version + 1)
    ahead.close()
    bad = a.get(two, f"/api/v1/matches/{match_id}/events", headers={"Last-Event-ID": "x"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"


def test_streams_of_a_match_you_may_not_see(live: Any) -> None:
    one, two = live.bases
    _, _, match_id = _table(one, spectators="none")
    outsider = Player(one)
    refused = outsider.get(two, f"/api/v1/matches/{match_id}/events")
    assert refused.status_code == 403 and refused.json()["code"] == "spectators_not_allowed"
    missing = outsider.get(two, f"/api/v1/matches/{uuid.uuid4()}/events")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    anonymous = http.get(f"{two}/api/v1/matches/{match_id}/events")
    assert anonymous.status_code == 403 and anonymous.json()["code"] == "spectators_not_allowed"
    bad_token = http.get(
        f"{two}/api/v1/matches/{match_id}/events", headers={"Authorization": "Token nope"}
    )
    assert bad_token.status_code == 401 and bad_token.json()["code"] == "not_authenticated"
    wrong = http.get(f"{two}/api/v1/me/events", headers={"Authorization": "Token nope"})
    assert wrong.status_code == 401 and wrong.json()["code"] == "not_authenticated"


def test_a_stream_ticket_reopens_its_own_stream_on_any_process_and_no_other(live: Any) -> None:
    from django.core import signing

    one, two = live.bases
    a, _, match_id = _table(one)
    path = f"/api/v1/matches/{match_id}/events"
    issued = a.post(one, "/api/v1/auth/stream-ticket", {"path": path})
    assert issued.status_code == 200, issued.text
    assert issued.json()["expires_in"] == 300
    ticket = issued.json()["ticket"]
    stream = Stream(f"{two}{path}?ticket={ticket}")  # no Authorization header
    assert stream.status == 200
    first = _clean(stream.next(), a, match_id)
    assert first.data["you"] == 0
    stream.close()
    # A reconnect (as EventSource makes it: the same URL, Last-Event-ID) on the other process.
    again = Stream(f"{one}{path}?ticket={ticket}", {"Last-Event-ID": first.id or ""})
    assert again.status == 200
    assert again.next(timeout=3, heartbeats=True) == ": heartbeat"  # nothing repeated
    again.close()
    for other in (
        "/api/v1/me/events",
        "/api/v1/lobby/events",
        f"/api/v1/matches/{uuid.uuid4()}/events",
    ):
        refused = http.get(f"{two}{other}?ticket={ticket}")
        assert refused.status_code == 401, (other, refused.text)
        assert refused.json()["code"] == "not_authenticated"
    # A ticket signed 301 s ago (the servers share this SECRET_KEY) has expired.
    body = signing.loads(ticket, salt="players.stream-ticket")
    with mock.patch("time.time", return_value=time.time() - 301):
        old = signing.dumps(body, salt="players.stream-ticket")
    expired = http.get(f"{two}{path}?ticket={old}")
    assert expired.status_code == 401 and "expired" in expired.json()["message"]
    forged = http.get(f"{two}{path}?ticket={ticket[:-2]}xx")
    assert forged.status_code == 401
    # An empty ticket is no ticket, as any optional query parameter sent empty: the token
    # beside it opens the stream, and the public lobby needs none.
    with_token = a.stream(two, f"{path}?ticket=")
    assert with_token.status == 200 and _clean(with_token.next(), a, match_id).data["you"] == 0
    with_token.close()
    lobby = Stream(f"{two}/api/v1/lobby/events?ticket=")
    assert lobby.status == 200
    lobby.close()


def test_me_stream_your_turn_and_resume_by_sequence(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    mine = a.stream(two, "/api/v1/me/events")
    ready = mine.next()
    assert isinstance(ready, Event) and ready.event == "ready"
    start = int(ready.id or 0)
    seen: list[Event] = []
    for _ in range(4):
        after = _move(one, [a, b], match_id)
        if after["turn"] == 0 and after["you"] == 1:  # the turn came to a (not a's own draw)
            event = mine.next()
            assert isinstance(event, Event) and event.event == "your_turn"
            assert event.data["match"] == match_id and event.data["version"] == after["version"]
            seen.append(event)
    assert [int(e.id or 0) for e in seen] == list(range(start + 1, start + 1 + len(seen)))
    mine.close()
    # Resume from the first of them: the rest again, each once, in order, then nothing more.
    if len(seen) >= 2:
        again = a.stream(one, "/api/v1/me/events", **{"Last-Event-ID": seen[0].id or ""})
        replay = [again.next() for _ in seen[1:]]
        assert [e.id for e in replay if isinstance(e, Event)] == [e.id for e in seen[1:]]
        assert again.next(timeout=3, heartbeats=True) == ": heartbeat"
        again.close()
    # An id from the future (e.g. a log that expired): resync.
    future = a.stream(two, "/api/v1/me/events", **{"Last-Event-ID": "999999"})
    event = future.next()
    assert isinstance(event, Event) and event.event == "resync"
    future.close()


def test_per_player_stream_cap_is_429(live: Any) -> None:
    one, two = live.bases
    a, _, match_id = _table(one)
    streams = [a.stream(one if i % 2 else two, "/api/v1/me/events") for i in range(3)]
    assert [s.status for s in streams] == [200, 200, 200]
    over = a.get(two, f"/api/v1/matches/{match_id}/events")
    assert over.status_code == 429 and over.json()["code"] == "throttled"
    assert over.headers["Retry-After"] == "5"
    streams[0].close()
    again = reopened_once_a_slot_is_free(
        lambda: Stream(f"{one}/api/v1/me/events", a.headers), "a closed stream"
    )
    assert again.status == 200
    for stream in [*streams[1:], again]:
        stream.close()


def _stop_reading(base: str, path: str, player: Player, websocket: bool) -> socket.socket:
    """`GET path` as `player` (as a WebSocket: the upgrade) by a client that reads the
    response's head, then nothing: a receive buffer of a few KB, full after a few events, and
    the window closes."""
    host, port = base.removeprefix("http://").split(":")
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    client.settimeout(10)
    client.connect((host, int(port)))
    head_lines = [f"GET {path} HTTP/1.1", f"Host: {host}", f"Authorization: Token {player.token}"]
    if websocket:
        key = base64.b64encode(uuid.uuid4().bytes).decode()
        head_lines += [
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
    client.sendall(("\r\n".join(head_lines) + "\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += client.recv(1)
    assert head.startswith(b"HTTP/1.1 101" if websocket else b"HTTP/1.1 200"), head
    return client


@pytest.mark.parametrize("websocket", [False, True], ids=["stream", "websocket"])
def test_a_client_that_stops_reading_is_dropped_and_its_slot_given_back(
    live: Any, websocket: bool
) -> None:
    """LIVE_SEND_TIMEOUT is 3 s here: the stream (or its WebSocket form) of a client that reads
    nothing more is dropped by TCP once its window has stayed closed that long
    (live.protocol.HttpProtocol), and the slot it held (LIVE_STREAMS_PER_PLAYER is 3
    here) is free again. The seat that reads goes on getting every event."""
    one, two = live.bases
    a, b = Player(one), Player(one)
    created = a.post(one, "/api/v1/matches", {"seats": 2, "deals": 5})
    match_id = created.json()["id"]
    assert b.post(one, f"/api/v1/matches/{match_id}/join").status_code == 200
    stalled = _stop_reading(two, f"/api/v1/matches/{match_id}/events", a, websocket)
    others = [a.stream(one, "/api/v1/me/events"), a.stream(two, "/api/v1/me/events")]
    reading = b.stream(one, f"/api/v1/matches/{match_id}/events")
    assert [s.status for s in [*others, reading]] == [200, 200, 200]
    assert _clean(reading.next(), b, match_id).event == "state"
    over = Stream(f"{one}/api/v1/me/events", a.headers)
    assert over.status == 429  # a's three slots: the stalled stream holds one
    moved = 0
    while moved < 16:  # each a view of a few hundred bytes or more: the window closes
        if a.get(one, f"/api/v1/matches/{match_id}/state").json()["phase"] == "deal_over":
            time.sleep(0.1)  # the next deal is dealt on commit of the scoring
            continue
        after = _move(one, [a, b], match_id)
        moved += 1
        while (event := _clean(reading.next(), b, match_id)).data["version"] < after["version"]:
            pass  # the reading seat has every version up to this move
    again = reopened_once_a_slot_is_free(
        lambda: Stream(f"{one}/api/v1/me/events", a.headers),
        "the connection of a client that stopped reading",
    )
    assert again.status == 200
    after = _move(one, [a, b], match_id)
    while (event := _clean(reading.next(), b, match_id)).data["version"] < after["version"]:
        pass
    # This move's version; or, when the move ended a deal, the next deal's if its scoring had
    # committed by the time the stream read the match (a stream sends the match as it reads it).
    assert event.data["version"] == after["version"] or (
        after["phase"] == "deal_over" and event.data["version"] == after["version"] + 1
    ), (event.data["version"], after["version"], after["phase"])
    stalled.close()


def test_long_poll_on_one_process_answers_a_move_on_the_other(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    state = a.get(two, f"/api/v1/matches/{match_id}/state").json()
    import threading

    answer: dict[str, Any] = {}

    def poll() -> None:
        started = time.monotonic()
        query = f"?after_version={state['version']}&wait=20"
        answer["response"] = a.get(two, f"/api/v1/matches/{match_id}/state{query}")
        answer["seconds"] = time.monotonic() - started

    waiting = threading.Thread(target=poll)
    waiting.start()
    time.sleep(1.0)
    assert "response" not in answer  # it waits
    moved = _move(one, [a, b], match_id)
    waiting.join(15)
    response = answer["response"]
    assert response.status_code == 200 and response.json()["version"] == moved["version"]
    assert answer["seconds"] < 5
    assert "no-store" in response.headers["Cache-Control"]
    assert not scan_body(f"/api/v1/matches/{match_id}/state", response.json(), response.text, a.id)
    # The same checks as the DRF route: a bad wait is 400, a non-seat the public view (403 on
    # a match without spectators).
    bad = a.get(two, f"/api/v1/matches/{match_id}/state?after_version=0&wait=99")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"
    outsider = Player(one).get(two, f"/api/v1/matches/{match_id}/state?after_version=0&wait=1")
    assert outsider.status_code == 200 and outsider.json()["you"] is None
    assert not scan_body(f"/api/v1/matches/{match_id}/state", outsider.json(), outsider.text, None)
    _, _, private = _table(one, spectators="none")
    refused = Player(one).get(two, f"/api/v1/matches/{private}/state?after_version=0&wait=1")
    assert refused.status_code == 403 and refused.json()["code"] == "spectators_not_allowed"


def test_the_match_stream_closes_when_the_match_is_over(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    stream = b.stream(two, f"/api/v1/matches/{match_id}/events")
    last: Event | None = None
    _play_to_the_end(one, [a, b], match_id)
    while True:
        event = stream.next()
        if isinstance(event, Event) and event.event == "state":
            last = event
            continue
        break
    assert isinstance(event, Event) and event.event == "close"
    assert event.data["reason"] == "match_over"
    assert last is not None and last.data["status"] == "finished"
    assert stream.next() is None  # the server ended the stream


def _threads(pid: int) -> int:
    return psutil.Process(pid).num_threads()


def _connections() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


def test_waiting_clients_hold_no_thread_and_no_database_connection(live: Any) -> None:
    import threading

    one, two = live.bases
    a, b, match_id = _table(one)
    extra = [Player(one) for _ in range(3)]
    server = live.procs[1].pid
    # Warm: the pool and the hub's threads, and what the first stream and the first waiting
    # long-poll make once for every later one (the hub's subscriber, the loop's executor).
    a.get(two, f"/api/v1/matches/{match_id}/state")
    first = a.stream(two, "/api/v1/me/events")
    version = a.get(two, f"/api/v1/matches/{match_id}/state").json()["version"]
    waited = a.get(two, f"/api/v1/matches/{match_id}/state?after_version={version}&wait=0.5")
    assert first.status == 200 and waited.status_code == 200
    first.close()
    time.sleep(0.5)
    threads, connections = _threads(server), _connections()
    streams = [
        p.stream(two, "/api/v1/me/events") for p in [a, b, *extra] for _ in range(3)
    ]  # 15 streams (3 per player, the cap of these servers)
    version = a.get(two, f"/api/v1/matches/{match_id}/state").json()["version"]
    answers: list[int] = []
    polls = [
        threading.Thread(
            target=lambda p=p: answers.append(
                p.get(
                    two, f"/api/v1/matches/{match_id}/state?after_version={version}&wait=20"
                ).status_code
            )
        )
        for p in [a, b] * 8
    ]  # 16 long-polls
    for poll in polls:
        poll.start()
    time.sleep(2)
    assert all(s.status == 200 for s in streams) and not answers  # all of them waiting
    # LIVE_DB_THREADS (4) and the pool's connections, whatever the number of waiting clients.
    assert _threads(server) <= threads + 4
    assert _connections() <= connections + 2
    _move(one, [a, b], match_id)
    for poll in polls:
        poll.join(15)
    assert answers == [200] * 16
    for stream in streams:
        stream.close()
