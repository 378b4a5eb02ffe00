"""The account routes end what they revoke, on two real uvicorn processes: a password change
through the API (on one process) ends within two seconds every stream and socket of the
player's other tokens (on the other), by header or by ticket, each with `close` (`revoked`),
while the caller's own stream goes on, and so does signing out everywhere else; revoking one
token by its id ends that token's only;
deleting the account ends every stream of every token."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.httpclient import http

from .sse import Stream
from .test_revocation import _closed_revoked, _first, _ws
from .test_streams import Player
from .ws import Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def _login(base: str, player: Player) -> Player:
    """Another token of `player` (a second device)."""
    username = http.get(f"{base}/api/v1/players/me", headers=player.headers).json()["username"]
    response = http.post(
        f"{base}/api/v1/auth/token", json={"username": username, "password": "s3cret-pass"}
    )
    assert response.status_code == 200, response.text
    other = Player.__new__(Player)
    other.id, other.token = player.id, response.json()["token"]
    other.headers = {"Authorization": f"Token {other.token}"}
    return other


def _opened(device: Player, bases: list[str]) -> list[Stream | Socket]:
    one, two = bases
    path = "/api/v1/me/events"
    ticket = device.post(one, "/api/v1/auth/stream-ticket", {"path": path}).json()["ticket"]
    # Two: the player's third stream is the caller's own (LIVE_STREAMS_PER_PLAYER is 3 here).
    opened: list[Stream | Socket] = [
        device.stream(two, "/api/v1/me/events"),
        Socket(f"{_ws(one)}/api/v1/me/events?ticket={ticket}"),
    ]
    for item in opened:
        assert item.status in (200, 101), item
        _first(item.next(timeout=10))
    return opened


# A password change, and signing out everywhere else: (route, body, status, answer).
_OTHERS_END = {
    "password": (
        "/api/v1/auth/password",
        {"old_password": "s3cret-pass", "new_password": "n3w-s3cret!"},
        204,
        None,
    ),
    "revoke-others": ("/api/v1/auth/tokens/revoke-others", {}, 200, {"revoked": 1}),
}


@pytest.mark.parametrize("how", list(_OTHERS_END))
def test_a_password_change_or_signing_out_elsewhere_ends_the_other_tokens_streams_not_the_callers(
    live: Any, how: str
) -> None:
    path, body, status, answer = _OTHERS_END[how]
    one, two = live.bases
    caller = Player(one)
    other = _login(one, caller)
    theirs = _opened(other, live.bases)
    mine = caller.stream(two, "/api/v1/me/events")
    _first(mine.next(timeout=10))
    started = time.monotonic()
    response = caller.post(one, path, body)
    assert response.status_code == status, response.text
    if answer is not None:
        assert response.json() == answer
    for item in theirs:
        _closed_revoked(item, started)
    assert other.get(two, "/api/v1/me/events").status_code == 401
    assert mine.next(timeout=3, heartbeats=True) == ": heartbeat"
    assert caller.get(two, "/api/v1/players/me").status_code == 200


def test_revoking_one_token_by_id_ends_its_streams_only(live: Any) -> None:
    one, two = live.bases
    caller = Player(one)
    other = _login(one, caller)
    theirs = _opened(other, live.bases)
    mine = caller.stream(two, "/api/v1/me/events")
    _first(mine.next(timeout=10))
    rows = other.get(one, "/api/v1/auth/tokens").json()
    (other_id,) = [row["id"] for row in rows if row["current"]]
    started = time.monotonic()
    assert caller.post(one, f"/api/v1/auth/tokens/{other_id}/revoke").status_code == 204
    for item in theirs:
        _closed_revoked(item, started)
    assert mine.next(timeout=3, heartbeats=True) == ": heartbeat"


def test_deleting_the_account_ends_every_stream_of_every_token(live: Any) -> None:
    one, two = live.bases
    caller = Player(one)
    other = _login(one, caller)
    opened = _opened(other, live.bases)
    mine = caller.stream(two, "/api/v1/me/events")
    _first(mine.next(timeout=10))
    started = time.monotonic()
    response = caller.post(one, "/api/v1/auth/account/delete", {"password": "s3cret-pass"})
    assert response.status_code == 204, response.text
    for item in [*opened, mine]:
        _closed_revoked(item, started)
    assert caller.get(two, "/api/v1/players/me").status_code == 401
