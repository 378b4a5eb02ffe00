"""A table waiting for players, by clicks: a visitor signed in takes an open seat from the
table's own page, one signed out signs in first and comes back to it; a seated person leaves,
the creator hands the table over by leaving or cancels it, and the lobby's "My matches" offers
Cancel to the creator of the moment (not whoever sits in seat 0) and Leave to the others; a
person seated by a private table's link is told what the table waits for; a long name without
spaces wraps in its seat on a phone."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.httpclient import http

from .harness import PASSWORD, Person, by_testid, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def seated(person: Person, match_id: str) -> list[str | None]:
    """Who sits where (player ids, None for an open seat), as the server has it."""
    match = person.get(f"/api/v1/matches/{match_id}")
    return [seat["player"]["id"] if seat["player"] else None for seat in match["seats"]]


def sign_in_by_form(page: Page, person: Person) -> None:
    by_testid(page, "auth-username").fill(person.name)
    by_testid(page, "auth-password").fill(PASSWORD)
    by_testid(page, "auth-login").click()


def test_a_visitor_takes_an_open_seat_from_the_tables_page(web_client: str, pages: Any) -> None:
    ana, bora, cem = Person(web_client), Person(web_client), Person(web_client)
    match_id = ana.create(3, [])

    # bora, signed in, opens the address the table says to share: Join this table seats him.
    page = pages.new(375, 800)
    sign_in(page, web_client, bora, route=f"#/match/{match_id}")
    table = by_testid(page, "table")
    expect(table).to_have_attribute("data-role", "spectator")
    panel = by_testid(page, "waiting-panel")
    expect(panel).to_contain_text("2 open seats")
    expect(by_testid(page, "table-leave")).to_have_count(0)
    pages.shot(page, "visitor")
    by_testid(page, "table-join").click()
    expect(table).to_have_attribute("data-role", "seat")
    expect(page).to_have_url(f"{web_client}/#/match/{match_id}")
    assert seated(ana, match_id) == [ana.id, bora.id, None]
    expect(by_testid(page, "table-join")).to_have_count(0)
    expect(by_testid(page, "table-leave")).to_be_visible()

    # cem, signed out (in Turkish): the page asks him to sign in, then comes back to the table.
    other = pages.new(1280, locale="tr-TR")
    other.goto(f"{web_client}/#/match/{match_id}")
    expect(by_testid(other, "waiting-panel")).to_contain_text("bir oyuncu daha")
    expect(by_testid(other, "table-join")).to_have_count(0)
    pages.shot(other, "signed-out-tr")
    by_testid(other, "table-sign-in").click()
    expect(other).to_have_url(f"{web_client}/#/login")
    sign_in_by_form(other, cem)
    expect(other).to_have_url(f"{web_client}/#/match/{match_id}")
    by_testid(other, "whoami").filter(has_text=cem.name).wait_for()
    expect(by_testid(other, "table-join")).to_have_text("Bu masaya otur")
    by_testid(other, "table-join").click()
    expect(by_testid(other, "table")).to_have_attribute("data-role", "seat")
    expect(by_testid(other, "table")).to_have_attribute("data-status", "active")
    expect(table).to_have_attribute("data-status", "active")
    expect(by_testid(page, "waiting-panel")).to_have_count(0)
    assert seated(ana, match_id) == [ana.id, bora.id, cem.id]
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_a_seated_person_leaves_and_the_creator_hands_over_or_cancels(
    web_client: str, pages: Any
) -> None:
    ana, bora, cem = Person(web_client), Person(web_client), Person(web_client)
    match_id = ana.create(4, [])
    bora.post(f"/api/v1/matches/{match_id}/join", status=200)
    cem.post(f"/api/v1/matches/{match_id}/join", status=200)

    # The creator, with others seated: Cancel the match, or Leave (the table goes to bora).
    ana_page = pages.new(1280)
    sign_in(ana_page, web_client, ana, route=f"#/match/{match_id}")
    expect(by_testid(ana_page, "table-cancel")).to_have_text("Cancel the match")
    pages.shot(ana_page, "creator")
    by_testid(ana_page, "table-leave").click()
    expect(by_testid(ana_page, "error-banner")).to_contain_text("You left the table.")
    expect(by_testid(ana_page, "table")).to_have_attribute("data-role", "spectator")
    expect(by_testid(ana_page, "table-join")).to_be_visible()
    match = ana.get(f"/api/v1/matches/{match_id}")
    assert match["creator"] == bora.id and seated(ana, match_id) == [None, bora.id, cem.id, None]

    # The lobby's "My matches": Cancel for the creator of now (in seat 1), Leave for cem.
    bora_page, cem_page = pages.new(375, 800), pages.new(375, 800)
    for page, person in ((bora_page, bora), (cem_page, cem)):
        sign_in(page, web_client, person)
    bora_row = by_testid(bora_page, "my-match").and_(
        bora_page.locator(f'[data-match-id="{match_id}"]')
    )
    expect(bora_row.locator('[data-testid="cancel-button"]')).to_have_count(1)
    expect(bora_row.locator('[data-testid="leave-button"]')).to_have_count(0)
    cem_row = by_testid(cem_page, "my-match").and_(
        cem_page.locator(f'[data-match-id="{match_id}"]')
    )
    expect(cem_row.locator('[data-testid="leave-button"]')).to_have_count(1)
    expect(cem_row.locator('[data-testid="cancel-button"]')).to_have_count(0)

    # cem leaves from the table's page: he watches it again, and may join it again.
    cem_page.goto(f"{web_client}/#/match/{match_id}")
    expect(by_testid(cem_page, "table-leave")).to_be_visible()
    expect(by_testid(cem_page, "table-cancel")).to_have_count(0)
    pages.shot(cem_page, "seated")
    by_testid(cem_page, "table-leave").click()
    expect(by_testid(cem_page, "error-banner")).to_contain_text("You left the table.")
    expect(by_testid(cem_page, "table")).to_have_attribute("data-role", "spectator")
    expect(by_testid(cem_page, "table-join")).to_be_visible()
    assert seated(ana, match_id) == [None, bora.id, None, None]

    # bora, the creator now and alone: Cancel only; the lobby says it is cancelled.
    bora_page.goto(f"{web_client}/#/match/{match_id}")
    expect(by_testid(bora_page, "table-cancel")).to_be_visible()
    expect(by_testid(bora_page, "table-leave")).to_have_count(0)
    by_testid(bora_page, "table-cancel").click()
    expect(bora_page).to_have_url(f"{web_client}/#/lobby")
    expect(by_testid(bora_page, "error-banner")).to_contain_text("The match is cancelled.")
    row = by_testid(bora_page, "my-match").and_(bora_page.locator(f'[data-match-id="{match_id}"]'))
    expect(row).to_have_attribute("data-status", "cancelled")
    assert ana.get(f"/api/v1/matches/{match_id}")["status"] == "cancelled"
    pages.shot(bora_page, "cancelled")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_a_person_seated_by_a_private_link_is_told_what_the_table_waits_for(
    web_client: str, pages: Any
) -> None:
    ana, dilek = Person(web_client), Person(web_client)
    body = {"seats": 3, "private": True}
    match = ana.post("/api/v1/matches", body, status=201).json()
    dilek.post(f"/api/v1/matches/{match['id']}/join", {"code": match["join_code"]}, status=200)
    words = {"en-US": "You have a seat at this private table", "tr-TR": "koltuğun var"}
    for locale, said in words.items():
        page = pages.new(375, 800, locale=locale)
        sign_in(page, web_client, dilek, route=f"#/match/{match['id']}")
        panel = by_testid(page, "private-panel")
        expect(panel).to_contain_text(said)
        expect(by_testid(page, "invitations")).to_have_count(0)
        expect(by_testid(page, "join-link")).to_have_count(0)
        expect(by_testid(page, "table-leave")).to_be_visible()
        pages.shot(page, f"private-seated-{locale[:2]}")
    # Leaving a private table leads to the lobby (the table is no longer theirs to see).
    by_testid(page, "table-leave").click()
    expect(page).to_have_url(f"{web_client}/#/lobby")
    assert seated(ana, match["id"]) == [ana.id, None, None]


def test_a_long_name_without_spaces_wraps_in_its_seat_on_a_phone(
    web_client: str, pages: Any
) -> None:
    ana, long = Person(web_client), Person(web_client)
    name = "Abcdefghijklmnopqrstuvwxyz"
    answer = http.patch(
        f"{web_client}/api/v1/players/me", json={"display_name": name}, headers=long.headers
    )
    assert answer.status_code == 200, answer.text
    match_id = ana.create(4, [])
    long.post(f"/api/v1/matches/{match_id}/join", status=200)
    page = pages.new(375, 800)
    sign_in(page, web_client, ana, route=f"#/match/{match_id}")
    seat = by_testid(page, "seat-1")
    expect(seat).to_contain_text(name)
    overflowing = page.evaluate(
        """() => [...document.querySelectorAll('.seat-name')]
             .filter((e) => e.scrollWidth > e.clientWidth + 1
                 || e.getBoundingClientRect().right
                    > e.closest('.seat').getBoundingClientRect().right + 1)
             .map((e) => e.textContent)"""
    )
    assert overflowing == []
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    pages.shot(page, "long-name")
