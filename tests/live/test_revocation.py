"""Revocation ends what it revokes (live.hub, live.tickets), on two real uvicorn
processes: a token revoked on one process (logout, rotation; a password change or the account
deactivated or deleted, here by the ORM as the admin does) ends within two seconds every
stream and WebSocket that came with it on the other, by header or by ticket, each with a
`close` (`revoked`); a waiting long-poll of it answers 401. Nothing of another token ends.
Every event is scanned for hidden information as it arrives (tests/live/sse.py, ws.py)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from tests.httpclient import http
from tests.leakscan import scan_body

from .sse import Event, Stream
from .test_streams import Player, _table
from .ws import Message, Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def _ws(base: str) -> str:
    return base.replace("http://", "ws://", 1)


def _first(item: Event | Message | str | None) -> None:
    assert isinstance(item, Event | Message), f"expected the first event, got {item!r}"


def _closed_revoked(opened: Stream | Socket, started: float) -> None:
    """`opened` gets `close` (`revoked`) within 2 s of `started`, then ends."""
    while True:
        item = opened.next(timeout=max(0.1, started + 2 - time.monotonic()))
        assert item is not None, "ended without a close"
        if isinstance(item, Event | Message) and item.event == "close":
            assert item.data == {"reason": "revoked"}, item
            break
        assert time.monotonic() < started + 2, f"still open: {item!r}"
    assert opened.next(timeout=2) is None  # and it ends (a socket: closed by the server)
    assert time.monotonic() - started < 3
    if isinstance(opened, Socket):
        assert opened.close_code == 1000


def _open_everything(a: Player, bases: list[str], match_id: str) -> list[Stream | Socket]:
    """The streams and sockets of `a`'s token on the second process: by header and by ticket."""
    one, two = bases

    def ticket(path: str) -> str:
        return str(a.post(one, "/api/v1/auth/stream-ticket", {"path": path}).json()["ticket"])

    match_path = f"/api/v1/matches/{match_id}/events"
    opened: list[Stream | Socket] = [
        a.stream(two, match_path),
        Stream(f"{two}/api/v1/me/events?ticket={ticket('/api/v1/me/events')}"),
        Socket(f"{_ws(two)}/api/v1/lobby/events?ticket={ticket('/api/v1/lobby/events')}"),
    ]
    for item in opened:
        assert item.status in (200, 101), item
        _first(item.next(timeout=10))
    return opened


def _poll(a: Player, base: str, match_id: str, version: int, out: list[Any]) -> None:
    url = f"{base}/api/v1/matches/{match_id}/state?after_version={version}&wait=20"
    out.append(http.get(url, headers=a.headers, timeout=40))


@pytest.mark.parametrize("revoke", ["logout", "rotate"])
def test_logout_and_rotation_end_the_tokens_streams_sockets_and_long_polls(
    live: Any, revoke: str
) -> None:
    one, two = live.bases
    a, b, match_id = _table(one)
    version = a.get(one, f"/api/v1/matches/{match_id}/state").json()["version"]
    opened = _open_everything(a, live.bases, match_id)
    spare = a.post(one, "/api/v1/auth/stream-ticket", {"path": "/api/v1/me/events"}).json()[
        "ticket"
    ]
    others = b.stream(two, f"/api/v1/matches/{match_id}/events")  # another token's
    _first(others.next())
    polled: list[Any] = []
    poller = threading.Thread(target=_poll, args=(a, two, match_id, version, polled))
    poller.start()
    time.sleep(1)
    started = time.monotonic()
    response = a.post(one, f"/api/v1/auth/{'logout' if revoke == 'logout' else 'token/rotate'}")
    assert response.status_code in (200, 204), response.text
    for item in opened:
        _closed_revoked(item, started)
    poller.join(5)
    assert polled and polled[0].status_code == 401, polled
    assert polled[0].json()["code"] == "not_authenticated"
    assert not scan_body("/api/v1/matches/x/state", polled[0].json(), polled[0].text, None)
    # The token and its tickets open nothing more; the other token's stream goes on.
    refused = http.get(f"{two}/api/v1/me/events?ticket={spare}", timeout=20)
    assert refused.status_code == 401 and refused.json()["code"] == "not_authenticated"
    assert a.get(two, "/api/v1/me/events").status_code == 401
    assert others.next(timeout=3, heartbeats=True) == ": heartbeat"
    if revoke == "rotate":  # the new token streams
        fresh = Player.__new__(Player)
        fresh.id, fresh.token = a.id, response.json()["token"]
        fresh.headers = {"Authorization": f"Token {fresh.token}"}
        stream = fresh.stream(two, "/api/v1/me/events")
        assert stream.status == 200
        _first(stream.next())


@pytest.mark.parametrize("change", ["password", "deactivate", "delete"])
def test_a_password_change_or_the_account_closed_ends_its_streams(live: Any, change: str) -> None:
    """As the admin changes a user (the ORM, in this process): the servers hear it on the
    live channel of their prefix."""
    one, two = live.bases
    a = Player(one)
    opened = [
        a.stream(two, "/api/v1/me/events"),
        Socket(f"{_ws(one)}/api/v1/me/events", a.headers),
    ]
    for item in opened:
        _first(item.next(timeout=10))
    user = get_user_model().objects.get(player__id=a.id)
    started = time.monotonic()
    with override_settings(LIVE_CHANNEL_PREFIX=live.prefix):
        if change == "password":
            user.set_password("another-s3cret")
            user.save()
        elif change == "deactivate":
            user.is_active = False
            user.save()
        else:
            user.delete()
    for item in opened:
        _closed_revoked(item, started)
    body = a.get(two, "/api/v1/me/events").json()
    assert body["code"] == "not_authenticated"
    assert not scan_body("/api/v1/me/events", body, json.dumps(body), None)
