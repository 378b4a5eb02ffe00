"""Accessibility held by axe-core, the engine of Lighthouse's accessibility category (the copy
Lighthouse pins in web/node_modules, `make node-tools`): no violation of its rules on the lobby
(its new-match form open on "Custom" too), the table during a match and a deal's replay, on a
phone's screen. Lighthouse itself, with its scores, is `make lighthouse` (bench/lighthouse.py):
a run takes about 20 s a page on this suite's machines, axe a second. The join page signed out,
the quick-play wait and the hand are checked for what axe cannot see (a live region that would
read a countdown every second) or leaves to be reviewed (a label on an element with no role)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .harness import ROOT, Person, by_testid, sign_in, spectators_served

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"
# What Lighthouse's accessibility audits check (WCAG 2 A and AA, and axe's best practices).
RUN = """async () => {
  const found = await axe.run(document, { runOnly: { type: "tag",
    values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } });
  return found.violations.map(v => `${v.id} (${v.impact}): ${v.help} — ` +
    v.nodes.slice(0, 3).map(n => n.target.join(" ")).join("; "));
}"""


def violations(page: Page) -> list[str]:
    page.wait_for_load_state("networkidle")
    return list(page.evaluate(RUN))


def test_no_axe_violation_on_the_lobby_table_and_replay(web_client: str, pages: Any) -> None:
    if not AXE.exists():
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"no {AXE} (make node-tools)")
        pytest.skip(f"no {AXE} (make node-tools)")
    person = Person(web_client)
    live = person.create(3, ["greedy", "random"])
    finished = person.create(2, ["random"])
    person.play_out(finished)
    page = pages.new(375, 800)
    # Loaded by the browser itself (never the page): the page's Content-Security-Policy stands.
    page.context.add_init_script(path=str(AXE))
    found: dict[str, list[str]] = {}

    sign_in(page, web_client, person)
    by_testid(page, "create-presets").wait_for()
    found["lobby"] = violations(page)
    by_testid(page, "preset-custom").click()
    expect(by_testid(page, "custom-rules")).to_be_visible()
    found["lobby, custom"] = violations(page)
    pages.shot(page, "lobby")

    page.goto(f"{web_client}/#/match/{live}")
    expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
    by_testid(page, "hand").wait_for()
    found["table"] = violations(page)
    pages.shot(page, "table")

    if spectators_served():
        page.goto(f"{web_client}/#/replay/{finished}/1")
        by_testid(page, "fairness-status").wait_for()
        found["replay"] = violations(page)
        pages.shot(page, "replay")
    assert not any(found.values()), "\n".join(f"{k}: {v}" for k, vs in found.items() for v in vs)


# Where a rule found a node it could not decide on (axe's "incomplete", which Lighthouse shows
# as "needs review"): an aria-label on an element whose role does not take one.
PROHIBITED = """async () => {
  const found = await axe.run(document,
    { runOnly: { type: "rule", values: ["aria-prohibited-attr"] } });
  return [...found.violations, ...found.incomplete]
    .flatMap(v => v.nodes.map(n => n.target.join(" ")));
}"""
# What a live region would read out: the element is inside one.
IN_LIVE_REGION = (
    "e => Boolean(e.closest('[aria-live]:not([aria-live=off]), [role=status], [role=alert],"
    " [role=log], [role=timer], [role=marquee]'))"
)


def test_the_join_page_the_quick_play_wait_and_the_hand_to_assistive_technology(
    web_client: str, pages: Any
) -> None:
    """The join page signed out has its heading one; the quick-play wait says once that it waits,
    never its countdown each second nor its button; the hand is a named group."""
    if not AXE.exists():
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"no {AXE} (make node-tools)")
        pytest.skip(f"no {AXE} (make node-tools)")
    creator, person = Person(web_client), Person(web_client)
    private = creator.post("/api/v1/matches", {"seats": 2, "private": True}, status=201).json()
    page = pages.new(375, 800)
    page.context.add_init_script(path=str(AXE))
    found: dict[str, list[str]] = {}

    page.goto(f"{web_client}/#/join/{private['id']}/{private['join_code']}")
    expect(by_testid(page, "join-status")).to_contain_text("Sign in")
    expect(page.locator("h1")).to_have_count(1)
    found["join"] = violations(page)

    sign_in(page, web_client, person)
    by_testid(page, "quick-play-button").click()
    waiting = by_testid(page, "quick-waiting")
    expect(waiting).to_be_visible()
    assert not by_testid(page, "quick-left").evaluate(IN_LIVE_REGION)
    assert not by_testid(page, "quick-cancel").evaluate(IN_LIVE_REGION)
    said = by_testid(page, "quick-said")
    expect(said).to_contain_text("Looking for players")
    assert said.evaluate(IN_LIVE_REGION)
    found["lobby, waiting"] = violations(page)
    by_testid(page, "quick-cancel").click()
    expect(by_testid(page, "quick-play-button")).to_be_visible()
    expect(said).to_have_text("")

    match_id = person.create(2, ["greedy"])
    page.goto(f"{web_client}/#/match/{match_id}")
    hand = by_testid(page, "hand")
    expect(hand).to_have_attribute("role", "group")
    expect(hand).to_have_attribute("aria-label", "Your hand")
    page.wait_for_load_state("networkidle")
    found["table, needing review"] = list(page.evaluate(PROHIBITED))
    assert not any(found.values()), "\n".join(f"{k}: {v}" for k, vs in found.items() for v in vs)


def test_a_part_drawn_again_keeps_the_focus_where_it_was(web_client: str, pages: Any) -> None:
    """A list refreshed or a chip removed (dom.js `fill`): the focus stays on the same control
    where it is still there, else on the one now at its place; never lost to <body>."""
    page = pages.new()
    page.goto(f"{web_client}/")
    kept = page.evaluate(
        """async () => {
          const { h, fill } = await import("/app/dom.js");
          const box = h("div", {});
          document.body.append(box);
          const row = (id) => h("button", { testid: "join", "data-match-id": id }, id);
          fill(box, row("a"), row("b"), row("c"));
          box.querySelector('[data-match-id="b"]').focus();
          fill(box, row("z"), row("a"), row("b"), row("c"));  // refreshed, a new row first
          const same = document.activeElement?.dataset.matchId;
          fill(box, row("z"), row("a"));  // b and c gone: the control now at b's place
          const near = document.activeElement?.dataset.matchId;
          box.remove();
          return [same, near];
        }"""
    )
    assert kept == ["b", "a"], kept
