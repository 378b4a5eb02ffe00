"""Quick play by clicks: two people press "Play now" for a two-seat table and land at the same
match (neither page shows the other's cards); one person who lets bots fill the table lands at
a table with bots once the wait ends, in Turkish. On a phone "Play now" comes first."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .harness import WIDTHS, Person, by_testid, sign_in
from .secrets import WATCH_CARDS, Audit

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

AT_TABLE = re.compile(r"#/match/[0-9a-f-]{36}$")


def choose(page: Page, group: str, value: str) -> None:
    """Click a chip of the Play now form (a radio button behind its label)."""
    chip = by_testid(page, f"quick-{group}-{value}")
    chip.click()
    expect(chip.locator("input")).to_be_checked()


def open_lobby(page: Page, web_client: str, person: Person) -> None:
    page.context.add_init_script(WATCH_CARDS)
    sign_in(page, web_client, person)
    by_testid(page, "quick-play-button").wait_for()


def test_two_people_press_play_now_and_sit_at_one_table(web_client: str, pages: Any) -> None:
    ana, bob = Person(web_client), Person(web_client)
    ana_page = pages.new(WIDTHS["phone"], 800)
    bob_page = pages.new(WIDTHS["desktop"], 900)
    open_lobby(ana_page, web_client, ana)
    open_lobby(bob_page, web_client, bob)
    # On a phone Play now comes first, above the open matches.
    quick = by_testid(ana_page, "quick-play").bounding_box()
    listed = by_testid(ana_page, "lobby-list").bounding_box()
    assert quick and listed and quick["y"] < listed["y"] and quick["y"] < 200, (quick, listed)
    for page in (ana_page, bob_page):
        pages.shot(page, "lobby")

    # Ana waits for a person only, then changes her mind once.
    choose(ana_page, "seats", "2")
    choose(ana_page, "wait", "120")
    by_testid(ana_page, "quick-bots-label").click()
    expect(by_testid(ana_page, "quick-bots")).not_to_be_checked()
    by_testid(ana_page, "quick-play-button").click()
    waiting = by_testid(ana_page, "quick-waiting")
    expect(waiting).to_contain_text("Looking for players for a table of 2 (Classic)")
    expect(by_testid(ana_page, "quick-left")).to_contain_text(re.compile(r"1[01]\d s left"))
    pages.shot(ana_page, "waiting")
    by_testid(ana_page, "quick-cancel").click()
    by_testid(ana_page, "quick-play-button").wait_for()
    assert ana.get("/api/v1/queue")["status"] == "left"
    choose(ana_page, "seats", "2")
    by_testid(ana_page, "quick-play-button").click()
    expect(waiting).to_be_visible()

    choose(bob_page, "seats", "2")
    by_testid(bob_page, "quick-play-button").click()
    for page in (ana_page, bob_page):
        page.wait_for_url(AT_TABLE, timeout=20_000)
        by_testid(page, "table").wait_for()
    match_id = ana_page.url.rsplit("/", 1)[1]
    assert bob_page.url.rsplit("/", 1)[1] == match_id
    seated = {s["player"]["id"] for s in ana.get(f"/api/v1/matches/{match_id}")["seats"]}
    assert seated == {ana.id, bob.id}
    assert ana.get("/api/v1/queue")["match"] == bob.get("/api/v1/queue")["match"] == match_id
    audit = Audit(match_id, [ana, bob], [(ana_page, ana), (bob_page, bob)])
    audit.step()
    for page in (ana_page, bob_page):
        pages.shot(page, "seated")
    audit.finish(pages.logs)
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_play_now_with_bots_fills_the_table_when_the_wait_ends(with_beat: str, pages: Any) -> None:
    web_client = with_beat
    cem = Person(web_client)
    page = pages.new(WIDTHS["desktop"], 900, locale="tr-TR")
    open_lobby(page, web_client, cem)
    expect(by_testid(page, "quick-play")).to_contain_text("Hemen oyna")
    choose(page, "seats", "3")
    choose(page, "preset", "quick")
    choose(page, "wait", "10")
    expect(by_testid(page, "quick-bots")).to_be_checked()
    by_testid(page, "quick-play-button").click()
    expect(by_testid(page, "quick-waiting")).to_contain_text(
        "3 kişilik bir masa için oyuncu aranıyor"
    )
    expect(by_testid(page, "quick-left")).to_contain_text("sn kaldı")
    pages.shot(page, "waiting-tr")
    page.wait_for_url(AT_TABLE, timeout=30_000)
    by_testid(page, "table").wait_for()
    match_id = page.url.rsplit("/", 1)[1]
    match = cem.get(f"/api/v1/matches/{match_id}")
    assert [s["player"]["is_bot"] for s in match["seats"]] == [False, True, True]
    assert match["seats"][0]["player"]["id"] == cem.id and match["status"] == "active"
    assert match["rules"]["draw_policy"] == "one_then_pass"
    entry = cem.get("/api/v1/queue")
    assert entry["status"] == "seated" and entry["bot_seats"] == 2
    audit = Audit(match_id, [cem], [(page, cem)])
    audit.step()
    pages.shot(page, "bots-tr")
    # Back in the lobby (here on a phone), the table found is offered until it is over.
    phone = pages.new(WIDTHS["phone"], 800, locale="tr-TR")
    open_lobby(phone, web_client, cem)
    expect(by_testid(phone, "quick-seated")).to_contain_text("Hızlı oyun sana bir masa buldu.")
    pages.shot(phone, "lobby-tr")
    by_testid(phone, "quick-seated-link").click()
    phone.wait_for_url(re.compile(f"#/match/{match_id}$"))
    by_testid(phone, "table").wait_for()
    audit.finish(pages.logs)
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_a_wait_that_found_nobody_offers_the_same_choices_again(with_beat: str, pages: Any) -> None:
    """Nobody found in time, bots not allowed: the form comes back saying so, with the table
    size, rules, wait and bots as they were chosen, so "Play now" asks the same again."""
    web_client = with_beat
    page = pages.new(WIDTHS["phone"], 800)
    open_lobby(page, web_client, Person(web_client))
    choose(page, "seats", "5")
    choose(page, "preset", "reshuffle")
    choose(page, "wait", "10")
    by_testid(page, "quick-bots").uncheck()
    by_testid(page, "quick-play-button").click()
    expect(by_testid(page, "quick-waiting")).to_be_visible()
    expect(by_testid(page, "quick-notice")).to_be_visible(timeout=40_000)
    for group, value in (("seats", "5"), ("preset", "reshuffle"), ("wait", "10")):
        expect(by_testid(page, f"quick-{group}-{value}").locator("input")).to_be_checked()
    expect(by_testid(page, "quick-bots")).not_to_be_checked()
    pages.shot(page, "nobody-found")
