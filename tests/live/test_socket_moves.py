"""Moves on a match's WebSocket (live.streams.MatchSocketMoves) across two web processes: a
`{"type": "move", …, "key"}` message is answered as `POST …/moves` answers the same body and
Idempotency-Key (the same status and body, its error codes, its exactly-once), by the route's
own code; a refused move changes nothing. Every message is scanned for hidden information as it
arrives (tests/live/ws.py), the answers to moves included."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest

from tests.httpclient import http

from .conftest import Servers
from .test_streams import Player, _table
from .ws import Message, Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def _ws(base: str) -> str:
    return base.replace("http://", "ws://", 1)


def _on_turn(base: str, players: list[Player], match_id: str) -> tuple[Player, Player, dict]:
    """The person on turn, the other one, and the state as the one on turn sees it."""
    for i, player in enumerate(players):
        state = player.get(base, f"/api/v1/matches/{match_id}/state").json()
        if state["turn"] == state["you"] and state["legal_moves"]:
            return player, players[1 - i], state
    raise AssertionError("nobody is on turn")


def _rest(base: str, player: Player, match_id: str, body: Any, key: str | None) -> httpx.Response:
    headers = {**player.headers, **({"Idempotency-Key": key} if key is not None else {})}
    return http.post(
        f"{base}/api/v1/matches/{match_id}/moves", json=body, headers=headers, timeout=40
    )


def _socket(base: str, player: Player | None, match_id: str) -> Socket:
    socket = Socket(
        f"{_ws(base)}/api/v1/matches/{match_id}/events", player.headers if player else None
    )
    assert socket.status == 101
    return socket


def _log(base: str, player: Player, match_id: str) -> list[dict]:
    response = player.get(base, f"/api/v1/matches/{match_id}/moves")
    assert response.status_code == 200
    return response.json()


def test_a_move_on_the_socket_is_answered_as_the_route_answers_it(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    mover, other, state = _on_turn(one, [a, b], match_id)
    # The mover's socket on one process, the other person's on the other.
    mine, theirs = _socket(two, mover, match_id), _socket(one, other, match_id)
    assert mine.next().data["version"] == state["version"]  # type: ignore[union-attr]
    assert theirs.next().data["version"] == state["version"]  # type: ignore[union-attr]
    body = {**state["legal_moves"][0], "version": state["version"]}
    mine.send({"type": "move", **body, "key": "m-1"})
    answer = mine.answer()
    assert answer.key == "m-1" and answer.status == 200
    assert answer.data["version"] == state["version"] + 1 and answer.data["you"] == state["you"]
    assert "pending_bot_turns" in answer.data
    # The same key and body on the route, on the other process: the same answer, applied once.
    again = _rest(one, mover, match_id, body, "m-1")
    assert again.status_code == 200 and again.json() == answer.data
    assert again.headers["Cache-Control"] == "no-store, private"
    assert len(_log(one, mover, match_id)) == 1
    # Both sockets see the new version as a stream event (the answer's socket too).
    seen = mine.passed or [mine.next()]
    assert isinstance(seen[-1], Message) and seen[-1].event == "state"
    assert seen[-1].id == state["version"] + 1
    event = theirs.next()
    assert isinstance(event, Message) and event.id == state["version"] + 1
    assert event.data["you"] == other_seat(state)
    # No key: answered all the same, in the order sent (the key is then null).
    turn, _, now = _on_turn(one, [a, b], match_id)
    socket = mine if turn is mover else theirs
    socket.send({"type": "move", **now["legal_moves"][0], "version": now["version"]})
    plain = socket.answer()
    assert plain.key is None and plain.status == 200
    assert plain.data["version"] == now["version"] + 1


def other_seat(state: dict) -> int:
    return 1 - int(state["you"])


def test_refused_socket_moves_get_the_routes_error_and_change_nothing(live: Any) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    mover, other, state = _on_turn(one, [a, b], match_id)
    version = state["version"]
    move = {**state["legal_moves"][0], "version": version}
    mine, theirs = _socket(two, mover, match_id), _socket(one, other, match_id)
    outsider = Player(one)
    watching, anonymous = _socket(two, outsider, match_id), _socket(one, None, match_id)
    for socket in (mine, theirs, watching, anonymous):
        assert isinstance(socket.next(), Message)  # the current view

    def both(socket: Socket, player: Player | None, body: Any, key: str | None) -> Message:
        """The socket's answer to `body` (with `key`), checked against the route's answer to
        the same body and key: the same status and body."""
        socket.send({"type": "move", **body, **({"key": key} if key is not None else {})})
        answer = socket.answer()
        assert answer.key == key
        if player is None:
            route = http.post(f"{one}/api/v1/matches/{match_id}/moves", json=body)
        else:
            route = _rest(one, player, match_id, body, key)
        assert (answer.status, answer.data) == (route.status_code, route.json())
        return answer

    cases: list[tuple[Socket, Player | None, Any, str | None, str]] = [
        (mine, mover, {"action": "fly", "version": version}, "k-a", "invalid_move"),
        (mine, mover, {"action": "draw"}, "k-b", "invalid"),  # no version
        (mine, mover, {**move, "version": "1"}, "k-c", "invalid"),
        (mine, mover, {**move, "colour": "red"}, "k-d", "invalid"),  # a field of no move
        (mine, mover, move, "", "invalid"),  # a bad Idempotency-Key
        (mine, mover, move, "x" * 256, "invalid"),
        (mine, mover, {**move, "version": version - 1}, "k-e", "stale_version"),
        (theirs, other, {"action": "draw", "version": version}, "k-f", "not_your_turn"),
        (watching, outsider, move, "k-g", "not_seated"),  # someone else's match
        (anonymous, None, move, None, "not_authenticated"),
    ]
    for socket, player, body, key, code in cases:
        answer = both(socket, player, body, key)
        assert answer.data["code"] == code, (body, key, answer)
    stale = both(mine, mover, {**move, "version": version - 1}, "k-h")
    assert stale.data["detail"] == {"current_version": version}
    # What is not a move message: the same `invalid`, the key sent back when there is one.
    for raw, key in (
        ("{not json", None),
        ('["move"]', None),
        ('{"type": "talk", "key": "k-i"}', "k-i"),
        (b'{"type": "move", "action": "draw", "version": -1, "key": "k-j"}', "k-j"),
        # Nested past the parser's 32 levels (as the route refuses it): no key is read.
        ('{"type": "move", "action": %s, "version": 1}' % ("[" * 950 + "]" * 950), None),
    ):
        mine.send(raw)
        answer = mine.answer()
        assert (answer.status, answer.data["code"], answer.key) == (400, "invalid", key), raw
    # In Turkish (the socket's Accept-Language), the code unchanged.
    turkish = Socket(
        f"{_ws(one)}/api/v1/matches/{match_id}/events",
        {**mover.headers, "Accept-Language": "tr"},
    )
    turkish.send({"type": "move", **move, "version": version - 1, "key": "k-tr"})
    said = turkish.answer()
    assert said.data["code"] == "stale_version" and said.data["message"] != stale.data["message"]
    # Nothing changed: the version, the log.
    assert mover.get(one, f"/api/v1/matches/{match_id}/state").json()["version"] == version
    assert _log(one, mover, match_id) == []
    # A key sent with a move that was refused is still free; once used, another body is 422.
    assert both(mine, mover, move, "k-e").status == 200  # its first use was a stale version
    mismatch = both(mine, mover, {"action": "pass", "version": version + 1}, "k-e")
    assert mismatch.data["code"] == "idempotency_mismatch"
    assert len(_log(one, mover, match_id)) == 1
    # A message over WS_MAX_SIZE (4 KB) closes the socket (1009) and changes nothing.
    mine.send({"type": "move", **move, "key": "k" * 5000})
    while mine.next() is not None:
        pass
    assert mine.close_code == 1009
    assert len(_log(one, mover, match_id)) == 1


def test_duplicate_sends_racing_on_sockets_and_the_route_apply_one_move(live: Any) -> None:
    """The same key and body from three sockets (both processes) and the route at once, twice
    over (a client's retries racing each other): one move applied, every answer the same.
    Other keys at the same version: exactly one of all the moves applies, the rest are
    `stale_version`."""
    one, two = live.bases
    a, b, match_id = _table(one)
    mover, _, state = _on_turn(one, [a, b], match_id)
    body = {**state["legal_moves"][0], "version": state["version"]}
    sockets = [_socket(base, mover, match_id) for base in (one, two, one)]  # 3: the slots' limit
    for socket in sockets:
        assert isinstance(socket.next(), Message)
    answers: list[tuple[int, Any]] = []
    lock = threading.Lock()
    start = threading.Barrier(len(sockets) + 2)

    def on_socket(i: int, socket: Socket) -> None:
        keys = ["dup", f"other-{i}"] if i % 2 else [f"other-{i}", "dup"]
        start.wait()
        for key in keys:
            socket.send({"type": "move", **body, "key": key})
        got = [socket.answer() for _ in keys]
        assert [m.key for m in got] == keys  # answered in the order sent
        with lock:
            answers.extend((m.status, m.data) for m in got)

    def on_route() -> None:
        start.wait()
        response = _rest(two, mover, match_id, body, "dup")
        with lock:
            answers.append((response.status_code, response.json()))

    threads = [threading.Thread(target=on_socket, args=(i, s)) for i, s in enumerate(sockets)]
    threads += [threading.Thread(target=on_route) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(answers) == 2 * len(sockets) + 2
    applied = [data for status, data in answers if status == 200]
    refused = [data["code"] for status, data in answers if status != 200]
    # Whoever won the version: either the duplicate key (all five of its sends answered alike)
    # or one of the other keys (then every send of `dup` is stale).
    assert set(refused) <= {"stale_version"}, refused
    assert all(data == applied[0] for data in applied), applied
    assert len(applied) in (1, 5), answers
    assert len(_log(one, mover, match_id)) == 1
    after = mover.get(one, f"/api/v1/matches/{match_id}/state").json()
    assert after["version"] == state["version"] + 1
    # A retry after the race, on the route: the stored first answer if `dup` won.
    retry = _rest(one, mover, match_id, body, "dup")
    if len(applied) == 5:
        assert retry.status_code == 200 and retry.json() == applied[0]
    else:
        assert retry.json()["code"] == "stale_version"


def test_a_flood_of_socket_moves_meets_the_routes_throttle(
    live: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """THROTTLE_MATCH_MOVE counts a token's moves on its sockets and the route together: past
    it, 429 `throttled` with Retry-After (`retry_after` on the socket), and nothing applied. A
    socket from an origin the CORS settings refuse never opens to send one."""
    one, _ = live.bases
    a, b, match_id = _table(one)
    allowed = "http://play.example"
    env = {**live.env, "THROTTLE_MATCH_MOVE": "5/min", "CORS_ALLOWED_ORIGINS": allowed}
    server = Servers(env, 1, tmp_path_factory.mktemp("uvicorn-throttle"))
    try:
        base = server.bases[0]
        mover, _, state = _on_turn(base, [a, b], match_id)
        stale = {**state["legal_moves"][0], "version": state["version"] + 50}
        path = f"{_ws(base)}/api/v1/matches/{match_id}/events"
        refused = Socket(path, mover.headers, origin="http://elsewhere.example")
        assert refused.status == 403 and refused.body["code"] == "forbidden"
        socket = Socket(path, mover.headers, origin=allowed)
        assert socket.status == 101
        assert _rest(base, mover, match_id, stale, None).json()["code"] == "stale_version"
        for i in range(8):
            socket.send({"type": "move", **stale, "key": f"flood-{i}"})
        answers = [socket.answer() for _ in range(8)]
        assert [m.key for m in answers] == [f"flood-{i}" for i in range(8)]  # in order
        codes = [m.data["code"] for m in answers]
        assert codes == ["stale_version"] * 4 + ["throttled"] * 4, codes
        assert all(m.status == 429 and m.retry_after >= 1 for m in answers[4:])
        route = _rest(base, mover, match_id, {**stale, "version": state["version"]}, None)
        assert route.status_code == 429 and route.json()["code"] == "throttled"
        assert int(route.headers["Retry-After"]) >= 1
        assert _log(base, mover, match_id) == []
        # Another player's count is their own.
        other = b if mover is a else a
        assert _rest(base, other, match_id, stale, None).json()["code"] != "throttled"
    finally:
        server.stop()
