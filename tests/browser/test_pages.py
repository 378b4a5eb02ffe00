"""Every page, drawn at a phone's 375 px and at a desktop width, into the artifact folder; none is
wider than a phone's screen; the English ↔ Turkish switch, the browser's language on the first
visit, and every page in Turkish without an untranslated key or an English-only word."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.httpclient import http

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


# A name with no space to break it at (a tournament's, up to 100 characters): it wraps.
LONG_WORD = "YediliKupasi_2026_Istanbul_KisFinalleri_ElemeTurlari_OdulToreni_Salonu"


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
        {"name": f"Yedili kupası {LONG_WORD}", "bots": ["random", "greedy", "random", "greedy"],
         "format": "round_robin", "table_size": 2, "deals": 1},
        status=201,
    ).json()["id"]  # fmt: skip
    # A tournament inviting the person: the lobby's and the tournaments page's invitations.
    watcher.post(
        "/api/v1/tournaments",
        {
            "name": LONG_WORD,
            "players": [person.id],
            "bots": ["random"],
            "format": "swiss",
            "table_size": 2,
        },
        status=201,
    )
    person.post(f"/api/v1/tournaments/{tournament}/start", status=200)
    # A private table of the person's, waiting for the watcher, and one inviting the person:
    # the table's join link and invitations, the lobby's invitation.
    private = person.post(
        "/api/v1/matches", {"seats": 2, "private": True, "invite": [watcher.name]}, status=201
    ).json()["id"]
    watcher.post(
        "/api/v1/matches", {"seats": 2, "private": True, "invite": [person.name]}, status=201
    )
    views = [
        ("lobby", "#/lobby", "create-submit"),
        ("table", f"#/match/{live}", "hand"),
        ("match-result", f"#/match/{finished}", "match-result"),
        ("leaderboards", "#/leaderboards", "board-metric"),
        ("tournaments", "#/tournaments", "tournament-row"),
        ("tournament", f"#/tournaments/{tournament}", "tournament-standings"),
        ("players", "#/players", "player-search-input"),
        ("account", "#/account", "session-row"),
        ("private-table", f"#/match/{private}", "private-panel"),
        ("unknown-match", f"#/match/{uuid.uuid4()}", "view-failed"),
    ]
    watched = spectators_served()
    if watched:
        views.append(("replay", f"#/replay/{finished}/1", "fairness-status"))
    return Site(person, watcher, views, f"#/match/{live}" if watched else None)


def visit_every_page(
    base: str,
    pages: Any,
    site: Site,
    width: int,
    each: Callable[[Page, str], None],
    locale: str | None = None,
) -> int:
    """Every page at this width (in a browser of this `locale`), `each(page, name)` once it is
    drawn; how many."""
    page = pages.new(width, locale=locale)
    page.goto(f"{base}/#/login")
    by_testid(page, "auth-username").wait_for()
    each(page, "login")
    sign_in(page, base, site.person)
    for name, route, shown in site.views:
        page.goto(f"{base}/{route}")
        by_testid(page, shown).first.wait_for()
        page.wait_for_load_state("networkidle")
        each(page, name)
    # The new match's every option (Custom), and a deal's result over the table as it ends.
    page.goto(f"{base}/#/lobby")
    by_testid(page, "preset-custom").click()
    by_testid(page, "create-rule-ace_mode").wait_for()
    each(page, "lobby-custom")
    each(deal_result_over_the_table(base, pages, site, width, locale), "deal-result")
    visited = 3 + len(site.views)
    if site.spectator_route is None:
        return visited
    watching = pages.new(width, locale=locale)
    sign_in(watching, base, site.watcher, route=site.spectator_route)
    expect(by_testid(watching, "table")).to_have_attribute("data-role", "spectator")
    each(watching, "spectator")
    return visited + 1


def deal_result_over_the_table(
    base: str, pages: Any, site: Site, width: int, locale: str | None
) -> Page:
    """A page of a new person's, opened at a two-seat table (hands of one card) when the
    person's next play is its last card, which it then plays through the API: the first deal's
    result comes over the table (held a while at this pace). Where the bot ends the deal first,
    again at a new table."""
    for _ in range(30):
        person = Person(base)
        match_id = person.create(2, ["random"], deals=2, rules={"hand_size": 1})
        before = last_card_on_turn(person, match_id)
        if before is None:
            continue
        page = pages.new(width, locale=locale, pace=1500)
        sign_in(page, base, person, route=f"#/match/{match_id}")
        table = by_testid(page, "table")
        expect(table).to_have_attribute("data-version", str(before["version"]))
        after = person.move(match_id)  # its first legal play: the last card
        assert after["deal"] != 1 or after["phase"] == "deal_over", after
        page.locator('.overlay[data-testid="deal-result"]').wait_for(timeout=60_000)
        return page
    raise AssertionError("the bot ended the first deal at every table")


def last_card_on_turn(person: Person, match_id: str) -> dict[str, Any] | None:
    """The person's moves (Person.move) until it is on turn holding one card that it may play;
    that state, or None where the first deal ended first."""
    for _ in range(2000):
        state = person.state(match_id)
        if state["deal"] != 1 or state["phase"] == "deal_over":
            return None
        if state["turn"] == state["you"] and state["legal_moves"]:
            plays = [m for m in state["legal_moves"] if m["action"] == "play"]
            if len(state["hand"]) == 1 and plays:
                return state
            person.move(match_id)
        else:
            time.sleep(0.05)
    raise AssertionError(f"the first deal of {match_id} did not end")


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


def test_the_browsers_language_on_the_first_visit_and_the_choice_kept(
    web_client: str, pages: Any
) -> None:
    english = pages.new(locale="en-US")
    english.goto(f"{web_client}/#/login")
    by_testid(english, "auth-register").wait_for()
    expect(english.locator("html")).to_have_attribute("lang", "en")

    page = pages.new(locale="tr-TR")
    page.goto(f"{web_client}/#/login")
    register = by_testid(page, "auth-register")
    expect(page.locator("html")).to_have_attribute("lang", "tr")
    expect(register).to_have_text("Kaydol")
    assert page.evaluate("localStorage.getItem('pisyedili.lang')") is None  # nothing chosen yet
    # The player's choice wins over the browser's, and is kept.
    by_testid(page, "lang-toggle").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(by_testid(page, "auth-register")).to_have_text("Sign up")


# What a page reads besides its text: choices, tooltips, labels for screen readers.
_PAGE_WORDS = """() => {
  const texts = [document.body.innerText, document.title];
  for (const option of document.querySelectorAll("option")) texts.push(option.textContent || "");
  for (const el of document.querySelectorAll("[title], [aria-label], [placeholder], [alt]")) {
    for (const name of ["title", "aria-label", "placeholder", "alt"]) {
      const value = el.getAttribute(name);
      if (value) texts.push(value);
    }
  }
  return texts.join("\\n");
}"""
_TOKEN = re.compile(r"[^\W\d][\w-]*", re.UNICODE)
_KEY = re.compile(r"\b[a-z][a-zA-Z]*\.[a-z][\w.-]*[a-zA-Z]\b")
# Not English to a Turkish reader: the name, acronyms and the language switch.
_BOTH = {"pis", "yedili", "api", "csv", "sha", "bot", "english", "openskill", "μ", "σ"}


def words_of(text: str) -> set[str]:
    """Its words of two letters or more (a card's rank, A or J, is not a word), none with a digit
    (names of players, commitments)."""
    return {
        token.lower()
        for token in _TOKEN.findall(text)
        if len(token) > 1 and not any(c.isdigit() for c in token)
    }


def english_only_words(page: Page, base: str) -> set[str]:
    """Words of the English strings that no Turkish string has, and the API's own names
    (statuses, formats, rule options and their values, bot strategies)."""
    catalog = page.evaluate(
        "async () => { const m = await import('/app/i18n.js');"
        " return { en: m.strings('en'), tr: m.strings('tr'), missing: m.missingKeys() }; }"
    )
    assert catalog["missing"] == {"en": [], "tr": []}, catalog["missing"]
    english = set().union(*(words_of(v) for v in catalog["en"].values()))
    turkish = set().union(*(words_of(v) for v in catalog["tr"].values()))
    names = {"waiting", "active", "finished", "cancelled", "draft", "running"}
    names |= {"round_robin", "swiss", "duplicate"}
    for option in http.get(f"{base}/api/v1/rules").json():
        names.add(option["name"])
        names |= {c for c in option.get("choices") or [] if isinstance(c, str)}
    names |= {bot["strategy"] for bot in http.get(f"{base}/api/v1/bots").json()}
    return (english - turkish - _BOTH) | {name.lower() for name in names}


def test_every_page_in_turkish_has_no_english_left(web_client: str, pages: Any, site: Site) -> None:
    problems: list[str] = []
    forbidden: set[str] = set()

    def check(page: Page, name: str) -> None:
        expect(page.locator("html")).to_have_attribute("lang", "tr")
        if not forbidden:
            forbidden.update(english_only_words(page, web_client))
        text = page.evaluate(_PAGE_WORDS)
        keys = sorted(set(_KEY.findall(text)))
        english = sorted(words_of(text) & forbidden)
        if keys or english:
            problems.append(f"{name}: keys {keys}, English {english}")
        pages.shot(page, f"{name}-tr")

    visited = 0
    for width in WIDTHS.values():
        visited += visit_every_page(web_client, pages, site, width, check, locale="tr-TR")
    assert visited >= 2 * 7
    assert not problems, "\n".join(problems)


def test_a_page_that_cannot_be_shown_says_why_and_leads_back(
    web_client: str, pages: Any, site: Site
) -> None:
    """An unknown match or a deal never played: the page says why it is empty (not a banner
    that goes, then a blank page) and leads back to the lobby, where a finished match of the
    player's offers its result (not "Watch")."""
    page = pages.new(WIDTHS["phone"], 800)
    sign_in(page, web_client, site.person, route=f"#/match/{uuid.uuid4()}")
    failed = by_testid(page, "view-failed")
    expect(failed).to_contain_text("No such match.")
    page.wait_for_timeout(9000)  # longer than the banner stays
    expect(failed).to_be_visible()
    finished = next(route for name, route, _ in site.views if name == "match-result")
    match_id = finished.rsplit("/", 1)[1]
    page.goto(f"{web_client}/#/replay/{match_id}/9")
    expect(failed).to_be_visible()
    failed.get_by_role("link").click()
    expect(page).to_have_url(f"{web_client}/#/lobby")
    row = by_testid(page, "my-match").and_(page.locator(f'[data-match-id="{match_id}"]'))
    expect(row.locator('[data-testid="watch-link"]')).to_have_text("Result")


@pytest.mark.parametrize("watching", [False, True], ids=["playing", "watching"])
def test_signing_out_at_a_table_asks_the_server_nothing_more(
    web_client: str, pages: Any, watching: bool
) -> None:
    """Signed out from a match's page, playing or watching: the page's stream, which the server
    ends with the token, is not followed by a read the server must refuse."""
    player = Person(web_client)
    person = Person(web_client) if watching else player
    match_id = player.create(2, ["greedy"])
    page = pages.new(375, 800)
    refused: list[str] = []
    page.on(
        "response", lambda r: refused.append(f"{r.status} {r.url}") if r.status >= 400 else None
    )
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
    by_testid(page, "auth-logout").click()
    by_testid(page, "auth-register").wait_for()
    page.wait_for_timeout(1500)
    assert refused == []
    assert not pages.console, pages.console
