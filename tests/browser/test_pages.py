"""Every page, drawn at a phone's 375 px and at a desktop width, into the artifact folder; none is
wider than a phone's screen; and the English ↔ Turkish switch."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .harness import WIDTHS, Person, by_testid, sign_in, spectators_served

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def overflow(page: Page) -> str | None:
    """What sticks out of the screen (sideways scrolling on a phone), if anything."""
    width = page.viewport_size["width"] if page.viewport_size else 0
    scroll = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate(
        """w => [...document.querySelectorAll("body *")]
             .filter(e => e.getBoundingClientRect().right > w + 0.5)
             .slice(0, 5)
             .map(e => e.dataset.testid || `${e.tagName.toLowerCase()}.${e.className}`)""",
        width,
    )
    if scroll <= width:
        return None
    return f"{page.url.split('/', 3)[3]} is {scroll} px wide on a {width} px screen: {wide}"


@dataclass
class Site:
    """Something on every page: a live match, a finished one, a running tournament."""

    person: Person
    watcher: Person
    views: list[tuple[str, str, str]]  # (name, route, a data-testid it shows)
    spectator_route: str | None


@pytest.fixture(scope="module")
def site(web_client: str) -> Site:
    person, watcher = Person(web_client), Person(web_client)
    live = person.create(3, ["random", "greedy"])
    finished = person.create(2, ["random"])
    person.play_out(finished)
    tournament = person.post(
        "/api/v1/tournaments",
        {"name": "Browser cup", "bots": ["random", "greedy", "random", "greedy"],
         "format": "round_robin", "table_size": 2, "deals": 1},
        status=201,
    ).json()["id"]  # fmt: skip
    person.post(f"/api/v1/tournaments/{tournament}/start", status=200)
    views = [
        ("lobby", "#/lobby", "create-submit"),
        ("table", f"#/match/{live}", "hand"),
        ("match-result", f"#/match/{finished}", "match-result"),
        ("leaderboards", "#/leaderboards", "board-metric"),
        ("tournaments", "#/tournaments", "tournament-row"),
        ("tournament", f"#/tournaments/{tournament}", "tournament-standings"),
    ]
    watched = spectators_served()
    if watched:
        views.append(("replay", f"#/replay/{finished}/1", "fairness-status"))
    return Site(person, watcher, views, f"#/match/{live}" if watched else None)


def visit_every_page(
    base: str, pages: Any, site: Site, width: int, each: Callable[[Page, str], None]
) -> int:
    """Every page at this width, `each(page, name)` once it is drawn; how many."""
    page = pages.new(width)
    page.goto(f"{base}/#/login")
    by_testid(page, "auth-username").wait_for()
    each(page, "login")
    sign_in(page, base, site.person)
    for name, route, shown in site.views:
        page.goto(f"{base}/{route}")
        by_testid(page, shown).first.wait_for()
        page.wait_for_load_state("networkidle")
        each(page, name)
    if site.spectator_route is None:
        return 1 + len(site.views)
    watching = pages.new(width)
    sign_in(watching, base, site.watcher, route=site.spectator_route)
    expect(by_testid(watching, "table")).to_have_attribute("data-role", "spectator")
    each(watching, "spectator")
    return 2 + len(site.views)


def test_screenshots_of_every_page_at_phone_and_desktop_widths(
    web_client: str, pages: Any, site: Site
) -> None:
    visited = 0
    for width in WIDTHS.values():
        visited += visit_every_page(web_client, pages, site, width, pages.shot)
    shots = sorted(p.name for p in pages.artifacts.glob("screenshots_of_every_page*.png"))
    assert len(shots) >= visited >= 2 * 7, shots


def test_every_page_fits_a_phone_screen(web_client: str, pages: Any, site: Site) -> None:
    too_wide: list[str] = []

    def note(page: Page, name: str) -> None:
        problem = overflow(page)
        if problem:
            too_wide.append(problem)

    visit_every_page(web_client, pages, site, WIDTHS["phone"], note)
    assert not too_wide, too_wide


def test_english_and_turkish_switch(web_client: str, pages: Any) -> None:
    page = pages.new()
    page.goto(f"{web_client}/#/login")
    register = by_testid(page, "auth-register")
    register.wait_for()
    html = page.locator("html")
    expect(html).to_have_attribute("lang", "en")
    english = register.inner_text()

    by_testid(page, "lang-toggle").click()
    expect(html).to_have_attribute("lang", "tr")
    expect(register).not_to_have_text(english)
    assert page.evaluate("localStorage.getItem('pisyedili.lang')") == "tr"
    pages.shot(page, "login-tr")
    turkish = register.inner_text()
    # The choice is kept across a reload, and on every page.
    page.reload()
    expect(html).to_have_attribute("lang", "tr")
    expect(register).to_have_text(turkish)
    sign_in(page, web_client, Person(web_client))
    expect(html).to_have_attribute("lang", "tr")
    pages.shot(page, "lobby-tr")

    by_testid(page, "lang-toggle").click()
    expect(html).to_have_attribute("lang", "en")
    assert page.evaluate("localStorage.getItem('pisyedili.lang')") == "en"
    by_testid(page, "auth-logout").click()
    expect(by_testid(page, "auth-register")).to_have_text(english)
