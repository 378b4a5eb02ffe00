"""The replay of a finished deal, stepped to its end with every hand open, and its fairness
check in the browser. This browser did not watch the deal (it was played through the API):
the server's answer agrees with itself, and the page says it could not check the seed against
a commitment recorded during the deal ("unrecorded", test_fairness.py has the recorded case);
"mismatch" once its seed is changed."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

from .harness import Person, by_testid, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


@pytest.fixture(scope="module")
def finished(server: Any, spectators: None) -> tuple[Person, str, dict[str, Any]]:
    """A person's finished one-deal match against a bot, played through the API, and the
    deal's replay as the server answers it."""
    person = Person(server.base)
    match_id = person.create(2, ["random"])
    person.play_out(match_id)
    replay = person.get(f"/api/v1/matches/{match_id}/deals/1/replay")
    assert len(replay["positions"]) > 2
    return person, match_id, replay


def replay_hands(page: Page, seats: int) -> list[list[str]]:
    return [
        by_testid(page, f"replay-hand-{seat}")
        .locator("[data-card]")
        .evaluate_all("els => els.map(e => e.dataset.card)")
        for seat in range(seats)
    ]


def open_replay(page: Page, base: str, person: Person, match_id: str) -> None:
    sign_in(page, base, person, route=f"#/replay/{match_id}/1")
    expect(by_testid(page, "replay-step")).to_have_attribute("data-index", "0")


def served_checks_pass_and_the_unrecorded_are_named(page: Page) -> None:
    fairness = by_testid(page, "fairness-status")
    expect(fairness).to_have_attribute("data-result", "unrecorded")
    expect(fairness).not_to_be_empty()
    checks = by_testid(page, "fairness-check")
    for name, state in (
        ("served_commitment", "ok"),
        ("served_hands", "ok"),
        ("recorded_commitment", "none"),
        ("recorded_hand", "none"),
    ):
        check = checks.and_(page.locator(f'[data-check="{name}"]'))
        expect(check).to_have_attribute("data-ok", state)


def test_a_replay_steps_to_the_end_and_the_fairness_check_says_what_it_checked(
    web_client: str, pages: Any, finished: tuple[Person, str, dict[str, Any]]
) -> None:
    person, match_id, replay = finished
    positions, seats = replay["positions"], replay["seat_count"]
    for width in (1280, 375):
        page = pages.new(width)
        open_replay(page, web_client, person, match_id)
        step = by_testid(page, "replay-step")
        # All hands open, as dealt.
        assert replay_hands(page, seats) == replay["hands_at_start"]
        served_checks_pass_and_the_unrecorded_are_named(page)
        pages.shot(page, "replay-start")
        for index in (1, 2):
            by_testid(page, "replay-next").click()
            expect(step).to_have_attribute("data-index", str(index))
            assert replay_hands(page, seats) == positions[index]["state"]["hands"]
        by_testid(page, "replay-prev").click()
        expect(step).to_have_attribute("data-index", "1")
        by_testid(page, "replay-end").click()
        last = len(positions) - 1
        expect(step).to_have_attribute("data-index", str(last))
        expect(step).to_have_attribute("data-last", "true")
        assert replay_hands(page, seats) == positions[last]["state"]["hands"]
        # One step further than the end stays at the end.
        next_button = by_testid(page, "replay-next")
        if next_button.is_enabled():
            next_button.click()
        expect(step).to_have_attribute("data-index", str(last))
        served_checks_pass_and_the_unrecorded_are_named(page)
        pages.shot(page, "replay-end")
    # Stepping with replay-next alone reaches the same end.
    page = pages.new()
    open_replay(page, web_client, person, match_id)
    for index in range(1, len(positions)):
        by_testid(page, "replay-next").click()
        expect(by_testid(page, "replay-step")).to_have_attribute("data-index", str(index))
    expect(by_testid(page, "replay-step")).to_have_attribute("data-last", "true")


def test_a_tampered_seed_shows_a_mismatch(
    web_client: str, pages: Any, finished: tuple[Person, str, dict[str, Any]]
) -> None:
    person, match_id, replay = finished
    page = pages.new()
    tampered: list[str] = []

    def change_seed(route: Route) -> None:
        response = route.fetch()
        body = response.json()
        seed = body["seed"]
        body["seed"] = ("0" if seed[0] != "0" else "1") + seed[1:]
        tampered.append(body["seed"])
        route.fulfill(response=response, json=body)

    page.route(f"**/api/v1/matches/{match_id}/deals/1/replay*", change_seed)
    open_replay(page, web_client, person, match_id)
    fairness = by_testid(page, "fairness-status")
    expect(fairness).to_have_attribute("data-result", "mismatch")
    expect(fairness).not_to_be_empty()
    expect(
        by_testid(page, "fairness-check").and_(page.locator('[data-check="served_commitment"]'))
    ).to_have_attribute("data-ok", "bad")
    assert tampered and tampered[0] != replay["seed"]
    pages.shot(page, "replay-mismatch")


def test_the_arrow_keys_step_the_replay_and_a_language_switch_keeps_its_place(
    web_client: str, pages: Any, finished: tuple[Person, str, dict[str, Any]]
) -> None:
    """Left and Right step the replay, Home and End go to its ends, each position said in a
    polite live region; the language switched, the replay stays where it was and the focus on
    the switch."""
    person, match_id, replay = finished
    last = len(replay["positions"]) - 1
    for width in (1280, 375):
        page = pages.new(width)
        open_replay(page, web_client, person, match_id)
        step = by_testid(page, "replay-step")
        expect(step).to_have_attribute("aria-live", "polite")
        # The focus on nothing (the page as opened), then in the replay (its Next button).
        for key, index in (("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1)):
            page.keyboard.press(key)
            expect(step).to_have_attribute("data-index", str(index))
        by_testid(page, "replay-next").focus()
        page.keyboard.press("End")
        expect(step).to_have_attribute("data-index", str(last))
        page.keyboard.press("ArrowRight")  # past the end: stays there
        expect(step).to_have_attribute("data-index", str(last))
        page.keyboard.press("Home")
        expect(step).to_have_attribute("data-index", "0")
        for index in (1, 2):
            page.keyboard.press("ArrowRight")
            expect(step).to_have_attribute("data-index", str(index))
        assert replay_hands(page, replay["seat_count"]) == replay["positions"][2]["state"]["hands"]
        # Keys outside the replay (the header's switch) do not step it.
        toggle = by_testid(page, "lang-toggle")
        toggle.focus()
        page.keyboard.press("ArrowRight")
        expect(step).to_have_attribute("data-index", "2")
        page.keyboard.press("Enter")  # to Turkish
        expect(page.locator("html")).to_have_attribute("lang", "tr")
        step = by_testid(page, "replay-step")
        expect(step).to_have_attribute("data-index", "2")
        expect(step).to_contain_text("Konum 3 /")
        assert page.evaluate("document.activeElement?.dataset.testid") == "lang-toggle"
        pages.shot(page, "replay-turkish")
        page.keyboard.press("Enter")  # back to English
        expect(page.locator("html")).to_have_attribute("lang", "en")
        expect(by_testid(page, "replay-step")).to_have_attribute("data-index", "2")
        assert page.evaluate("document.activeElement?.dataset.testid") == "lang-toggle"


def test_a_visitor_is_not_told_of_a_hand_of_theirs(
    web_client: str, pages: Any, finished: tuple[Person, str, dict[str, Any]]
) -> None:
    """Somebody at no seat of the match, signed in or not, opens its replay: the hand check
    says they had no seat, not that "the hand you were shown" was not recorded."""
    person, match_id, _ = finished
    visitor = Person(web_client)
    signed_in, anonymous = pages.new(), pages.new(375, 800)
    sign_in(signed_in, web_client, visitor, route=f"#/replay/{match_id}/1")
    anonymous.goto(f"{web_client}/#/replay/{match_id}/1")
    for page in (signed_in, anonymous):
        check = by_testid(page, "fairness-check").and_(page.locator('[data-check="recorded_hand"]'))
        expect(check).to_have_attribute("data-ok", "none")
        expect(check).to_have_text("? No hand to check: you had no seat in this match.")
        pages.shot(page, "replay-visitor")
    # The player of the match, on a device that did not record the deal: its hand is spoken of.
    page = pages.new()
    open_replay(page, web_client, person, match_id)
    check = by_testid(page, "fairness-check").and_(page.locator('[data-check="recorded_hand"]'))
    expect(check).to_contain_text("the hand you were shown")
