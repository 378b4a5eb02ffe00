"""The leaderboards page: the skill board beside rating, wins and penalty per deal, each board
with a line saying what it measures, and every row's skill as the API ranks it."""

from __future__ import annotations

import re
import time
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from .harness import Person, by_testid, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def to_fixed(value: float, digits: int) -> str:
    """JavaScript's Number.prototype.toFixed: the float's exact value, a tie rounded away from zero
    (Python's format rounds it to even: -16.625 is "-16.62" there and "-16.63" in the page)."""
    return str(Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def shown(value: float, digits: int) -> str:
    """`value` as the page writes it in English (i18n.js `decimal`): a minus sign (−), and none
    before a value that rounds to zero."""
    text = to_fixed(value, digits)
    return text.replace("-", "−") if text.strip("-0.") else text.lstrip("-")


def test_the_skill_board_beside_rating_wins_and_points(web_client: str, pages: Any) -> None:
    person = Person(web_client)
    match_id = person.create(2, ["random"])
    person.play_out(match_id)
    # The deal's analysis (luck and skill) runs just after it is scored.
    deadline = time.monotonic() + 60
    while True:
        stats = person.get(f"/api/v1/players/{person.id}")["stats"]
        if stats["skill_deals"]:
            break
        assert time.monotonic() < deadline, stats
        time.sleep(0.5)
    board = person.get("/api/v1/leaderboard?metric=skill")["results"]
    mine = next(row for row in board if row["player"]["id"] == person.id)

    for width in (1280, 375):
        page = pages.new(width)
        sign_in(page, web_client, person, route="#/leaderboards")
        metric = by_testid(page, "board-metric")
        about = by_testid(page, "board-metric-about")
        options = metric.locator("option").evaluate_all("os => os.map(o => o.value)")
        assert options == ["rating", "wins", "points", "skill"]
        seen: dict[str, str] = {}
        heads = by_testid(page, "board-head").locator("th")
        column = {"rating": "rating", "wins": "wins", "points": "avg_penalty", "skill": "skill"}
        for name in options:
            metric.select_option(name)
            expect(about).to_have_attribute("data-metric", name)
            expect(about).not_to_be_empty()
            seen[name] = about.inner_text()
            # The metric's column right after the player's, in sight on a phone.
            expect(heads.nth(2)).to_have_attribute("data-column", column[name])
            expect(heads).to_have_count(8)
        assert len(set(seen.values())) == 4, seen
        assert "greedy" in seen["skill"] and "luck" in seen["skill"], seen["skill"]

        # The skill board, in the API's order, each row with its skill and analysed deals.
        expect(by_testid(page, "board-body")).to_have_attribute("data-metric", "skill")
        rows = by_testid(page, "board-row")
        expect(rows.first).to_be_visible()
        expect(rows).to_have_count(len(board))
        ranked = rows.evaluate_all("rs => rs.map(r => r.dataset.player)")
        assert ranked == [row["player"]["id"] for row in board]
        cell = by_testid(page, "board-skill").nth(ranked.index(person.id))
        expect(cell).to_have_attribute("data-skill-deals", str(mine["skill_deals"]))
        assert float(cell.get_attribute("data-skill") or "nan") == pytest.approx(mine["skill"])
        expect(cell).to_contain_text(shown(mine["skill"], 2))
        pages.shot(page, "skill-board")

    # In Turkish the decimals are written with a comma, and the rating is "Reyting".
    page = pages.new(375, 800, locale="tr-TR")
    sign_in(page, web_client, person, route="#/leaderboards")
    by_testid(page, "board-metric").select_option("skill")
    expect(by_testid(page, "board-body")).to_have_attribute("data-metric", "skill")
    ranked = by_testid(page, "board-row").evaluate_all("rs => rs.map(r => r.dataset.player)")
    cell = by_testid(page, "board-skill").nth(ranked.index(person.id))
    expect(cell).to_contain_text(shown(mine["skill"], 2).replace(".", ","))
    expect(by_testid(page, "board-head")).to_contain_text("Reyting")
    assert not pages.console, pages.console


def test_a_house_rule_sets_board_is_found_by_its_name(web_client: str, pages: Any) -> None:
    """Every rule set has boards of its own (docs/api.md `GET /leaderboards`): the page offers
    each board's rule set by its preset's name, and the table sizes it has boards of."""
    person = Person(web_client)
    presets = {p["name"]: p["rules"] for p in person.get("/api/v1/rules/presets")}
    match_id = person.create(3, ["random", "random"], rules=presets["reshuffle"])
    person.play_out(match_id)
    boards = person.get("/api/v1/leaderboards")
    key = next(
        b["ruleset"]
        for b in boards
        if b["seats"] == 3
        and b["ruleset"] != "default"
        and b["rules"]["stock_exhausted"] == "reshuffle"
    )
    deadline = time.monotonic() + 60
    while not person.get(f"/api/v1/leaderboard?ruleset={key}&seats=3")["results"]:
        assert time.monotonic() < deadline, "the match never reached its board"
        time.sleep(0.5)
    board = person.get(f"/api/v1/leaderboard?ruleset={key}&seats=3")["results"]

    page = pages.new(375, 800)
    sign_in(page, web_client, person, route="#/leaderboards")
    ruleset = by_testid(page, "board-ruleset")
    expect(ruleset).to_have_value("default")
    expect(ruleset.locator("option").first).to_have_text("Classic")
    expect(ruleset.locator(f'option[value="{key}"]')).to_have_text("Reshuffle")
    ruleset.select_option(key)
    sizes = by_testid(page, "board-seats").locator("option")
    expected = sorted(b["seats"] for b in boards if b["ruleset"] == key and b["seats"] is not None)
    expect(sizes).to_have_count(1 + len(expected))
    by_testid(page, "board-seats").select_option("3")
    # The rows read are those of the board chosen, not an earlier choice's still shown.
    shown = by_testid(page, "board-body")
    expect(shown).to_have_attribute("data-ruleset", key)
    expect(shown).to_have_attribute("data-seats", "3")
    expect(shown).not_to_have_attribute("aria-busy", "true")
    rows = by_testid(page, "board-row")
    expect(rows).to_have_count(len(board))
    assert rows.evaluate_all("rs => rs.map(r => r.dataset.player)") == [
        row["player"]["id"] for row in board
    ]
    expect(rows.and_(page.locator(f'[data-player="{person.id}"]'))).to_have_count(1)
    pages.shot(page, "house-rules-board")
    assert not pages.console, pages.console


def test_a_custom_rule_sets_board_is_named_by_what_it_changes(web_client: str, pages: Any) -> None:
    """A board of house rules no preset has: its choice says "Custom rules" and the start of
    what they change (it fits a phone), and the line under the controls says it all."""
    person = Person(web_client)
    rules = {"hand_size": 5, "ace_mode": "skip_next", "two_player_reverse": "skip"}
    match_id = person.create(2, ["random"], rules=rules)
    person.play_out(match_id)
    deadline = time.monotonic() + 60
    while not (
        key := next(
            (
                b["ruleset"]
                for b in person.get("/api/v1/leaderboards")
                if b["rules"].get("hand_size") == 5 and b["rules"].get("ace_mode") == "skip_next"
            ),
            None,
        )
    ):
        assert time.monotonic() < deadline, "the match never reached its board"
        time.sleep(0.5)

    page = pages.new(375, 800)
    sign_in(page, web_client, person, route="#/leaderboards")
    option = by_testid(page, "board-ruleset").locator(f'option[value="{key}"]')
    expect(option).to_have_text(re.compile(r"^Custom rules: Ace: skips the next pl.*…$"))
    about = by_testid(page, "board-rules-about")
    expect(about).to_be_hidden()
    by_testid(page, "board-ruleset").select_option(key)
    expect(about).to_be_visible()
    for words in ("Ace: skips the next player, as an 8", "A 10 with two players: skips",
                  "Cards dealt to each: 5"):  # fmt: skip
        expect(about).to_contain_text(words)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, width
    pages.shot(page, "custom-board")


def test_a_weeks_board_says_its_bounds_in_the_readers_own_time(web_client: str, pages: Any) -> None:
    """A week runs Monday 00:00 to Monday 00:00 UTC: a reader in Los Angeles is told it turns
    on Sunday afternoon, in their own time."""
    person = Person(web_client)
    person.play_out(person.create(2, ["random"]))
    week = person.get("/api/v1/leaderboards")[0]["periods"]["week"]
    page = pages.new(1280, locale="en-US", timezone="America/Los_Angeles")
    sign_in(page, web_client, person, route="#/leaderboards")
    by_testid(page, "board-period").select_option("week")
    bounds = by_testid(page, "board-period-bounds")
    expect(bounds).to_be_visible()
    zone = ZoneInfo("America/Los_Angeles")
    for at in (week["start"], week["end"]):
        local = datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone(zone)
        hour = local.hour % 12 or 12
        written = f"{local.month}/{local.day}/{local:%y}, {hour}:{local:%M} {local:%p}"
        assert written in bounds.inner_text().replace("\u202f", " "), (written, bounds.inner_text())
