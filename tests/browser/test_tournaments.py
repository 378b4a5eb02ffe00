"""Tournaments by clicking: an organizer creates a four-person Swiss tournament (tables of two,
one deal a match) inviting three people found by player search; they are told (a notice from
their event stream) and accept from the notice in the lobby, their invitations list and the
tournament page; the organizer sees who accepted, starts it, and everyone plays their tables by
clicking round after round; the standings show the final order and the CSV is one click.
Another organizer, whom the search never offers to themselves, cancels a draft after its
confirm step, and a declined invitation leaves the tournament; the list with its form and a
draft's page hold no axe-core violation. A duplicate tournament's standings lead with
matchpoints and say how they rank, and a table of a round that other tables still play is
shown with the reason it cannot be watched yet, then offered for replay once the round is
over."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .harness import Person, by_testid, card_text, play_to_end, sign_in
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

    # bo is told at once in the lobby (the `tournament_invitation` event): the status line
    # names it, the lobby's invitations list it, marked new; Accept opens the tournament.
    notice = by_testid(bo_page, "invitation-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Friday cup")
    expect(notice).to_contain_text(ana.name)
    invited = by_testid(bo_page, "challenges").locator(
        f'[data-testid="tournament-invitation"][data-tournament-id="{tournament_id}"]'
    )
    expect(invited).to_have_class(re.compile(r"\bfresh\b"))
    pages.shot(bo_page, "invited")
    invited.locator('[data-testid="tournament-accept"]').click()
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
    # The organizer enters by the tick box: the search never offers them.
    search = by_testid(eda_page, "tournament-search")
    search.locator('[data-testid="player-search-input"]').fill(eda.name)
    search.locator('[data-testid="player-search-submit"]').click()
    expect(search.locator('[data-testid="player-search-none"]')).to_be_visible()
    expect(search.locator('[data-testid="player-search-result"]')).to_have_count(0)
    # Each format has a short name, and the form says what the chosen one is.
    format_choice = by_testid(eda_page, "tournament-format")
    expect(format_choice.locator('option[value="duplicate"]')).to_have_text("düplike")
    expect(by_testid(eda_page, "tournament-format-help")).to_contain_text("İsviçre sistemi:")
    format_choice.select_option("duplicate")
    expect(by_testid(eda_page, "tournament-format-help")).to_contain_text("aynı elleri oynar")
    pages.shot(eda_page, "form-tr")
    tournament_id = create(eda_page, "Kupa", [fin])
    expect(entrant(eda_page, fin)).to_contain_text("henüz yanıt yok")
    if AXE.exists():
        found["draft"] = violations(eda_page)
    assert not any(found.values()), found
    pages.shot(eda_page, "draft-tr")

    notice = by_testid(fin_page, "invitation-notice")
    expect(notice).to_be_visible()
    by_testid(fin_page, "tournament-invitation").locator(
        '[data-testid="tournament-decline"]'
    ).click()
    expect(notice).to_be_hidden()
    expect(by_testid(fin_page, "tournament-invitation")).to_have_count(0)
    # The organizer's page: fin left it, and a start is refused (a table needs two).
    expect(entrant(eda_page, fin)).to_have_count(0)
    by_testid(eda_page, "tournament-start").click()
    expect(by_testid(eda_page, "error-banner")).to_be_visible()
    # Cancel asks first; No keeps the tournament as it was.
    by_testid(eda_page, "tournament-cancel").click()
    confirm = by_testid(eda_page, "tournament-cancel-confirm")
    expect(confirm).to_have_attribute("role", "alertdialog")
    expect(confirm).to_contain_text("Bu turnuva iptal edilsin mi?")
    expect(by_testid(eda_page, "tournament-cancel-no")).to_be_focused()
    expect(by_testid(eda_page, "tournament-cancel")).to_have_count(0)
    if AXE.exists():
        assert not violations(eda_page), violations(eda_page)
    pages.shot(eda_page, "cancel-confirm-tr")
    by_testid(eda_page, "tournament-cancel-no").click()
    expect(confirm).to_have_count(0)
    expect(by_testid(eda_page, "tournament-cancel")).to_be_focused()
    assert eda.get(f"/api/v1/tournaments/{tournament_id}")["status"] == "draft"
    expect(by_testid(eda_page, "tournament-head")).to_have_attribute("data-status", "draft")
    # Escape is No too, as in Resign's confirm step.
    by_testid(eda_page, "tournament-cancel").click()
    expect(by_testid(eda_page, "tournament-cancel-no")).to_be_focused()
    eda_page.keyboard.press("Escape")
    expect(confirm).to_have_count(0)
    expect(by_testid(eda_page, "tournament-cancel")).to_be_focused()
    by_testid(eda_page, "tournament-cancel").click()
    by_testid(eda_page, "tournament-cancel-yes").click()
    expect(by_testid(eda_page, "tournament-head")).to_have_attribute("data-status", "cancelled")
    expect(by_testid(eda_page, "tournament-status")).to_have_text("iptal")
    expect(by_testid(eda_page, "tournament-controls")).to_have_count(0)
    by_testid(eda_page, "nav-tournaments").click()
    expect(
        eda_page.locator(f'[data-testid="tournament-row"][data-tournament-id="{tournament_id}"]')
    ).to_have_attribute("data-status", "cancelled")
    pages.shot(eda_page, "cancelled-tr")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_an_invitation_goes_from_the_page_once_its_tournament_is_cancelled(
    web_client: str, pages: Any
) -> None:
    """The `tournament_cancelled` event: the invitee's list drops the invitation at once."""
    org, gul = Person(web_client, "tn"), Person(web_client, "tn")
    body = {"name": "Off", "format": "swiss", "table_size": 2, "players": [org.id, gul.id]}
    tournament_id = org.post("/api/v1/tournaments", body, status=201).json()["id"]
    gul_page = pages.new()
    open_tournaments(gul_page, web_client, gul)
    row = gul_page.locator(
        f'[data-testid="tournament-invitation"][data-tournament-id="{tournament_id}"]'
    )
    expect(row).to_have_count(1)
    org.post(f"/api/v1/tournaments/{tournament_id}/cancel", status=200)
    expect(row).to_have_count(0)
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_the_organizer_takes_out_one_who_never_answers_and_starts(
    web_client: str, pages: Any
) -> None:
    """Remove on an entrant's row of a draft: the organizer's start no longer waits for them,
    and the one taken out sees the invitation go (`tournament_withdrawn`)."""
    org, ada, sil = Person(web_client, "tn"), Person(web_client, "tn"), Person(web_client, "tn")
    body = {"name": "Cup", "format": "swiss", "table_size": 2, "deals": 1,
            "players": [org.id, ada.id, sil.id]}  # fmt: skip
    tournament_id = org.post("/api/v1/tournaments", body, status=201).json()["id"]
    ada.post(f"/api/v1/tournaments/{tournament_id}/invitations/accept", status=200)
    sil_page, org_page = pages.new(375, 800), pages.new()
    open_tournaments(sil_page, web_client, sil)
    invitation = sil_page.locator(
        f'[data-testid="tournament-invitation"][data-tournament-id="{tournament_id}"]'
    )
    expect(invitation).to_have_count(1)
    sign_in(org_page, web_client, org, f"#/tournaments/{tournament_id}")
    expect(by_testid(org_page, "tournament-waiting")).to_contain_text("1")
    # No Remove on the organizer's own row.
    expect(entrant(org_page, org).locator('[data-testid="tournament-remove"]')).to_have_count(0)
    remove = entrant(org_page, sil).locator('[data-testid="tournament-remove"]')
    expect(remove).to_have_attribute("aria-label", f"Remove {sil.name} from the tournament")
    pages.shot(org_page, "remove-entrant")
    remove.click()
    expect(entrant(org_page, sil)).to_have_count(0)
    expect(by_testid(org_page, "tournament-waiting")).to_have_count(0)
    expect(invitation).to_have_count(0)
    by_testid(org_page, "tournament-start").click()
    expect(by_testid(org_page, "tournament-head")).to_have_attribute("data-status", "running")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def table_row(page: Page, match_id: str) -> Any:
    return page.locator(f'[data-testid="tournament-table"][data-match-id="{match_id}"]')


def expect_watch_later(page: Page, match_id: str, label: str, reason: str) -> None:
    """The table's link is shown disabled, with the reason beside it."""
    row = table_row(page, match_id)
    later = row.locator('[data-testid="tournament-watch-later"]')
    expect(later).to_be_disabled()
    expect(later).to_have_text(label)
    expect(row.locator('[data-testid="tournament-watch-reason"]')).to_have_text(reason)
    expect(row.locator("a")).to_have_count(0)


WATCH_LATER = "Other tables are still playing this table's deals: watch it once they finish."
REPLAY_LATER = "Other tables are still playing this table's deals: replay it once they finish."
REPLAY_LATER_TR = "Diğer masalar bu masanın ellerini hâlâ oynuyor: onlar bitirince yeniden izle."
DUPLICATE_COLUMNS = ["#", "Player", "Matchpoints", "Matches", "Byes", "Deals", "Deals won"]
DUPLICATE_COLUMNS += ["Penalty", "Head to head"]


def test_a_duplicate_tournament_ranks_by_matchpoints_and_shows_its_tables_once_they_may_be_watched(
    web_client: str, pages: Any
) -> None:
    """The organizer and three bots (a table of bots, a table of the organizer's, each round):
    a spectator (English, 1280) and the organizer (Turkish, 375) follow it."""
    gul, ida = Person(web_client, "tn"), Person(web_client, "tn")
    body = {
        "name": "Duplicate cup",
        "format": "duplicate",
        "table_size": 2,
        "deals": 1,
        "players": [gul.id],
        "bots": ["greedy"] * 3,
        "turn_seconds": 600,
    }
    tournament_id = gul.post("/api/v1/tournaments", body, status=201).json()["id"]
    gul.post(f"/api/v1/tournaments/{tournament_id}/start", status=200)
    base = f"/api/v1/tournaments/{tournament_id}"

    def round_tables(number: int) -> tuple[str, str]:
        """The round's tables: gul's, then the bots' once they have finished (their deal is
        played by the server as soon as it is dealt)."""
        tables = gul.get(f"{base}/tables")["rounds"][number - 1]["tables"]
        mine = next(t for t in tables if gul.id in {s["player"]["id"] for s in t["seats"]})
        bots = next(t for t in tables if t is not mine)
        deadline = time.monotonic() + 60
        while gul.get(f"/api/v1/matches/{bots['match']}")["status"] != "finished":
            assert time.monotonic() < deadline, "the bots' table did not finish"
            time.sleep(0.2)
        return mine["match"], bots["match"]

    gul_page, ida_page = pages.new(375, 800, locale="tr-TR"), pages.new()
    lang = {gul_page: "tr", ida_page: "en"}  # the screenshots' names
    if AXE.exists():
        ida_page.context.add_init_script(path=str(AXE))
    for person, page in ((gul, gul_page), (ida, ida_page)):
        sign_in(page, web_client, person, f"#/tournaments/{tournament_id}")
        expect(by_testid(page, "tournament-head")).to_have_attribute("data-round", "1")
    mine, bots = round_tables(1)
    for page in (gul_page, ida_page):
        expect(table_row(page, bots)).to_have_attribute("data-status", "finished", timeout=30_000)
    expect(by_testid(ida_page, "tournament-head")).to_contain_text("duplicate, 2 per table")

    # A spectator: neither table of the round may be watched (nor the finished one replayed)
    # while gul's still plays the round's deal; the reason is beside each.
    expect_watch_later(ida_page, mine, "Watch", WATCH_LATER)
    expect_watch_later(ida_page, bots, "Replay", REPLAY_LATER)
    expect(by_testid(ida_page, "watch-link")).to_have_count(0)
    if AXE.exists():
        assert not violations(ida_page), violations(ida_page)
    # gul plays her own table; the other she may not watch either.
    play = table_row(gul_page, mine).locator('[data-testid="tournament-play"]')
    expect(play).to_have_text("Oyna")
    expect_watch_later(gul_page, bots, "Yeniden izle", REPLAY_LATER_TR)

    # The standings lead with matchpoints and say how a duplicate tournament ranks.
    headers = by_testid(ida_page, "tournament-standings").locator("th")
    expect(headers).to_have_text(DUPLICATE_COLUMNS)
    expect(by_testid(ida_page, "standings-order")).to_have_text(
        "Ranked by matchpoints (per deal, 1 for each result beaten and ½ for each tie among the"
        " results on the same cards in the same seat at the other tables), then penalty, deals"
        " won and head to head."
    )
    expect(by_testid(gul_page, "column-matchpoints")).to_have_text("Maç puanı")
    expect(by_testid(gul_page, "standings-order")).to_contain_text("Sıralama önce maç puanına")
    for page in (ida_page, gul_page):
        pages.shot(page, f"duplicate-round-{lang[page]}")

    # gul's table finishes the round: its tables are offered for replay (the finished match),
    # the next round's are not yet.
    gul.play_out(mine)
    for page in (gul_page, ida_page):
        expect(by_testid(page, "tournament-head")).to_have_attribute(
            "data-round", "2", timeout=30_000
        )
    mine2, bots2 = round_tables(2)
    for match_id in (mine, bots):
        replay = table_row(ida_page, match_id).locator('[data-testid="tournament-replay"]')
        expect(replay).to_have_text("Replay")
        expect(replay).to_have_attribute("href", f"#/match/{match_id}")
    expect(table_row(ida_page, bots2)).to_have_attribute("data-status", "finished", timeout=30_000)
    expect_watch_later(ida_page, mine2, "Watch", WATCH_LATER)
    expect_watch_later(ida_page, bots2, "Replay", REPLAY_LATER)
    for page in (ida_page, gul_page):
        pages.shot(page, f"duplicate-tables-{lang[page]}")
    table_row(ida_page, bots).locator('[data-testid="tournament-replay"]').click()
    ida_page.wait_for_url(re.compile(f"#/match/{bots}$"))
    expect(by_testid(ida_page, "match-result")).to_be_visible()
    expect(by_testid(ida_page, "match-replay-link")).to_have_count(1)
    pages.shot(ida_page, "duplicate-replay")

    # The last round: the standings' matchpoints are the server's, in its order.
    gul.play_out(mine2)
    final = gul.get(f"{base}/standings")
    deadline = time.monotonic() + 60
    while final["status"] != "finished":
        assert time.monotonic() < deadline, "the tournament did not finish"
        time.sleep(0.2)
        final = gul.get(f"{base}/standings")
    for page in (ida_page, gul_page):
        page.goto(f"{web_client}/#/tournaments/{tournament_id}")
        expect(by_testid(page, "tournament-head")).to_have_attribute(
            "data-status", "finished", timeout=30_000
        )
        rows = by_testid(page, "standing")
        expect(rows).to_have_count(4)
        expect(by_testid(page, "standing-matchpoints")).to_have_text(
            [f"{row['matchpoints']:g}" for row in final["results"]]
        )
        assert [rows.nth(i).get_attribute("data-player") for i in range(4)] == [
            row["player"]["id"] for row in final["results"]
        ]
        expect(by_testid(page, "tournament-watch-later")).to_have_count(0)
        expect(by_testid(page, "tournament-replay")).to_have_count(4)
        # Each page at both widths, in its language.
        width = page.viewport_size["width"]
        pages.shot(page, f"duplicate-finished-{lang[page]}")
        page.set_viewport_size({"width": 1280 + 375 - width, "height": 900})
        pages.shot(page, f"duplicate-finished-{lang[page]}")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_bots_enter_and_fill_the_empty_seats_from_the_form(web_client: str, pages: Any) -> None:
    """The organizer adds bots as entrants (one added then removed) and has bots fill the empty
    seats: the tournament has them, and starts at once (no one to wait for)."""
    gul = Person(web_client, "tn")
    page = pages.new(375, 800)
    open_tournaments(page, web_client, gul)
    expect(by_testid(page, "tournament-bots")).to_contain_text("No bot enters.")
    by_testid(page, "tournament-name").fill("Bots welcome")
    by_testid(page, "tournament-size").select_option("3")
    level = by_testid(page, "tournament-bot")
    for strategy in ("greedy", "random", "greedy", "random"):
        level.select_option(strategy)
        by_testid(page, "tournament-bot-add").click()
    entrants = by_testid(page, "tournament-bot-entrant")
    expect(entrants).to_have_count(4)
    entrants.nth(3).locator('[data-testid="tournament-bot-remove"]').click()
    expect(entrants).to_have_count(3)
    by_testid(page, "tournament-fill").select_option("greedy")
    pages.shot(page, "bots-form")
    by_testid(page, "tournament-submit").click()
    page.wait_for_url(AT_TOURNAMENT)
    tournament_id = page.url.rsplit("/", 1)[1]
    made = gul.get(f"/api/v1/tournaments/{tournament_id}")
    assert made["fill_bots"] == "greedy"
    bots = sorted(p["display_name"].split()[0] for p in made["players"] if p["is_bot"])
    assert bots == ["greedy", "greedy", "random"], made["players"]
    assert {p["id"] for p in made["players"] if not p["is_bot"]} == {gul.id}
    by_testid(page, "tournament-start").click()
    expect(by_testid(page, "tournament-head")).to_have_attribute("data-status", "running")
    # Four entrants at tables of three: a table of two with a greedy bot in its empty seat.
    tables = gul.get(f"/api/v1/tournaments/{tournament_id}/tables")
    sizes = sorted(len(table["seats"]) for table in tables["rounds"][0]["tables"])
    assert sizes == [3, 3], tables
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def swap_widths(page: Page) -> None:
    """The page at the other of the two widths (1280 and 375)."""
    width = page.viewport_size["width"] if page.viewport_size else 1280
    page.set_viewport_size({"width": 1280 + 375 - width, "height": 900})


def test_a_duplicate_table_over_before_the_others_says_its_result_comes_later(
    web_client: str, pages: Any
) -> None:
    """org plays his duplicate table to its end while ana, at the round's other table, does
    nothing: his end screen says the match is over at this table and its result comes once
    every table has finished (English at 1280, Turkish at 375), with his table's totals and
    its deal's result as his view has them, no winner, places or replays that cannot be shown
    yet; once ana's table finishes, the screen shows the result without a reload."""
    org, ana = Person(web_client, "tn"), Person(web_client, "tn")
    body = {
        "name": "Duplicate wait",
        "format": "duplicate",
        "table_size": 2,
        "players": [org.id, ana.id],
        "bots": ["greedy", "random"],
        "deals": 1,
        "rounds": 1,
        "turn_seconds": 900,
    }
    tournament_id = org.post("/api/v1/tournaments", body, status=201).json()["id"]
    ana.post(f"/api/v1/tournaments/{tournament_id}/invitations/accept", status=200)
    org.post(f"/api/v1/tournaments/{tournament_id}/start", status=200)
    tables = org.get(f"/api/v1/tournaments/{tournament_id}/tables")["rounds"][0]["tables"]
    mine, hers = (
        next(t["match"] for t in tables if who in {s["player"]["id"] for s in t["seats"]})
        for who in (org.id, ana.id)
    )

    wide, phone = pages.new(), pages.new(375, 800, locale="tr-TR")
    lang = {wide: "en", phone: "tr"}  # the screenshots' names
    for page in (wide, phone):
        sign_in(page, web_client, org, route=f"#/match/{mine}")
        expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
    play_to_end([wide], timeout=240)
    expect(by_testid(phone, "table")).to_have_attribute("data-status", "finished")
    state = org.state(mine)
    result = state["result"]
    assert org.get(f"/api/v1/matches/{mine}")["seats"][0]["place"] is None

    words = {
        wide: (
            "The match is over at this table",
            "Other tables of the round are still playing the same deals.",
            "The deals of this table can be replayed once the other tables have finished them.",
            "The stock ran out",
        ),
        phone: (
            "Maç bu masada bitti",
            "Turun diğer masaları aynı elleri hâlâ oynuyor.",
            "Bu masanın ellerini diğer masalar bitirince yeniden izleyebilirsin.",
            "Deste bitti",
        ),
    }
    for page, (over_here, later, replay_later, stock) in words.items():
        screen = by_testid(page, "match-result")
        expect(screen).to_have_attribute("data-settled", "false")
        winner = by_testid(screen, "match-winner")
        expect(winner).to_have_text(over_here)
        expect(winner).to_have_attribute("data-winners", "")
        expect(by_testid(screen, "match-pending")).to_contain_text(later)
        # His table's totals, as the seats' boxes show them; no place, no rating change.
        places = by_testid(screen, "match-place")
        expect(places).to_have_count(2)
        for seat, total in enumerate(state["totals"]):
            row = screen.locator(f'[data-testid="match-place"][data-seat="{seat}"]')
            expect(row).to_have_attribute("data-total", str(total))
            expect(row).to_contain_text(f": {total}")
        expect(places.filter(has_text="–")).to_have_count(0)
        expect(by_testid(screen, "rating-change")).to_have_count(0)
        # No replay that could only be refused: it says when it opens.
        expect(by_testid(page, "match-replay-link")).to_have_count(0)
        expect(by_testid(page, "replay-link")).to_have_count(0)
        expect(by_testid(screen, "match-replay-later")).to_have_text(replay_later)
        # The deal's result as his own view tells it (not "went out with ?").
        deal = by_testid(page, "deal-result")
        headline = by_testid(deal, "deal-winners")
        expect(headline).not_to_contain_text("?")
        if result["reason"] == "stock_exhausted":
            expect(headline).to_contain_text(stock)
        else:
            expect(headline).to_contain_text(card_text(result["last_card"]))
        for seat, penalty in enumerate(result["penalties"]):
            expect(
                deal.locator(f'[data-testid="deal-seat"][data-seat="{seat}"]')
            ).to_have_attribute("data-penalty", str(penalty))
        pages.shot(page, f"duplicate-waiting-{lang[page]}")
        swap_widths(page)
        pages.shot(page, f"duplicate-waiting-{lang[page]}")

    # ana's table finishes: the round is settled, and both pages show the result unreloaded.
    ana.play_out(hers)
    match = org.get(f"/api/v1/matches/{mine}")
    firsts = [s["seat"] for s in match["seats"] if s["place"] == 1]
    assert firsts, match["seats"]
    for page in (wide, phone):
        screen = by_testid(page, "match-result")
        expect(screen).to_have_attribute("data-settled", "true", timeout=60_000)
        expect(by_testid(screen, "match-winner")).to_have_attribute(
            "data-winners", " ".join(map(str, firsts))
        )
        for seat in match["seats"]:
            expect(screen).to_have_attribute(f"data-place-{seat['seat']}", str(seat["place"]))
            row = screen.locator(f'[data-testid="match-place"][data-seat="{seat["seat"]}"]')
            expect(row).to_contain_text(f"{seat['place']}. ")
            expect(row).to_contain_text(f": {seat['total']}")
        expect(by_testid(screen, "rating-change")).to_have_count(2, timeout=20_000)
        expect(by_testid(page, "match-replay-link")).to_have_count(1)
        expect(by_testid(page, "replay-later")).to_have_count(0)
        pages.shot(page, f"duplicate-settled-{lang[page]}")
        swap_widths(page)
        pages.shot(page, f"duplicate-settled-{lang[page]}")
    wide.reload()
    expect(by_testid(wide, "match-result")).to_have_attribute("data-settled", "true")
    by_testid(wide, "match-replay-link").click()
    wide.wait_for_url(re.compile(rf"#/replay/{mine}/1$"))
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


# The page's /me/events stream has said `ready` (it listens from then on).
ME_READY = """(() => {
  const Source = window.EventSource;
  window.EventSource = class extends Source {
    constructor(url, options) {
      super(url, options);
      if (String(url).includes("/me/events")) {
        this.addEventListener("ready", () => { window.__meReady = true; });
      }
    }
  };
})();"""


def test_an_entrant_sitting_a_round_out_is_told_of_the_bye(web_client: str, pages: Any) -> None:
    """A round robin of org, ana and a bot, tables of two: each round one of them sits out. In
    the round org sits out (a bye), his pages (English at 1280, Turkish at 375) say so, and the
    notice leads to the tournament's page."""
    org, ana = Person(web_client, "tn"), Person(web_client, "tn")
    body = {
        "name": "Bye cup",
        "format": "round_robin",
        "table_size": 2,
        "players": [org.id, ana.id],
        "bots": ["greedy"],
        "deals": 1,
        "turn_seconds": 900,
    }
    tournament_id = org.post("/api/v1/tournaments", body, status=201).json()["id"]
    ana.post(f"/api/v1/tournaments/{tournament_id}/invitations/accept", status=200)
    wide, phone = pages.new(), pages.new(375, 800, locale="tr-TR")
    lang = {wide: "en", phone: "tr"}  # the screenshots' names
    for page in (wide, phone):
        page.context.add_init_script(ME_READY)
        sign_in(page, web_client, org, route="#/lobby")
        # Listening: the round is told as it is dealt (a stream replays nothing from before it).
        page.wait_for_function("() => window.__meReady === true", polling=100)
    org.post(f"/api/v1/tournaments/{tournament_id}/start", status=200)
    base = f"/api/v1/tournaments/{tournament_id}"

    for number in range(1, 4):
        deadline = time.monotonic() + 60
        while org.get(base)["current_round"] != number:
            assert time.monotonic() < deadline, f"round {number} was not dealt"
            time.sleep(0.2)
        tables = org.get(f"{base}/tables")["rounds"][number - 1]["tables"]
        seated = {s["player"]["id"]: t["match"] for t in tables for s in t["seats"]}
        if org.id not in seated:
            break
        # A round org plays: no bye told; both play their tables out (through the API).
        expect(by_testid(wide, "turn-bye")).to_have_count(0)
        for person in (org, ana):
            if person.id in seated:
                person.play_out(seated[person.id])
    else:
        raise AssertionError("org sat no round out")

    texts = {
        wide: (
            f"Round {number} of your tournament has started: you sit this round out (a bye).",
            "Go to the tournament",
        ),
        phone: (
            f"Turnuvanın {number}. turu başladı: bu turda oynamıyorsun (bay geçiyorsun).",
            "Turnuvaya git",
        ),
    }
    for page, (said, go) in texts.items():
        line = by_testid(page, "turn-bye")
        expect(line).to_have_count(1, timeout=20_000)
        expect(line).to_contain_text(said)
        link = line.locator('[data-testid="turn-go"]')
        expect(link).to_have_text(go)
        expect(link).to_have_attribute("href", f"#/tournaments/{tournament_id}")
        pages.shot(page, f"bye-notice-{lang[page]}")
        swap_widths(page)
        pages.shot(page, f"bye-notice-{lang[page]}")
    by_testid(wide, "turn-bye").locator('[data-testid="turn-go"]').click()
    wide.wait_for_url(re.compile(f"#/tournaments/{tournament_id}$"))
    expect(by_testid(wide, "tournament-head")).to_have_attribute("data-round", str(number))
    expect(by_testid(wide, "turn-bye")).to_have_count(0)
    # The other page, on the lobby, keeps it until dismissed.
    by_testid(phone, "turn-bye").locator('[data-testid="turn-dismiss"]').click()
    expect(by_testid(phone, "turn-bye")).to_have_count(0)
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console
