"""Private tables and challenges by clicking: a creator makes a private two-seat table inviting
a second person found by player search; the second person is told (a notice from their event
stream), sees the invitation in the lobby and accepts, and both are at the table; a third person
opens the join link of another private table, signs in, and is seated; an outsider's lobby never
shows a private table. A challenge is told on any page and answered on its match's page; its
lobby row goes once its match is cancelled or its invitation expires. The new-match form invites
no more people than its open seats, never the creator. A join link left unused seats nobody at
a later sign-in."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

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


def challenge(creator: Person, invite: list[Person], seats: int = 2) -> str:
    """A private table of `seats` made through the API, inviting `invite`; its id."""
    body = {"seats": seats, "private": True, "invite": [p.name for p in invite]}
    return str(creator.post("/api/v1/matches", body, status=201).json()["id"])


def test_a_challenge_is_told_on_any_page_and_answered_on_its_match_page(
    web_client: str, pages: Any, spectators: None
) -> None:
    """On the leaderboards, a challenge is told under the header; its link (the match's page, as
    the Web Push notice's) shows who invites with Accept and Decline, not a page refused to a
    spectator: Accept seats the person at the table, Decline says so and leads to the lobby."""
    ana, bora = Person(web_client), Person(web_client)
    page = pages.new(375, 800)
    sign_in(page, web_client, bora, route="#/leaderboards")
    first = challenge(ana, [bora])
    line = by_testid(page, "turn-challenge").and_(page.locator(f'[data-match-id="{first}"]'))
    expect(line).to_contain_text(ana.name)
    expect(line.locator('[data-testid="turn-go"]')).to_have_text("See the invitation")
    pages.shot(page, "challenge-notice")
    line.locator('[data-testid="turn-go"]').click()
    expect(page).to_have_url(f"{web_client}/#/match/{first}")
    answer = by_testid(page, "challenge-page")
    expect(answer).to_contain_text(f"{ana.name} invites you to a table of 2")
    expect(by_testid(page, "view-failed")).to_have_count(0)
    expect(line).to_have_count(0)
    pages.shot(page, "challenge-page")
    by_testid(page, "challenge-accept").click()
    table = by_testid(page, "table")
    expect(table).to_have_attribute("data-role", "seat")
    expect(table).to_have_attribute("data-status", "active")
    expect(page).to_have_url(f"{web_client}/#/match/{first}")

    # A second challenge, opened by its address in Turkish on a wide screen, declined.
    wide = pages.new(1280, locale="tr-TR")
    sign_in(wide, web_client, bora, route="#/players")
    second = challenge(ana, [bora])
    line = by_testid(wide, "turn-challenge").and_(wide.locator(f'[data-match-id="{second}"]'))
    expect(line).to_contain_text("seni özel bir masaya çağırıyor")
    wide.goto(f"{web_client}/#/match/{second}")
    expect(by_testid(wide, "challenge-page")).to_contain_text(ana.name)
    pages.shot(wide, "challenge-page-tr")
    by_testid(wide, "challenge-decline").click()
    status = by_testid(wide, "challenge-status")
    expect(status).to_contain_text("davetini reddettin")
    expect(by_testid(wide, "challenge-accept")).to_have_count(0)
    pages.shot(wide, "declined-tr")
    invitation = ana.get(f"/api/v1/matches/{second}")["invitations"][0]
    assert invitation["status"] == "declined"
    by_testid(wide, "challenge-lobby").click()
    expect(wide).to_have_url(f"{web_client}/#/lobby")
    # The page left is no table of bora's: nothing is told of it.
    wide.wait_for_timeout(1000)
    expect(wide.locator(f'[data-testid="turn-notice"] [data-match-id="{second}"]')).to_have_count(0)
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_a_challenge_row_goes_once_its_match_is_cancelled_or_its_invitation_expires(
    web_client: str, pages: Any, spectators: None
) -> None:
    ana, bora = Person(web_client), Person(web_client)
    page = pages.new(1280)
    # The invitation of `expiring` is read as ending in a few seconds (not the server's 10 min).
    soon: dict[str, str] = {}

    def shorten(route: Route) -> None:
        response = route.fetch()
        body = response.json()
        for match in body.get("results", []):
            for invitation in match["invitations"]:
                invitation["expires_at"] = soon.get(match["id"], invitation["expires_at"])
        route.fulfill(response=response, json=body)

    page.route(re.compile(r"/api/v1/matches\?(.*&)?invited=true"), shorten)
    sign_in(page, web_client, bora)
    expect(by_testid(page, "challenges")).to_contain_text("No invitation")
    cancelled = challenge(ana, [bora])
    expiring = challenge(ana, [bora])
    soon[expiring] = (datetime.now(UTC) + timedelta(seconds=6)).isoformat()
    rows = {
        match_id: by_testid(page, "challenge").and_(page.locator(f'[data-match-id="{match_id}"]'))
        for match_id in (cancelled, expiring)
    }
    by_testid(page, "lobby-refresh").click()  # read again with the shortened expiry
    for row in rows.values():
        expect(row).to_be_visible()
    ana.post(f"/api/v1/matches/{cancelled}/cancel", status=200)
    expect(rows[cancelled]).to_have_count(0)
    expect(rows[expiring]).to_be_visible()
    expect(rows[expiring]).to_have_count(0, timeout=15_000)
    expect(by_testid(page, "challenges")).to_contain_text("No invitation")


def test_the_private_form_invites_only_into_open_seats_and_never_oneself(
    web_client: str, pages: Any
) -> None:
    ana, bora, cem = Person(web_client), Person(web_client), Person(web_client)
    page = pages.new(375, 800)
    sign_in(page, web_client, ana)
    by_testid(page, "create-seats").select_option("3")
    choices = by_testid(page, "create-bots")
    expect(choices).to_have_count(2)
    choices.nth(0).select_option("greedy")
    choices.nth(1).select_option("person")
    by_testid(page, "create-private").click()
    search = by_testid(page, "invite-search")
    field = search.locator('[data-testid="player-search-input"]')
    submit = search.locator('[data-testid="player-search-submit"]')

    # The search never offers the creator.
    field.fill(ana.name)
    submit.click()
    expect(search.locator('[data-testid="player-search-none"]')).to_be_visible()
    expect(search.locator(f'[data-username="{ana.name}"]')).to_have_count(0)

    # One seat is left to a person: one invitation fits, a second is refused, in good English.
    for person in (bora, cem):
        field.fill(person.name)
        submit.click()
        search.locator(
            f'[data-testid="player-search-result"][data-username="{person.name}"]'
        ).click()
    invitees = by_testid(page, "create-invitee")
    expect(invitees).to_have_count(1)
    expect(invitees).to_have_attribute("data-username", bora.name)
    expect(by_testid(page, "error-banner")).to_have_text("Only 1 person fits the open seat.")
    pages.shot(page, "one-open-seat")

    # Both seats to bots: nobody fits.
    choices.nth(1).select_option("greedy")
    by_testid(page, "create-invitee-remove").click()
    search.locator(f'[data-testid="player-search-result"][data-username="{cem.name}"]').click()
    expect(by_testid(page, "create-invitee")).to_have_count(0)
    expect(by_testid(page, "error-banner")).to_contain_text("Every other seat is a bot's")

    # A seat to a person again: the table is made with the one invitation.
    choices.nth(1).select_option("person")
    search.locator(f'[data-testid="player-search-result"][data-username="{cem.name}"]').click()
    expect(by_testid(page, "create-invitee")).to_have_count(1)
    by_testid(page, "create-submit").click()
    page.wait_for_url(re.compile(r"#/match/[0-9a-f-]{36}$"))
    invitation = by_testid(page, "invitation")
    expect(invitation).to_have_attribute("data-username", cem.name)


def test_a_join_link_left_unused_does_not_seat_a_later_sign_in(web_client: str, pages: Any) -> None:
    """Signed out, a join link is opened and left for another page: a sign-in from the header
    later opens the lobby, and seats the person nowhere."""
    ana, cem = Person(web_client), Person(web_client)
    match = ana.post("/api/v1/matches", {"seats": 2, "private": True}, status=201).json()
    page = pages.new(375, 800)
    page.goto(f"{web_client}/#/join/{match['id']}/{match['join_code']}")
    expect(by_testid(page, "join-status")).to_contain_text("Sign in")
    by_testid(page, "nav-leaderboards").click()
    expect(page).to_have_url(f"{web_client}/#/leaderboards")
    page.locator('header a[href="#/login"]').click()
    by_testid(page, "auth-username").fill(cem.name)
    by_testid(page, "auth-password").fill(PASSWORD)
    by_testid(page, "auth-login").click()
    expect(page).to_have_url(f"{web_client}/#/lobby")
    by_testid(page, "whoami").filter(has_text=cem.name).wait_for()
    page.wait_for_timeout(1000)
    expect(page).to_have_url(f"{web_client}/#/lobby")
    seats = ana.get(f"/api/v1/matches/{match['id']}")["seats"]
    assert seats[1]["player"] is None, seats
