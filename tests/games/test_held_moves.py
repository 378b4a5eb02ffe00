"""A move on a match's WebSocket played against the match as the socket's process holds it
(games.services.Held, from live.streams' shared reads): at the version held, one statement
(the guarded write, the caller's token checked in it, notices asked in it), no read of the
match; anything else (a version moved on, a token revoked, a move the held state refuses, a
replayed key) is answered exactly as the read path answers it, and nothing more is written.
Driven through live.streams.MatchSocketMoves, the code that answers a socket's `move` message
(docs/architecture.md "A move, end to end")."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import engine
from games.engine.cards import codes
from games.models import IdempotencyRecord, Match, Move
from games.selectors import match_read
from games.services import Held
from live.streams import MatchSocketMoves
from players.auth import _digest_of
from tests.helpers import create_match, post_move, state

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif("connection.vendor != 'postgresql'", reason="guarded writes: PostgreSQL"),
]


class Table:
    """A two-person match, its people's clients and tokens by seat."""

    def __init__(self, make_player: Any, client_for: Any) -> None:
        people = [make_player(), make_player()]
        clients = {str(p.id): (client_for(t), t) for p, t in people}
        first = clients[str(people[0][0].id)][0]
        self.id = create_match(first)["id"]
        joined = clients[str(people[1][0].id)][0].post(f"/api/v1/matches/{self.id}/join")
        assert joined.status_code == 200, joined.content
        match = Match.objects.get(id=self.id)
        self.clients = [clients[holder][0] for holder in match.seat_players]
        self.tokens = [clients[holder][1] for holder in match.seat_players]

    def held(self) -> Held:
        """The match as it is now, as a stream's process holds it, for the seat on turn."""
        match = match_read(self.id)
        assert match is not None and match.state
        live = engine.State.from_json(match.state)
        assert live.turn is not None
        return Held(match, live, UUID(match.seat_players[live.turn]))

    def view(self, seat: int) -> dict[str, Any]:
        return state(self.clients[seat], self.id)

    def on_turn(self) -> int:
        turn = self.view(0)["turn"]
        assert isinstance(turn, int)
        return turn

    def send(
        self, seat: int, body: dict[str, Any], key: str | None, held: Held | None
    ) -> tuple[int, dict[str, Any], list[str]]:
        """`seat`'s socket sends the move `body`: the answer's status and data, and the
        statements it ran."""
        player = held.player_id if held is not None else None
        moves = MatchSocketMoves(self.id, _digest_of(self.tokens[seat]), None, player)
        message = json.dumps({"type": "move", **body, **({"key": key} if key else {})})
        with CaptureQueriesContext(connection) as captured:
            answer = json.loads(moves._answer(message, held))
        return answer["status"], answer["data"], [q["sql"] for q in captured.captured_queries]

    def rest(self, seat: int, view: dict[str, Any], key: str) -> Any:
        """`seat` POSTs the first legal move of `view` with the Idempotency-Key `key`."""
        return post_move(
            self.clients[seat],
            self.id,
            view["legal_moves"][0],
            view["version"],
            HTTP_IDEMPOTENCY_KEY=key,
        )

    def moves(self) -> int:
        return Move.objects.filter(match_id=self.id).count()


def _body(view: dict[str, Any], pick: int = 0) -> dict[str, Any]:
    return {**view["legal_moves"][pick], "version": view["version"]}


def _match_reads(statements: list[str]) -> list[str]:
    return [s for s in statements if s.startswith("SELECT") and 'FROM "games_match"' in s]


def test_a_move_at_the_version_held_is_one_statement_answered_as_the_route(make_player, client_for):
    table = Table(make_player, client_for)
    seat = table.on_turn()
    view = table.view(seat)
    status, data, statements = table.send(seat, _body(view), "h-1", table.held())
    assert status == 200, data
    assert data["version"] == view["version"] + 1 and data["you"] == seat
    # No read of the match: the guarded write alone, the token and the notices asked in it,
    # the keyed move's record riding in it. (The throttle is Redis's.)
    (write,) = statements
    assert write.startswith('WITH updated AS (UPDATE "games_match"'), write
    assert f'AND "version" = {view["version"]} AND ((SELECT' in write, write
    assert '"games_idempotencyrecord"' in write and '"games_webhook"' in write
    assert table.moves() == 1
    # The route's replay of the key answers the socket's reply, as stored.
    again = table.rest(seat, view, "h-1")
    assert again.status_code == 200 and again.json() == data
    assert table.moves() == 1
    # The next seat's move, at the version the first made, is written the same way.
    after = table.view(1 - seat)
    if after["turn"] == 1 - seat:
        status, data, statements = table.send(1 - seat, _body(after, -1), None, table.held())
        assert status == 200 and len(statements) == 1 and table.moves() == 2


def test_a_version_moved_on_since_it_was_held_is_the_read_s_answer(make_player, client_for):
    table = Table(make_player, client_for)
    seat = table.on_turn()
    view = table.view(seat)
    held = table.held()
    first = table.rest(seat, view, "r-1")
    assert first.status_code == 200
    # A replay of the key with the old copy: the stored answer, nothing applied again.
    status, data, statements = table.send(seat, _body(view), "r-1", held)
    assert status == 200 and data == first.json()
    assert _match_reads(statements), statements  # the held write missed: the read answered
    # Another move at the old version: stale, as the route says, nothing written.
    status, data, _ = table.send(seat, _body(view, -1), "r-2", held)
    assert status == 409 and data["code"] == "stale_version"
    assert data["detail"]["current_version"] == view["version"] + 1
    assert table.moves() == 1
    assert not IdempotencyRecord.objects.filter(key="r-2").exists()


def test_a_token_revoked_since_the_socket_opened_is_401_and_writes_nothing(make_player, client_for):
    table = Table(make_player, client_for)
    seat = table.on_turn()
    view = table.view(seat)
    held = table.held()
    assert table.clients[seat].post("/api/v1/auth/logout").status_code in (200, 204)
    status, data, _ = table.send(seat, _body(view), "t-1", held)
    assert status == 401, data
    assert table.moves() == 0 and not IdempotencyRecord.objects.exists()
    assert Match.objects.get(id=table.id).version == view["version"]


def test_a_move_the_held_state_refuses_is_answered_as_the_route_answers_it(make_player, client_for):
    table = Table(make_player, client_for)
    seat = table.on_turn()
    view = table.view(seat)
    held = table.held()
    # Not this seat's turn: the other person sends the seat on turn's move.
    theirs = Held(held.match, held.state, UUID(held.match.seat_players[1 - seat]))
    other = table.send(1 - seat, _body(view), None, theirs)
    route = post_move(table.clients[1 - seat], table.id, view["legal_moves"][0], view["version"])
    assert other[0] == route.status_code == 409
    assert other[1] == route.json() and other[1]["code"] == "not_your_turn"
    # A card the seat does not hold: 422 with the legal moves, as the route's.
    hand = set(view["hand"])
    card = next(c for c in codes(range(52)) if c not in hand)
    bad = {"action": "play", "card": card, "version": view["version"]}
    refused = table.send(seat, bad, None, held)
    route = table.clients[seat].post(f"/api/v1/matches/{table.id}/moves", bad, format="json")
    assert refused[0] == route.status_code == 422
    assert refused[1] == route.json() and refused[1]["code"] == "illegal_move"
    assert table.moves() == 0
    assert Match.objects.get(id=table.id).version == view["version"]
