"""The table by keyboard only, in a Turkish browser: the arrow keys choose a legal card (its focus
visible), Enter plays it (and names the Jack's suit in the picker), D draws, P passes; every
move, the player's own and the bot's, is read out through the aria-live region in Turkish."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .harness import POLL_MS, Person, by_testid, sign_in, version, wait_version

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

FOCUSED = """() => { const e = document.activeElement;
  return e ? { card: e.dataset.card || null, testid: e.dataset.testid || null,
               legal: e.dataset.legal || null, visible: e.matches(':focus-visible'),
               outline: getComputedStyle(e).outlineStyle } : null; }"""


def your_turn(page: Page) -> bool:
    page.wait_for_function(
        """() => document.querySelector('[data-testid=table]')?.dataset.status !== 'active' ||
           (document.querySelector('[data-testid=turn-indicator]')?.dataset.yourTurn === 'true' &&
            document.querySelector('[data-testid=table]').dataset.busy !== 'true')""",
        polling=POLL_MS,
    )
    return by_testid(page, "table").get_attribute("data-status") == "active"


def move_by_keys(page: Page) -> str:
    """One move on this page's turn by keys only; which key played it."""
    before = version(page)
    legal = by_testid(page, "hand").locator('[data-testid="card"][data-legal="true"]')
    if legal.count():
        page.keyboard.press("ArrowRight")
        focused = page.evaluate(FOCUSED)
        assert focused and focused["testid"] == "card" and focused["legal"] == "true", focused
        assert focused["visible"] and focused["outline"] != "none", focused
        if legal.count() > 1:  # the arrows walk the legal cards, and back
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowLeft")
            assert page.evaluate(FOCUSED)["card"] == focused["card"]
        page.keyboard.press("Enter")
        if focused["card"].startswith("J"):
            picker = by_testid(page, "suit-picker")
            page.wait_for_function(
                """v => document.querySelector('[data-testid=suit-picker]') ||
                   Number(document.querySelector('[data-testid=table]').dataset.version) > v""",
                arg=before,
                polling=POLL_MS,
            )
            if picker.count():
                assert (page.evaluate(FOCUSED)["testid"] or "").startswith("suit-")
                page.keyboard.press("Enter")
        key = "Enter"
    elif by_testid(page, "pass-button").is_enabled():
        key = "p"
    else:
        assert by_testid(page, "draw-button").is_enabled()
        key = "d"
    if key != "Enter":
        page.keyboard.press(key)
    wait_version(page, before)
    return key


def test_a_match_played_with_the_keyboard_and_read_out(web_client: str, pages: Any) -> None:
    person = Person(web_client)
    match_id = person.create(2, ["greedy"], rules={"hand_size": 5})
    page = pages.new(1280, 900, locale="tr-TR")
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
    region = by_testid(page, "announcer")
    expect(region).to_have_attribute("aria-live", "polite")
    expect(by_testid(page, "keys-help")).to_contain_text("Tuşlar")

    keys: list[str] = []
    # Six moves, and on until one is a card played with Enter (a hand may have none to play
    # for several turns: each draw is a move of its own).
    while (len(keys) < 6 or "Enter" not in keys) and len(keys) < 40 and your_turn(page):
        keys.append(move_by_keys(page))
        if len(keys) == 2:
            pages.shot(page, "keys")
    assert "Enter" in keys, keys

    log = person.get(f"/api/v1/matches/{match_id}/moves")
    mine = [m for m in log if m["seat"] == 0 and not m["by_bot"]]
    theirs = [m for m in log if m["seat"] == 1]
    assert len(mine) >= len(keys) and theirs, log
    # The bot's answer to the last of them is read out once it comes: its earlier moves may all
    # have come before the page opened.
    expect(region).to_contain_text("Açgözlü bot")
    said = region.inner_text()
    # The page's own moves in the second person ("… oynadın / çektin / pas dedin"), never the
    # third ("sen … oynadı"), and the bot's ("Açgözlü bot … oynadı").
    assert "Açgözlü bot" in said, said
    assert any(word in said for word in ("oynadın", "çektin", "pas dedin")), said
    assert not re.search(r"\bsen\b[^.\n]*\b(oynadı|çekti|pas dedi)\b", said), said
    assert "played" not in said and "drew" not in said, said
    # Cards and suits read in words ("Kupa 7", "Sinek kızı"), never as symbols.
    assert not re.search("[♣♦♥♠]", said), said
    assert re.search(r"(?i)\b(sinek|karo|kupa|maça)\b", said), said
    # "Your turn" is said after the move that gave it (the bot's, or a new deal's dealing).
    lines = region.locator("p").all_inner_texts()
    for i, line in enumerate(lines):
        if line == "Sıra sende" and i > 0:
            assert "Açgözlü bot" in lines[i - 1] or "el dağıtıldı" in lines[i - 1], lines
    small = pages.new(375, 800, locale="tr-TR")
    sign_in(small, web_client, person, route=f"#/match/{match_id}")
    by_testid(small, "table").wait_for()
    small.keyboard.press("ArrowRight")
    pages.shot(small, "keys")
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console
