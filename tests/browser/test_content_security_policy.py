"""The web client's Content-Security-Policy (pisyedili_api.webclient) in Chromium: a match played
by clicking to its result, its replay and the other pages, with no violation of the policy; and
the policy in force (an inline script is refused)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.httpclient import http

from .harness import Person, by_testid, play_to_end, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

# Each document of the page keeps the violations it saw (an init script runs before the page's).
WATCH_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.__violations.push(`${e.effectiveDirective} ${e.blockedURI}`));
"""


def policy_of(base: str) -> dict[str, list[str]]:
    header = http.get(f"{base}/", timeout=10).headers["Content-Security-Policy"]
    return {name: sources for name, *sources in (d.split() for d in header.split(";"))}


def test_the_page_loads_only_from_its_own_server(web_client: str) -> None:
    policy = policy_of(web_client)
    assert policy["default-src"] == ["'self'"]
    for name in ("script-src", "style-src", "connect-src"):  # default-src's, nothing wider
        assert name not in policy, name
    assert policy["img-src"] == ["'self'", "data:"]  # data: is the empty favicon
    assert policy["object-src"] == policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]


def test_a_match_is_played_with_no_violation_of_the_policy(web_client: str, pages: Any) -> None:
    person = Person(web_client)
    page = pages.new()
    page.context.add_init_script(WATCH_VIOLATIONS)
    match_id = person.create(3, ["random", "greedy"])
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    play_to_end([page])
    by_testid(page, "match-result").wait_for()
    seen: list[str] = []
    for route, shown in (
        (f"#/replay/{match_id}/1", "fairness-status"),
        ("#/leaderboards", "board-metric"),
        ("#/tournaments", "tournament-list"),
        ("#/lobby", "create-submit"),
    ):
        page.goto(f"{web_client}/{route}")
        by_testid(page, shown).first.wait_for()
        seen += page.evaluate("window.__violations")
    refused = [line for line in pages.logs[page] if "Content Security Policy" in line]
    assert seen == [] and refused == [], (seen, refused)
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console

    # The policy is in force: a script written into the page does not run, and is reported.
    page.evaluate(
        """() => { const s = document.createElement("script");
                   s.textContent = "window.__ran = true"; document.head.append(s); }"""
    )
    page.wait_for_function("window.__violations.length > 0")
    assert page.evaluate("window.__ran === undefined")
    assert page.evaluate("window.__violations")[0].startswith("script-src")
