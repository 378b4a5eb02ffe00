"""A seat's clicked moves go on the table's WebSocket (web/app/live.js), answered there as the
move route answers them, and the match plays on to its result; a move whose answer the socket
loses is sent again by the route with the same Idempotency-Key, and applied once. Watched
through Playwright's WebSocket frames and requests."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from .harness import Person, by_testid, move_by_click, play_to_end, sign_in, version

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


class Wire:
    """What a page sends and receives on its WebSockets, and its move POSTs."""

    def __init__(self, page: Page) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.posts: list[tuple[str, str | None]] = []  # (url, Idempotency-Key)
        page.on("websocket", self._socket)
        page.on("request", self._request)

    def _socket(self, socket: Any) -> None:
        socket.on("framesent", lambda payload: self.sent.append(json.loads(payload)))
        socket.on("framereceived", lambda payload: self.received.append(json.loads(payload)))

    def _request(self, request: Any) -> None:
        if request.method == "POST" and request.url.endswith("/moves"):
            self.posts.append((request.url, request.headers.get("idempotency-key")))

    def moves(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("type") == "move"]

    def answers(self) -> dict[str, dict[str, Any]]:
        return {m["key"]: m for m in self.received if m["event"] == "move"}


def _own_cards_only(wire: Wire, seat: int) -> None:
    """Every view the socket brought is the seat's own: its hand, no other seat's cards."""
    for message in wire.received:
        data = message.get("data")
        if message["event"] in ("state", "move") and isinstance(data, dict) and "hand" in data:
            assert data["you"] == seat, message
            assert len(data["hand"]) == data["hand_counts"][seat], message


def test_clicked_moves_go_on_the_websocket_and_the_match_plays_on(
    web_client: str, pages: Any
) -> None:
    person = Person(web_client)
    match_id = person.create(3, ["random", "greedy"])
    page = pages.new()
    wire = Wire(page)
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "live")
    pages.shot(page, "table")
    play_to_end([page])
    expect(by_testid(page, "match-result")).to_be_visible()
    # The last move's answer comes once the deal it ended is scored (as the route's would),
    # which the stream's result may come before by seconds on a loaded machine.
    expect(by_testid(page, "table")).to_have_attribute("data-busy", "false", timeout=30_000)
    match = person.get(f"/api/v1/matches/{match_id}")
    assert match["status"] == "finished" and version(page) == match["version"]
    moves, answers = wire.moves(), wire.answers()
    mine = [m for m in person.get(f"/api/v1/matches/{match_id}/moves") if not m["by_bot"]]
    # Every move of the person went on the socket, each with a key of its own, each answered
    # 200 there with the view after it; none by the route.
    assert mine and len(moves) == len(mine), (len(moves), len(mine))
    assert len({m["key"] for m in moves}) == len(moves)
    assert all(answers[m["key"]]["status"] == 200 for m in moves), answers
    assert all(set(m) <= {"type", "key", "version", "action", "card", "suit"} for m in moves)
    assert wire.posts == []
    _own_cards_only(wire, seat=0)
    small = pages.new(width=375)
    sign_in(small, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(small, "match-result")).to_be_visible()
    pages.shot(small, "table")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_a_move_whose_answer_the_socket_loses_is_sent_again_by_the_route_once(
    web_client: str, pages: Any
) -> None:
    """The socket takes the move to the server, which applies it, but its answer never reaches
    the page (dropped on the way): after its wait the page sends the move by the route with the
    same key, gets the first answer again, and the move is in the log once."""
    person = Person(web_client)
    match_id = person.create(2, ["greedy"])
    page = pages.new()
    dropped: list[str] = []

    def relay(route: WebSocketRoute) -> None:
        server = route.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if isinstance(message, str) and json.loads(message)["event"] == "move" and not dropped:
                dropped.append(json.loads(message)["key"])
                return
            route.send(message)

        server.on_message(to_page)

    page.route_web_socket(re.compile(r"/events\?"), relay)
    wire = Wire(page)
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "live")
    expect(by_testid(page, "turn-indicator")).to_have_attribute(
        "data-your-turn", "true", timeout=20_000
    )
    before = len([m for m in person.get(f"/api/v1/matches/{match_id}/moves") if not m["by_bot"]])
    move_by_click(page)
    # The socket's answer is awaited 8 s, then the route answers.
    expect(by_testid(page, "table")).to_have_attribute("data-busy", "false", timeout=20_000)
    assert len(dropped) == 1
    # The route, with the key the socket's move had; answered as the first time.
    assert [key for _, key in wire.posts] == dropped
    expect(by_testid(page, "error-banner")).to_be_hidden()
    mine = [m for m in person.get(f"/api/v1/matches/{match_id}/moves") if not m["by_bot"]]
    assert len(mine) == before + 1
    # And the page plays on, on the socket.
    play_to_end([page])
    expect(by_testid(page, "match-result")).to_be_visible()
    assert len(wire.posts) == 1
    pages.shot(page, "after-lost-answer")
