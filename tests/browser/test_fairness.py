"""The replay's fairness check holds against a lying server: the table records each deal's
commitment and (as a digest) the hand it showed when the deal started, in the browser's
storage; the replay checks the revealed seed against them. A consistent forgery (a new seed,
its SHA-256 as commitment, the hands that seed deals) shows "mismatch" where the deal was
watched; on another browser, with nothing recorded, the page says what it could not check."""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

from games.engine.cards import codes
from games.engine.rules import Rules
from games.engine.shuffle import commitment
from games.engine.state import new_deal

from .harness import Person, by_testid, play_to_end, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

CARD = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9JQKA])[CDHS](?![0-9A-Za-z])")


def forge(route: Route) -> None:
    """The server's replay with a seed of its own making, consistent in itself."""
    response = route.fetch()
    body = response.json()
    seed = secrets.token_bytes(32)
    dealt = new_deal(Rules(), body["seat_count"], body["opener"], seed)
    hands = [codes(hand) for hand in dealt.hands]
    body.update(seed=seed.hex(), commitment=commitment(seed), hands_at_start=hands)
    body["positions"][0]["state"]["hands"] = hands
    route.fulfill(response=response, json=body)


def checks(page: Page) -> dict[str, str]:
    rows = by_testid(page, "fairness-check")
    expect(rows).to_have_count(4)
    return {
        row.get_attribute("data-check") or "": row.get_attribute("data-ok") or ""
        for row in rows.all()
    }


def open_replay_by_click(page: Page) -> None:
    by_testid(page, "replay-link").click()
    expect(by_testid(page, "replay-step")).to_have_attribute("data-index", "0")


def shoot(pages: Any, page: Page, name: str) -> None:
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        pages.shot(page, name)
    page.set_viewport_size({"width": 1280, "height": 900})


def test_the_replay_is_checked_against_what_this_browser_recorded(
    web_client: str, spectators: None, pages: Any
) -> None:
    person = Person(web_client)
    match_id = person.create(2, ["random"])
    start = person.state(match_id)
    assert start["turn"] == start["you"] == 0  # the page sees the hand before its first move
    page = pages.new()
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    shown = by_testid(page, "hand").locator('[data-testid="card"]')
    expect(shown).to_have_count(len(start["hand"]))
    key = f"pisyedili.deal.{match_id}.1"
    page.wait_for_function("k => JSON.parse(localStorage.getItem(k) || '{}').hand", arg=key)
    record = json.loads(page.evaluate("k => localStorage.getItem(k)", key))
    assert record["commitment"] == start["commitment"] and record["seat"] == 0
    assert re.fullmatch(r"[0-9a-f]{64}", record["hand"]), record
    assert not CARD.search(json.dumps(record)), record  # the hand is kept as a digest only

    # A spectator's browser records the commitment too, and no hand.
    watcher = pages.new()
    sign_in(watcher, web_client, Person(web_client), route=f"#/match/{match_id}")
    watcher.wait_for_function(
        "k => JSON.parse(localStorage.getItem(k) || '{}').commitment", arg=key
    )

    play_to_end([page], timeout=200)
    honest = person.get(f"/api/v1/matches/{match_id}/deals/1/replay")
    assert honest["commitment"] == start["commitment"]

    # The honest replay, where the deal was played: every check passes.
    open_replay_by_click(page)
    status = by_testid(page, "fairness-status")
    expect(status).to_have_attribute("data-result", "verified")
    assert set(checks(page).values()) == {"ok"}, checks(page)
    shoot(pages, page, "verified")

    # The spectator's browser: verified, and it says no hand of the viewer's was checked.
    watcher.goto(f"{web_client}/#/replay/{match_id}/1")
    watched = by_testid(watcher, "fairness-status")
    expect(watched).to_have_attribute("data-result", "verified")
    expect(watched).to_contain_text("no hand of yours")
    assert checks(watcher)["recorded_commitment"] == "ok", checks(watcher)

    # The same browser, served a consistent forgery: what it recorded tells it apart.
    page.route(f"**/api/v1/matches/{match_id}/deals/1/replay*", forge)
    by_testid(page, "replay-to-match").click()
    open_replay_by_click(page)
    expect(status).to_have_attribute("data-result", "mismatch")
    assert checks(page) == {
        "recorded_commitment": "bad",
        "recorded_hand": "bad",
        "served_commitment": "ok",
        "served_hands": "ok",
    }
    expect(status).not_to_be_empty()
    shoot(pages, page, "forged-mismatch")

    # Another browser, with nothing recorded: the honest replay is not called verified, and
    # the page says what it could not check; the forgery cannot be told apart there.
    other = pages.new()
    sign_in(other, web_client, person, route=f"#/match/{match_id}")
    open_replay_by_click(other)
    other_status = by_testid(other, "fairness-status")
    expect(other_status).to_have_attribute("data-result", "unrecorded")
    assert checks(other) == {
        "recorded_commitment": "none",
        "recorded_hand": "none",
        "served_commitment": "ok",
        "served_hands": "ok",
    }
    expect(other_status).not_to_be_empty()
    shoot(pages, other, "another-device")
    other.route(f"**/api/v1/matches/{match_id}/deals/1/replay*", forge)
    by_testid(other, "replay-to-match").click()
    open_replay_by_click(other)
    expect(other_status).to_have_attribute("data-result", "unrecorded")

    # Signing out forgets what this browser recorded: the next person finds no digest of the
    # hands this player was dealt.
    assert page.evaluate("k => localStorage.getItem(k)", key) is not None
    by_testid(page, "auth-logout").click()
    expect(by_testid(page, "auth-logout")).to_have_count(0)
    left = page.evaluate(
        "p => Object.keys(localStorage).filter(k => k.startsWith(p))", "pisyedili.deal."
    )
    assert left == [], left
    assert not pages.console, pages.console
