"""Resigning by clicking: a person against bots resigns (after the confirm step), sees the match
abandoned, replays its unfinished deal and starts a new one; at a table with another person,
the one who resigns sees a bot take their seat and the other sees the notice and plays on."""

from __future__ import annotations

import contextlib
import re
import time
import uuid
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .harness import Person, by_testid, sign_in, sign_up, take_turn
from .test_play import create_by_form

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def resign_by_click(page: Page) -> None:
    """ "Resign", then "Yes, resign" in the confirm step."""
    by_testid(page, "resign-button").click()
    expect(by_testid(page, "resign-confirm")).to_be_visible()
    by_testid(page, "resign-yes").click()


def test_a_person_against_bots_resigns_sees_it_abandoned_and_starts_again(
    web_client: str, pages: Any
) -> None:
    page = pages.new()
    name = f"quit{uuid.uuid4().hex[:8]}"
    sign_up(page, web_client, name)
    page.goto(f"{web_client}/#/lobby")
    match_id = create_by_form(page, 3, ["greedy", "random"])
    table = by_testid(page, "table")
    expect(table).to_have_attribute("data-status", "active")
    take_turn(page)  # a move of hers first, when it is her turn
    # The confirm step can be left: nothing changes.
    by_testid(page, "resign-button").click()
    expect(by_testid(page, "resign-confirm")).to_be_visible()
    # The only person at the table: resigning ends the match (docs/rules.md "Abandoned").
    expect(by_testid(page, "resign-ask")).to_contain_text("the match ends now")
    pages.shot(page, "resign-confirm")
    by_testid(page, "resign-no").click()
    expect(by_testid(page, "resign-confirm")).to_have_count(0)
    player = Person(web_client)
    assert player.get(f"/api/v1/matches/{match_id}")["status"] == "active"

    resign_by_click(page)
    expect(table).to_have_attribute("data-status", "abandoned")
    result = by_testid(page, "match-result")
    expect(result).to_be_visible()
    expect(result).to_have_attribute("data-status", "abandoned")
    expect(result).to_have_attribute("data-place-0", "3")  # last, whatever the points
    expect(by_testid(page, "rematch-button")).to_have_count(0)
    expect(by_testid(page, "resign-button")).to_have_count(0)
    # Its places count for the ratings: each player's change is shown, as for a finished match.
    expect(by_testid(result, "rating-change")).to_have_count(3)
    expect(by_testid(result, "rating-change").first).to_have_attribute(
        "data-change", re.compile(r"^-?\d")
    )
    pages.shot(page, "abandoned")
    match = player.get(f"/api/v1/matches/{match_id}")
    assert match["status"] == "abandoned" and match["seats"][0]["resigned"] is True
    assert match["seats"][0]["player"]["display_name"] == name
    small = pages.new(375, 800)
    small.goto(f"{web_client}/")
    small.evaluate(
        "([token, user]) => { localStorage.setItem('pisyedili.token', token);"
        " localStorage.setItem('pisyedili.user', user); }",
        [page.evaluate("localStorage.getItem('pisyedili.token')"), name],
    )
    small.goto(f"{web_client}/#/match/{match_id}")
    expect(by_testid(small, "match-result")).to_have_attribute("data-status", "abandoned")
    expect(by_testid(small, "connection-status")).to_have_attribute("data-state", "live")
    # The deal being played stopped with the match: its replay is offered (to where it stopped).
    unfinished = by_testid(small, "match-replay-link")
    expect(unfinished).to_have_count(1)
    expect(unfinished).to_have_attribute("data-deal-status", "abandoned")
    pages.shot(small, "abandoned-375")

    # Here, where the deal was played: its replay says it never finished, and its seed is the
    # one committed to when it started on this device.
    by_testid(page, "match-replay-link").click()
    page.wait_for_url(re.compile(f"#/replay/{match_id}/1$"))
    expect(by_testid(page, "replay-unfinished")).to_be_visible()
    expect(by_testid(page, "fairness-status")).to_have_attribute("data-result", "verified")
    pages.shot(page, "abandoned-replay")
    by_testid(page, "replay-to-match").click()
    expect(by_testid(page, "match-result")).to_have_attribute("data-status", "abandoned")

    # The slot is free: a new match by clicks.
    by_testid(page, "new-match-link").click()
    page.wait_for_url(re.compile(r"#/lobby$"))
    by_testid(page, "create-submit").wait_for()
    second = create_by_form(page, 2, ["greedy"])
    assert second != match_id
    expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
    expect(by_testid(page, "resign-button")).to_be_visible()
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_with_another_person_left_a_bot_takes_the_seat_and_the_match_goes_on(
    web_client: str, pages: Any
) -> None:
    ana, can = Person(web_client), Person(web_client)
    ana_page, can_page = pages.new(), pages.new(375, 800)
    sign_in(ana_page, web_client, ana)
    match_id = create_by_form(ana_page, 3, ["greedy", "person"])
    sign_in(can_page, web_client, can)
    row = by_testid(can_page, "lobby-match").and_(can_page.locator(f'[data-match-id="{match_id}"]'))
    row.locator('[data-testid="join-button"]').click()
    can_page.wait_for_url(re.compile(f"#/match/{match_id}$"))
    for page in (ana_page, can_page):
        expect(by_testid(page, "table")).to_have_attribute("data-status", "active")

    by_testid(can_page, "resign-button").click()
    # Another person plays on: a bot takes the seat.
    expect(by_testid(can_page, "resign-ask")).to_contain_text("A bot plays your seat")
    by_testid(can_page, "resign-yes").click()
    expect(by_testid(can_page, "resigned-note")).to_be_visible()
    expect(by_testid(can_page, "resign-button")).to_have_count(0)
    expect(by_testid(can_page, "table")).to_have_attribute("data-status", "active")
    expect(by_testid(can_page, "seat-2")).to_contain_text(re.compile("resigned"))
    expect(can_page.locator('[data-testid="card"][data-legal="true"]')).to_have_count(0)
    pages.shot(can_page, "resigned-375")
    notice = by_testid(ana_page, "resign-notice")
    expect(notice).to_be_visible()
    expect(notice).to_have_attribute("data-seat", "2")
    expect(notice).to_contain_text(can.name)
    pages.shot(ana_page, "resign-notice")

    # Ana plays on; the bot moves for Can's seat.
    for _ in range(60):
        log = ana.get(f"/api/v1/matches/{match_id}/moves")
        if any(m["seat"] == 2 for m in log):
            break
        if not take_turn(ana_page):
            ana_page.wait_for_timeout(100)
    else:
        raise AssertionError("no move of seat 2")
    assert all(m["by_bot"] for m in log if m["seat"] == 2)
    assert ana.get(f"/api/v1/matches/{match_id}")["status"] == "active"

    # Ana gives up too: no person is left, the match is abandoned on both pages.
    resign_by_click(ana_page)
    for page in (ana_page, can_page):
        expect(by_testid(page, "table")).to_have_attribute("data-status", "abandoned")
        expect(by_testid(page, "match-result")).to_have_attribute("data-status", "abandoned")
    # Ended while watched: the result, first on the page, is brought into view on the phone.
    expect(by_testid(can_page, "match-result")).to_be_in_viewport()
    expect(by_testid(ana_page, "match-result")).to_have_attribute("data-place-0", "2")
    expect(by_testid(ana_page, "match-result")).to_have_attribute("data-place-2", "3")


def test_a_person_the_turn_clock_resigns_is_told_why(
    web_client: str, with_beat: str, pages: Any
) -> None:
    """Ana is away from her table under a one-second turn clock while Can plays on: after three
    of her turns played by the clock her page says she missed too many turns and was resigned
    (not that she resigned), and Can's says she missed them."""
    ana, can = Person(web_client), Person(web_client)
    body = {"seats": 2, "deals": 3, "turn_seconds": 1}
    match_id = str(ana.post("/api/v1/matches", body, status=201).json()["id"])
    can.post(f"/api/v1/matches/{match_id}/join", status=200)
    ana_page, can_page = pages.new(375, 800), pages.new()
    sign_in(ana_page, web_client, ana, route=f"#/match/{match_id}")
    sign_in(can_page, web_client, can, route=f"#/match/{match_id}")
    deadline = time.monotonic() + 90
    while not (state := can.state(match_id))["resigned"]:
        assert time.monotonic() < deadline, f"the clock did not resign Ana: {state}"
        assert state["status"] == "active", state
        if state["turn"] == state["you"]:
            with contextlib.suppress(AssertionError):  # the clock played Can's turn first
                can.move(match_id)
        else:
            time.sleep(0.05)
    assert state["resigned"] == [0], state
    seats = can.get(f"/api/v1/matches/{match_id}")["seats"]
    assert [s["absent"] for s in seats] == [True, False]
    assert [s["resigned"] for s in seats] == [True, False]
    note = by_testid(ana_page, "resigned-note")
    expect(note).to_contain_text("missed too many turns")
    notice = by_testid(can_page, "resign-notice")
    expect(notice).to_contain_text(f"{ana.name} missed too many turns")
    expect(by_testid(can_page, "seat-0")).to_contain_text("resigned: missed too many turns")
    pages.shot(ana_page, "absent-375")
