"""What live.asgi itself sends for a stream, on a real uvicorn process: the headers
Django's middleware put on the response (CORS, cache) and anything but GET refused as JSON.
(test_streams.py: a stream the client leaves gives its slot back.)"""

from __future__ import annotations

from typing import Any

import pytest

from tests.httpclient import http

from .test_streams import Player

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]


def test_stream_headers_come_from_the_middleware(live: Any) -> None:
    base = live.bases[0]
    a = Player(base)
    with http.stream(
        "GET",
        f"{base}/api/v1/me/events",
        headers={**a.headers, "Origin": "https://app.example"},
        timeout=20,
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/event-stream"
        assert response.headers["access-control-allow-origin"] == "*"
        assert "no-store" in response.headers["cache-control"]
        assert response.headers["x-accel-buffering"] == "no"
        assert next(response.iter_lines()) == "retry: 2000"


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
def test_anything_but_get_is_405_json(live: Any, method: str) -> None:
    base = live.bases[1]
    a = Player(base)
    for path in (
        "/api/v1/me/events",
        "/api/v1/matches/00000000-0000-0000-0000-000000000000/events",
    ):
        response = http.request(method, f"{base}{path}", headers=a.headers, timeout=20)
        assert response.status_code == 405, (path, response.text)
        assert response.headers["allow"] == "GET"
        assert response.json()["code"] == "method_not_allowed"
