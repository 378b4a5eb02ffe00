"""A table, not a form: the others' card backs fanned by their count, the dealer, the direction,
the named suit after a Jack; the turn's cue: the seat highlighted and the tab's title "● Your
turn" (in the page's language) while it is the page's turn, and the sound, off unless turned
on, remembered across visits. Away from the table (the lobby, another table), a notice says
where the player's move is awaited and leads there."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import expect

from .harness import Person, by_testid, sign_in, take_turn, wait_synced

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


@pytest.mark.parametrize(
    ("locale", "cue"), [("en-US", "● Your turn"), ("tr-TR", "● Sıra sende")], ids=["en", "tr"]
)
def test_the_table_and_its_turn_cue(web_client: str, pages: Any, locale: str, cue: str) -> None:
    person = Person(web_client)
    match_id = person.create(3, ["greedy", "random"])
    for width, height in ((1280, 900), (375, 800)):
        page = pages.new(width, height, locale=locale)
        sign_in(page, web_client, person, route=f"#/match/{match_id}")
        state = wait_synced(page, person, match_id)
        # The others' backs, as many as they hold; the dealer; the direction.
        for seat in (1, 2):
            backs = by_testid(page, f"seat-{seat}").locator(".backs svg")
            expect(backs).to_have_count(min(state["hand_counts"][seat], 12))
        expect(
            by_testid(page, f"seat-{state['dealer']}").locator('[data-testid="dealer-chip"]')
        ).to_have_count(1)
        expect(by_testid(page, "direction")).to_have_attribute(
            "data-direction", str(state["direction"])
        )
        if state["turn"] == state["you"]:
            expect(page).to_have_title(f"{cue} · Pis Yedili")
            expect(by_testid(page, "seat-0")).to_have_class("seat on-turn mine")
        pages.shot(page, "table")
        # The sound is off until turned on, and stays on.
        sound = by_testid(page, "sound-toggle")
        expect(sound).to_have_attribute("aria-pressed", "false")
        sound.click()
        expect(sound).to_have_attribute("aria-pressed", "true")
        page.reload()
        expect(by_testid(page, "sound-toggle")).to_have_attribute("aria-pressed", "true")
        # Once the page has moved, the title is the page's own again until its next turn.
        wait_synced(page, person, match_id)
        if width == 1280:
            assert take_turn(page)
            state = wait_synced(page, person, match_id)
            if state["turn"] != state["you"] and state["status"] == "active":
                expect(page).not_to_have_title(f"{cue} · Pis Yedili")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


@pytest.mark.parametrize(
    ("locale", "words"),
    [
        ("en-US", ("Your turn at your table with", "● Your turn")),
        ("tr-TR", ("Sıra sende", "● Sıra sende")),
    ],
    ids=["en", "tr"],
)
def test_a_turn_elsewhere_is_told_on_every_page_and_leads_to_its_table(
    web_client: str, pages: Any, locale: str, words: tuple[str, str]
) -> None:
    """Two people at a table, one of them on the leaderboards (then at a table of bots): each
    time the other moves and leaves them on turn, the page says so, names the table, titles the
    tab, and its link opens the table, where its line is gone (its own cue takes over)."""
    person, other = Person(web_client), Person(web_client)
    match_id = person.create(2, [])
    other.post(f"/api/v1/matches/{match_id}/join", status=200)
    page = pages.new(375, 800, locale=locale)
    sign_in(page, web_client, person)
    notice = by_testid(page, "turn-notice")
    line = notice.locator(f'[data-testid="turn-turn"][data-match-id="{match_id}"]')
    for route in ("#/leaderboards", "a table of bots"):
        if route != "#/leaderboards":
            elsewhere = person.create(3, ["greedy", "greedy"])
            route = f"#/match/{elsewhere}"
        # The person moves on another device: a line told before goes as the next page shows.
        deadline = time.monotonic() + 60
        while person.state(match_id)["turn"] != 1:
            assert time.monotonic() < deadline, "the table never came to the other person"
            person.move(match_id)
        page.goto(f"{web_client}/{route}")
        expect(line).to_have_count(0)
        while person.state(match_id)["turn"] != 0:  # a draw leaves the other on turn
            other.move(match_id)
        expect(line).to_be_visible()
        expect(line).to_contain_text(words[0])
        expect(line).to_contain_text(other.name)
        expect(line).not_to_contain_text(person.name)
        if route == "#/leaderboards":
            expect(page).to_have_title(f"{words[1]} · Pis Yedili")
        pages.shot(page, f"turn-notice-{locale}-{route[2:7]}")
    line.locator('[data-testid="turn-go"]').click()
    expect(page).to_have_url(f"{web_client}/#/match/{match_id}")
    wait_synced(page, person, match_id)
    expect(line).to_have_count(0)
    # The table of bots just left is told only while it awaits the person's move.
    state = person.state(elsewhere)
    left = notice.locator(f'[data-testid="turn-turn"][data-match-id="{elsewhere}"]')
    expect(left).to_have_count(int(state["status"] == "active" and state["turn"] == state["you"]))
    expect(page).to_have_title(f"{words[1]} · Pis Yedili")


def test_a_table_left_on_the_players_turn_is_told_on_the_next_page(
    web_client: str, pages: Any
) -> None:
    """On the player's turn at a table, they open another page: the notice names that table
    and the tab's title still says it is their turn; once they move on another device, the
    line goes when the next page is shown."""
    person, other = Person(web_client), Person(web_client)
    match_id = person.create(2, [])
    other.post(f"/api/v1/matches/{match_id}/join", status=200)
    while person.state(match_id)["turn"] != 0:
        other.move(match_id)
    page = pages.new(375, 800)
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    wait_synced(page, person, match_id)
    notice = by_testid(page, "turn-notice")
    line = notice.locator(f'[data-testid="turn-turn"][data-match-id="{match_id}"]')
    expect(notice).to_be_hidden()
    by_testid(page, "nav-leaderboards").click()
    expect(line).to_be_visible()
    expect(page).to_have_title("● Your turn · Pis Yedili")
    pages.shot(page, "turn-notice-table-left")
    while person.state(match_id)["turn"] == 0:  # a draw leaves the person on turn
        person.move(match_id)
    page.goto(f"{web_client}/#/players")
    expect(line).to_have_count(0)
