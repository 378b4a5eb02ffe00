"""The table keeps working when things go wrong: the server restarts under it (the page
reconnects and resumes from the last event id it saw), another tab's move makes its own move
stale (409 `stale_version`), or the server refuses a move (422 `illegal_move`): a clear banner,
then the state reloaded and the table playable."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Request, Route, expect

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

    page.on("request", note_stream)
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
    sign_in(page, web_client, ana, route=f"#/match/{match_id}")
    by_testid(page, "table").wait_for()
    turn = by_testid(page, "turn-indicator")
    expect(turn).to_have_attribute("data-your-turn", "true")
    answers: list[int] = []

    def other_tab_moves_first(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        ana.move(match_id)  # the other tab, with the same token, a moment earlier
        response = route.fetch()
        answers.append(response.status)
        route.fulfill(response=response)

    page.route(f"**/api/v1/matches/{match_id}/moves", other_tab_moves_first)
    before = version(page)
    with page.expect_response(
        lambda r: r.url.endswith("/moves") and r.request.method == "POST"
    ) as answer:
        take_turn(page)
    page.unroute(f"**/api/v1/matches/{match_id}/moves")
    assert answers == [409] and answer.value.status == 409
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
    sign_in(page, web_client, ana, route=f"#/match/{match_id}")
    by_testid(page, "table").wait_for()
    expect(by_testid(page, "turn-indicator")).to_have_attribute("data-your-turn", "true")
    state = ana.state(match_id)
    legal = {(m["action"], m.get("card")) for m in state["legal_moves"]}
    illegal = [{"action": "play", "card": c} for c in state["hand"] if ("play", c) not in legal]
    if ("pass", None) not in legal:
        illegal.append({"action": "pass"})
    assert illegal, state
    answers: list[int] = []

    def send_an_illegal_move(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        body = {**illegal[-1], "version": route.request.post_data_json["version"]}
        response = route.fetch(post_data=json.dumps(body))
        answers.append(response.status)
        route.fulfill(response=response)

    page.route(f"**/api/v1/matches/{match_id}/moves", send_an_illegal_move)
    with page.expect_response(
        lambda r: r.url.endswith("/moves") and r.request.method == "POST"
    ) as answer:
        take_turn(page, wait_ms=500)  # refused: no new version comes
    page.unroute(f"**/api/v1/matches/{match_id}/moves")
    assert answers == [422] and answer.value.status == 422
    banner = by_testid(page, "error-banner")
    expect(banner).to_be_visible()
    expect(banner).not_to_be_empty()
    pages.shot(page, "illegal-banner")
    # Nothing changed on the server; the table is as it was and takes the next click.
    assert wait_synced(page, ana, match_id)["version"] == state["version"]
    expect(by_testid(page, "turn-indicator")).to_have_attribute("data-your-turn", "true")
    move_by_click(page)
    wait_synced(page, ana, match_id)
