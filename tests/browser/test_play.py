"""Matches played by clicking: one person against two bots to the match result, and two people
in two browser contexts, and two spectators (one signed in, one anonymous): each page shows only
what its viewer may see."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .harness import Person, by_testid, play_to_end, sign_in, sign_up, version
from .secrets import WATCH_CARDS, Audit

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def create_by_form(
    page: Page, seats: int, bots: list[str], rules: dict[str, str] | None = None
) -> str:
    """The lobby's form: `bots` per other seat ("person" for an open seat), `rules` typed into
    their controls (under "Custom"); the match's id."""
    by_testid(page, "create-seats").select_option(str(seats))
    choices = by_testid(page, "create-bots")
    expect(choices).to_have_count(seats - 1)
    for i, bot in enumerate(bots):
        choices.nth(i).select_option(bot)
    by_testid(page, "create-deals").fill("1")
    if rules:
        by_testid(page, "preset-custom").click()
    for option, value in (rules or {}).items():
        by_testid(page, f"create-rule-{option}").fill(value)
    by_testid(page, "create-submit").click()
    page.wait_for_url(re.compile(r"#/match/[0-9a-f-]{36}$"))
    by_testid(page, "table").wait_for()
    return page.url.rsplit("/", 1)[1]


def assert_playable(page: Page) -> None:
    """Illegal cards are dimmed (`aria-disabled`, out of the tab order: a click only asks why),
    legal ones are not."""
    cards = (
        by_testid(page, "hand")
        .locator('[data-testid="card"]')
        .evaluate_all(
            """els => els.map(e => {
             const button = e.tagName === "BUTTON" ? e : e.querySelector("button");
             return [e.dataset.card, e.dataset.legal,
                     button ? button.getAttribute("aria-disabled") === "true" : null,
                     button ? button.tabIndex : null];
           })"""
        )
    )
    for card, legal, dimmed, tab_index in cards:
        assert dimmed is not None, f"{card} is not a button"
        assert dimmed == (legal != "true"), (card, legal, dimmed)
        assert (tab_index < 0) == dimmed, (card, legal, tab_index)


def test_one_person_plays_a_whole_match_against_two_bots_by_clicking(
    web_client: str, pages: Any
) -> None:
    page = pages.new()
    name = f"solo{uuid.uuid4().hex[:8]}"
    sign_up(page, web_client, name)
    page.goto(f"{web_client}/#/lobby")
    by_testid(page, "create-submit").wait_for()
    pages.shot(page, "lobby")
    match_id = create_by_form(page, 3, ["random", "greedy"])
    table = by_testid(page, "table")
    expect(table).to_have_attribute("data-role", "seat")
    expect(table).to_have_attribute("data-status", "active")
    pages.shot(page, "table")

    def step(_: Any) -> None:
        assert_playable(page)
        assert by_testid(page, "stock-count").count() == 1

    play_to_end([page], each_step=step)

    result = by_testid(page, "match-result")
    expect(result).to_be_visible()
    pages.shot(page, "match-result")
    match = Person(web_client).get(f"/api/v1/matches/{match_id}")
    assert match["status"] == "finished"
    assert match["seats"][0]["player"]["display_name"] == name
    for seat in match["seats"]:
        shown = result.get_attribute(f"data-place-{seat['seat']}")
        assert shown == str(seat["place"]), (seat, shown)
    expect(by_testid(page, "rematch-button")).to_be_visible()
    assert version(page) == match["version"]
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_two_people_each_see_only_their_own_hand(web_client: str, pages: Any) -> None:
    ana, can = Person(web_client), Person(web_client)
    ana_page, can_page = pages.new(), pages.new(375, 800)
    for page in (ana_page, can_page):
        page.context.add_init_script(WATCH_CARDS)
    sign_in(ana_page, web_client, ana)
    # Five cards each: a shorter deal, checked after every move.
    match_id = create_by_form(ana_page, 2, ["person"], {"hand_size": "5"})
    expect(by_testid(ana_page, "table")).to_have_attribute("data-status", "waiting")

    sign_in(can_page, web_client, can)
    row = by_testid(can_page, "lobby-match").and_(can_page.locator(f'[data-match-id="{match_id}"]'))
    expect(row).to_have_attribute("data-open-seats", "1")
    row.locator('[data-testid="join-button"]').click()
    can_page.wait_for_url(re.compile(f"#/match/{match_id}$"))
    for page in (ana_page, can_page):
        expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
        expect(by_testid(page, "table")).to_have_attribute("data-role", "seat")
    assert len(ana.state(match_id)["hand"]) in (5, 6)  # the opener may have drawn

    audit = Audit(match_id, [ana, can], [(ana_page, ana), (can_page, can)])
    audit.step()
    pages.shot(ana_page, "seat")
    pages.shot(can_page, "seat")
    play_to_end([ana_page, can_page], each_step=lambda _: audit.step())
    audit.step()
    assert audit.steps > 3
    audit.finish(pages.logs)
    for page in (ana_page, can_page):
        expect(by_testid(page, "match-result")).to_be_visible()
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_spectators_see_no_hand_at_any_step(web_client: str, spectators: None, pages: Any) -> None:
    """A signed-in spectator and an anonymous one watch two people (who move through the API)
    from the first move to the match result."""
    ana, can, watcher = Person(web_client), Person(web_client), Person(web_client)
    match_id = ana.create(2, [], rules={"hand_size": 5})
    can.post(f"/api/v1/matches/{match_id}/join", status=200)
    watch_page, anonymous_page = pages.new(), pages.new(375, 800)
    for page in (watch_page, anonymous_page):
        page.context.add_init_script(WATCH_CARDS)
    sign_in(watch_page, web_client, watcher, route=f"#/match/{match_id}")
    anonymous_page.goto(f"{web_client}/#/match/{match_id}")  # nobody signed in
    for page in (watch_page, anonymous_page):
        expect(by_testid(page, "table")).to_have_attribute("data-role", "spectator")
        expect(by_testid(page, "table")).to_have_attribute("data-status", "active")

    audit = Audit(match_id, [ana, can], [(watch_page, None), (anonymous_page, None)])
    audit.step()
    pages.shot(watch_page, "spectator")
    pages.shot(anonymous_page, "spectator-anonymous")
    while (state := ana.state(match_id))["status"] == "active":
        (ana if state["turn"] == 0 else can).move(match_id)
        audit.step()
    assert audit.steps > 3
    audit.finish(pages.logs)
    for page in (watch_page, anonymous_page):
        expect(by_testid(page, "table")).to_have_attribute("data-status", "finished")
        expect(by_testid(page, "match-result")).to_be_visible()
    pages.shot(watch_page, "spectator-result")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_the_lobby_shows_matches_as_they_open_and_fill(web_client: str, pages: Any) -> None:
    """No refresh clicked: the lobby's stream (GET /lobby/events) brings each change."""
    watcher, host, guest = Person(web_client), Person(web_client), Person(web_client)
    page = pages.new()
    sign_in(page, web_client, watcher)
    lobby = by_testid(page, "lobby-list")
    lobby.wait_for()
    match_id = host.create(3, [])
    row = by_testid(page, "lobby-match").and_(page.locator(f'[data-match-id="{match_id}"]'))
    expect(row).to_have_attribute("data-open-seats", "2")
    guest.post(f"/api/v1/matches/{match_id}/join", status=200)
    expect(row).to_have_attribute("data-open-seats", "1")
    host.post(f"/api/v1/matches/{match_id}/cancel", status=200)
    expect(row).to_have_count(0)
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console
