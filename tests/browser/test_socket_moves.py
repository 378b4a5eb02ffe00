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

from .harness import (
    Person,
    by_testid,
    move_by_click,
    play_to_end,
    sign_in,
    take_turn,
    version,
    wait_synced,
)

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


def _people_moves(person: Person, match_id: str) -> list[dict[str, Any]]:
    return [m for m in person.get(f"/api/v1/matches/{match_id}/moves") if not m["by_bot"]]


def _offline_draw(page: Page, person: Person, match_id: str) -> int:
    """Signed in on its turn, the page goes offline and a move is clicked: the move waits, and
    says so. The version it was made at."""
    sign_in(page, person.base, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "live")
    expect(by_testid(page, "turn-indicator")).to_have_attribute("data-your-turn", "true")
    made_at = version(page)
    page.context.set_offline(True)
    expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "reconnecting")
    assert take_turn(page, wait_ms=500)  # a card, or Draw: each enabled as online
    expect(by_testid(page, "move-waiting")).to_be_visible()
    expect(by_testid(page, "table")).to_have_attribute("data-busy", "true")
    return made_at


@pytest.mark.parametrize("moved_on", [False, True], ids=["still-current", "moved-on"])
def test_a_move_clicked_offline_is_sent_again_with_its_key_once_back(
    web_client: str, pages: Any, moved_on: bool
) -> None:
    """A move clicked while the browser is offline: the POST fails, and the move waits for the
    connection. Back online, it goes again with the same Idempotency-Key: made once, where the
    view it was made on is still the newest; where another tab of the player moved meanwhile,
    the server refuses it and the page says plainly that the move was not made."""
    person = Person(web_client)
    match_id = person.create(2, ["greedy"])
    page = pages.new()
    wire = Wire(page)
    # Every move POST's key as the page sends it, those that never leave the browser too.
    page.add_init_script(
        """window.__moveKeys = []; const sent = window.fetch;
        window.fetch = (url, init) => {
          if (String(url).endsWith('/moves') && init?.method === 'POST')
            window.__moveKeys.push(init.headers['Idempotency-Key']);
          return sent(url, init);
        };"""
    )
    made_at = _offline_draw(page, person, match_id)
    before = _people_moves(person, match_id)
    page.wait_for_timeout(1000)
    assert person.state(match_id)["version"] == made_at
    if moved_on:
        person.move(match_id)  # another tab, meanwhile
    page.context.set_offline(False)
    expect(by_testid(page, "move-waiting")).to_be_hidden(timeout=20_000)
    expect(by_testid(page, "table")).to_have_attribute("data-busy", "false")
    # Offline by the route (the socket closed), then again on the socket or the route.
    offline = page.evaluate("window.__moveKeys")
    again = [m["key"] for m in wire.moves()] + [key for _, key in wire.posts]
    assert offline and again and len(set(offline + again)) == 1, (offline, again)
    mine = _people_moves(person, match_id)
    assert len(mine) == len(before) + 1
    banner = by_testid(page, "error-banner")
    if moved_on:
        expect(banner).to_be_visible()
        expect(banner).to_have_text(re.compile(r"^Your move was not made"))
        pages.shot(page, "offline-move-not-made")
    else:
        assert mine[-1]["version"] == made_at + 1, mine[-1]
        expect(banner).to_be_hidden()
    state = wait_synced(page, person, match_id)
    assert state["version"] > made_at


@pytest.mark.parametrize("applied", [False, True], ids=["502-not-applied", "504-applied"])
def test_a_move_a_gateway_fails_is_sent_again_with_its_key(
    web_client: str, pages: Any, applied: bool
) -> None:
    """A proxy in front of the server answers a move's POST with 502 (no server behind it, as
    during a deploy) or with 504 after the server applied it (its answer too late): the move
    waits, goes again with the same Idempotency-Key, and is made once, with no error shown. The
    page has no WebSocket here, so its moves go by the route."""
    person = Person(web_client)
    match_id = person.create(2, ["greedy"])
    page = pages.new()
    page.add_init_script("window.WebSocket = undefined;")
    keys: list[str | None] = []

    def gateway(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        keys.append(route.request.headers.get("idempotency-key"))
        if len(keys) > 1:
            route.continue_()
            return
        if applied:
            route.fetch()
        route.fulfill(
            status=504 if applied else 502,
            content_type="text/html",
            body="<html><body><h1>Bad gateway</h1></body></html>",
        )

    page.route(re.compile(r"/api/v1/matches/[^/]+/moves$"), gateway)
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "live")
    expect(by_testid(page, "turn-indicator")).to_have_attribute(
        "data-your-turn", "true", timeout=20_000
    )
    made_at = version(page)
    before = _people_moves(person, match_id)
    assert take_turn(page, wait_ms=20_000)
    expect(by_testid(page, "table")).to_have_attribute("data-busy", "false", timeout=20_000)
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0], keys
    mine = _people_moves(person, match_id)
    assert len(mine) == len(before) + 1
    assert mine[-1]["version"] == made_at + 1, mine[-1]
    expect(by_testid(page, "error-banner")).to_be_hidden()
    expect(by_testid(page, "move-waiting")).to_be_hidden()
    assert wait_synced(page, person, match_id)["version"] > made_at


def test_a_refused_move_says_why_by_its_rule(web_client: str, pages: Any) -> None:
    """The server refuses a move (here a pass at the opening, sent in place of the card clicked):
    the banner says why, in the server's words with the rule that forbids it, and the table
    goes on from the server's view."""
    person = Person(web_client)
    match_id = person.create(2, ["random"])
    start = person.state(match_id)
    assert start["turn"] == start["you"] == 0 and start["phase"] == "opening", start
    page = pages.new()

    def relay(route: WebSocketRoute) -> None:
        server = route.connect_to_server()

        def to_server(message: str | bytes) -> None:
            if isinstance(message, str) and json.loads(message).get("type") == "move":
                body = json.loads(message)
                body = {k: v for k, v in body.items() if k not in ("card", "suit")}
                message = json.dumps({**body, "action": "pass"})
            server.send(message)

        route.on_message(to_server)
        server.on_message(route.send)

    page.route_web_socket(re.compile(r"/events\?"), relay)
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "turn-indicator")).to_have_attribute(
        "data-your-turn", "true", timeout=20_000
    )
    assert take_turn(page)
    banner = by_testid(page, "error-banner")
    # Holding a club (clicked), a pass is told to play it; holding none (a draw clicked), to
    # play one or draw until one comes.
    clubs = any(card.endswith("C") for card in start["hand"])
    expect(banner).to_contain_text(
        "you hold a club: play it" if clubs else "the first card must be a club: play one or draw"
    )
    expect(banner).to_contain_text("(R-10)")
    assert person.state(match_id)["version"] == start["version"]  # nothing was applied
    pages.shot(page, "refused-why")


def test_a_dimmed_card_says_which_rule_forbids_it(web_client: str, pages: Any) -> None:
    """On the player's turn a card the rules do not allow now is dimmed but answers a click:
    the page asks the server, the banner says why by its rule (the opening's R-10 here), and
    nothing is played; clicked again at the same version, the page says it without asking."""
    person = Person(web_client)
    match_id = person.create(2, ["random"])
    start = person.state(match_id)
    assert start["turn"] == start["you"] == 0 and start["phase"] == "opening", start
    not_clubs = [card for card in start["hand"] if not card.endswith("C")]
    assert not_clubs, start["hand"]
    page = pages.new()
    wire = Wire(page)
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "turn-indicator")).to_have_attribute(
        "data-your-turn", "true", timeout=20_000
    )
    card = by_testid(page, "hand").locator(f'[data-testid="card"][data-card="{not_clubs[0]}"]')
    expect(card).to_have_attribute("aria-disabled", "true")
    # A pointer's click on it (Playwright would wait for a dimmed control to be enabled).
    card.click(force=True)
    banner = by_testid(page, "error-banner")
    expect(banner).to_contain_text("the first card must be a club (R-10)")
    expect(by_testid(page, "table")).to_have_attribute("data-busy", "false")
    assert len(wire.moves()) + len(wire.posts) == 1, (wire.moves(), wire.posts)
    assert person.state(match_id)["version"] == start["version"]  # nothing was applied
    pages.shot(page, "dimmed-why")
    page.evaluate("document.querySelector('[data-testid=error-banner]').hidden = true")
    card.click(force=True)
    expect(banner).to_contain_text("(R-10)")
    assert len(wire.moves()) + len(wire.posts) == 1, (wire.moves(), wire.posts)
    assert person.state(match_id)["version"] == start["version"]


def test_a_refusal_on_the_socket_is_in_the_pages_language_not_the_browsers(
    web_client: str, pages: Any
) -> None:
    """A browser that speaks English, a page set to Turkish: the refusal of a dimmed card, which
    the table's WebSocket answers, is said in Turkish, as the rest of the page is."""
    person = Person(web_client)
    match_id = person.create(2, ["random"])
    start = person.state(match_id)
    not_clubs = [card for card in start["hand"] if not card.endswith("C")]
    assert start["phase"] == "opening" and not_clubs, start
    page = pages.new(locale="en-US")
    page.add_init_script("localStorage.setItem('pisyedili.lang', 'tr')")
    wire = Wire(page)
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "live")
    card = by_testid(page, "hand").locator(f'[data-testid="card"][data-card="{not_clubs[0]}"]')
    card.click(force=True)
    expect(by_testid(page, "error-banner")).to_have_text(
        "Şu an olmaz: ilk kart sinek olmalı (R-10)."
    )
    assert len(wire.moves()) == 1 and not wire.posts, (wire.moves(), wire.posts)
