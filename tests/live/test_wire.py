"""Bytes on the wire through a real uvicorn process of live.asgi: whole JSON answers
compressed as Accept-Encoding asks, a waiting long-poll's answer too (its second call);
ETag and 304; event streams and WebSockets never compressed, whatever the client offers."""

from __future__ import annotations

import gzip
from typing import Any

import brotli
import httpx
import pytest
from websockets.sync.client import connect

from tests.httpclient import http

from .conftest import Servers
from .test_streams import Player

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]


def raw_get(url: str, headers: dict[str, str]) -> tuple[httpx.Response, bytes]:
    """The answer and its body as sent (not decoded)."""
    with http.stream("GET", url, headers=headers, timeout=30) as response:
        return response, b"".join(response.iter_raw())


def test_json_is_compressed_and_answers_304_under_uvicorn(live: Any) -> None:
    base = live.bases[0]
    plain, plain_body = raw_get(f"{base}/api/v1/rules", {"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert len(plain_body) > 1024
    for encoding, decompress in (("br", brotli.decompress), ("gzip", gzip.decompress)):
        response, body = raw_get(
            f"{base}/api/v1/rules", {"Accept-Encoding": f"{encoding}, identity;q=0.1"}
        )
        assert response.headers["content-encoding"] == encoding
        assert "accept-encoding" in response.headers["vary"].lower()
        assert decompress(body) == plain_body and len(body) < len(plain_body) / 2
        again, empty = raw_get(
            f"{base}/api/v1/rules",
            {"Accept-Encoding": encoding, "If-None-Match": response.headers["etag"]},
        )
        assert again.status_code == 304 and empty == b""


def test_event_streams_are_never_compressed(live: Any) -> None:
    base = live.bases[1]
    player = Player(base)
    for path in ("/api/v1/me/events", "/api/v1/lobby/events"):
        headers = {**player.headers, "Accept-Encoding": "br, gzip, deflate"}
        with http.stream("GET", f"{base}{path}", headers=headers, timeout=20) as response:
            assert response.status_code == 200
            assert response.headers["content-type"] == "text/event-stream"
            assert "content-encoding" not in response.headers
            assert "etag" not in response.headers
            first = next(response.iter_raw())
            assert first.startswith(b"retry: 2000"), first


@pytest.fixture(scope="module")
def low_threshold(live_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One more web process, compressing answers over 200 bytes: a seat's view is smaller
    than 1 KB."""
    servers = Servers({**live_env, "COMPRESS_MIN_BYTES": "200"}, 1, tmp_path_factory.mktemp("low"))
    try:
        yield servers.bases[0]
    finally:
        servers.stop()


def test_a_long_poll_of_a_seat_is_compressed_yet_private(low_threshold: str) -> None:
    """The answer of a long-poll that waited goes through the middleware (live.asgi calls
    Django again with what the wait ended with)."""
    base = low_threshold
    seat = Player(base)
    created = seat.post(base, "/api/v1/matches", {"seats": 2, "bots": ["greedy"]})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    version = seat.get(base, f"/api/v1/matches/{match_id}/state").json()["version"]
    path = f"/api/v1/matches/{match_id}/state?after_version={version}&wait=1"
    plain, plain_body = raw_get(f"{base}{path}", {**seat.headers, "Accept-Encoding": "identity"})
    response, body = raw_get(f"{base}{path}", {**seat.headers, "Accept-Encoding": "br"})
    assert response.status_code == plain.status_code == 200
    assert "no-store" in response.headers["cache-control"] and "etag" not in response.headers
    assert len(plain_body) > 200
    assert response.headers["content-encoding"] == "br"
    assert brotli.decompress(body) == plain_body


def test_websockets_never_negotiate_compression(live: Any) -> None:
    """uvicorn offers permessage-deflate by default; live.protocol.HttpProtocol turns it
    off whatever the command says (the test servers do not pass the flag)."""
    base = live.bases[0]
    player = Player(base)
    url = base.replace("http://", "ws://") + "/api/v1/me/events"
    with connect(
        url, additional_headers=player.headers, compression="deflate", proxy=None
    ) as socket:
        assert socket.response is not None
        assert "Sec-WebSocket-Extensions" not in socket.response.headers
        assert '"event"' in str(socket.recv(timeout=10))
