"""What the web tier's logs never hold: a query string on uvicorn's lines (a stream ticket, in
any spelling a server decodes, or a token a client put there; pisyedili_api.logfilters)."""

from __future__ import annotations

import logging

import pytest

from pisyedili_api.logfilters import NoQueries


@pytest.mark.parametrize(
    "line",
    [
        '127.0.0.1:43080 - "WebSocket /api/v1/me/events?ticket=eyJwIjoi.abc" [accepted]',
        '127.0.0.1:43080 - "WebSocket /api/v1/me/events?%74icket=eyJwIjoi.abc" [accepted]',
        '127.0.0.1:43080 - "WebSocket /api/v1/me/events?TICKET=eyJwIjoi.abc" 403',
        '127.0.0.1:1 - "GET /api/v1/matches/x/events?token=8ee4dc2e07c0e5 HTTP/1.1" 401',
    ],
)
def test_no_query_string_reaches_a_log_line(line: str) -> None:
    record = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1, "%s", (line,), None)
    assert NoQueries().filter(record)
    written = record.getMessage()
    assert "eyJwIjoi" not in written and "8ee4dc2e" not in written, written
    assert "/events?…" in written, written


def test_a_line_without_a_query_is_kept_as_it_is() -> None:
    line = '127.0.0.1:1 - "POST /api/v1/matches HTTP/1.1" 201'
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, line, None, None)
    assert NoQueries().filter(record) and record.getMessage() == line
