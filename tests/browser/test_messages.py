"""Honest messages: the server's message, once; a refused sign-in shows the server's words and
offers to sign up with the same name and password; offline, the banner stays until the
connection is back and the table's badge says "reconnecting" meanwhile."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.httpclient import http

from .harness import PASSWORD, Person, by_testid, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def refusal(base: str, path: str, body: dict[str, str], lang: str = "en") -> dict[str, Any]:
    """The server's own refusal of `body`, as another client reads it."""
    answer = http.post(f"{base}/api/v1{path}", json=body, headers={"Accept-Language": lang})
    assert answer.status_code in (400, 401), answer.text
    return dict(answer.json())


def test_a_refused_password_shows_each_reason_once(web_client: str, pages: Any) -> None:
    said = refusal(
        web_client, "/auth/register", {"username": f"pw{uuid.uuid4().hex[:8]}", "password": "abc"}
    )
    reasons = said["detail"]["password"]
    assert said["message"] == reasons[0] and len(reasons) >= 2, said
    page = pages.new()
    page.goto(f"{web_client}/#/login")
    by_testid(page, "auth-username").fill(f"pw{uuid.uuid4().hex[:8]}")
    by_testid(page, "auth-password").fill("abc")
    by_testid(page, "auth-register").click()
    banner = by_testid(page, "error-banner")
    expect(banner).to_be_visible()
    expect(banner).to_have_attribute("data-code", "invalid")
    text = banner.inner_text()
    for reason in reasons:
        assert text.count(reason) == 1, text
    pages.shot(page, "refused-password")


def test_a_refused_field_is_named_as_its_form_names_it_and_each_reason_said_once(
    web_client: str, pages: Any
) -> None:
    name = f"bad name {uuid.uuid4().hex[:6]}!!"
    said = refusal(web_client, "/auth/register", {"username": name, "password": PASSWORD}, "tr")
    reasons = list(dict.fromkeys(said["detail"]["username"]))
    assert said["message"].startswith("username: "), said  # the API's words name its field
    page = pages.new(375, 800, locale="tr-TR")
    page.goto(f"{web_client}/#/login")
    by_testid(page, "auth-username").fill(name)
    by_testid(page, "auth-password").fill(PASSWORD)
    by_testid(page, "auth-register").click()
    # The form's label, not the API's field name; each reason once.
    expect(by_testid(page, "error-banner")).to_have_text(f"Kullanıcı adı: {' '.join(reasons)}")
    pages.shot(page, "refused-username")


def test_a_wrong_sign_in_says_so_and_offers_to_sign_up(web_client: str, pages: Any) -> None:
    name = f"new{uuid.uuid4().hex[:8]}"
    wrong = refusal(web_client, "/auth/token", {"username": name, "password": PASSWORD})
    assert wrong["message"] == "Wrong username or password.", wrong
    for width in (1280, 375):
        page = pages.new(width)
        page.goto(f"{web_client}/#/login")
        by_testid(page, "auth-username").fill(f"{name}{width}")
        by_testid(page, "auth-password").fill(PASSWORD)
        by_testid(page, "auth-password").press("Enter")
        banner = by_testid(page, "error-banner")
        expect(banner).to_have_text("Wrong username or password.")
        offer = by_testid(page, "auth-offer")
        expect(offer).to_be_visible()
        expect(offer).to_contain_text(f"{name}{width}")
        pages.shot(page, "sign-up-offer")
    # In Turkish, the server's Turkish words.
    by_testid(page, "lang-toggle").click()
    turkish = refusal(web_client, "/auth/token", {"username": name, "password": PASSWORD}, "tr")
    by_testid(page, "auth-username").fill(name)
    by_testid(page, "auth-password").fill(PASSWORD)
    by_testid(page, "auth-password").press("Enter")
    expect(by_testid(page, "error-banner")).to_have_text(turkish["message"])
    assert turkish["message"] != wrong["message"]
    # The offer signs up with the name and password given.
    by_testid(page, "auth-offer-register").click()
    by_testid(page, "whoami").filter(has_text=name).wait_for()
    again = refusal(web_client, "/auth/register", {"username": name, "password": PASSWORD})
    assert again["code"] == "invalid", again


def test_offline_the_banner_stays_and_the_badge_says_reconnecting(
    web_client: str, pages: Any
) -> None:
    ana = Person(web_client)
    match_id = ana.create(2, ["random"])
    for width in (1280, 375):
        page = pages.new(width)
        sockets: list[Any] = []
        page.on("websocket", lambda socket, opened=sockets: opened.append(socket))
        sign_in(page, web_client, ana, route=f"#/match/{match_id}")
        badge = by_testid(page, "connection-status")
        banner = by_testid(page, "error-banner")
        expect(badge).to_have_attribute("data-state", "live")
        expect(banner).to_be_hidden()
        assert sockets and not sockets[-1].is_closed()  # the table's moves go on its socket
        page.context.set_offline(True)
        expect(badge).to_have_attribute("data-state", "reconnecting")
        # The socket is closed at once: a move is never sent into a connection that is gone.
        if not sockets[-1].is_closed():
            sockets[-1].wait_for_event("close", timeout=5_000)
        expect(badge).to_have_text("reconnecting…")
        expect(banner).to_be_visible()
        expect(banner).to_have_attribute("data-code", "network")
        # A move tried offline fails on the network: still the one banner, kept.
        legal = by_testid(page, "hand").locator('[data-testid="card"][data-legal="true"]')
        if legal.count():
            legal.first.click()
        page.wait_for_timeout(9000)  # longer than a message's 8 s
        expect(banner).to_be_visible()
        expect(banner).to_have_attribute("data-code", "network")
        expect(badge).to_have_attribute("data-state", "reconnecting")
        pages.shot(page, "offline")
        # Back online, the table connects again at once, not at the end of a back-off.
        with page.expect_websocket(timeout=5_000):
            page.context.set_offline(False)
        expect(banner).to_be_hidden(timeout=20_000)
        expect(badge).to_have_attribute("data-state", "live", timeout=30_000)
        expect(badge).to_have_text("live")
    assert ana.state(match_id)["status"] == "active"
