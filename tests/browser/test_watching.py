"""Watching tables and looking back at matches: what a spectator and a returning player see.
A finished match's rating changes after its players played on; the log's words for a resigned
seat's moves; the last resignation of a table; the turn clock's line of a clocked match; a
match closed to spectators, and a stream ticket that is refused; the rematch of a watched
match; the lobby's matches being played, read again while the page is open."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

from .harness import Person, by_testid, sign_in, wait_synced

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def finished_match(person: Person, body: dict[str, Any] | None = None) -> str:
    """A one-deal two-seat match of the person's against a bot, played out through the API."""
    body = {"seats": 2, "bots": ["greedy"], "deals": 1, "rules": {"hand_size": 3}, **(body or {})}
    match_id = str(person.post("/api/v1/matches", body, status=201).json()["id"])
    person.play_out(match_id)
    return match_id


def history_row(person: Person, match_id: str) -> dict[str, Any]:
    """The person's rating history's row of the match, once it is settled."""
    deadline = time.monotonic() + 20
    while True:
        rows = person.get(f"/api/v1/players/{person.id}/history?limit=20")["results"]
        found = [row for row in rows if row["match"] == match_id]
        if found:
            return dict(found[0])
        assert time.monotonic() < deadline, f"match {match_id} was not settled"
        time.sleep(0.2)


def test_a_finished_match_shows_its_rating_changes_after_its_players_played_on(
    web_client: str, pages: Any
) -> None:
    """A match whose player has finished another one since: its page still tells each
    player's change by it (the history's row of that match, not the player's newest)."""
    person, watcher = Person(web_client), Person(web_client)
    first = finished_match(person)
    second = finished_match(person)
    row = history_row(person, first)
    history_row(person, second)
    for page, who in ((pages.new(), person), (pages.new(375, 800), watcher)):
        sign_in(page, web_client, who, route=f"#/match/{first}")
        result = by_testid(page, "match-result")
        expect(result).to_be_visible()
        mine = result.locator('li[data-seat="0"] [data-testid="rating-change"]')
        expect(mine).to_have_attribute("data-change", re.compile(r"^-?\d"))
        assert float(mine.get_attribute("data-change") or "nan") == pytest.approx(
            row["change"], abs=1e-6
        )
        expect(result).not_to_contain_text("being updated")
        pages.shot(page, "rating-after-another-match")


def seat_moves(person: Person, match_id: str, seat: int) -> list[dict[str, Any]]:
    return [m for m in person.get(f"/api/v1/matches/{match_id}/moves") if m["seat"] == seat]


def test_a_resigned_seats_moves_are_the_bots_in_the_live_log(web_client: str, pages: Any) -> None:
    """A match without a turn clock, watched: a person resigns on their turn, past the opening,
    and the move the bot then makes for their seat reads "played by a bot" in the log as it
    comes (as after a reload), never "turn clock"."""
    ana, can, watcher = Person(web_client), Person(web_client), Person(web_client)
    body = {"seats": 3, "bots": ["greedy"], "deals": 1}
    match_id = str(ana.post("/api/v1/matches", body, status=201).json()["id"])
    can.post(f"/api/v1/matches/{match_id}/join", status=200)  # seat 2; the bot at seat 1
    page = pages.new(375, 800)
    sign_in(page, web_client, watcher, route=f"#/match/{match_id}")
    expect(by_testid(page, "table")).to_have_attribute("data-role", "spectator")
    expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "live")
    # Can's turn in the play (the opening over: nothing but the resignation changes then).
    people = {0: ana, 2: can}
    deadline = time.monotonic() + 60
    while (state := ana.state(match_id))["phase"] != "play" or state["turn"] != 2:
        assert time.monotonic() < deadline and state["status"] == "active", state
        if state["turn"] in people:
            people[state["turn"]].move(match_id)
        else:
            time.sleep(0.05)
    wait_synced(page, watcher, match_id)
    assert not seat_moves(ana, match_id, 2) or not any(
        m["by_bot"] for m in seat_moves(ana, match_id, 2)
    )
    can.post(f"/api/v1/matches/{match_id}/resign", status=200)  # the bot moves for seat 2 at once
    expect(by_testid(page, "resign-notice")).to_be_visible()
    moves = [m for m in seat_moves(ana, match_id, 2) if m["by_bot"]]
    assert moves, "no move of the bot for seat 2"
    entry = by_testid(page, "move-log-entry").and_(page.locator(f'[data-seq="{moves[0]["seq"]}"]'))
    expect(entry).to_contain_text("(played by a bot)")
    expect(by_testid(page, "move-log")).not_to_contain_text("turn clock")
    pages.shot(page, "resigned-seat-log")


def test_the_last_resignation_says_only_that_the_match_was_abandoned(
    web_client: str, pages: Any
) -> None:
    """Two people: one resigns (the spectator is told a bot plays their seat), then the other:
    the match is abandoned, and that is all the spectator is told of it."""
    ana, can, watcher = Person(web_client), Person(web_client), Person(web_client)
    body = {"seats": 2, "deals": 1}
    match_id = str(ana.post("/api/v1/matches", body, status=201).json()["id"])
    can.post(f"/api/v1/matches/{match_id}/join", status=200)
    page = pages.new()
    sign_in(page, web_client, watcher, route=f"#/match/{match_id}")
    expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "live")
    ana.post(f"/api/v1/matches/{match_id}/resign", status=200)
    notice = by_testid(page, "resign-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text(ana.name)
    can.post(f"/api/v1/matches/{match_id}/resign", status=200)
    result = by_testid(page, "match-result")
    expect(result).to_have_attribute("data-status", "abandoned")
    expect(by_testid(result, "match-winner")).to_have_text(
        "Match abandoned: every person resigned."
    )
    expect(notice).to_be_hidden()
    pages.shot(page, "abandoned-watched")


def test_the_clock_line_says_no_clock_only_on_a_match_without_one(
    web_client: str, pages: Any
) -> None:
    """A finished match under a turn clock has no deadline running: its clock line is blank,
    not "No turn clock", which a match without a clock says."""
    person = Person(web_client)
    clocked = finished_match(person, {"turn_seconds": 600})
    unclocked = finished_match(person)
    page = pages.new(375, 800)
    sign_in(page, web_client, person, route=f"#/match/{clocked}")
    expect(by_testid(page, "table")).to_have_attribute("data-status", "finished")
    clock = by_testid(page, "turn-clock")
    expect(clock).to_have_text(re.compile(r"^\s*$"))
    page.wait_for_timeout(1500)  # the clock's tick draws it again
    expect(clock).to_have_text(re.compile(r"^\s*$"))
    pages.shot(page, "clocked-finished")
    page.goto(f"{web_client}/#/match/{unclocked}")
    expect(by_testid(page, "table")).to_have_attribute("data-match-id", unclocked)
    expect(by_testid(page, "table")).to_have_attribute("data-status", "finished")
    expect(by_testid(page, "turn-clock")).to_have_text("No turn clock")


@pytest.mark.parametrize("skew_minutes", [3, -3])
def test_the_turn_clock_counts_on_the_servers_clock_not_the_browsers(
    web_client: str, pages: Any, skew_minutes: int
) -> None:
    """A browser whose clock is minutes off: the table's turn clock still shows the time the
    server leaves (read from the `Date` of its answers), not 0 s, nor more than a turn."""
    person = Person(web_client)
    body = {"seats": 2, "bots": ["random"], "deals": 1, "turn_seconds": 90}
    match_id = person.post("/api/v1/matches", body, status=201).json()["id"]
    page = pages.new(375, 800)
    page.clock.install(time=time.time() + skew_minutes * 60)
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    clock = by_testid(page, "turn-clock")
    expect(clock).to_have_attribute("data-seconds", re.compile(r"^\d+$"))
    page.wait_for_timeout(1200)  # a tick on the server's clock as the page has read it
    seconds = int(clock.get_attribute("data-seconds") or -1)
    assert 60 <= seconds <= 90, (skew_minutes, seconds, page.evaluate("Date.now()"))
    expect(clock).to_have_text(f"Turn clock: {seconds} s")


def ticket_requests(page: Page, match_id: str) -> list[str]:
    """The stream tickets the page asks for the match's stream, as it asks."""
    asked: list[str] = []

    def note(request: Any) -> None:
        if "/auth/stream-ticket" in request.url and match_id in (request.post_data or ""):
            asked.append(request.post_data)

    page.on("request", note)
    return asked


def test_a_match_closed_to_spectators_is_refused_once(web_client: str, pages: Any) -> None:
    """A person at no seat of a match created with `spectators: none` opens it: the page says it
    may not be watched, as its replay's would, with no table and no stream asked for."""
    person, watcher = Person(web_client), Person(web_client)
    body = {"seats": 2, "bots": ["greedy"], "deals": 1, "spectators": "none"}
    match_id = str(person.post("/api/v1/matches", body, status=201).json()["id"])
    for width in (1280, 375):
        page = pages.new(width)
        asked = ticket_requests(page, match_id)
        sign_in(page, web_client, watcher, route=f"#/match/{match_id}")
        failed = by_testid(page, "view-failed")
        expect(failed).to_be_visible()
        expect(failed).not_to_be_empty()
        expect(by_testid(page, "table")).to_have_count(0)
        pages.shot(page, "closed-to-spectators")
        page.wait_for_timeout(3000)
        expect(by_testid(page, "table")).to_have_count(0)
        assert asked == [], asked


def test_a_refused_stream_ticket_is_not_asked_for_again(web_client: str, pages: Any) -> None:
    """The table's stream ticket refused as for good (403): the refusal is said, and the page
    does not ask for another ticket again and again."""
    person, watcher = Person(web_client), Person(web_client)
    match_id = person.create(2, ["greedy"])
    page = pages.new()
    refused: list[str] = []

    def refuse(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        if match_id not in body.get("path", ""):
            route.continue_()
            return
        refused.append(body["path"])
        route.fulfill(
            status=403,
            json={"error": {"code": "spectators_not_allowed", "message": "Not to be watched."}},
        )

    page.route("**/api/v1/auth/stream-ticket", refuse)
    sign_in(page, web_client, watcher, route=f"#/match/{match_id}")
    expect(by_testid(page, "error-banner")).to_contain_text("Not to be watched.")
    page.wait_for_timeout(5000)  # a retry's back-off would have asked 3 times more
    assert len(refused) == 1, refused


def test_a_spectator_is_offered_the_rematch_once_asked_for(web_client: str, pages: Any) -> None:
    """A spectator on a finished match's result: once a player asks for the rematch, the page
    offers to watch it, and takes the spectator there."""
    person, watcher = Person(web_client), Person(web_client)
    match_id = finished_match(person)
    page = pages.new(375, 800)
    sign_in(page, web_client, watcher, route=f"#/match/{match_id}")
    expect(by_testid(page, "match-result")).to_be_visible()
    link = by_testid(page, "watch-rematch-link")
    expect(link).to_have_count(0)
    rematch = str(person.post(f"/api/v1/matches/{match_id}/rematch", status=201).json()["id"])
    expect(link).to_be_visible(timeout=20_000)
    expect(link).to_have_text("Watch the rematch")
    pages.shot(page, "watch-rematch")
    link.click()
    page.wait_for_url(re.compile(rf"#/match/{rematch}$"))
    expect(by_testid(page, "table")).to_have_attribute("data-role", "spectator")
    # A page opened once the rematch is known offers it at once.
    again = pages.new()
    sign_in(again, web_client, watcher, route=f"#/match/{match_id}")
    expect(by_testid(again, "watch-rematch-link")).to_have_attribute("href", f"#/match/{rematch}")
    pages.shot(again, "watch-rematch")


def live_row(page: Page, match_id: str) -> Any:
    return by_testid(page, "live-match").and_(page.locator(f'[data-match-id="{match_id}"]'))


def test_the_lobby_reads_the_matches_being_played_again(web_client: str, pages: Any) -> None:
    """A spectator's lobby left open: a match seated full at its creation (no lobby event
    tells of it) comes into "Matches being played" and goes once it is over, without a
    Refresh."""
    person, watcher = Person(web_client), Person(web_client)
    page = pages.new()
    page.clock.install()
    reads: list[str] = []
    page.on("response", lambda r: reads.append(r.url) if "matches?status=active" in r.url else None)
    sign_in(page, web_client, watcher)
    expect(by_testid(page, "live-matches")).to_be_visible()
    # The lobby's first read, and the one its stream's `ready` asks for.
    deadline = time.monotonic() + 15
    while len(reads) < 2:
        assert time.monotonic() < deadline, reads
        page.wait_for_timeout(100)
    match_id = person.create(2, ["greedy"], rules={"hand_size": 3})
    page.wait_for_timeout(1000)
    expect(live_row(page, match_id)).to_have_count(0)
    page.clock.fast_forward(31_000)
    expect(live_row(page, match_id)).to_have_count(1)
    pages.shot(page, "lobby-live")
    person.play_out(match_id)
    page.clock.fast_forward(31_000)
    expect(live_row(page, match_id)).to_have_count(0)


def test_the_lobby_says_no_match_is_played_when_none_may_be_watched(
    web_client: str, pages: Any
) -> None:
    """The matches being played are all closed to spectators: the lobby says none is being
    played, not a blank list."""
    person, watcher = Person(web_client), Person(web_client)
    body = {"seats": 2, "bots": ["greedy"], "deals": 1, "spectators": "none"}
    match_id = str(person.post("/api/v1/matches", body, status=201).json()["id"])
    active = watcher.get("/api/v1/matches?status=active&limit=20")
    closed = [m for m in active["results"] if m["id"] == match_id]
    assert closed and closed[0]["spectators"] == "none", active
    page = pages.new(375, 800)
    page.route(
        re.compile(r"/api/v1/matches\?(?=.*status=active)"),
        lambda route: route.fulfill(json={"next": None, "previous": None, "results": closed}),
    )
    sign_in(page, web_client, watcher)
    live = by_testid(page, "live-matches")
    expect(live.locator(".empty")).to_have_text("No match is being played right now.")
    expect(by_testid(live, "live-match")).to_have_count(0)
