"""Private tables and challenges by clicking: a creator makes a private two-seat table inviting
a second person found by player search; the second person is told (a notice from their event
stream), sees the invitation in the lobby and accepts, and both are at the table; a third person
opens the join link of another private table, signs in, and is seated; an outsider's lobby never
shows a private table."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .harness import PASSWORD, Person, by_testid, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def create_private(page: Page, seats: int, invite: list[Person]) -> str:
    """The lobby's form: a private table of `seats` open seats, inviting `invite` found by
    player search; the match's id."""
    by_testid(page, "create-seats").select_option(str(seats))
    choices = by_testid(page, "create-bots")
    expect(choices).to_have_count(seats - 1)
    for i in range(seats - 1):
        choices.nth(i).select_option("person")
    by_testid(page, "create-deals").fill("1")
    by_testid(page, "create-private").click()
    search = by_testid(page, "invite-search")
    for person in invite:
        search.locator('[data-testid="player-search-input"]').fill(person.name[:8])
        search.locator('[data-testid="player-search-submit"]').click()
        search.locator(
            f'[data-testid="player-search-result"][data-username="{person.name}"]'
        ).click()
        expect(
            by_testid(page, "create-invitee").and_(page.locator(f'[data-username="{person.name}"]'))
        ).to_have_count(1)
    expect(by_testid(page, "create-spectators")).to_have_value("none")
    by_testid(page, "create-submit").click()
    page.wait_for_url(re.compile(r"#/match/[0-9a-f-]{36}$"))
    by_testid(page, "table").wait_for()
    return page.url.rsplit("/", 1)[1]


def test_a_challenge_is_accepted_and_both_sit_at_the_table(
    web_client: str, pages: Any, spectators: None
) -> None:
    ana, bora, dilek = Person(web_client), Person(web_client), Person(web_client)
    ana_page, bora_page = pages.new(), pages.new(375, 800)
    sign_in(bora_page, web_client, bora)
    expect(by_testid(bora_page, "challenges")).to_contain_text("No invitation")
    sign_in(ana_page, web_client, ana)
    match_id = create_private(ana_page, 2, [bora])

    # The creator's table: the join link and bora's invitation, not answered yet.
    expect(by_testid(ana_page, "join-link")).to_have_value(re.compile(f"#/join/{match_id}/"))
    invitation = by_testid(ana_page, "invitation")
    expect(invitation).to_have_attribute("data-username", bora.name)
    expect(invitation).to_have_attribute("data-status", "pending")
    # No deal yet: no moves to list, nothing to draw or pass.
    expect(by_testid(ana_page, "move-log")).to_be_hidden()
    expect(by_testid(ana_page, "draw-button")).to_have_count(0)
    expect(by_testid(ana_page, "keys-help")).to_have_count(0)
    expect(by_testid(ana_page, "stock-count")).to_have_count(0)
    pages.shot(ana_page, "creator")

    # bora's lobby is told at once (the `challenge` event): the status line says who, and the
    # invitation is listed once, marked new, with its answers on its row only.
    notice = by_testid(bora_page, "invitation-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text(ana.name)
    row = by_testid(bora_page, "challenge").and_(bora_page.locator(f'[data-match-id="{match_id}"]'))
    expect(row).to_have_count(1)
    expect(row).to_have_class(re.compile(r"\bfresh\b"))
    expect(by_testid(bora_page, "challenge-accept")).to_have_count(1)
    expect(notice.locator("button")).to_have_count(0)
    pages.shot(bora_page, "challenged")

    # An outsider's lobby shows nothing of it.
    outsider = pages.new(375, 800)
    sign_in(outsider, web_client, dilek)
    by_testid(outsider, "lobby-refresh").click()
    expect(outsider.locator(f'[data-match-id="{match_id}"]')).to_have_count(0)
    expect(by_testid(outsider, "challenges")).to_contain_text("No invitation")

    row.locator('[data-testid="challenge-accept"]').click()
    bora_page.wait_for_url(re.compile(f"#/match/{match_id}$"))
    for page in (ana_page, bora_page):
        expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
        expect(by_testid(page, "table")).to_have_attribute("data-role", "seat")
    expect(by_testid(ana_page, "private-panel")).to_have_count(0)  # it waits no more
    pages.shot(bora_page, "seated")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_a_join_link_seats_whoever_opens_it_after_sign_in(
    web_client: str, pages: Any, spectators: None
) -> None:
    ana, cem = Person(web_client), Person(web_client)
    ana_page = pages.new(locale="tr-TR")
    sign_in(ana_page, web_client, ana)
    match_id = create_private(ana_page, 2, [])
    expect(by_testid(ana_page, "invitations")).to_contain_text("Henüz kimse davet edilmedi")
    pages.shot(ana_page, "link-tr")
    link = by_testid(ana_page, "join-link").input_value()
    assert re.search(f"#/join/{match_id}/[A-Za-z0-9_-]{{22}}$", link), link

    # cem opens the link signed out: it waits for the sign-in, then seats him.
    cem_page = pages.new(375, 800)
    cem_page.goto(link)
    expect(by_testid(cem_page, "join-status")).to_contain_text("Sign in")
    pages.shot(cem_page, "sign-in-first")
    by_testid(cem_page, "join-sign-in").click()
    by_testid(cem_page, "auth-username").fill(cem.name)
    by_testid(cem_page, "auth-password").fill(PASSWORD)
    by_testid(cem_page, "auth-login").click()
    cem_page.wait_for_url(re.compile(f"#/match/{match_id}$"))
    for page in (ana_page, cem_page):
        expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
    expect(by_testid(cem_page, "table")).to_have_attribute("data-role", "seat")
    pages.shot(cem_page, "joined")

    # The same link a second time, by someone else: the table is full.
    late = Person(web_client)
    late_page = pages.new()
    sign_in(late_page, web_client, late)
    late_page.goto(link)
    expect(by_testid(late_page, "error-banner")).to_be_visible()
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_a_declined_challenge_shows_to_the_creator_and_frees_the_seat_for_the_link(
    web_client: str, pages: Any, spectators: None
) -> None:
    ana, bora, cem = Person(web_client), Person(web_client), Person(web_client)
    ana_page, bora_page = pages.new(375, 800), pages.new()
    sign_in(bora_page, web_client, bora)
    sign_in(ana_page, web_client, ana)
    match_id = create_private(ana_page, 2, [bora])
    link = by_testid(ana_page, "join-link").input_value()

    # bora declines from the new row the notice points to; ana's table shows it without a reload.
    notice = by_testid(bora_page, "invitation-notice")
    expect(notice).to_be_visible()
    by_testid(bora_page, "challenge").locator('[data-testid="challenge-decline"]').click()
    expect(notice).to_be_hidden()
    expect(by_testid(bora_page, "challenge")).to_have_count(0)
    invitation = by_testid(ana_page, "invitation")
    expect(invitation).to_have_attribute("data-status", "declined")
    expect(invitation).to_contain_text("declined")
    pages.shot(ana_page, "declined")

    # The seat it held is free for whoever has the link.
    cem_page = pages.new()
    sign_in(cem_page, web_client, cem)
    cem_page.goto(link)
    cem_page.wait_for_url(re.compile(f"#/match/{match_id}$"))
    for page in (ana_page, cem_page):
        expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
    pages.shot(cem_page, "joined")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console
