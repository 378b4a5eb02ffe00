"""Live play through the test client: CORS, stream tickets, the hub's bounds, and the streams'
short answer under WSGI (the servers of test_streams.py cover ASGI)."""

from __future__ import annotations

import asyncio
import functools
import time
import uuid
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest
from django.core import signing
from django.test import override_settings
from rest_framework.exceptions import AuthenticationFailed

from games import events
from live import hub as live_hub
from live import tickets
from live.tickets import ticket_issue, ticket_redeem
from players.models import ApiToken, token_digest
from tests.helpers import create_match, state

pytestmark = pytest.mark.django_db

HEADERS = "authorization, content-type, idempotency-key, last-event-id"


def preflight(api: Any, path: str, origin: str) -> Any:
    return api.options(
        path,
        HTTP_ORIGIN=origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS=HEADERS,
    )


def test_cors_preflight_allows_any_origin_and_the_api_headers_by_default(api):
    response = preflight(api, "/api/v1/matches", "https://app.example")
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    allowed = {h.strip() for h in response["Access-Control-Allow-Headers"].split(",")}
    assert {h.strip() for h in HEADERS.split(",")} <= allowed
    assert "Access-Control-Allow-Credentials" not in response  # header tokens, never cookies


def test_cors_headers_on_api_answers_and_errors_only_under_api(api, make_player):
    ok = api.get("/api/v1/bots", HTTP_ORIGIN="https://app.example")
    assert ok.status_code == 200 and ok["Access-Control-Allow-Origin"] == "*"
    refused = api.get("/api/v1/players/me", HTTP_ORIGIN="https://app.example")
    assert refused.status_code == 401 and refused["Access-Control-Allow-Origin"] == "*"
    too_big = api.generic(
        "POST",
        "/api/v1/auth/token",
        b"{}",
        content_type="application/json",
        HTTP_ORIGIN="https://app.example",
        CONTENT_LENGTH="999999",
    )
    assert too_big.status_code == 400 and too_big["Access-Control-Allow-Origin"] == "*"
    admin = api.get("/admin/login/", HTTP_ORIGIN="https://app.example")
    assert "Access-Control-Allow-Origin" not in admin


@override_settings(CORS_ALLOW_ALL_ORIGINS=False, CORS_ALLOWED_ORIGINS=["https://app.example"])
def test_cors_allowed_origins_from_the_setting(api):
    allowed = preflight(api, "/api/v1/matches", "https://app.example")
    assert allowed["Access-Control-Allow-Origin"] == "https://app.example"
    other = preflight(api, "/api/v1/matches", "https://evil.example")
    assert "Access-Control-Allow-Origin" not in other


ME = "/api/v1/me/events"


def _ticket(client: Any, path: str = ME) -> str:
    issued = client.post("/api/v1/auth/stream-ticket", {"path": path}, format="json")
    assert issued.status_code == 200, issued.content
    return str(issued.json()["ticket"])


def test_stream_ticket_route_needs_a_token_and_a_stream_path(api, make_player, client_for):
    player, token = make_player()
    refused = api.post("/api/v1/auth/stream-ticket", {"path": ME}, format="json")
    assert refused.status_code == 401 and refused.json()["code"] == "not_authenticated"
    caller = client_for(token)
    match_path = f"/api/v1/matches/{uuid.uuid4()}/events"
    for bad in (None, "", "/api/v1/me/events/", "/api/v1/matches", match_path.upper(), 7):
        body = {} if bad is None else {"path": bad}
        response = caller.post("/api/v1/auth/stream-ticket", body, format="json")
        assert response.status_code == 400, (bad, response.content)
        assert response.json()["code"] == "invalid" and "path" in response.json()["detail"]
    issued = caller.post("/api/v1/auth/stream-ticket", {"path": match_path}, format="json")
    assert issued.status_code == 200 and issued.json()["expires_in"] == 300
    redeemed = ticket_redeem(issued.json()["ticket"], match_path)
    assert redeemed.player.id == player.id and redeemed.token == token_digest(token)
    # Reused on its stream (a reconnect), as often as it is.
    assert ticket_redeem(issued.json()["ticket"], match_path).player.id == player.id
    # The route takes its match id in any case: so does the ticket.
    match_id = match_path.split("/")[4]
    shouted = match_path.replace(match_id, match_id.upper())
    assert ticket_redeem(issued.json()["ticket"], shouted).player.id == player.id
    for other in (ME, "/api/v1/lobby/events", f"/api/v1/matches/{uuid.uuid4()}/events"):
        with pytest.raises(AuthenticationFailed, match="another stream"):
            ticket_redeem(issued.json()["ticket"], other)
    with pytest.raises(AuthenticationFailed, match="Invalid"):
        ticket_redeem(ticket_issue(player=player, token=_token_of(token), path=ME) + "x", ME)


def test_a_ticket_opens_its_stream_until_it_expires(api, make_player, client_for):
    _, token = make_player()
    with override_settings(STREAM_TICKET_SECONDS=2):
        ticket = _ticket(client_for(token))
        for _ in range(3):
            assert api.get(f"{ME}?ticket={ticket}").status_code == 200
        assert api.get(f"/api/v1/lobby/events?ticket={ticket}").status_code == 401
        time.sleep(3)
        expired = api.get(f"{ME}?ticket={ticket}")
    assert expired.status_code == 401 and "expired" in expired.json()["message"]


def test_a_bad_token_beside_a_good_ticket_is_refused(api, make_player, client_for):
    """A token that is sent must be good, on every route: a stream's ticket does not make a
    bad `Authorization` header pass."""
    _, token = make_player()
    ticket = _ticket(client_for(token))
    for header in ("Token " + "0" * 40, "Bearer xyz", "Token"):
        refused = api.get(f"{ME}?ticket={ticket}", HTTP_AUTHORIZATION=header)
        assert refused.status_code == 401, (header, refused.content)
    assert api.get(f"{ME}?ticket={ticket}", HTTP_AUTHORIZATION=f"Token {token}").status_code == 200
    assert api.get(f"{ME}?ticket={ticket}").status_code == 200


def _token_of(key: str) -> ApiToken:
    return ApiToken.objects.get(digest=token_digest(key))


def test_a_ticket_is_not_made_from_the_key_and_a_player_id(api, make_player, client_for):
    """Signed with the server's own key, a ticket that names a player but was not asked for by
    one of their live tokens opens nothing: its binding is an HMAC of a token's digest, which
    only the database holds."""
    victim, token = make_player()
    sign = functools.partial(signing.dumps, salt="players.stream-ticket")
    forged = [
        sign({"p": str(victim.id), "n": "n1", "s": ME}),  # as a ticket was before: no binding
        sign({"p": str(victim.id), "n": "n2", "t": "0" * 64, "s": ME}),
        # The binding of a digest the forger made up, and of the key (not its digest).
        sign(
            {
                "p": str(victim.id),
                "n": "n3",
                "t": tickets._binding(token_digest("f" * 40), "n3"),
                "s": ME,
            }
        ),
        sign({"p": str(victim.id), "n": "n4", "t": tickets._binding(token, "n4"), "s": ME}),
        sign("not an object"),
    ]
    for ticket in forged:
        response = api.get(f"/api/v1/me/events?ticket={ticket}")
        assert response.status_code == 401, response.content
        assert response.json()["code"] == "not_authenticated"
        assert response["WWW-Authenticate"] == "Token"
    for header in ({}, {"HTTP_AUTHORIZATION": f"Bearer {token}"}):
        response = api.get("/api/v1/me/events", **header)
        assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"
    # Another player's ticket, its player id swapped in: the signature no longer holds.
    other, other_token = make_player()
    real = _ticket(client_for(other_token))
    body = signing.loads(real, salt="players.stream-ticket")
    swapped = sign({**body, "p": str(victim.id)})
    assert api.get(f"/api/v1/me/events?ticket={swapped}").status_code == 401
    # The victim's own ticket works.
    own = _ticket(client_for(token))
    assert api.get(f"/api/v1/me/events?ticket={own}").status_code == 200


@pytest.mark.parametrize("revoke", ["logout", "rotate", "password", "deactivate", "delete"])
def test_a_ticket_dies_with_its_token(api, make_player, client_for, revoke):
    player, token = make_player()
    caller = client_for(token)
    kept, kept_token = make_player()
    tickets_ = [_ticket(caller) for _ in range(2)]
    kept_ticket = _ticket(client_for(kept_token))
    user = player.user
    if revoke == "logout":
        assert caller.post("/api/v1/auth/logout").status_code == 204
    elif revoke == "rotate":
        assert caller.post("/api/v1/auth/token/rotate").status_code == 200
    elif revoke == "password":
        user.set_password("another-s3cret")
        user.save()
    elif revoke == "deactivate":
        user.is_active = False
        user.save(update_fields=["is_active"])
    else:
        user.delete()
    assert not ApiToken.objects.filter(digest=token_digest(token)).exists()
    for ticket in tickets_:
        response = api.get(f"/api/v1/me/events?ticket={ticket}")
        assert response.status_code == 401 and response.json()["code"] == "not_authenticated"
    # Another player's token and tickets are untouched.
    assert api.get(f"/api/v1/me/events?ticket={kept_ticket}").status_code == 200
    assert client_for(kept_token).get("/api/v1/players/me").status_code == 200


def test_a_login_or_a_profile_save_revokes_nothing(make_player, client_for):
    player, token = make_player()
    user = player.user
    user.save(update_fields=["last_login"])
    user.first_name = "A"
    user.save()
    assert client_for(token).get("/api/v1/players/me").status_code == 200


def _sse_events(response: Any) -> list[tuple[str | None, str]]:
    text = b"".join(response.streaming_content).decode()
    found = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            found.append((fields.get("id"), fields["event"]))
    return found


def test_match_stream_under_wsgi_sends_what_is_new_then_asks_to_reconnect(make_player, client_for):
    (_, ta), (_, tb) = make_player(), make_player()
    a, b = client_for(ta), client_for(tb)
    match = create_match(a)
    b.post(f"/api/v1/matches/{match['id']}/join")
    version = state(a, match["id"])["version"]
    url = f"/api/v1/matches/{match['id']}/events"
    response = a.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    assert "no-store" in response["Cache-Control"]
    assert _sse_events(response) == [(str(version), "state"), (None, "reconnect")]
    seen = a.get(url, HTTP_LAST_EVENT_ID=str(version))
    assert _sse_events(seen) == [(None, "reconnect")]
    bad = a.get(url, HTTP_LAST_EVENT_ID="-1")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"


def test_me_events_of_a_version_change():
    match = SimpleNamespace(
        id="m1",
        version=3,
        status="active",
        state={"turn": 1},
        seat_players=["p0", "p1", "bot", "p3"],
        seat_bots=["", "", "greedy", "greedy"],
        resigned=[3],
        totals=[0, 0, 0, 0],
        turn_deadline=None,
    )
    started = events.me_events(match, status_changed=True)
    assert [(p, e["type"]) for p, e in started] == [
        ("p0", "match_started"),
        ("p1", "match_started"),
        ("p1", "your_turn"),
    ]
    assert started[-1][1]["turn_deadline"] is None  # no turn clock
    # The turn stays with p1 after their own move (a draw): not told again.
    assert events.me_events(match, status_changed=False, mover=1) == []
    match.turn_deadline = datetime(2026, 12, 7, 20, 5, tzinfo=UTC)  # a turn clock's
    ((_, told),) = events.me_events(match, status_changed=False, mover=0)
    assert told["turn_deadline"] == "2026-12-07T20:05:00Z"
    match.turn_deadline = None
    assert [e["type"] for _, e in events.me_events(match, status_changed=False, mover=0)] == [
        "your_turn"
    ]
    match.state = {"turn": 2}  # a bot's turn concerns nobody
    assert events.me_events(match, status_changed=False) == []
    match.state = {"turn": 3}  # nor a resigned person's seat, which a bot plays
    assert events.me_events(match, status_changed=False) == []
    match.status = "finished"
    finished = events.me_events(match, status_changed=True)
    # The person who resigned is told of the end too.
    assert [(p, e["type"]) for p, e in finished] == [
        ("p0", "match_finished"),
        ("p1", "match_finished"),
        ("p3", "match_finished"),
    ]
    assert {e["status"] for _, e in finished} == {"finished"}
    # Abandoned (every person resigned, the clock's absent ones too): the end, told alike.
    match.status = "abandoned"
    match.resigned = [0, 1, 3]
    match.seat_bots = ["greedy", "greedy", "greedy", "greedy"]
    abandoned = events.me_events(match, status_changed=True)
    assert [(p, e["type"], e["status"]) for p, e in abandoned] == [
        ("p0", "match_finished", "abandoned"),
        ("p1", "match_finished", "abandoned"),
        ("p3", "match_finished", "abandoned"),
    ]
    match.status = "cancelled"
    cancelled = events.me_events(match, status_changed=True, invitees=["p9"])
    assert ("p9", None) in [(p, e["seat"]) for p, e in cancelled if e["type"] == "match_cancelled"]


@override_settings(LIVE_REDIS_URL="", LIVE_QUEUE_SIZE=4)
def test_a_slow_reader_is_dropped_not_buffered():
    async def scenario() -> None:
        hub = live_hub.Hub()
        async with hub.watch(match="m1") as slow, hub.watch(match="m2") as other:
            for version in range(1, 6):
                hub.dispatch({"match": "m1", "version": version})
            assert slow.dropped and len(slow.items) == 4  # never more than LIVE_QUEUE_SIZE
            assert slow not in hub.matches.get("m1", set())
            assert not other.dropped and not other.items  # another match's waiter
        assert not hub.matches

    asyncio.run(scenario())


@override_settings(LIVE_REDIS_URL="", LIVE_STREAMS_PER_PLAYER=2)
def test_in_process_stream_slots_per_player():
    async def scenario() -> None:
        hub = live_hub.Hub()
        first, second = await hub.slot_take("p"), await hub.slot_take("p")
        assert first and second and await hub.slot_take("p") is None
        assert await hub.slot_take("q") is not None  # another player's cap
        await hub.slot_give_back("p", first)
        assert await hub.slot_take("p") is not None

    asyncio.run(scenario())
