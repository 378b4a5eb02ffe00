"""A page served from another origin uses the API through CORS: it registers, creates a match
against a bot, plays a move and receives the match's event on an EventSource (stream ticket)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.httpclient import http

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def other_origin() -> Iterator[str]:
    """A tiny static server of this folder on a free port: another origin than the API's."""
    handler = functools.partial(_Quiet, directory=str(Path(__file__).parent))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_page_on_another_origin_registers_moves_and_gets_its_event(
    server: Any, pages: Any, other_origin: str
) -> None:
    assert other_origin != server.base
    page = pages.new()
    allowed: dict[str, str | None] = {}
    page.on(
        "response",
        lambda r: allowed.setdefault(r.url, r.headers.get("access-control-allow-origin"))
        if r.url.startswith(server.base) else None,
    )  # fmt: skip
    page.goto(f"{other_origin}/cross_origin.html?api={server.base}")
    result = page.evaluate("window.result")

    assert result["origin"] == other_origin
    assert result["statuses"] == [201, 201, 200, 200], result
    # Header tokens, never cookies: any origin by default, on every answer the page read.
    assert len(allowed) >= 5 and set(allowed.values()) == {"*"}, allowed
    # The move, then its event on the stream: a newer version, the seat's own view.
    turn, after = result["turnEvent"], result["afterEvent"]
    assert int(turn["id"]) == turn["version"]
    assert int(after["id"]) == after["version"] > turn["version"]
    assert result["moveVersion"] > turn["version"]
    assert after["you"] == 0 and len(after["hand"]) == after["handCount"]
    # What the server holds agrees with what the page was told.
    match = http.get(f"{server.base}/api/v1/matches/{result['match']}").json()
    assert match["version"] >= after["version"]
    assert match["seats"][0]["player"]["display_name"] == result["username"]
    blocked = [line for line in pages.console if "CORS" in line]
    assert not blocked, blocked
    pages.shot(page, "page")
