"""Accessibility held by axe-core, the engine of Lighthouse's accessibility category (the copy
Lighthouse pins in web/node_modules, `make node-tools`): no violation of its rules on the lobby
(its new-match form open on "Custom" too), the table during a match and a deal's replay, on a
phone's screen. Lighthouse itself, with its scores, is `make lighthouse` (bench/lighthouse.py):
a run takes about 20 s a page on this suite's machines, axe a second."""

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
