"""Tournaments by clicking: an organizer creates a four-person Swiss tournament (tables of two,
one deal a match) inviting three people found by player search; they are told (a notice from
their event stream) and accept from the notice in the lobby, their invitations list and the
tournament page; the organizer sees who accepted, starts it, and everyone plays their tables by
clicking round after round; the standings show the final order and the CSV is one click.
Another organizer cancels a draft, and a declined invitation leaves the tournament; the list
with its form and a draft's page hold no axe-core violation."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .harness import Person, by_testid, play_to_end, sign_in
from .secrets import WATCH_CARDS, Audit
from .test_accessibility import AXE, violations

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

AT_TOURNAMENT = re.compile(r"#/tournaments/[0-9a-f-]{36}$")


def open_tournaments(page: Page, web_client: str, person: Person) -> None:
    page.context.add_init_script(WATCH_CARDS)
    sign_in(page, web_client, person, "#/tournaments")
    by_testid(page, "tournament-list").wait_for()


def invite(page: Page, people: list[Person]) -> None:
    """The new-tournament form's invitations: each person found by player search."""
    search = by_testid(page, "tournament-search")
    for person in people:
        search.locator('[data-testid="player-search-input"]').fill(person.name[:8])
        search.locator('[data-testid="player-search-submit"]').click()
        search.locator(
            f'[data-testid="player-search-result"][data-username="{person.name}"]'
        ).click()
        expect(
            by_testid(page, "tournament-invitee").and_(
                page.locator(f'[data-username="{person.name}"]')
            )
        ).to_have_count(1)


def create(page: Page, name: str, people: list[Person]) -> str:
    """The form: a Swiss tournament of tables of two, one deal a match of custom rules (hands of
    four, from Classic), the organizer playing; the tournament's id."""
    by_testid(page, "tournament-name").fill(name)
    by_testid(page, "tournament-format").select_option("swiss")
    by_testid(page, "tournament-size").select_option("2")
    expect(by_testid(page, "tournament-preset-classic")).to_be_checked()
    expect(by_testid(page, "tournament-custom-rules")).to_be_hidden()
    by_testid(page, "tournament-preset-custom").click()
    expect(by_testid(page, "tournament-custom-rules")).to_be_visible()
    by_testid(page, "tournament-rule-hand_size").fill("4")
    by_testid(page, "tournament-deals").fill("1")
    by_testid(page, "tournament-turn-seconds").fill("60")
    invite(page, people)
    by_testid(page, "tournament-submit").click()
    page.wait_for_url(AT_TOURNAMENT)
    by_testid(page, "tournament-entrants").wait_for()
    return page.url.rsplit("/", 1)[1]


def entrant(page: Page, person: Person) -> Any:
    return by_testid(page, "tournament-entrant").and_(page.locator(f'[data-player="{person.id}"]'))


def back_to(page: Page, tournament_id: str) -> None:
    """From wherever the page is: Tournaments in the menu, then the tournament's row."""
    by_testid(page, "nav-tournaments").click()
    page.locator(f'[data-testid="tournament-row"][data-tournament-id="{tournament_id}"] a').click()
    page.wait_for_url(re.compile(f"#/tournaments/{tournament_id}$"))


def test_an_organizer_runs_a_swiss_tournament_to_its_end(web_client: str, pages: Any) -> None:
    ana, bo, cem, dil = (Person(web_client, "tn") for _ in range(4))
    people = [ana, bo, cem, dil]
    ana_page, bo_page, cem_page, dil_page = (
        pages.new(),
        pages.new(375, 800),
        pages.new(),
        pages.new(375, 800),
    )
    seated = {ana.id: ana_page, bo.id: bo_page, cem.id: cem_page, dil.id: dil_page}
    for person, page in zip(people, seated.values(), strict=True):
        if person is bo:  # bo waits in the lobby
            page.context.add_init_script(WATCH_CARDS)
            sign_in(page, web_client, person)
            by_testid(page, "lobby-list").wait_for()
        else:
            open_tournaments(page, web_client, person)
    expect(by_testid(cem_page, "tournament-invitations")).to_contain_text(
        "No tournament invitation"
    )

    tournament_id = create(ana_page, "Friday cup", [bo, cem, dil])
    # The custom option went with it (and the form's one deal a match); nothing else changed.
    rules = ana.get(f"/api/v1/tournaments/{tournament_id}")["rules"]
    defaults = {option["name"]: option["default"] for option in ana.get("/api/v1/rules")}
    assert rules == {**defaults, "hand_size": 4, "deals_per_match": 1}, rules
    # The organizer's page: ana entered at once, the three invited have not answered.
    expect(entrant(ana_page, ana)).to_have_attribute("data-status", "accepted")
    for person in (bo, cem, dil):
        expect(entrant(ana_page, person)).to_have_attribute("data-status", "pending")
        expect(entrant(ana_page, person)).to_contain_text("no answer yet")
    expect(by_testid(ana_page, "tournament-waiting")).to_contain_text("3")
    pages.shot(ana_page, "draft")

    # bo is told at once in the lobby (the `tournament_invitation` event) and accepts from the
    # notice, which opens the tournament.
    notice = by_testid(bo_page, "tournament-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Friday cup")
    expect(notice).to_contain_text(ana.name)
    pages.shot(bo_page, "invited")
    notice.locator('[data-testid="tournament-accept"]').click()
    bo_page.wait_for_url(re.compile(f"#/tournaments/{tournament_id}$"))
    expect(by_testid(bo_page, "tournament-my-invitation")).to_have_count(0)

    # cem accepts from the list of his invitations.
    row = by_testid(cem_page, "tournament-invitation").and_(
        cem_page.locator(f'[data-tournament-id="{tournament_id}"]')
    )
    expect(row).to_have_count(1)
    row.locator('[data-testid="tournament-accept"]').click()
    cem_page.wait_for_url(re.compile(f"#/tournaments/{tournament_id}$"))

    # dil opens the tournament and accepts on its page.
    by_testid(dil_page, "tournaments-refresh").click()
    dil_page.locator(
        f'[data-testid="tournament-row"][data-tournament-id="{tournament_id}"] a'
    ).click()
    mine = by_testid(dil_page, "tournament-my-invitation")
    expect(mine).to_contain_text(ana.name)
    pages.shot(dil_page, "invitation")
    mine.locator('[data-testid="tournament-accept"]').click()
    expect(mine).to_have_count(0)
    expect(entrant(dil_page, dil)).to_have_attribute("data-status", "accepted")

    # The organizer's page shows every acceptance without a reload, and the start.
    for person in people:
        expect(entrant(ana_page, person)).to_have_attribute("data-status", "accepted")
    expect(by_testid(ana_page, "tournament-waiting")).to_have_count(0)
    pages.shot(ana_page, "accepted")
    by_testid(ana_page, "tournament-start").click()
    expect(by_testid(ana_page, "tournament-head")).to_have_attribute("data-status", "running")
    rounds = ana.get(f"/api/v1/tournaments/{tournament_id}")["rounds_total"]
    assert rounds == 2

    for number in range(1, rounds + 1):
        # Each page finds its table on the tournament page (told by `tournament_round`).
        for page in seated.values():
            if number > 1:
                back_to(page, tournament_id)
            expect(by_testid(page, "tournament-head")).to_have_attribute(
                "data-round", str(number), timeout=30_000
            )
            page.evaluate("window.__seenCards.clear()")
            by_testid(page, "tournament-play").click()
            page.wait_for_url(re.compile(r"#/match/[0-9a-f-]{36}$"))
            expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
        tables = ana.get(f"/api/v1/tournaments/{tournament_id}/tables")["rounds"][number - 1]
        audits = []
        for table in tables["tables"]:
            at_table = [p for p in people if p.id in {s["player"]["id"] for s in table["seats"]}]
            audits.append(Audit(table["match"], at_table, [(seated[p.id], p) for p in at_table]))
        assert len(audits) == 2

        def step(moved: Page, audits: list[Audit] = audits) -> None:
            """After a move, its table's pages (the other table's are as they were)."""
            for audit in audits:
                if any(page is moved for page, _ in audit.viewers):
                    audit.step()

        for audit in audits:
            audit.step()
        play_to_end(list(seated.values()), timeout=240, each_step=step)
        for audit in audits:
            audit.finish(pages.logs)
        if number == 1:
            pages.shot(bo_page, "table")

    # The standings: the order of the server's final standings, on every page; the CSV.
    final = ana.get(f"/api/v1/tournaments/{tournament_id}/standings")
    assert final["status"] == "finished"
    order = [row["player"]["id"] for row in final["results"]]
    assert sorted(order) == sorted(seated)
    for page in seated.values():
        back_to(page, tournament_id)
        expect(by_testid(page, "tournament-head")).to_have_attribute("data-status", "finished")
        expect(by_testid(page, "tournament-status")).to_have_text("finished")
        rows = by_testid(page, "standing")
        expect(rows).to_have_count(4)
        assert [rows.nth(i).get_attribute("data-player") for i in range(4)] == order
        assert all(
            row.get_attribute("data-status") == "finished"
            for row in page.locator('[data-testid="tournament-table"]').all()
        )
        expect(by_testid(page, "tournament-controls")).to_have_count(0)
    expect(by_testid(ana_page, "standing").first).to_contain_text(
        next(r["player"]["display_name"] for r in final["results"])
    )
    pages.shot(ana_page, "finished")
    pages.shot(bo_page, "finished")
    with ana_page.expect_download() as download:
        by_testid(ana_page, "tournament-csv").click()
    csv = download.value.path().read_text(encoding="utf-8").splitlines()
    assert csv[0].startswith("rank,player_id,display_name")
    assert [line.split(",")[1] for line in csv[1:]] == order
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_a_declined_invitation_leaves_and_the_organizer_cancels(
    web_client: str, pages: Any
) -> None:
    eda, fin = Person(web_client, "tn"), Person(web_client, "tn")
    eda_page, fin_page = pages.new(375, 800, locale="tr-TR"), pages.new()
    if AXE.exists():  # axe-core (make node-tools), loaded by the browser, never the page
        eda_page.context.add_init_script(path=str(AXE))
    open_tournaments(fin_page, web_client, fin)
    open_tournaments(eda_page, web_client, eda)
    found = {"list": violations(eda_page)} if AXE.exists() else {}
    tournament_id = create(eda_page, "Kupa", [fin])
    expect(entrant(eda_page, fin)).to_contain_text("henüz yanıt yok")
    if AXE.exists():
        found["draft"] = violations(eda_page)
    assert not any(found.values()), found
    pages.shot(eda_page, "draft-tr")

    notice = by_testid(fin_page, "tournament-notice")
    expect(notice).to_be_visible()
    notice.locator('[data-testid="tournament-decline"]').click()
    expect(notice).to_be_hidden()
    expect(by_testid(fin_page, "tournament-invitation")).to_have_count(0)
    # The organizer's page: fin left it, and a start is refused (a table needs two).
    expect(entrant(eda_page, fin)).to_have_count(0)
    by_testid(eda_page, "tournament-start").click()
    expect(by_testid(eda_page, "error-banner")).to_be_visible()
    by_testid(eda_page, "tournament-cancel").click()
    expect(by_testid(eda_page, "tournament-head")).to_have_attribute("data-status", "cancelled")
    expect(by_testid(eda_page, "tournament-status")).to_have_text("iptal")
    expect(by_testid(eda_page, "tournament-controls")).to_have_count(0)
    by_testid(eda_page, "nav-tournaments").click()
    expect(
        eda_page.locator(f'[data-testid="tournament-row"][data-tournament-id="{tournament_id}"]')
    ).to_have_attribute("data-status", "cancelled")
    pages.shot(eda_page, "cancelled-tr")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console
