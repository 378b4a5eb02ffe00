"""The lobby's new-match form by clicks: a named rule set, or "Custom" with every option labelled
and explained in the page's language; the server gets the rules chosen. On a phone the open
matches come before the form."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

from .harness import WIDTHS, Person, by_testid, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def submit(page: Page, person: Person) -> dict[str, Any]:
    """Two seats against the greedy bot; the created match's rules as the server has them."""
    by_testid(page, "create-seats").select_option("2")
    by_testid(page, "create-bots").first.select_option("greedy")
    by_testid(page, "create-submit").click()
    page.wait_for_url(re.compile(r"#/match/[0-9a-f-]{36}$"))
    by_testid(page, "table").wait_for()
    match_id = page.url.rsplit("/", 1)[1]
    person.post(f"/api/v1/matches/{match_id}/resign", status=200)
    return dict(person.get(f"/api/v1/matches/{match_id}")["rules"])


def test_a_match_from_a_preset_and_from_custom(web_client: str, pages: Any) -> None:
    person = Person(web_client)
    defaults = {o["name"]: o["default"] for o in person.get("/api/v1/rules")}
    for width in WIDTHS.values():
        page = pages.new(width, 800)
        sign_in(page, web_client, person)
        by_testid(page, "create-presets").wait_for()
        # Compact: the options stay closed until "Custom"; on a phone the open matches (after
        # quick play) come before the form.
        expect(by_testid(page, "custom-rules")).to_be_hidden()
        expect(by_testid(page, "preset-classic")).to_be_checked()
        if width == WIDTHS["phone"]:
            open_list = by_testid(page, "lobby-list").bounding_box()
            form = by_testid(page, "create-presets").bounding_box()
            assert open_list and form and open_list["y"] < form["y"], (open_list, form)
        pages.shot(page, "lobby")

    by_testid(page, "preset-reshuffle").click()
    rules = submit(page, person)
    assert rules == {
        **defaults,
        "deals_per_match": rules["deals_per_match"],
        "stock_exhausted": "reshuffle",
    }

    page.goto(f"{web_client}/#/lobby")
    by_testid(page, "preset-doubling").click()
    by_testid(page, "preset-custom").click()
    custom = by_testid(page, "custom-rules")
    expect(custom).to_be_visible()
    # Custom starts from the rule set chosen before it; every option has its label and meaning.
    expect(by_testid(page, "create-rule-seven_chain_growth")).to_have_value("doubling")
    text = custom.inner_text()
    assert "draw_policy" not in text and "seven_chain_growth" not in text, text
    expect(custom).to_contain_text("When a player may draw and pass")
    draw = by_testid(page, "create-rule-draw_policy")
    expect(draw).to_have_accessible_description(re.compile("When a player may draw"))
    draw.select_option("one_then_pass")
    pages.shot(page, "custom")
    rules = submit(page, person)
    assert rules == {
        **defaults,
        "deals_per_match": rules["deals_per_match"],
        "seven_chain_growth": "doubling",
        "draw_policy": "one_then_pass",
    }

    turkish = pages.new(WIDTHS["phone"], 800, locale="tr-TR")
    sign_in(turkish, web_client, person)
    expect(by_testid(turkish, "create-presets")).to_contain_text("Klasik")
    by_testid(turkish, "preset-custom").click()
    expect(by_testid(turkish, "custom-rules")).to_contain_text("Kart çekme")
    expect(by_testid(turkish, "custom-rules")).to_contain_text("ne zaman kart çekip pas")
    pages.shot(turkish, "custom-tr")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_the_seats_offered_are_those_the_chosen_rules_allow(web_client: str, pages: Any) -> None:
    """R-7: a table of 2 to `max_players` seats; the form offers no more, and keeps the choice
    where it still fits."""
    person = Person(web_client)
    most = {o["name"]: o for o in person.get("/api/v1/rules")}["max_players"]
    page = pages.new(375, 800)
    sign_in(page, web_client, person)
    seats = by_testid(page, "create-seats")

    def offered() -> list[str]:
        return [o.get_attribute("value") or "" for o in seats.locator("option").all()]

    expect(seats.locator("option")).to_have_count(most["default"] - 1)
    assert offered() == [str(n) for n in range(2, most["default"] + 1)]
    by_testid(page, "preset-custom").click()
    by_testid(page, "create-rule-max_players").fill(str(most["max"]))
    by_testid(page, "create-rule-max_players").dispatch_event("change")
    expect(seats.locator("option")).to_have_count(most["max"] - 1)
    seats.select_option(str(most["max"]))
    expect(by_testid(page, "create-bots")).to_have_count(most["max"] - 1)
    by_testid(page, "create-rule-max_players").fill("4")
    by_testid(page, "create-rule-max_players").dispatch_event("change")
    assert offered() == ["2", "3", "4"]
    expect(seats).to_have_value("4")
    expect(by_testid(page, "create-bots")).to_have_count(3)
    by_testid(page, "preset-classic").click()
    assert offered() == [str(n) for n in range(2, most["default"] + 1)]
    expect(seats).to_have_value("4")


def test_the_bot_choice_offers_the_levels_first_and_says_what_each_plays(
    web_client: str, pages: Any
) -> None:
    """The five levels, weakest first, with Casual the default; the other strategies apart under
    a heading of their own; the chosen bot's meaning written under its choice (a phone shows no
    option's tooltip), in the page's language, else in the server's words."""
    person = Person(web_client)
    bots = person.get("/api/v1/bots")
    levels = [b["strategy"] for b in bots if b["level"] == b["strategy"]]
    others = [b["strategy"] for b in bots if b["level"] != b["strategy"]]
    assert levels == ["random", "beginner", "casual", "strong", "expert"], bots
    assert "greedy" in others, bots
    page = pages.new(1280, 900)
    # A strategy the client has no words for: the server's description is shown.
    page.route(
        "**/api/v1/bots",
        lambda route: route.fulfill(
            json=[*bots, {"strategy": "novel", "description": "Server words for it.",
                          "level": None, "rating": None}]
        ),
    )  # fmt: skip
    sign_in(page, web_client, person)
    by_testid(page, "create-seats").select_option("3")
    choices = by_testid(page, "create-bots")
    expect(choices).to_have_count(2)
    first, about = choices.first, by_testid(page, "create-bot-about")
    shown = first.evaluate(
        "s => Array.from(s.children, c => c.tagName === 'OPTION' ? c.value : 'group:' + c.label)"
    )
    assert shown == [*levels, "person", "group:Other bots"], shown
    grouped = [o.get_attribute("value") for o in first.locator("optgroup option").all()]
    assert grouped == [*others, "novel"], grouped
    expect(first).to_have_value("casual")
    expect(choices.nth(1)).to_have_value("casual")
    expect(about).to_have_count(2)
    expect(about.first).to_be_visible()
    expect(about.first).to_have_text(re.compile(r"^A simple heuristic: answers sevens"))
    expect(first).to_have_accessible_description(re.compile(r"^A simple heuristic"))
    first.select_option("expert")
    expect(about.first).to_have_text(re.compile(r"^As Strong, and it plans"))
    expect(about.nth(1)).to_have_text(re.compile(r"^A simple heuristic"))
    first.select_option("greedy")
    expect(about.first).to_contain_text("Plays exactly as Casual")
    first.select_option("novel")
    expect(about.first).to_have_text("Server words for it.")
    first.select_option("person")
    expect(about.first).to_have_text("Left open for a person to join.")
    first.select_option("strong")
    pages.shot(page, "bots")

    # The levels are what the server gets: the default Casual, and the one chosen.
    by_testid(page, "create-submit").click()
    page.wait_for_url(re.compile(r"#/match/[0-9a-f-]{36}$"))
    match_id = page.url.rsplit("/", 1)[1]
    seats = person.get(f"/api/v1/matches/{match_id}")["seats"]
    names = [s["player"]["display_name"].split(" ")[0] for s in seats[1:]]
    assert names == ["strong", "casual"], seats
    person.post(f"/api/v1/matches/{match_id}/resign", status=200)

    turkish = pages.new(WIDTHS["phone"], 800, locale="tr-TR")
    sign_in(turkish, web_client, person)
    by_testid(turkish, "create-seats").select_option("2")
    choice, about = by_testid(turkish, "create-bots"), by_testid(turkish, "create-bot-about")
    expect(choice).to_have_value("casual")
    expect(choice.locator("optgroup")).to_have_attribute("label", "Diğer botlar")
    expect(about).to_have_text(re.compile(r"^Basit bir yöntem: yedilere karşılık verir"))
    box = about.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= WIDTHS["phone"], box
    choice.select_option("beginner")
    expect(about).to_have_text(re.compile(r"^Orta gibi oynar"))
    pages.shot(turkish, "bots-tr")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_a_match_whose_answer_was_lost_is_created_once(web_client: str, pages: Any) -> None:
    """The first answer to the lobby's create is lost on its way (the server made the match):
    the page sends it again with the same Idempotency-Key and opens that one match, not a
    second."""
    person = Person(web_client)
    page = pages.new()
    sign_in(page, web_client, person)
    by_testid(page, "create-submit").wait_for()
    keys: list[str | None] = []

    def lose_first(route: Route) -> None:
        keys.append(route.request.headers.get("idempotency-key"))
        response = route.fetch()  # the server makes the match
        if len(keys) == 1:
            assert response.status == 201
            route.abort("connectionreset")  # its answer never reaches the page
        else:
            route.fulfill(response=response)

    page.route(
        re.compile(r"/api/v1/matches$"),
        lambda route: (lose_first(route) if route.request.method == "POST" else route.continue_()),
    )
    by_testid(page, "create-submit").click()
    page.wait_for_url(re.compile(r"#/match/[0-9a-f-]{36}$"))
    assert len(keys) == 2 and keys[0] and keys[0] == keys[1], keys
    created = [m["id"] for m in person.get(f"/api/v1/matches?player={person.id}")["results"]]
    assert created == [page.url.rsplit("/", 1)[1]], (created, page.url)
