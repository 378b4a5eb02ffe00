"""Notifications on the account page in Chromium, by clicks only, in English and in Turkish:
the page says whether this device is told, and the button asks the browser's permission,
registers the service worker (/sw.js, the whole site its scope) and subscribes to Web Push.
Where the browser can subscribe, the server keeps the subscription and the page says
notifications are on, and a second click turns them off; where it cannot (Playwright's
contexts are incognito ones, where Chromium offers no Push API; a machine without its push
service), the page says why in the page's language and the server keeps nothing."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.httpclient import http

from .harness import PASSWORD, Person, by_testid, sign_up

# The headless shell keeps the notification permission "denied" whatever is granted.
pytestmark = [pytest.mark.browser, pytest.mark.full_chromium, pytest.mark.timeout(180)]

LOCALES = {"en": "en-US", "tr": "tr-TR"}
WORDS = {
    "en": {"off": "Notifications are off", "on": "Notifications are on", "failed": "could not"},
    "tr": {"off": "bildirimler kapalı", "on": "bildirimler açık", "failed": "açılamadı"},
}


def _kept(base: str, name: str) -> list[dict[str, Any]]:
    token = http.post(
        f"{base}/api/v1/auth/token", json={"username": name, "password": PASSWORD}
    ).json()["token"]
    headers = {"Authorization": f"Token {token}"}
    return http.get(f"{base}/api/v1/me/push-subscriptions", headers=headers).json()


@pytest.mark.parametrize(("lang", "width"), [("en", 1280), ("tr", 375)])
def test_notifications_are_turned_on_from_the_account_page(
    web_client: str, pages: Any, lang: str, width: int
) -> None:
    assert http.get(f"{web_client}/api/v1/push/vapid-public-key").json()["enabled"]
    name = f"push{lang}{Person(web_client).name[-8:]}"
    page = pages.new(width, locale=LOCALES[lang])
    page.context.grant_permissions(["notifications"], origin=web_client)
    refused: list[str] = []
    page.on("response", lambda r: refused.append(r.url) if r.status >= 400 else None)
    sign_up(page, web_client, name)
    by_testid(page, "whoami").click()
    status = by_testid(page, "push-status")
    expect(status).to_have_attribute("data-state", "off")
    expect(status).to_contain_text(WORDS[lang]["off"], ignore_case=True)
    pages.shot(page, f"notifications-off-{lang}")
    by_testid(page, "push-toggle").click()
    outcome = page.locator(
        '[data-testid="push-status"][data-state="on"], [data-testid="error-banner"]:visible'
    )
    outcome.first.wait_for(timeout=60_000)
    scope = page.evaluate(
        "navigator.serviceWorker.getRegistration('/').then((r) => r ? r.scope : null)"
    )
    assert scope == f"{web_client}/"
    if status.get_attribute("data-state") == "on":
        expect(status).to_contain_text(WORDS[lang]["on"], ignore_case=True)
        assert len(_kept(web_client, name)) == 1
        pages.shot(page, f"notifications-on-{lang}")
        by_testid(page, "push-toggle").click()
        expect(status).to_have_attribute("data-state", "off")
        assert _kept(web_client, name) == []
    else:
        expect(by_testid(page, "error-banner")).to_contain_text(WORDS[lang]["failed"])
        assert _kept(web_client, name) == []
        pages.shot(page, f"notifications-failed-{lang}")
        # Chromium's contexts here are incognito ones, where it offers no Push API: the
        # browser's words, in the page's error banner and on the console, are the one error.
        pages.console[:] = [m for m in pages.console if "push api" not in m.lower()]
    # Nothing was refused (the lobby's quick-play read is a 204 for one who never queued).
    assert refused == []
    assert not pages.console, pages.console
