"""The player search and the account page in Chromium, by clicks and typing only, in English
and in Turkish: a person found by the start of a name in another letter case and without its
accents; the sessions list (each with its device), another session signed out, every other
session signed out at once, the password changed (every other
session signed out, the new password good), signing out from the list; and the account
deleted (a tick, the password, a second click), its match under way resigned."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.httpclient import http

from .harness import PASSWORD, Person, by_testid, sign_in, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

LOCALES = {"en": "en-US", "tr": "tr-TR"}
WORDS = {
    "en": {
        "changed": "Password changed",
        "this": "This device",
        "others": "2 other sessions signed out",
        "none": "Nobody",
        "wrong": "Wrong password.",
        "deleted": "Deleted player",
        "gone": "Your account is deleted",
        "actions": "Actions",
    },
    "tr": {
        "changed": "Parola değişti",
        "this": "Bu cihaz",
        "others": "2 başka oturum kapatıldı",
        "none": "kimse yok",
        "wrong": "Parola yanlış.",
        "deleted": "Silinmiş oyuncu",
        "gone": "Hesabın silindi",
        "actions": "İşlemler",
    },
}


IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15"
    " (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
)

SAMSUNG = (
    "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko)"
    " SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36"
)


def login(base: str, name: str, password: str = PASSWORD, agent: str = "") -> httpx.Response:
    headers = {"User-Agent": agent} if agent else {}
    return http.post(
        f"{base}/api/v1/auth/token", json={"username": name, "password": password}, headers=headers
    )


def me(base: str, token: str) -> int:
    headers = {"Authorization": f"Token {token}"}
    return http.get(f"{base}/api/v1/players/me", headers=headers).status_code


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_find_a_player_by_the_start_of_a_name(web_client: str, pages: Any, lang: str) -> None:
    tag = Person(web_client).name[-6:]
    found = http.post(
        f"{web_client}/api/v1/auth/register",
        json={"username": f"omer{tag}", "password": PASSWORD, "display_name": f"Ömer Şahin {tag}"},
    ).json()
    page = pages.new(375, locale=LOCALES[lang])
    sign_up(page, web_client, f"seeker{tag}")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    by_testid(page, "nav-players").click()
    search = by_testid(page, "player-search-input")
    search.fill("o")
    by_testid(page, "player-search-submit").click()
    by_testid(page, "player-search-short").wait_for()
    search.fill(f"OMER SAHIN {tag}")
    by_testid(page, "player-search-submit").click()
    result = by_testid(page, "player-search-result")
    expect(result).to_have_count(1)
    expect(result).to_have_attribute("data-player", found["id"])
    result.click()
    expect(by_testid(page, "player-card-name")).to_have_text(f"Ömer Şahin {tag}")
    expect(by_testid(page, "player-card-matches")).to_have_text("0")
    search.fill(f"zz{tag}none")
    by_testid(page, "player-search-submit").click()
    expect(by_testid(page, "player-search-none")).to_contain_text(WORDS[lang]["none"])
    pages.shot(page, f"players-{lang}")
    assert not pages.console, pages.console


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_sessions_and_the_password_on_the_account_page(
    web_client: str, pages: Any, lang: str
) -> None:
    name = f"acct{lang}{Person(web_client).name[-8:]}"
    page = pages.new(1280, locale=LOCALES[lang])
    sign_up(page, web_client, name)
    phone = login(web_client, name, agent=IPHONE).json()["token"]  # a second device
    by_testid(page, "whoami").click()
    rows = by_testid(page, "session-row")
    expect(rows).to_have_count(2)
    current = page.locator('[data-testid="session-row"][data-current="true"]')
    other = page.locator('[data-testid="session-row"][data-current="false"]')
    expect(current.locator('[data-testid="session-current"]')).to_have_text(WORDS[lang]["this"])
    # Each session names its device, read from its login's User-Agent.
    expect(current.locator('[data-testid="session-device"]')).to_contain_text("Chrome · Linux")
    expect(other.locator('[data-testid="session-device"]')).to_have_text("Mobile Safari · iOS")
    # The other device signed out from here.
    other.locator('[data-testid="session-revoke"]').click()
    expect(rows).to_have_count(1)
    assert me(web_client, phone) == 401
    expect(by_testid(page, "sessions-revoke-others")).to_be_hidden()  # no other to sign out
    # Two more devices, then every other session signed out at once; this one stays.
    others = [login(web_client, name).json()["token"] for _ in range(2)]
    page.reload()
    expect(rows).to_have_count(3)
    by_testid(page, "sessions-revoke-others").click()
    expect(by_testid(page, "account-notice")).to_contain_text(WORDS[lang]["others"])
    expect(rows).to_have_count(1)
    expect(by_testid(page, "sessions-revoke-others")).to_be_hidden()
    assert [me(web_client, token) for token in others] == [401, 401]
    # A third device, then the password changed: that device is signed out, this one stays.
    tablet = login(web_client, name).json()["token"]
    by_testid(page, "account-old-password").fill(PASSWORD)
    by_testid(page, "account-new-password").fill("n3w-s3cret-pass")
    by_testid(page, "account-new-again").fill("n3w-s3cret-pass")
    by_testid(page, "account-password-submit").click()
    expect(by_testid(page, "account-notice")).to_contain_text(WORDS[lang]["changed"])
    expect(rows).to_have_count(1)
    assert me(web_client, tablet) == 401
    assert login(web_client, name).status_code == 401
    assert login(web_client, name, "n3w-s3cret-pass").status_code == 200
    # A refusal shows the server's words and changes nothing.
    by_testid(page, "account-old-password").fill("not-my-password")
    by_testid(page, "account-new-password").fill("an0ther-s3cret")
    by_testid(page, "account-new-again").fill("an0ther-s3cret")
    by_testid(page, "account-password-submit").click()
    expect(by_testid(page, "error-banner")).to_be_visible()
    assert login(web_client, name, "n3w-s3cret-pass").status_code == 200
    pages.shot(page, f"account-{lang}")
    # Signing out from the list: this device's session, back to the sign-in page.
    current.locator('[data-testid="session-revoke"]').click()
    by_testid(page, "auth-username").wait_for()
    # The refused change (400) is the only failed request the console may tell.
    assert not [m for m in pages.console if "status of 400" not in m], pages.console


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_deleting_the_account_from_the_account_page(web_client: str, pages: Any, lang: str) -> None:
    name = f"gone{lang}{Person(web_client).name[-8:]}"
    page = pages.new(375, locale=LOCALES[lang])
    sign_up(page, web_client, name)
    # A match under way, from another device: resigned by the deletion.
    key = login(web_client, name).json()["token"]
    headers = {"Authorization": f"Token {key}"}
    body = {"seats": 2, "bots": ["greedy"], "deals": 2}
    match = http.post(f"{web_client}/api/v1/matches", json=body, headers=headers).json()
    by_testid(page, "whoami").click()
    # Without the tick: refused, nothing happens.
    by_testid(page, "account-delete-password").fill(PASSWORD)
    by_testid(page, "account-delete-submit").click()
    expect(by_testid(page, "error-banner")).to_be_visible()
    expect(by_testid(page, "account-delete-confirm")).to_be_hidden()
    # A wrong password: the server refuses, nothing is deleted.
    by_testid(page, "account-delete-password").fill("not-my-password")
    by_testid(page, "account-delete-understood").click()
    by_testid(page, "account-delete-submit").click()
    by_testid(page, "account-delete-confirm-button").click()
    expect(by_testid(page, "error-banner")).to_contain_text(WORDS[lang]["wrong"])
    assert me(web_client, key) == 200
    # The confirmation gone with its button, focus is on the refused password, which says why.
    password = by_testid(page, "account-delete-password")
    expect(password).to_be_focused()
    expect(password).to_have_attribute("aria-invalid", "true")
    expect(password).to_have_accessible_description(re.compile(re.escape(WORDS[lang]["wrong"])))
    pages.shot(page, f"delete-refused-{lang}")
    # Changing one's mind, then deleting.
    by_testid(page, "account-delete-password").fill(PASSWORD)
    by_testid(page, "account-delete-submit").click()
    by_testid(page, "account-delete-cancel").click()
    expect(by_testid(page, "account-delete-confirm")).to_be_hidden()
    assert me(web_client, key) == 200
    by_testid(page, "account-delete-submit").click()
    pages.shot(page, f"delete-{lang}")
    by_testid(page, "account-delete-confirm-button").click()
    by_testid(page, "auth-username").wait_for()
    # The sign-in page says the account is gone.
    expect(by_testid(page, "error-banner")).to_contain_text(WORDS[lang]["gone"])
    expect(by_testid(page, "whoami")).not_to_contain_text(name)
    pages.shot(page, f"deleted-{lang}")
    assert me(web_client, key) == 401
    assert login(web_client, name).status_code == 401
    played = http.get(f"{web_client}/api/v1/matches/{match['id']}").json()
    assert played["status"] == "abandoned"
    assert played["seats"][0]["player"]["display_name"] == "Deleted player"
    # The match page names the seat in the page's language.
    page.goto(f"{web_client}/#/match/{match['id']}")
    expect(page.get_by_text(WORDS[lang]["deleted"]).first).to_be_visible()
    assert not [m for m in pages.console if "status of 400" not in m], pages.console


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_a_session_ended_elsewhere_signs_the_page_out_and_says_why(
    web_client: str, pages: Any, lang: str
) -> None:
    """The page's token revoked from another device: the page's next request is refused, and
    the page goes to the sign-in page, signed out, saying so (not "Invalid token" on a page
    that still shows the player signed in)."""
    person = Person(web_client)
    page = pages.new(375, 800, locale=LOCALES[lang])
    sign_in(page, web_client, person)
    # A page that asks only when asked (the lobby's own reads could meet the refusal first).
    page.goto(f"{web_client}/#/leaderboards")
    expect(by_testid(page, "board-body")).not_to_have_attribute("aria-busy", "true")
    person.post("/api/v1/auth/logout", status=204)
    # The page asks with the token, unless a read of its own met the refusal first and it left.
    with contextlib.suppress(PlaywrightError):
        by_testid(page, "board-metric").select_option("wins", timeout=5000)
    expect(page).to_have_url(f"{web_client}/#/login")
    banner = by_testid(page, "error-banner")
    expect(banner).to_contain_text(
        {"en": "signed out on this device", "tr": "oturumun kapatıldı"}[lang]
    )
    expect(by_testid(page, "whoami")).not_to_contain_text(person.name)
    assert page.evaluate("localStorage.getItem('pisyedili.token')") is None
    pages.shot(page, f"signed-out-elsewhere-{lang}")

    # A page opened later with the same token: its first question (who am I) is refused.
    later = pages.new(375, 800, locale=LOCALES[lang])
    later.goto(f"{web_client}/")
    later.evaluate(
        "([token, user]) => { localStorage.setItem('pisyedili.token', token);"
        " localStorage.setItem('pisyedili.user', user); }",
        [person.token, person.name],
    )
    later.goto(f"{web_client}/#/lobby")
    expect(later).to_have_url(f"{web_client}/#/login")
    expect(by_testid(later, "error-banner")).to_contain_text(
        {"en": "signed out on this device", "tr": "oturumun kapatıldı"}[lang]
    )


@pytest.mark.parametrize("where", ["table", "leaderboards"])
def test_a_session_ended_elsewhere_signs_an_idle_page_out_at_once(
    web_client: str, pages: Any, where: str
) -> None:
    """The token revoked from another device while the page waits, asking nothing (an open
    table, the leaderboards): its stream is closed as `revoked`, and the page signs out on that
    at once, saying why, and forgets the digests of the hands it was dealt, as a sign-out does
    (not a table left "live" showing the hand, or a page that still names the player)."""
    person = Person(web_client)
    match_id = person.create(2, ["random"])
    page = pages.new(375, 800)
    route = f"#/match/{match_id}" if where == "table" else "#/leaderboards"
    sign_in(page, web_client, person, route=route)
    if where == "table":
        expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "live")
        records = "Object.keys(localStorage).filter(k => k.startsWith('pisyedili.deal.')).length"
        assert page.wait_for_function(records).json_value() == 1
    else:
        expect(by_testid(page, "board-body")).not_to_have_attribute("aria-busy", "true")
    person.post("/api/v1/auth/logout", status=204)
    expect(page).to_have_url(f"{web_client}/#/login", timeout=5000)
    expect(by_testid(page, "error-banner")).to_contain_text("signed out on this device")
    expect(by_testid(page, "whoami")).not_to_contain_text(person.name)
    keys = page.evaluate("Object.keys(localStorage)")
    assert not [k for k in keys if k.startswith("pisyedili.deal.") or k == "pisyedili.token"]


@pytest.mark.parametrize(
    ("locale", "written"),
    [
        ("en-GB", r"^\d{2}/\d{2}/\d{4}, \d{2}:\d{2}$"),  # 07/12/2026, 20:34
        ("en-US", r"^\d{1,2}/\d{1,2}/\d{2}, \d{1,2}:\d{2}\s[AP]M$"),  # 12/7/26, 8:34 PM
        ("tr-TR", r"^\d{1,2}\.\d{1,2}\.\d{4} \d{2}:\d{2}$"),  # 7.12.2026 20:34
    ],
)
def test_dates_are_written_as_the_browsers_region_writes_them(
    web_client: str, pages: Any, locale: str, written: str
) -> None:
    """A date (here a session's on the account page) in the page's language as the browser's
    region writes it: day first for a British reader, month first for an American one."""
    person = Person(web_client)
    page = pages.new(1280, 800, locale=locale)
    sign_in(page, web_client, person, route="#/account")
    row = by_testid(page, "session-row").first
    expect(row).to_be_visible()
    created = row.locator("td").nth(1).inner_text().strip()
    assert re.match(written, created), (locale, created)


def test_the_sign_in_page_of_a_signed_in_browser_leads_to_the_lobby(
    web_client: str, pages: Any
) -> None:
    """Back to the sign-in page after signing in (or its address typed): the lobby, not a form
    on which another person would sign in over this session."""
    person = Person(web_client)
    page = pages.new()
    sign_in(page, web_client, person)
    page.goto(f"{web_client}/#/login")
    expect(page).to_have_url(f"{web_client}/#/lobby")
    expect(by_testid(page, "auth-username")).to_have_count(0)
    expect(by_testid(page, "whoami")).to_contain_text(person.name)


@pytest.mark.parametrize(("lang", "width"), [("en", 1280), ("tr", 375)])
def test_the_display_name_is_changed_on_the_account_page(
    web_client: str, pages: Any, lang: str, width: int
) -> None:
    """The page offers the name others see, filled in; a blank one is refused with the field's
    label and changes nothing; a new one is kept and shown at the player's table."""
    person = Person(web_client)
    match_id = person.create(2, ["greedy"])
    page = pages.new(width, 900, locale=LOCALES[lang])
    sign_in(page, web_client, person, route="#/account")
    name = by_testid(page, "account-display-name")
    expect(name).to_have_value(person.name)
    name.fill("   ")
    by_testid(page, "account-name-submit").click()
    banner = by_testid(page, "error-banner")
    expect(banner).to_contain_text({"en": "Display name:", "tr": "Görünen ad:"}[lang])
    assert person.get("/api/v1/players/me")["display_name"] == person.name
    name.fill("Ayşe Ö.")
    by_testid(page, "account-name-submit").click()
    expect(by_testid(page, "account-notice")).to_contain_text(
        {"en": "Your name is changed", "tr": "Adın değiştirildi"}[lang]
    )
    expect(banner).to_be_hidden()
    assert person.get("/api/v1/players/me")["display_name"] == "Ayşe Ö."
    pages.shot(page, f"display-name-{lang}")
    page.goto(f"{web_client}/#/match/{match_id}")
    expect(by_testid(page, "seat-0")).to_contain_text("Ayşe Ö.")


# A tab that does not hear another tab's change of localStorage (a `storage` event lost, as in a
# tab the browser froze): what it finds out is found out before it acts.
DEAF_TO_STORAGE = (
    "window.addEventListener('storage', (event) => event.stopImmediatePropagation(), true);"
)
OTHER_TAB_WORDS = {"en": "in another tab", "tr": "Başka bir sekmede"}
RAW_401 = "Authentication credentials were not provided"


def sign_in_by_form(page: Any, base: str, name: str) -> None:
    page.goto(f"{base}/#/login")
    by_testid(page, "auth-username").fill(name)
    by_testid(page, "auth-password").fill(PASSWORD)
    by_testid(page, "auth-login").click()
    expect(page).to_have_url(f"{base}/#/lobby")


def display_name(base: str, person: Person) -> str:
    """The person's display name, read with a session of its own."""
    token = login(base, person.name).json()["token"]
    headers = {"Authorization": f"Token {token}"}
    return str(http.get(f"{base}/api/v1/players/me", headers=headers).json()["display_name"])


@pytest.mark.parametrize("deaf", [False, True], ids=["told", "deaf"])
def test_a_tab_follows_another_account_signed_in_in_another_tab(
    web_client: str, pages: Any, deaf: bool
) -> None:
    """Two tabs of one browser: the first signs out and signs in as someone else. The second,
    on the account page, shows the new account (told by the `storage` event, or, where the
    event was lost, before its next request goes out) and never acts for it as the old one."""
    first, second = Person(web_client), Person(web_client)
    login(web_client, first.name)  # other sessions of each, for "sign out every other"
    spare = login(web_client, second.name).json()["token"]
    tab1 = pages.new(1280)
    sign_in(tab1, web_client, first)
    tab2 = tab1.context.new_page()
    if deaf:
        tab2.add_init_script(DEAF_TO_STORAGE)
    tab2.goto(f"{web_client}/#/account")
    expect(by_testid(tab2, "whoami")).to_have_text(first.name)
    expect(by_testid(tab2, "account-display-name")).to_have_value(first.name)
    expect(by_testid(tab2, "sessions-revoke-others")).to_be_visible()

    by_testid(tab1, "auth-logout").click()
    by_testid(tab1, "auth-username").wait_for()
    sign_in_by_form(tab1, web_client, second.name)

    if deaf:
        # Still drawn for the first account: its actions are not sent as the second.
        expect(by_testid(tab2, "whoami")).to_have_text(first.name)
        by_testid(tab2, "account-display-name").fill("Stale tab")
        by_testid(tab2, "account-name-submit").click()
    # The page is the second account's now: told, it went to the sign-in page on the sign-out,
    # then to the lobby on the sign-in; deaf, it is the account page, drawn again.
    expect(by_testid(tab2, "whoami")).to_have_text(second.name)
    expect(by_testid(tab2, "error-banner")).to_contain_text(f"Signed in as {second.name}")
    if not deaf:
        expect(tab2).to_have_url(f"{web_client}/#/lobby")
        by_testid(tab2, "whoami").click()
    expect(tab2).to_have_url(f"{web_client}/#/account")
    expect(by_testid(tab2, "account-display-name")).to_have_value(second.name)
    assert display_name(web_client, second) == second.name
    assert display_name(web_client, first) == first.name
    # What it does now, it does as the account it shows.
    by_testid(tab2, "sessions-revoke-others").click()
    expect(by_testid(tab2, "account-notice")).to_be_visible()
    assert me(web_client, spare) == 401
    expect(by_testid(tab1, "whoami")).to_have_text(second.name)  # this tab's session stays
    assert me(web_client, tab1.evaluate("localStorage.getItem('pisyedili.token')")) == 200
    assert RAW_401 not in (by_testid(tab2, "error-banner").text_content() or "")


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_a_tab_signed_out_in_another_tab_goes_to_the_sign_in_page(
    web_client: str, pages: Any, lang: str
) -> None:
    """Two tabs of one browser on the account page; the first signs out. The second, told by
    the `storage` event, opens the sign-in page saying why; a third that did not hear of it
    does so on its next click, not with the server's raw refusal under the old name."""
    person = Person(web_client)
    tab1 = pages.new(1280, locale=LOCALES[lang])
    sign_in(tab1, web_client, person, route="#/account")
    tab2 = tab1.context.new_page()
    tab2.goto(f"{web_client}/#/account")
    tab3 = tab1.context.new_page()
    tab3.add_init_script(DEAF_TO_STORAGE)
    tab3.goto(f"{web_client}/#/account")
    for tab in (tab2, tab3):
        expect(by_testid(tab, "account-display-name")).to_have_value(person.name)

    by_testid(tab1, "auth-logout").click()
    by_testid(tab1, "auth-username").wait_for()

    expect(tab2).to_have_url(f"{web_client}/#/login")
    expect(by_testid(tab2, "error-banner")).to_contain_text(OTHER_TAB_WORDS[lang])
    expect(by_testid(tab2, "whoami")).not_to_contain_text(person.name)
    pages.shot(tab2, f"signed-out-in-another-tab-{lang}")

    expect(by_testid(tab3, "whoami")).to_have_text(person.name)  # it did not hear
    by_testid(tab3, "account-name-submit").click()
    expect(tab3).to_have_url(f"{web_client}/#/login")
    expect(by_testid(tab3, "error-banner")).to_contain_text(OTHER_TAB_WORDS[lang])
    expect(by_testid(tab3, "error-banner")).not_to_contain_text(RAW_401)
    expect(by_testid(tab3, "whoami")).not_to_contain_text(person.name)


def test_the_header_names_the_account_not_the_letters_typed(web_client: str, pages: Any) -> None:
    """Signed in with the username in other letter case: the header shows the account's own."""
    person = Person(web_client)
    page = pages.new(1280)
    sign_in_by_form(page, web_client, person.name.upper())
    expect(by_testid(page, "whoami")).to_have_text(person.name)
    page.reload()
    expect(by_testid(page, "whoami")).to_have_text(person.name)


@pytest.mark.parametrize(("lang", "width"), [("en", 375), ("tr", 375), ("en", 1280), ("tr", 1280)])
def test_the_sessions_fit_a_phone_and_name_every_column(
    web_client: str, pages: Any, lang: str, width: int
) -> None:
    """The sessions table on a phone and a desktop, in English and Turkish: nothing wider than
    the screen, each sign-out button whole in view, and the buttons' column named for screen
    readers."""
    person = Person(web_client)
    login(web_client, person.name, agent=IPHONE)
    login(web_client, person.name, agent=SAMSUNG)
    page = pages.new(width, 900, locale=LOCALES[lang])
    sign_in_by_form(page, web_client, person.name)  # this device: "HeadlessChrome · Linux"
    by_testid(page, "whoami").click()
    expect(by_testid(page, "session-row")).to_have_count(4)
    expect(page.get_by_role("columnheader")).to_have_count(4)
    expect(page.get_by_role("columnheader").last).to_have_accessible_name(WORDS[lang]["actions"])
    widths = page.evaluate(
        """() => {
          const table = document.querySelector('.account-page table.sessions');
          const box = table.parentElement;
          const whole = document.documentElement;
          return { page: whole.scrollWidth, view: whole.clientWidth,
                   box: box.scrollWidth, boxView: box.clientWidth,
                   right: box.getBoundingClientRect().right };
        }"""
    )
    assert widths["page"] <= widths["view"], widths
    assert widths["box"] <= widths["boxView"], widths
    for button in by_testid(page, "session-revoke").all():
        shape = button.bounding_box()
        assert shape is not None
        assert shape["x"] >= 0 and shape["x"] + shape["width"] <= widths["right"] + 0.5, shape
    pages.shot(page, f"sessions-{lang}")


def _push_keys() -> dict[str, str]:
    """A browser's push subscription keys: a P-256 public key (65 bytes) and a 16-byte secret."""
    import base64
    import os

    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    )

    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    return {"p256dh": b64(point), "auth": b64(os.urandom(16))}


def test_signing_out_forgets_this_devices_push_subscription(web_client: str, pages: Any) -> None:
    """This browser's push subscription (the server's id of it, which the page keeps once
    notifications are on) is deleted on the server when the player signs out: the next person
    to use the browser is not told the previous one's turns. Another device's (registered by
    its own session) stays."""
    person = Person(web_client)
    other_device = login(web_client, person.name).json()["token"]
    rows = [
        http.post(
            f"{web_client}/api/v1/me/push-subscriptions",
            json={"endpoint": f"https://8.8.8.8/push/{device}", "keys": _push_keys()},
            headers={"Authorization": f"Token {token}"},
        ).json()
        for device, token in (("this", person.token), ("other", other_device))
    ]
    assert all("id" in row for row in rows), rows
    page = pages.new(375, 800)
    refused: list[str] = []
    page.on(
        "response", lambda r: refused.append(f"{r.status} {r.url}") if r.status >= 400 else None
    )
    sign_in(page, web_client, person, route="#/players")
    by_testid(page, "player-search-input").wait_for()
    page.evaluate("row => localStorage.setItem('pisyedili.push', JSON.stringify(row))", rows[0])
    by_testid(page, "auth-logout").click()
    by_testid(page, "auth-register").wait_for()
    token = login(web_client, person.name).json()["token"]
    kept = http.get(
        f"{web_client}/api/v1/me/push-subscriptions", headers={"Authorization": f"Token {token}"}
    ).json()
    assert [row["endpoint"] for row in kept] == [rows[1]["endpoint"]]
    assert page.evaluate("localStorage.getItem('pisyedili.push')") is None
    assert refused == []
    assert not pages.console, pages.console
