"""The API docs pages (Swagger UI, ReDoc) ask no other host for anything (docs/api.md "Schema
and docs"): every request that leaves the browser goes to the server that serves the page, and
the page logs no error to the console. The sidecar's ReDoc bundle draws Redocly's logo from
cdn.redoc.ly: the page gives that image no address (ReDoc then leaves it out), and its
Content-Security-Policy would keep the request in the browser anyway."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from .harness import Server

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


@pytest.mark.parametrize(
    ("page_path", "drawn"),
    [
        ("/api/v1/docs/", ".opblock"),  # an operation of Swagger UI
        ("/api/v1/docs/redoc/", "[role=menuitem]"),  # an entry of ReDoc's sidebar
    ],
)
def test_docs_page_sends_no_request_to_another_host_and_logs_no_error(
    browser: Any, server: Server, page_path: str, drawn: str
) -> None:
    context = browser.new_context()
    sent: list[str] = []  # what reached the network (a request the CSP refuses never does)
    # What the console says is an error: a request the CSP refuses, an uncaught exception.
    errors: list[str] = []

    def note(route: Any) -> None:
        sent.append(route.request.url)
        route.continue_()

    try:
        context.route("**/*", note)
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.base + page_path)
        page.locator(drawn).first.wait_for(timeout=30_000)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(1_000)  # the sidebar's footer (ReDoc's logo) comes after the menu
    finally:
        context.close()
    origin = urlsplit(server.base)[:2]
    elsewhere = [url for url in sent if urlsplit(url)[:2] != origin]
    assert sent, "the page sent nothing"
    assert elsewhere == [], f"{page_path} asked other hosts: {elsewhere}"
    assert errors == [], f"{page_path} logged errors: {errors}"
