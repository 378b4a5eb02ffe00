"""The player search and the account page in Chromium, by clicks and typing only, in English
and in Turkish: a person found by the start of a name in another letter case and without its
accents; the sessions list (each with its device), another session signed out, every other
session signed out at once, the password changed (every other
session signed out, the new password good), signing out from the list; and the account
deleted (a tick, the password, a second click), its match under way resigned."""

from __future__ import annotations

import contextlib
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
    },
    "tr": {
        "changed": "Parola değişti",
        "this": "Bu cihaz",
        "others": "2 başka oturum kapatıldı",
        "none": "kimse yok",
        "wrong": "Parola yanlış.",
        "deleted": "Silinmiş oyuncu",
    },
}


IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15"
    " (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
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
