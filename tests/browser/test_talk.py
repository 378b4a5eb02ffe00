"""Table talk by clicking: a seat clicks a preset phrase; the other seat (here in a Turkish
browser) and a spectator see it in their own language; a spectator has no phrase to click.
Once the match is over nobody would hear a phrase (its stream has closed): the phrases are
gone, and the server refuses one (409)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from .harness import Person, by_testid, sign_in, wait_synced
from .test_play import create_by_form

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def test_a_phrase_reaches_the_other_seat_and_a_spectator(
    web_client: str, pages: Any, spectators: None
) -> None:
    ana, can = Person(web_client), Person(web_client)
    ana_page, can_page = pages.new(locale="tr-TR"), pages.new(375, 800)
    sign_in(ana_page, web_client, ana)
    match_id = create_by_form(ana_page, 2, ["person"])
    sign_in(can_page, web_client, can)
    row = by_testid(can_page, "lobby-match").and_(can_page.locator(f'[data-match-id="{match_id}"]'))
    row.locator('[data-testid="join-button"]').click()
    can_page.wait_for_url(re.compile(f"#/match/{match_id}$"))
    watcher = pages.new()
    watcher.goto(f"{web_client}/#/match/{match_id}")
    for page in (ana_page, can_page, watcher):
        expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
        expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "live")
    expect(by_testid(watcher, "talk-well_played")).to_have_count(0)

    by_testid(can_page, "talk-well_played").click()
    for page, words in (
        (ana_page, "İyi oynadın"),
        (can_page, "Well played"),
        (watcher, "Well played"),
    ):
        line = by_testid(page, "talk-line")
        expect(line).to_have_count(1)
        expect(line).to_have_attribute("data-seat", "1")
        expect(line).to_have_attribute("data-phrase", "well_played")
        expect(line).to_contain_text(words)
    expect(by_testid(ana_page, "talk-line")).to_contain_text(can.name)
    # One's own line starts with a capital, by each language's casing.
    expect(by_testid(can_page, "talk-line")).to_have_text("You: Well played")
    by_testid(ana_page, "talk-good_game").click()
    expect(by_testid(can_page, "talk-line")).to_have_count(2)
    expect(by_testid(can_page, "talk-line").nth(1)).to_contain_text("Good game")
    expect(by_testid(ana_page, "talk-line").nth(1)).to_have_text("Sen: İyi oyundu")
    pages.shot(ana_page, "talk-tr")
    pages.shot(can_page, "talk-375")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_once_the_match_is_over_there_is_no_phrase_to_say(web_client: str, pages: Any) -> None:
    ana = Person(web_client)
    match_id = ana.create(2, ["greedy"], deals=1, rules={"hand_size": 3})
    page = pages.new()
    sign_in(page, web_client, ana, route=f"#/match/{match_id}")
    expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "live")
    by_testid(page, "talk-good_game").click()
    expect(by_testid(page, "talk-line")).to_contain_text("Good game")
    expect(by_testid(page, "talk-over")).to_be_hidden()
    ana.play_out(match_id)
    expect(by_testid(page, "table")).to_have_attribute("data-status", "finished")
    wait_synced(page, ana, match_id)
    # The lines heard stay; no phrase to click, and the panel says why.
    for phrase in ("good_game", "well_played", "oops", "your_turn"):
        expect(by_testid(page, f"talk-{phrase}")).to_be_hidden()
    expect(by_testid(page, "talk-line")).to_have_count(1)
    expect(by_testid(page, "talk-over")).to_have_text("The match is over: table talk has ended.")
    said = ana.post(f"/api/v1/matches/{match_id}/talk", {"phrase": "good_game"})
    assert said.status_code == 409 and said.json()["code"] == "match_not_active", said.text
    # Opened once it is over: nothing heard, no panel.
    page.reload()
    expect(by_testid(page, "match-result")).to_be_visible()
    expect(by_testid(page, "talk")).to_be_hidden()
    expect(by_testid(page, "talk-good_game")).to_be_hidden()
    pages.shot(page, "talk-over")
