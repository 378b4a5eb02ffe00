"""The table keeps working when things go wrong: the server restarts under it (the page
reconnects and resumes from the last event id it saw), another tab's move makes its own move
stale (409 `stale_version`), or the server refuses a move (422 `illegal_move`): a clear banner,
then the state reloaded and the table playable."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, Request, WebSocket, WebSocketRoute, expect

from .harness import (
    Person,
    by_testid,
    move_by_click,
    sign_in,
    take_turn,
    version,
    wait_synced,
    wait_version,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def relay_moves(
    page: Page,
    match_id: str,
    first_move: Callable[[dict[str, Any]], dict[str, Any]],
    answers: list[int],
    errors: list[str],
) -> None:
    """The table's socket passed through, but the page's first move message goes to the server
    as `first_move` turns it; `answers` gets the status of every answer to a move, `errors`
    what `first_move` raised."""
    seen: list[dict[str, Any]] = []

    def relay(route: WebSocketRoute) -> None:
        server = route.connect_to_server()

        def to_server(message: str | bytes) -> None:
            data = json.loads(message)
            try:
                if data.get("type") == "move" and not seen:
                    seen.append(data)
                    message = json.dumps(first_move(data))
            except Exception as exc:  # noqa: BLE001 (named in the test's failure)
                errors.append(repr(exc))
            server.send(message)

        def to_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data["event"] == "move":
                answers.append(data["status"])
            route.send(message)

        route.on_message(to_server)
        server.on_message(to_page)

    page.route_web_socket(
        re.compile(re.escape(f"/api/v1/matches/{match_id}/events") + r"\?"), relay
    )


def wait_until(page: Page, done: Callable[[], Any], seconds: float = 20) -> None:
    for _ in range(int(seconds * 10)):
        if done():
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"nothing came in {seconds} s")


def test_the_table_resumes_after_a_server_restart(web_client: str, server: Any, pages: Any) -> None:
    ana, can = Person(web_client), Person(web_client)
    match_id = ana.create(2, [])
    can.post(f"/api/v1/matches/{match_id}/join", status=200)
    page = pages.new()
    resumes: list[int | None] = []

    def note_stream(request: Request) -> None:
        if request.url.startswith(f"{web_client}/api/v1/matches/{match_id}/events"):
            query = parse_qs(urlparse(request.url).query)
            header = request.all_headers().get("last-event-id")
            raw = header or (query.get("last_event_id") or [None])[0]
            resumes.append(None if raw is None else int(raw))

    def note_socket(socket: WebSocket) -> None:
        if f"/api/v1/matches/{match_id}/events" in socket.url:
            raw = parse_qs(urlparse(socket.url).query).get("last_event_id") or [None]
            resumes.append(None if raw[0] is None else int(raw[0]))

    page.on("request", note_stream)  # an EventSource's
    page.on("websocket", note_socket)  # the table's socket
    sign_in(page, web_client, ana, route=f"#/match/{match_id}")
    by_testid(page, "table").wait_for()
    status = by_testid(page, "connection-status")
    expect(status).to_have_attribute("data-state", "live")
    # Can is on turn during the restart: the page must learn of Can's move made meanwhile.
    while ana.state(match_id)["turn"] == 0:
        expect(by_testid(page, "turn-indicator")).to_have_attribute("data-your-turn", "true")
        move_by_click(page)
    seen = version(page)
    assert ana.state(match_id)["version"] == seen and ana.state(match_id)["turn"] == 1

    server.stop()
    expect(status).to_have_attribute("data-state", "reconnecting", timeout=15_000)
    pages.shot(page, "reconnecting")
    server.start()
    moved = can.move(match_id)
    expect(status).to_have_attribute("data-state", "live", timeout=30_000)
    wait_version(page, seen, timeout=30_000)
    assert wait_synced(page, ana, match_id)["version"] >= moved["version"]
    # The reconnection asked to resume after what it had seen, not from nothing.
    assert seen in resumes[1:], resumes
    # And the table plays on: Can moves until it is Ana's turn, which the page plays by a click.
    while (state := can.state(match_id))["turn"] == 1:
        can.move(match_id)
    if state["status"] == "active":
        wait_synced(page, ana, match_id)
        expect(by_testid(page, "turn-indicator")).to_have_attribute("data-your-turn", "true")
        move_by_click(page)
        wait_synced(page, ana, match_id)
    expect(by_testid(page, "error-banner")).to_be_hidden()
    pages.shot(page, "resumed")


def test_a_stale_move_from_another_tab_shows_the_banner_and_recovers(
    web_client: str, pages: Any
) -> None:
    ana = Person(web_client)
    match_id = ana.create(2, ["random"])
    page = pages.new()
    answers: list[int] = []

    def other_tab_moves_first(message: dict[str, Any]) -> dict[str, Any]:
        ana.move(match_id)  # the other tab, with the same token, a moment earlier
        return message

    errors: list[str] = []
    relay_moves(page, match_id, other_tab_moves_first, answers, errors)
    sign_in(page, web_client, ana, route=f"#/match/{match_id}")
    by_testid(page, "table").wait_for()
    turn = by_testid(page, "turn-indicator")
    expect(turn).to_have_attribute("data-your-turn", "true")
    # The socket open (the move goes on it, through the relay; before, by the route).
    expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "live")
    before = version(page)
    take_turn(page)
    wait_until(page, lambda: answers or errors)
    assert answers == [409], errors
    banner = by_testid(page, "error-banner")
    expect(banner).to_be_visible()
    expect(banner).not_to_be_empty()
    pages.shot(page, "stale-banner")
    # The page reloads the state: the other tab's move (and the bot's answer) shown, playable.
    state = wait_synced(page, ana, match_id)
    assert state["version"] > before
    if state["status"] == "active" and state["turn"] == 0:
        expect(turn).to_have_attribute("data-your-turn", "true")
        move_by_click(page)
        wait_synced(page, ana, match_id)


def test_an_illegal_move_answer_shows_the_banner_and_the_table_plays_on(
    web_client: str, pages: Any
) -> None:
    ana = Person(web_client)
    match_id = ana.create(2, ["random"])
    page = pages.new()
    answers: list[int] = []
    illegal: list[dict[str, Any]] = []

    def send_an_illegal_move(message: dict[str, Any]) -> dict[str, Any]:
        return {**illegal[-1], "version": message["version"], "type": "move", "key": message["key"]}

    errors: list[str] = []
    relay_moves(page, match_id, send_an_illegal_move, answers, errors)
    sign_in(page, web_client, ana, route=f"#/match/{match_id}")
    by_testid(page, "table").wait_for()
    expect(by_testid(page, "turn-indicator")).to_have_attribute("data-your-turn", "true")
    state = ana.state(match_id)
    legal = {(m["action"], m.get("card")) for m in state["legal_moves"]}
    illegal += [{"action": "play", "card": c} for c in state["hand"] if ("play", c) not in legal]
    if ("pass", None) not in legal:
        illegal.append({"action": "pass"})
    assert illegal, state
    take_turn(page, wait_ms=500)  # refused: no new version comes
    wait_until(page, lambda: answers or errors)
    assert answers == [422], errors
    banner = by_testid(page, "error-banner")
    expect(banner).to_be_visible()
    expect(banner).not_to_be_empty()
    pages.shot(page, "illegal-banner")
    # Nothing changed on the server; the table is as it was and takes the next click.
    assert wait_synced(page, ana, match_id)["version"] == state["version"]
    expect(by_testid(page, "turn-indicator")).to_have_attribute("data-your-turn", "true")
    move_by_click(page)
    wait_synced(page, ana, match_id)
