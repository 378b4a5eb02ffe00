"""Bounds on what a client sends the live tier (live.streams), on two real uvicorn processes: a
body sent in chunks (no Content-Length) is read, and refused over the limit, as any;
`Last-Event-ID` is ASCII digits of a sane length or `400 invalid`, on the event streams and
their WebSocket form; waiting long-polls are capped per player and per anonymous address as
streams are (`429 throttled`), and give their slots back. Every JSON body is scanned for
hidden information (tests/leakscan.py) as the caller that got it."""

from __future__ import annotations

import json
import threading
import time
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest
from django.conf import settings

from tests.httpclient import http
from tests.leakscan import scan_body

from .test_streams import Player, _move, _table
from .ws import Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def _json(response: httpx.Response, viewer: Player | None) -> dict[str, Any]:
    """The JSON body of `response`, scanned as `viewer` got it (None: anonymous)."""
    body: dict[str, Any] = response.json()
    path = urlsplit(str(response.request.url)).path
    found = scan_body(path, body, json.dumps(body), viewer.id if viewer else None)
    assert not found, found
    return body


def _refused_400(response: httpx.Response, viewer: Player, named: str = "Last-Event-ID") -> None:
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = _json(response, viewer)
    assert body["code"] == "invalid" and named in body["detail"], body
    assert body["message"].startswith(named), body


# Over Python's int() limit (4,300 digits), a superscript digit that str.isdigit() takes, an
# Arabic-Indic digit, one digit past the bound, a sign, a space.
_BAD = ["9" * 4301, "\u00b2", "\u0663", "1" * 19, "+1", " 1"]


def test_last_event_id_is_ascii_digits_of_a_sane_length(live: Any) -> None:
    one, two = live.bases
    a, _b, match_id = _table(one)
    paths = [f"/api/v1/matches/{match_id}/events", "/api/v1/me/events"]
    for path in paths:
        for bad in _BAD:
            # As a header (latin-1 on the wire, where HTTP allows it) and as the query parameter.
            if bad == bad.strip() and (bad.isascii() or bad == "\u00b2"):
                raw = {"Last-Event-ID": bad.encode("latin-1")}
                response = http.get(f"{two}{path}", headers={**a.headers, **raw}, timeout=20)
                _refused_400(response, a)
            query = f"{two}{path}?last_event_id={quote(bad)}"
            _refused_400(http.get(query, headers=a.headers, timeout=20), a, "last_event_id")
            socket = Socket(f"{query.replace('http://', 'ws://', 1)}", a.headers)
            assert socket.status == 400 and socket.body["code"] == "invalid", socket.body
            assert not scan_body(path, socket.body, json.dumps(socket.body), a.id)
    # The largest id allowed opens the stream (an id the match never reached: the current view).
    stream = a.stream(two, paths[0], **{"Last-Event-ID": "9" * 18})
    assert stream.status == 200
    stream.close()


def _poll(player: Player | None, base: str, match_id: str, after: int, out: list[Any]) -> None:
    headers = player.headers if player else {}
    url = f"{base}/api/v1/matches/{match_id}/state?after_version={after}&wait=20"
    response = http.get(url, headers=headers, timeout=40)
    out.append((response, player))


def _waiting(
    player: Player | None, bases: list[str], match_id: str, after: int, count: int
) -> tuple[list[threading.Thread], list[Any]]:
    """`count` long-polls of `player` on `match_id`, spread over both processes, waiting."""
    out: list[Any] = []
    threads = [
        threading.Thread(target=_poll, args=(player, bases[i % 2], match_id, after, out))
        for i in range(count)
    ]
    for thread in threads:
        thread.start()
    time.sleep(3)  # every one is in its wait
    assert out == [], [r.text for r, _ in out]
    return threads, out


@pytest.mark.parametrize("who", ["player", "anonymous"])
def test_waiting_long_polls_are_capped_and_give_their_slots_back(live: Any, who: str) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    caller = a if who == "player" else None
    limit = settings.LIVE_LONG_POLLS_PER_PLAYER if caller else settings.LIVE_LONG_POLLS_PER_IP
    state = a.get(one, f"/api/v1/matches/{match_id}/state").json()
    version = state["version"]
    threads, answers = _waiting(caller, [one, two], match_id, version, limit)
    # One more, on either process: 429 with the API's JSON error; it changed nothing.
    extra: list[Any] = []
    _poll(caller, two, match_id, version, extra)
    refused, _ = extra[0]
    assert refused.status_code == 429, refused.text
    assert _json(refused, caller)["code"] == "throttled"
    assert refused.headers["Retry-After"] == "5"
    # A long-poll that does not wait (the match is past `after_version`) takes no slot.
    past: list[Any] = []
    _poll(caller, one, match_id, version - 1, past)
    assert past[0][0].status_code == 200
    _json(past[0][0], caller)
    # Streams are counted apart: the caller may still open one.
    if caller is not None:
        stream = caller.stream(one, "/api/v1/me/events")
        assert stream.status == 200
        stream.close()
    # A move answers every waiting long-poll, and their slots are free again.
    moved = _move(one, [a, b], match_id)
    for thread in threads:
        thread.join(20)
    assert len(answers) == limit
    for response, viewer in answers:
        assert response.status_code == 200, response.text
        assert _json(response, viewer)["version"] == moved["version"]
    # Every slot was given back before its answer: as many may wait again.
    threads, answers = _waiting(caller, [one, two], match_id, moved["version"], limit)
    last = _move(one, [a, b], match_id)
    for thread in threads:
        thread.join(20)
    assert [r.json()["version"] for r, _ in answers] == [last["version"]] * limit


def test_a_long_poll_wait_that_is_no_finite_number_is_refused_at_once(live: Any) -> None:
    """float() reads `nan` and `inf`, and nan passes every bound (it compares false): refused
    as any bad `wait`, before any wait."""
    one, two = live.bases
    a, _, match_id = _table(one)
    version = a.get(one, f"/api/v1/matches/{match_id}/state").json()["version"]
    for wait in ("nan", "NaN", "-nan", "inf"):
        started = time.monotonic()
        query = f"?after_version={version}&wait={wait}"
        response = a.get(two, f"/api/v1/matches/{match_id}/state{query}")
        _refused_400(response, a, "wait")
        assert time.monotonic() - started < 5


def _chunks(body: bytes, size: int = 7) -> Any:
    """`body` sent in chunks (Transfer-Encoding: chunked, no Content-Length)."""
    for start in range(0, len(body), size):
        yield body[start : start + size]


def test_a_body_sent_in_chunks_is_read_and_bounded_as_any(live: Any) -> None:
    one, _ = live.bases
    name = f"chunked{time.monotonic_ns() % 10**9}"
    body = json.dumps({"username": name, "password": "s3cret-pass"}).encode()
    response = http.post(
        f"{one}/api/v1/auth/register",
        content=_chunks(body),
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 201, response.text
    player = Player.__new__(Player)
    player.id, player.token = response.json()["id"], response.json()["token"]
    player.headers = {"Authorization": f"Token {player.token}"}
    renamed = http.patch(
        f"{one}/api/v1/players/me",
        content=_chunks(json.dumps({"display_name": "Chunked Ana"}).encode()),
        headers={**player.headers, "Content-Type": "application/json"},
    )
    assert renamed.status_code == 200 and renamed.json()["display_name"] == "Chunked Ana"
    # Over the limit in chunks: refused as a body that says its length, nothing changed.
    big = json.dumps({"display_name": "x" * (settings.MAX_REQUEST_BODY_BYTES + 10)}).encode()
    refused = http.patch(
        f"{one}/api/v1/players/me",
        content=_chunks(big, 4096),
        headers={**player.headers, "Content-Type": "application/json"},
    )
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == "invalid" and "body" in refused.json()["detail"]
    me = http.get(f"{one}/api/v1/players/me", headers=player.headers).json()
    assert me["display_name"] == "Chunked Ana"
    # Either way, in the caller's language.
    turkish = {**player.headers, "Content-Type": "application/json", "Accept-Language": "tr"}
    for content in (big, _chunks(big, 4096)):
        refused = http.patch(f"{one}/api/v1/players/me", content=content, headers=turkish)
        assert refused.status_code == 400 and refused.headers["Content-Language"] == "tr"
        limit = settings.MAX_REQUEST_BODY_BYTES
        assert refused.json()["message"] == f"İstek gövdesi en çok {limit} bayt olabilir."
