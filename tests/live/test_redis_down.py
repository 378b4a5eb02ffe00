"""The live tier while its Redis is down (live.streams, live.hub), on a uvicorn process of
its own whose LIVE_REDIS_URL is a private Redis that this test starts and stops (never the
suite's): the process starts without it; a new stream, WebSocket or waiting long-poll answers
`503 unavailable` with the API's JSON body and `Retry-After`; the rest of the API answers as
ever and nothing answers 500; once Redis is back, streams open again, an open stream gets what
it missed, and one whose token was revoked meanwhile ends; each outage logs one traceback.
Every event and JSON body is scanned for hidden information (tests/leakscan.py)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.backing_services import PrivateRedis
from tests.httpclient import http
from tests.leakscan import scan_body

from .conftest import Servers
from .sse import Event, Stream
from .test_streams import Player, _move, _table
from .ws import Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]


@pytest.fixture
def redis_and_server(
    live_env: dict[str, str], tmp_path: Path
) -> Iterator[tuple[PrivateRedis, str, Path]]:
    """A private Redis, not started, and one web process whose live tier uses it."""
    redis = PrivateRedis()
    env = {
        **live_env,
        "LIVE_REDIS_URL": redis.url,
        "LIVE_CHANNEL_PREFIX": f"test-down-{uuid.uuid4().hex[:12]}",
    }
    server = Servers(env, 1, tmp_path)
    try:
        yield redis, server.bases[0], tmp_path / "uvicorn0.log"
    finally:
        server.stop()
        redis.stop()


def _unavailable(response: httpx.Response, viewer: Player | None) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["retry-after"] == "5"
    body = response.json()
    assert body["code"] == "unavailable", body
    path = urlsplit(str(response.request.url)).path
    assert not scan_body(path, body, json.dumps(body), viewer.id if viewer else None)


def _every_opening_is_503(base: str, a: Player, match_id: str, version: int) -> None:
    ws = base.replace("http://", "ws://", 1)
    ticket = a.post(base, "/api/v1/auth/stream-ticket", {"path": "/api/v1/me/events"})
    assert ticket.status_code == 200, ticket.text  # issuing one needs no Redis
    for path in (f"/api/v1/matches/{match_id}/events", "/api/v1/me/events"):
        _unavailable(a.get(base, path), a)
    _unavailable(http.get(f"{base}/api/v1/lobby/events", timeout=20), None)
    by_ticket = f"{base}/api/v1/me/events?ticket={ticket.json()['ticket']}"
    _unavailable(http.get(by_ticket, timeout=20), a)
    query = f"?after_version={version}&wait=10"
    _unavailable(a.get(base, f"/api/v1/matches/{match_id}/state{query}"), a)
    socket = Socket(f"{ws}/api/v1/me/events", a.headers)
    assert socket.status == 503 and socket.body["code"] == "unavailable", socket.body
    # The rest of the API answers.
    assert a.get(base, f"/api/v1/matches/{match_id}/state").status_code == 200
    assert a.get(base, "/api/v1/players/me").status_code == 200


def _opens_again(base: str, a: Player, within: float) -> Stream:
    """`a`'s me stream, once Redis is back (the process resubscribes with a backoff)."""
    deadline = time.monotonic() + within
    while True:
        stream = a.stream(base, "/api/v1/me/events")
        if stream.status == 200:
            return stream
        assert stream.status == 503 and time.monotonic() < deadline, stream.status
        time.sleep(0.5)


def test_streams_answer_503_while_redis_is_down_and_open_again_after(
    redis_and_server: tuple[PrivateRedis, str, Path],
) -> None:
    redis, base, log = redis_and_server
    a, b, match_id = _table(base)  # the process came up without Redis, and serves the API
    version = a.get(base, f"/api/v1/matches/{match_id}/state").json()["version"]
    _every_opening_is_503(base, a, match_id, version)

    redis.start()
    mine = _opens_again(base, a, within=15)
    assert isinstance(mine.next(), Event)  # ready
    theirs = b.stream(base, f"/api/v1/matches/{match_id}/events")
    assert theirs.status == 200
    seen = theirs.next()
    assert isinstance(seen, Event) and seen.event == "state"

    redis.stop()  # as if it crashed
    _every_opening_is_503(base, a, match_id, version)
    moved = _move(base, [a, b], match_id)  # a move commits; its event cannot be told now
    assert a.post(base, "/api/v1/auth/logout").status_code == 204

    redis = PrivateRedis(port=redis.port).start()  # back, empty
    try:
        # The open stream of the revoked token ends; the other gets the move it missed.
        deadline = time.monotonic() + 15
        while True:
            item = mine.next(timeout=max(0.1, deadline - time.monotonic()))
            if isinstance(item, Event) and item.event == "close":
                assert item.data == {"reason": "revoked"}
                break
            assert item is not None and time.monotonic() < deadline, item
        while True:
            item = theirs.next(timeout=max(0.1, deadline - time.monotonic()))
            assert isinstance(item, Event) and item.event == "state", item
            if item.data["version"] >= moved["version"]:
                break
        fresh = b.stream(base, "/api/v1/me/events")
        assert fresh.status == 200
    finally:
        redis.stop()
    # Nothing answered 500 (Django logs each) or failed in the server (uvicorn logs each).
    text = log.read_text(errors="replace")
    assert "Internal Server Error" not in text and "Exception in ASGI application" not in text
    # Each outage (at the start, the crash, the last stop) logs its traceback once, then a line
    # a retry: not a traceback every few seconds.
    assert text.count("live subscription lost; reconnecting") <= 3, text[-3000:]
    assert text.count("live subscription still lost (") >= 2, text[-3000:]
    # The refused openings are a line a minute between them, with no traceback of their own,
    # and Django does not log each 503 again.
    assert 1 <= text.count("streams are refused (503)") <= 2, text[-3000:]
    assert "NoneType: None" not in text and "django.request: Service Unavailable" not in text
