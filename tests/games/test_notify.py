"""Notices to away players (docs/api.md "Notifications"): Web Push to a browser subscription and
webhooks, with real receivers on this machine (http on 127.0.0.1, allowed by NOTIFY_ALLOW_HTTP
and NOTIFY_ALLOWED_NETWORKS as only a test allows it). A pushed message is decrypted with the
subscription's own keys (http_ece, RFC 8291); a webhook's signature checked as a receiver
would. Neither holds a card."""

from __future__ import annotations

import base64
import gzip
import hashlib
import hmac
import json
import os
import socket
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
import pytest
from asgiref.sync import async_to_sync
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.throttling import SimpleRateThrottle

from games.models import Match, PushMessage, PushSubscription, Webhook, WebhookDelivery
from games.services import notice, push_subscribe
from games.services.notify import push_send, webhook_deliver
from games.tasks import sweep, webhook_deliver_task
from live import hub as events
from pisyedili_api.errors import ApplicationError
from pisyedili_api.tasks import RetryLater, background_submit, background_wait, send
from players.models import ApiToken, token_digest
from players.services import api_token_create
from tests.helpers import client_with, create_match, post_move, state
from tests.leakscan import CARD_RE


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _no_card(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_no_card(v) for v in value.values())
    if isinstance(value, list):
        return all(_no_card(v) for v in value)
    return not (isinstance(value, str) and CARD_RE.match(value.upper()))


class Receiver:
    """An HTTP server on a free port of 127.0.0.1 that records each POST (its headers' names in
    lower case) and answers with the next status of `answers` (the last one for ever after)."""

    def __init__(self, answers: list[int]) -> None:
        self.answers = list(answers)
        self.got: list[tuple[str, dict[str, str], bytes, int]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                code = receiver.answers.pop(0) if len(receiver.answers) > 1 else receiver.answers[0]
                receiver.got.append(
                    (self.path, {k.lower(): v for k, v in self.headers.items()}, body, code)
                )
                self.send_response(code)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Callable[[list[int]], Receiver]]:
    made: list[Receiver] = []

    def make(answers: list[int]) -> Receiver:
        made.append(Receiver(answers))
        return made[-1]

    yield make
    for one in made:
        one.close()


@pytest.fixture
def local_urls(settings: Any) -> None:
    """What only a test allows: http, and this machine's own addresses; a failed try is due
    again at once (the sweep sends it)."""
    settings.NOTIFY_ALLOW_HTTP = True
    settings.NOTIFY_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    settings.NOTIFY_RETRY_SECONDS = 0


def _sweep() -> None:
    """games.sweep as the embedded default's beat runs it: it sends the notices that are due."""
    sweep.apply()
    assert background_wait(20)


@pytest.fixture
def vapid(settings: Any) -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    raw = key.private_numbers().private_value.to_bytes(32, "big")
    settings.WEB_PUSH_VAPID_PRIVATE_KEY = _b64(raw)
    return settings.WEB_PUSH_VAPID_PRIVATE_KEY


def _browser_keys() -> tuple[ec.EllipticCurvePrivateKey, bytes, dict[str, str]]:
    """A browser's side of a subscription: its ECDH key pair and auth secret."""
    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    auth = os.urandom(16)
    return private, auth, {"p256dh": _b64(public), "auth": _b64(auth)}


def _challenge(make_player: Any, client_for: Any, invitee: str) -> dict[str, Any]:
    """A private match whose creator invites `invitee`: `challenge` on the invitee's stream."""
    _, token = make_player()
    return create_match(client_for(token), seats=2, private=True, invite=[invitee])


# ---- the payload ----


def test_a_notice_copies_ids_and_a_short_text_only():
    leaky = {"hand": ["7H", "JS"], "drawn": ["10C"], "top_card": "6C", "seed": "ab", "seat": 0}
    deadline = "2026-12-07T20:05:00Z"
    turn = notice(
        {"type": "your_turn", "match": "m1", "version": 3, "turn_deadline": deadline, **leaky}
    )
    assert turn == {
        "type": "your_turn",
        "match": "m1",
        "turn_deadline": deadline,
        "text": "Your turn",
    }
    untimed = notice({"type": "your_turn", "match": "m1", "version": 3, "turn_deadline": None})
    assert untimed == {
        "type": "your_turn",
        "match": "m1",
        "turn_deadline": None,
        "text": "Your turn",
    }
    challenge = notice(
        {"type": "challenge", "match": "m2", "by": "p", "expires_at": deadline, **leaky}
    )
    assert challenge == {
        "type": "challenge",
        "match": "m2",
        "expires_at": deadline,
        "text": "You are challenged to a match",
    }
    round_ = notice({"type": "tournament_round", "tournament": "t", "round": 2, **leaky})
    assert set(round_) == {"type", "tournament", "round", "text"} and round_["round"] == 2
    invited = notice({"type": "tournament_invitation", "tournament": "t", "by": "p", **leaky})
    assert invited == {
        "type": "tournament_invitation",
        "tournament": "t",
        "text": "You are invited to a tournament",
    }
    assert all(_no_card(n) for n in (turn, challenge, round_, invited))


# ---- Web Push ----


@pytest.mark.django_db
def test_the_vapid_key_route_says_whether_push_is_on(api, settings):
    settings.WEB_PUSH_VAPID_PRIVATE_KEY = ""
    assert api.get("/api/v1/push/vapid-public-key").json() == {
        "enabled": False,
        "public_key": None,
    }
    key = ec.generate_private_key(ec.SECP256R1())
    settings.WEB_PUSH_VAPID_PRIVATE_KEY = _b64(
        key.private_numbers().private_value.to_bytes(32, "big")
    )
    answer = api.get("/api/v1/push/vapid-public-key").json()
    public = key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    assert answer == {"enabled": True, "public_key": _b64(public)}


@pytest.mark.django_db
def test_push_subscriptions_refuse_bad_input_and_change_nothing(
    make_player, client_for, settings, vapid
):
    player, token = make_player()
    client = client_for(token)
    _, _, keys = _browser_keys()
    good = {"endpoint": "https://127.0.0.1/push/1", "keys": keys, "expirationTime": None}

    def refused(body: dict[str, Any], field: str) -> None:
        response = client.post("/api/v1/me/push-subscriptions", body, format="json")
        assert response.status_code == 400, response.content
        assert response.json()["code"] == "invalid" and field in response.json()["detail"]

    refused({**good, "endpoint": "http://push.example.com/1"}, "endpoint")
    refused(good, "endpoint")  # loopback, not allowed by default
    refused({**good, "endpoint": "https://10.1.2.3/push"}, "endpoint")
    refused({**good, "keys": {**keys, "p256dh": "AAAA"}}, "keys")
    # The same key compressed (33 bytes): a point, but not the form a push is encrypted to.
    compressed = ec.generate_private_key(ec.SECP256R1()).public_key()
    short = compressed.public_bytes(Encoding.X962, PublicFormat.CompressedPoint)
    refused({**good, "keys": {**keys, "p256dh": _b64(short)}}, "keys")
    refused({**good, "keys": {**keys, "auth": _b64(b"short")}}, "keys")
    refused({**good, "keys": {"p256dh": keys["p256dh"]}}, "keys")
    refused({**good, "topic": "x"}, "topic")
    refused({"keys": keys}, "endpoint")
    assert not PushSubscription.objects.filter(player=player).exists()
    settings.WEB_PUSH_VAPID_PRIVATE_KEY = ""
    settings.NOTIFY_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    off = client.post("/api/v1/me/push-subscriptions", good, format="json")
    assert off.status_code == 409 and off.json()["code"] == "push_disabled"
    assert not PushSubscription.objects.filter(player=player).exists()


@pytest.mark.django_db
def test_subscribe_again_list_bound_and_delete(make_player, client_for, settings, vapid):
    settings.NOTIFY_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    settings.WEB_PUSH_MAX_PER_PLAYER = 2
    _, token = make_player()
    client = client_for(token)
    _, _, keys = _browser_keys()
    body = {"endpoint": "https://127.0.0.1/push/1", "keys": keys}
    first = client.post("/api/v1/me/push-subscriptions", body, format="json")
    assert first.status_code == 201, first.content
    assert set(first.json()) == {"id", "endpoint", "created_at"}
    _, _, other_keys = _browser_keys()
    again = client.post(
        "/api/v1/me/push-subscriptions", {**body, "keys": other_keys}, format="json"
    )
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    assert PushSubscription.objects.get(id=first.json()["id"]).p256dh == other_keys["p256dh"]
    # A browser's expirationTime is a DOMHighResTimeStamp: it may have a fraction.
    body2 = {**body, "endpoint": "https://127.0.0.1/push/2", "expirationTime": 1767225600000.5}
    assert client.post("/api/v1/me/push-subscriptions", body2, format="json").status_code == 201
    del body2["expirationTime"]
    third = client.post(
        "/api/v1/me/push-subscriptions", {**body, "endpoint": "https://127.0.0.1/3"}, format="json"
    )
    assert third.status_code == 400 and "endpoint" in third.json()["detail"]
    listed = client.get("/api/v1/me/push-subscriptions").json()
    assert [row["endpoint"] for row in listed] == [body["endpoint"], body2["endpoint"]]
    _, stranger = make_player()
    gone = f"/api/v1/me/push-subscriptions/{first.json()['id']}/delete"
    assert client_for(stranger).post(gone).status_code == 404
    assert client.post(gone).status_code == 204
    assert client.post(gone).status_code == 404
    assert len(client.get("/api/v1/me/push-subscriptions").json()) == 1


@pytest.mark.django_db(transaction=True)
def test_a_challenge_is_pushed_encrypted_and_without_a_card(
    make_player, client_for, receiver, local_urls, vapid
):
    push = receiver([201])
    bob, token = make_player()
    private, auth, keys = _browser_keys()
    endpoint = f"{push.url}/push/bob"
    response = client_for(token).post(
        "/api/v1/me/push-subscriptions", {"endpoint": endpoint, "keys": keys}, format="json"
    )
    assert response.status_code == 201, response.content
    match = _challenge(make_player, client_for, bob.username)
    assert background_wait(20)
    assert len(push.got) == 1
    path, headers, body, _ = push.got[0]
    assert path == "/push/bob"
    assert headers["content-encoding"] == "aes128gcm" and int(headers["ttl"]) > 0
    assert headers["authorization"].startswith("vapid t=")  # RFC 8292
    payload = json.loads(
        http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm")
    )
    (invitation,) = match["invitations"]
    assert payload == {
        "type": "challenge",
        "match": match["id"],
        "expires_at": invitation["expires_at"],
        "text": "You are challenged to a match",
    }
    # Held by the push service no longer than the invitation lasts.
    assert 0 < int(headers["ttl"]) <= django_settings.PRIVATE_INVITATION_SECONDS
    assert _no_card(payload)
    assert not PushMessage.objects.exists()  # sent once: nothing waits


@pytest.mark.django_db(transaction=True)
def test_a_turn_s_notice_says_when_its_clock_plays_it_and_is_held_no_longer(
    make_player, client_for, receiver, local_urls, vapid
):
    """Under a turn clock, `your_turn` carries the turn's deadline, and so does its notice (a
    webhook's and a push's alike); a push service holds the push only until then."""
    push, hook = receiver([201]), receiver([200])
    _, ta = make_player()
    bob, tb = make_player()
    ca, cb = client_for(ta), client_for(tb)
    private, auth, keys = _browser_keys()
    endpoint = {"endpoint": f"{push.url}/push/bob", "keys": keys}
    assert cb.post("/api/v1/me/push-subscriptions", endpoint, format="json").status_code == 201
    made = cb.post("/api/v1/me/webhooks", {"url": f"{hook.url}/in"}, format="json")
    assert made.status_code == 201, made.content
    match = create_match(ca, turn_seconds=60)
    assert cb.post(f"/api/v1/matches/{match['id']}/join").status_code == 200
    while (view := state(ca, match["id"]))["turn"] != 1:
        moved = post_move(ca, match["id"], view["legal_moves"][0], view["version"])
        assert moved.status_code == 200, moved.content
    deadline = state(cb, match["id"])["turn_deadline"]
    assert deadline
    assert background_wait(30)
    told = [json.loads(body) for _, _, body, _ in hook.got]
    assert told[-1]["type"] == "your_turn" and told[-1]["turn_deadline"] == deadline
    _, headers, body, _ = push.got[-1]
    payload = json.loads(
        http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm")
    )
    assert payload == {
        "type": "your_turn",
        "match": match["id"],
        "turn_deadline": deadline,
        "text": "Your turn",
    }
    assert 0 < int(headers["ttl"]) <= 60


@pytest.mark.django_db
def test_a_push_whose_moment_has_passed_is_dropped_unsent(
    make_player, client_for, receiver, local_urls, vapid
):
    """A turn the clock has played, a challenge expired: their pushes, still waiting (a push
    service that answered 503, a worker that was down), are dropped, never sent late; a
    notice without such a moment keeps the server's WEB_PUSH_TTL_SECONDS."""
    push = receiver([201])
    _, token = make_player()
    _, _, keys = _browser_keys()
    endpoint = {"endpoint": f"{push.url}/push/bob", "keys": keys}
    made = client_for(token).post("/api/v1/me/push-subscriptions", endpoint, format="json")
    assert made.status_code == 201, made.content
    row = PushSubscription.objects.get(id=made.json()["id"])
    past = (timezone.now() - timedelta(seconds=1)).isoformat().replace("+00:00", "Z")
    for moot in (
        {"type": "your_turn", "match": "m", "turn_deadline": past},
        {"type": "challenge", "match": "m", "expires_at": past},
    ):
        waiting = PushMessage.objects.create(subscription=row, payload={**moot, "text": "x"})
        assert push_send(message_id=str(waiting.id)) is False
        assert not PushMessage.objects.filter(id=waiting.id).exists()
    assert push.got == []
    untimed = {"type": "tournament_round", "tournament": "t", "round": 2, "text": "x"}
    waiting = PushMessage.objects.create(subscription=row, payload=untimed)
    assert push_send(message_id=str(waiting.id)) is True
    ((_, headers, _, _),) = push.got
    assert int(headers["ttl"]) == django_settings.WEB_PUSH_TTL_SECONDS


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("hub_kind", ["in-process", "redis"])
def test_nothing_is_pushed_while_a_stream_is_open(
    make_player, client_for, receiver, local_urls, vapid, settings, hub_kind
):
    """A stream slot held (as an open stream holds one: in the process's hub, or in Redis
    over every web process) means the player is watching: their notice is not pushed."""
    if hub_kind == "redis":
        assert settings.CELERY_BROKER_URL.startswith("redis://")
        settings.LIVE_REDIS_URL = settings.CELERY_BROKER_URL
    else:
        settings.LIVE_REDIS_URL = ""
    push = receiver([201])
    (ana, ta), (bob, tb) = make_player(), make_player()
    for who, token in ((ana, ta), (bob, tb)):
        _, _, keys = _browser_keys()
        body = {"endpoint": f"{push.url}/push/{who.username}", "keys": keys}
        assert client_for(token).post("/api/v1/me/push-subscriptions", body, format="json")
    hub = events.hub()
    slots = {who: async_to_sync(hub.slot_take)(str(who.id)) for who in (ana, bob)}
    assert None not in slots.values()
    assert all(events.player_streaming(str(who.id)) for who in (ana, bob))
    try:
        match = create_match(client_for(ta), seats=2)
        assert client_for(tb).post(f"/api/v1/matches/{match['id']}/join").status_code == 200
        assert background_wait(20)
        assert push.got == []  # the one on turn is watching: nothing pushed
        assert not PushMessage.objects.exists()  # dropped: nothing waits
    finally:
        if hub_kind == "redis":
            import redis

            client = redis.Redis.from_url(settings.LIVE_REDIS_URL)
            prefix = settings.LIVE_CHANNEL_PREFIX
            client.delete(f"{prefix}:stream-lease:{hub._process}")
            for who in (ana, bob):
                client.delete(f"{prefix}:stream-slots:{who.id}")
        else:
            hub.slots.clear()
    # Away (no stream left): the next notice is pushed.
    assert not events.player_streaming(str(bob.id))
    _challenge(make_player, client_for, bob.username)
    assert background_wait(20)
    assert [path for path, _, _, _ in push.got] == [f"/push/{bob.username}"]


@pytest.mark.django_db(transaction=True)
def test_a_push_service_that_forgot_the_subscription_deletes_it(
    make_player, client_for, receiver, local_urls, vapid
):
    push = receiver([410])
    bob, token = make_player()
    _, _, keys = _browser_keys()
    body = {"endpoint": f"{push.url}/push/gone", "keys": keys}
    assert client_for(token).post("/api/v1/me/push-subscriptions", body, format="json")
    _challenge(make_player, client_for, bob.username)
    assert background_wait(20)
    assert len(push.got) == 1
    assert not PushSubscription.objects.filter(player=bob).exists()


@pytest.mark.django_db(transaction=True)
def test_a_push_service_that_keeps_failing_is_tried_six_times_then_given_up(
    make_player, client_for, receiver, local_urls, vapid
):
    push = receiver([503])
    bob, token = make_player()
    _, _, keys = _browser_keys()
    body = {"endpoint": f"{push.url}/push/busy", "keys": keys}
    assert client_for(token).post("/api/v1/me/push-subscriptions", body, format="json")
    _challenge(make_player, client_for, bob.username)
    assert background_wait(20)
    for tries in range(2, 8):
        _sweep()
        assert len(push.got) == min(tries, 6)
    assert not PushMessage.objects.exists()  # given up
    assert PushSubscription.objects.filter(player=bob).exists()  # the subscription stays


# ---- a subscription's session, a browser's endpoint ----


def _subscribe(key: str, endpoint: str, keys: dict[str, str] | None = None) -> Any:
    body = {"endpoint": endpoint, "keys": keys or _browser_keys()[2]}
    return client_with(key).post("/api/v1/me/push-subscriptions", body, format="json")


def _endpoints(player: Any) -> set[str]:
    return set(PushSubscription.objects.filter(player=player).values_list("endpoint", flat=True))


def _revoke_by_id(laptop: str, phone: str) -> None:
    rows = client_with(phone).get("/api/v1/auth/tokens").json()
    (phone_id,) = [row["id"] for row in rows if row["current"]]
    answer = client_with(laptop).post(f"/api/v1/auth/tokens/{phone_id}/revoke")
    assert answer.status_code == 204


def _password_change(laptop: str, phone: str) -> None:
    body = {"old_password": "s3cret-pass", "new_password": "an0ther-s3cret"}
    assert client_with(laptop).post("/api/v1/auth/password", body, format="json").status_code == 204


def _newer_logins(laptop: str, phone: str) -> None:
    """Past TOKEN_MAX_PER_USER, a login deletes the least recently used token: the phone's."""
    phone_token = ApiToken.objects.filter(digest=token_digest(phone))
    user_id = phone_token.get().user_id
    phone_token.update(last_used=timezone.now() - timedelta(days=1))
    for _ in range(django_settings.TOKEN_MAX_PER_USER - 1):
        api_token_create(user_id=user_id)


REVOCATIONS: dict[str, Callable[[str, str], None]] = {
    "logout": lambda laptop, phone: _posted(phone, "/api/v1/auth/logout"),
    "revoked from the session list": _revoke_by_id,
    "revoke-others": lambda laptop, phone: _posted(laptop, "/api/v1/auth/tokens/revoke-others"),
    "password change": _password_change,
    "newer logins": _newer_logins,
}


def _posted(key: str, path: str) -> None:
    answer = client_with(key).post(path)
    assert answer.status_code in (200, 204), answer.content


@pytest.mark.django_db
@pytest.mark.parametrize("revocation", list(REVOCATIONS))
def test_a_subscription_ends_with_the_session_that_made_it(
    make_player, settings, vapid, revocation
):
    """A phone signed out, by itself or from another device: nothing more is pushed to it; the
    laptop's subscription, of a session that stays, stays."""
    settings.NOTIFY_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    player, laptop = make_player()
    phone = api_token_create(user_id=player.user_id)
    for key, device in ((laptop, "laptop"), (phone, "phone")):
        assert _subscribe(key, f"https://127.0.0.1/push/{device}").status_code == 201
    (row,) = PushSubscription.objects.filter(endpoint="https://127.0.0.1/push/phone")
    assert row.token_id == token_digest(phone)
    waiting = PushMessage.objects.create(subscription=row, payload={"type": "your_turn"})
    REVOCATIONS[revocation](laptop, phone)
    assert client_with(phone).get("/api/v1/players/me").status_code == 401
    assert _endpoints(player) == {"https://127.0.0.1/push/laptop"}
    assert not PushMessage.objects.filter(id=waiting.id).exists()
    listed = client_with(laptop).get("/api/v1/me/push-subscriptions").json()
    assert [r["endpoint"] for r in listed] == ["https://127.0.0.1/push/laptop"]


@pytest.mark.django_db
def test_a_deactivated_account_s_subscriptions_all_end(make_player, settings, vapid):
    settings.NOTIFY_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    player, laptop = make_player()
    phone = api_token_create(user_id=player.user_id)
    for key, device in ((laptop, "laptop"), (phone, "phone")):
        assert _subscribe(key, f"https://127.0.0.1/push/{device}").status_code == 201
    user = get_user_model().objects.get(pk=player.user_id)
    user.is_active = False
    user.save()
    assert _endpoints(player) == set()


@pytest.mark.django_db
def test_a_rotated_token_keeps_its_subscriptions_until_the_new_one_is_revoked(
    make_player, settings, vapid
):
    settings.NOTIFY_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    player, key = make_player()
    made = _subscribe(key, "https://127.0.0.1/push/phone")
    assert made.status_code == 201
    rotated = client_with(key).post("/api/v1/auth/token/rotate").json()["token"]
    row = PushSubscription.objects.get(id=made.json()["id"])
    assert row.token_id == token_digest(rotated)
    listed = client_with(rotated).get("/api/v1/me/push-subscriptions").json()
    assert [r["id"] for r in listed] == [made.json()["id"]]
    _posted(rotated, "/api/v1/auth/logout")
    assert _endpoints(player) == set()


@pytest.mark.django_db
def test_an_endpoint_belongs_to_the_last_account_that_registered_it(make_player, settings, vapid):
    """One browser shared by two accounts, Ana's then Bob's: the endpoint moves to Bob, Ana's
    row (and what waited for it) goes; again from Bob (a new session): his keys and session
    replaced, still one row; again from Ana: hers."""
    settings.NOTIFY_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    endpoint = "https://127.0.0.1/push/shared"
    (ana, ana_key), (bob, bob_key) = make_player(), make_player()
    first = _subscribe(ana_key, endpoint)
    assert first.status_code == 201
    waiting = PushMessage.objects.create(
        subscription_id=first.json()["id"], payload={"type": "your_turn"}
    )
    moved = _subscribe(bob_key, endpoint)
    assert moved.status_code == 201, moved.content
    assert moved.json()["id"] != first.json()["id"]
    assert (_endpoints(ana), _endpoints(bob)) == (set(), {endpoint})
    assert not PushMessage.objects.filter(id=waiting.id).exists()
    assert client_with(ana_key).get("/api/v1/me/push-subscriptions").json() == []
    gone = f"/api/v1/me/push-subscriptions/{first.json()['id']}/delete"
    assert client_with(ana_key).post(gone).status_code == 404
    # Bob again, signed in anew: the same row, its keys and its session his new ones.
    bob_again = api_token_create(user_id=bob.user_id)
    _, _, keys = _browser_keys()
    again = _subscribe(bob_again, endpoint, keys)
    assert again.status_code == 200 and again.json()["id"] == moved.json()["id"]
    row = PushSubscription.objects.get(endpoint=endpoint)
    assert (row.p256dh, row.token_id) == (keys["p256dh"], token_digest(bob_again))
    _posted(bob_key, "/api/v1/auth/logout")  # the first session no longer holds it
    assert _endpoints(bob) == {endpoint}
    back = _subscribe(ana_key, endpoint)
    assert back.status_code == 201
    assert (_endpoints(ana), _endpoints(bob)) == ({endpoint}, set())
    assert PushSubscription.objects.filter(endpoint=endpoint).count() == 1


@pytest.mark.django_db
def test_a_moved_endpoint_counts_towards_its_new_player_s_limit(make_player, settings, vapid):
    settings.NOTIFY_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    settings.WEB_PUSH_MAX_PER_PLAYER = 1
    (ana, ana_key), (_, bob_key) = make_player(), make_player()
    assert _subscribe(ana_key, "https://127.0.0.1/push/shared").status_code == 201
    assert _subscribe(bob_key, "https://127.0.0.1/push/bob").status_code == 201
    refused = _subscribe(bob_key, "https://127.0.0.1/push/shared")
    assert refused.status_code == 400 and "endpoint" in refused.json()["detail"]
    assert _endpoints(ana) == {"https://127.0.0.1/push/shared"}  # nothing moved


@pytest.mark.django_db
def test_a_token_revoked_while_subscribing_is_401_and_keeps_nothing(make_player, settings, vapid):
    settings.NOTIFY_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    player, key = make_player()
    token = ApiToken.objects.get(digest=token_digest(key))
    ApiToken.objects.filter(digest=token.digest).delete()
    with pytest.raises(ApplicationError) as refused:
        push_subscribe(
            player=player,
            token=token,
            endpoint="https://127.0.0.1/push/late",
            **_browser_keys()[2],
        )
    assert refused.value.code == "not_authenticated"
    assert _endpoints(player) == set()


@pytest.mark.django_db(transaction=True)
def test_a_signed_out_device_and_a_browser_s_former_account_are_pushed_nothing(
    make_player, client_for, receiver, local_urls, vapid
):
    push = receiver([201])
    ana, laptop = make_player()
    phone = api_token_create(user_id=ana.user_id)
    bob, bob_key = make_player()
    assert _subscribe(laptop, f"{push.url}/push/laptop").status_code == 201
    assert _subscribe(phone, f"{push.url}/push/phone").status_code == 201
    # The laptop's browser is Bob's now; the phone is signed out from the laptop.
    assert _subscribe(bob_key, f"{push.url}/push/laptop").status_code == 201
    _posted(laptop, "/api/v1/auth/tokens/revoke-others")
    _challenge(make_player, client_for, ana.username)
    assert background_wait(20)
    assert push.got == []
    _challenge(make_player, client_for, bob.username)
    assert background_wait(20)
    assert [path for path, _, _, _ in push.got] == ["/push/laptop"]


@pytest.mark.django_db(transaction=True)
def test_a_device_whose_session_went_idle_is_pushed_nothing(
    make_player, client_for, receiver, local_urls, vapid, settings
):
    """A session unused for TOKEN_IDLE_SECONDS no longer signs its device in: the device is
    not told the player's turns either, though its token row stays until a login clears it."""
    from players.models import ApiToken, token_digest

    push = receiver([201])
    ana, laptop = make_player()
    phone = api_token_create(user_id=ana.user_id)
    assert _subscribe(laptop, f"{push.url}/push/laptop").status_code == 201
    assert _subscribe(phone, f"{push.url}/push/phone").status_code == 201
    idle = timezone.now() - timedelta(seconds=settings.TOKEN_IDLE_SECONDS + 60)
    ApiToken.objects.filter(digest=token_digest(phone)).update(last_used=idle)
    _challenge(make_player, client_for, ana.username)
    assert background_wait(20)
    assert [path for path, _, _, _ in push.got] == ["/push/laptop"]


# ---- webhooks ----


def _verify(secret: str, headers: dict[str, str], body: bytes, tolerance: int = 300) -> bool:
    """What a receiver does: the signed timestamp is recent and the HMAC matches."""
    import time

    parts = dict(item.split("=", 1) for item in headers["pisyedili-signature"].split(","))
    expected = hmac.new(
        secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256
    ).hexdigest()
    return abs(time.time() - int(parts["t"])) < tolerance and hmac.compare_digest(
        expected, parts["v1"]
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/x",
        "https://127.0.0.1/x",
        "https://127.1.2.3:8443/x",
        "https://10.0.0.1/x",
        "https://172.16.5.4/x",
        "https://192.168.1.1/x",
        "https://169.254.169.254/latest/meta-data",
        "https://100.64.0.1/x",
        "https://[::1]/x",
        "https://[fe80::1]/x",
        "https://[fc00::1]/x",
        "https://[::ffff:127.0.0.1]/x",
        # IPv6 forms that reach a private IPv4 address: NAT64, IPv4-compatible, translated,
        # 6to4 (of 10.0.0.1 and of 127.0.0.1), and NAT64's local-use prefix (reserved).
        "https://[64:ff9b::a00:1]/x",
        "https://[::a00:1]/x",
        "https://[::ffff:0:a00:1]/x",
        "https://[2002:a00:1::1]/x",
        "https://[2002:7f00:1::1]/x",
        "https://[64:ff9b:1::1]/x",
        "https://0.0.0.0/x",
        "https://localhost/x",
        "https://user:pw@127.0.0.1/x",
        "ftp://hooks.example.com/x",
        "not a url",
        "",
    ],
)
def test_a_webhook_url_into_the_server_s_own_networks_is_refused(make_player, client_for, url):
    player, token = make_player()
    response = client_for(token).post("/api/v1/me/webhooks", {"url": url}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid" and "url" in response.json()["detail"]
    assert not Webhook.objects.filter(player=player).exists()


def test_a_public_address_in_an_ipv6_form_is_judged_as_its_ipv4_one():
    from games.services.notify import address_allowed

    assert address_allowed("2606:4700:4700::1111")
    assert address_allowed("64:ff9b::808:808")  # 8.8.8.8 through NAT64
    assert address_allowed("2002:808:808::1")  # 8.8.8.8's 6to4
    assert not address_allowed("2002:a00:1::1")
    assert not address_allowed("2001:db8::1")  # documentation


def test_a_connection_into_the_server_s_own_network_is_cut_before_a_byte(receiver, settings):
    """Whatever the name resolved to when it was checked, the address a POST reaches is checked
    again at connect time (a name that resolves elsewhere meanwhile: DNS rebinding)."""
    import requests

    from games.services.notify import outbound_session

    settings.NOTIFY_ALLOWED_NETWORKS = []
    target = receiver([200])
    with pytest.raises(requests.ConnectionError, match="not an address to POST to"):
        outbound_session().post(f"{target.url}/in", data=b"{}", timeout=5)
    assert target.got == []
    settings.NOTIFY_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    assert outbound_session().post(f"{target.url}/in", data=b"{}", timeout=5).status_code == 200
    assert len(target.got) == 1


@pytest.mark.django_db
def test_webhooks_list_bound_delete_and_go_with_the_account(
    make_player, client_for, settings, vapid
):
    settings.NOTIFY_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    settings.WEBHOOK_MAX_PER_PLAYER = 2
    player, token = make_player()
    client = client_for(token)
    made = client.post("/api/v1/me/webhooks", {"url": "https://127.0.0.1/a"}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["secret"].startswith("whsec_") and made.json()["active"] is True
    assert client.post("/api/v1/me/webhooks", {"url": "https://127.0.0.1/b"}, format="json")
    third = client.post("/api/v1/me/webhooks", {"url": "https://127.0.0.1/c"}, format="json")
    assert third.status_code == 400 and "url" in third.json()["detail"]
    listed = client.get("/api/v1/me/webhooks").json()
    assert [row["url"] for row in listed] == ["https://127.0.0.1/a", "https://127.0.0.1/b"]
    assert all("secret" not in row for row in listed)
    assert client.post(f"/api/v1/me/webhooks/{listed[0]['id']}/delete").status_code == 204
    assert client.post(f"/api/v1/me/webhooks/{listed[0]['id']}/delete").status_code == 404
    _, _, keys = _browser_keys()
    body = {"endpoint": "https://127.0.0.1/push", "keys": keys}
    assert client.post("/api/v1/me/push-subscriptions", body, format="json").status_code == 201
    deleted = client.post("/api/v1/auth/account/delete", {"password": "s3cret-pass"}, format="json")
    assert deleted.status_code == 204
    assert not Webhook.objects.filter(player=player).exists()
    assert not PushSubscription.objects.filter(player=player).exists()


@pytest.mark.django_db
def test_notification_writes_are_throttled_per_user(make_player, client_for, monkeypatch):
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "notify": "2/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    _, token = make_player()
    client = client_for(token)
    for _ in range(2):
        refused = client.post("/api/v1/me/webhooks", {"url": "ftp://x"}, format="json")
        assert refused.status_code == 400
    third = client.post("/api/v1/me/webhooks", {"url": "ftp://x"}, format="json")
    assert third.status_code == 429 and third.json()["code"] == "throttled"
    assert client.get("/api/v1/me/webhooks").status_code == 200  # reading is not a write


@pytest.mark.django_db(transaction=True)
def test_a_webhook_is_signed_retried_after_a_500_and_sees_each_event_once(
    make_player, client_for, receiver, local_urls
):
    hook = receiver([500, 200])
    bob, token = make_player()
    made = client_for(token).post("/api/v1/me/webhooks", {"url": f"{hook.url}/in"}, format="json")
    assert made.status_code == 201, made.content
    secret = made.json()["secret"]
    match = _challenge(make_player, client_for, bob.username)
    assert background_wait(30)
    assert [code for _, _, _, code in hook.got] == [500]
    (waiting,) = WebhookDelivery.objects.all()
    assert waiting.attempts == 1
    _sweep()  # its next try
    assert [code for _, _, _, code in hook.got] == [500, 200]
    assert not WebhookDelivery.objects.exists()
    seen: dict[str, dict[str, Any]] = {}
    for _, headers, body, code in hook.got:
        assert _verify(secret, headers, body)
        assert not _verify("whsec_wrong", headers, body)
        event = json.loads(body)
        assert headers["pisyedili-delivery"] == event["id"]
        assert _no_card(event)
        if code == 200:
            assert event["id"] not in seen  # a receiver drops repeats by id
            seen[event["id"]] = event
    (event,) = seen.values()
    assert {k: event[k] for k in ("type", "match", "player")} == {
        "type": "challenge",
        "match": match["id"],
        "player": str(bob.id),
    }
    assert len({json.loads(body)["id"] for _, _, body, _ in hook.got}) == 1  # one id, two tries
    # Delivered: the task run again (a redelivered message) sends nothing.
    webhook_deliver_task.apply(args=(event["id"],))
    assert len(hook.got) == 2
    assert Webhook.objects.get(id=made.json()["id"]).failures == 0


@pytest.mark.django_db(transaction=True)
def test_a_webhook_that_keeps_failing_is_turned_off(
    make_player, client_for, receiver, local_urls, settings
):
    """WEBHOOK_MAX_FAILURES notices dropped in a row, each after all its tries, turn it off."""
    settings.WEBHOOK_MAX_FAILURES = 2
    hook = receiver([500])
    bob, token = make_player()
    made = client_for(token).post("/api/v1/me/webhooks", {"url": f"{hook.url}/in"}, format="json")
    for _ in range(2):
        _challenge(make_player, client_for, bob.username)
        assert background_wait(30)
        for _ in range(6):
            _sweep()
    assert len(hook.got) == 2 * 6  # every try of both notices
    webhook = Webhook.objects.get(id=made.json()["id"])
    assert not webhook.active and webhook.disabled_at is not None and webhook.failures == 2
    assert not WebhookDelivery.objects.exists()
    _challenge(make_player, client_for, bob.username)  # nothing more is sent to it
    assert background_wait(30)
    _sweep()
    assert len(hook.got) == 12
    listed = client_for(token).get("/api/v1/me/webhooks").json()
    assert listed[0]["active"] is False and listed[0]["failures"] == 2


@pytest.mark.django_db(transaction=True)
def test_a_receiver_down_for_a_while_loses_no_notice_and_keeps_its_webhook(
    make_player, client_for, receiver, local_urls, settings
):
    """A receiver that fails every try but the last of each notice (a redeploy, an outage
    shorter than the backoff): each notice arrives, and however many tries failed the webhook
    stays on (it counts notices dropped, not tries)."""
    settings.WEBHOOK_MAX_FAILURES = 2
    hook = receiver(([500] * 5 + [200]) * 3)
    bob, token = make_player()
    made = client_for(token).post("/api/v1/me/webhooks", {"url": f"{hook.url}/in"}, format="json")
    for _ in range(3):
        _challenge(make_player, client_for, bob.username)
        assert background_wait(30)
        for _ in range(6):
            _sweep()
    assert [code for *_, code in hook.got] == ([500] * 5 + [200]) * 3
    webhook = Webhook.objects.get(id=made.json()["id"])
    assert webhook.active and webhook.failures == 0
    assert not WebhookDelivery.objects.exists()


class SlowReceiver:
    """A receiver that answers `200` with `answer`'s headers at once, then its body a byte every
    `every` seconds (or at once); it notes when each connection was closed by the other end."""

    def __init__(self, headers: bytes, body: bytes, every: float = 0.0) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/in"
        self.headers, self.body, self.every = headers, body, every
        self.closed: list[float] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            try:
                conn.sendall(self.headers)
                if not self.every:
                    conn.sendall(self.body)
                    conn.recv(1)
                for i in range(len(self.body)):
                    time.sleep(self.every)
                    conn.sendall(self.body[i : i + 1])
            except OSError:
                pass
            self.closed.append(time.monotonic())

    def close(self) -> None:
        self.listener.close()


def _delivery(player: Any, url: str) -> WebhookDelivery:
    hook = Webhook.objects.create(player=player, url=url, secret="whsec_x")
    return WebhookDelivery.objects.create(webhook=hook, payload={"type": "your_turn"})


@pytest.mark.django_db
@pytest.mark.parametrize("slow_part", ["status", "body"])
def test_a_receiver_that_trickles_its_answer_is_cut_at_the_timeout(
    make_player, local_urls, settings, slow_part
):
    """NOTIFY_TIMEOUT_SECONDS bounds the whole POST, not each wait for a byte: a receiver that
    sends its answer a byte at a time holds the worker no longer. Its status line cut off: a
    failed try; a 200 whose body is cut off: delivered (its status is all that counts)."""
    settings.NOTIFY_TIMEOUT_SECONDS = 1
    if slow_part == "status":
        slow = SlowReceiver(b"", b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0.2)
    else:
        slow = SlowReceiver(b"HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n", b"x" * 40, 0.2)
    player, _ = make_player()
    row = _delivery(player, slow.url)
    started = time.monotonic()
    if slow_part == "status":
        with pytest.raises(RetryLater):
            webhook_deliver(delivery_id=str(row.id))
        assert WebhookDelivery.objects.get(id=row.id).attempts == 1
    else:
        assert webhook_deliver(delivery_id=str(row.id)) is True
    took = time.monotonic() - started
    slow.close()
    assert took < 2.5, took  # 8 s for the whole answer


@pytest.mark.django_db(transaction=True)
def test_a_slow_receiver_holds_no_other_background_work(make_player, local_urls, settings):
    """In the embedded default a notice's POST runs on threads of its own: a receiver that keeps
    it waiting holds neither the background pool's work (a turn clock, a sweep) nor the other
    notices."""
    settings.NOTIFY_TIMEOUT_SECONDS = 3
    slow = SlowReceiver(b"", b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0.1)
    fast = SlowReceiver(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", b"")
    player, _ = make_player()
    held, quick = _delivery(player, slow.url), _delivery(player, fast.url)
    started = time.monotonic()
    send("games.webhook_deliver", str(held.id))
    ran: list[float] = []
    background_submit(lambda: ran.append(time.monotonic()))
    send("games.webhook_deliver", str(quick.id))
    assert background_wait(20)
    slow.close()
    fast.close()
    assert ran and ran[0] - started < 1.0, ran  # the slow POST is cut at 3 s
    assert fast.closed and fast.closed[0] - started < 1.0, fast.closed
    assert not WebhookDelivery.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_receiver_s_answer_is_never_unpacked(make_player, local_urls):
    """A small gzip answer that unpacks to 64 MB: only its status is read (delivered), and the
    POST holds well under a megabyte."""
    packed = gzip.compress(b"\0" * (64 << 20))
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
        + f"Content-Length: {len(packed)}\r\n\r\n".encode()
    )
    bomb = SlowReceiver(head, packed)
    player, _ = make_player()
    row = _delivery(player, bomb.url)
    tracemalloc.start()
    try:
        assert webhook_deliver(delivery_id=str(row.id)) is True
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        bomb.close()
    assert peak < 1 << 20, peak
    assert not WebhookDelivery.objects.filter(id=row.id).exists()


@pytest.mark.django_db(transaction=True)
def test_a_tournament_invitation_reaches_the_invitees_webhook(
    make_player, client_for, receiver, local_urls
):
    hook = receiver([200])
    bob, token = make_player()
    made = client_for(token).post("/api/v1/me/webhooks", {"url": f"{hook.url}/in"}, format="json")
    assert made.status_code == 201, made.content
    _, organizer = make_player()
    body = {"name": "cup", "players": [str(bob.id)], "bots": ["random"], "format": "swiss"}
    body |= {"table_size": 2, "deals": 1}
    created = client_for(organizer).post("/api/v1/tournaments", body, format="json")
    assert created.status_code == 201, created.content
    assert background_wait(30)
    ((_, headers, raw, code),) = hook.got
    event = json.loads(raw)
    assert code == 200 and _verify(made.json()["secret"], headers, raw) and _no_card(event)
    assert {k: event[k] for k in ("type", "tournament", "player")} == {
        "type": "tournament_invitation",
        "tournament": created.json()["id"],
        "player": str(bob.id),
    }


def _noticing(statements: list[str]) -> list[str]:
    return [s for s in statements if '"games_pushsubscription"' in s or '"games_webhook"' in s]


def _match_read(statement: str) -> bool:
    """The statement reads a match row by its id (games.services.locks.move_lock): without
    the lock for a guarded move (PostgreSQL), locked where the move runs under the lock."""
    return statement.startswith("SELECT") and ' FROM "games_match" WHERE "id" = ' in statement


def _told_your_turn(hook: Receiver, match_id: str, player: Any) -> None:
    """Once the background notices are out: the last notice `hook` got is `player`'s
    `your_turn` in the match, and none it got names a card."""
    assert background_wait(30)
    told = [json.loads(body) for _, _, body, _ in hook.got]
    assert told and {k: told[-1][k] for k in ("type", "match", "player")} == {
        "type": "your_turn",
        "match": match_id,
        "player": str(player),
    }
    assert all(_no_card(event) for event in told)


@pytest.mark.django_db(transaction=True)
def test_a_move_looks_up_no_notice_target_apart_and_still_tells_the_next_person(
    make_player, client_for, receiver, local_urls
):
    """A person's move reads in its match read whether anyone seated has a push
    subscription or an active webhook (games.sql.notices_wanted): with no one, no other
    statement of the move or of its commit reads them; once the next person has a webhook,
    their `your_turn` is delivered to it."""
    _, ta = make_player()
    bob, tb = make_player()
    ca, cb = client_for(ta), client_for(tb)
    match = create_match(ca)
    assert cb.post(f"/api/v1/matches/{match['id']}/join").status_code == 200

    def move() -> tuple[int, int, list[str]]:
        """The seat on turn plays its first legal move; that seat, the seat on turn after it and
        the statements the request ran (its commit's included)."""
        seat = state(ca, match["id"])["turn"]
        mover = (ca, cb)[seat]
        view = state(mover, match["id"])
        key = f"k-{view['version']}"
        with CaptureQueriesContext(connection) as captured:
            answer = post_move(
                mover,
                match["id"],
                view["legal_moves"][0],
                view["version"],
                HTTP_IDEMPOTENCY_KEY=key,
            )
        assert answer.status_code == 200, answer.content
        return seat, answer.json()["turn"], [q["sql"] for q in captured.captured_queries]

    _, _, statements = move()
    (read,) = _noticing(statements)
    assert _match_read(read), read
    assert not WebhookDelivery.objects.exists()

    hook = receiver([200] * 8)
    made = cb.post("/api/v1/me/webhooks", {"url": f"{hook.url}/in"}, format="json")
    assert made.status_code == 201, made.content
    # Until the turn comes to bob (not his own draw that leaves it with him: no notice then).
    seat, turn, statements = move()
    while (seat, turn) != (0, 1):
        seat, turn, statements = move()
    assert len(_noticing(statements)) > 1  # now someone has a target: the commit looks it up
    _told_your_turn(hook, match["id"], bob.id)


@pytest.mark.django_db(transaction=True)
def test_a_bot_turn_looks_up_no_notice_target_apart_and_still_tells_the_person(
    make_player, client_for, receiver, local_urls
):
    """A bot's turn (games.match_play_bot_turn, run at the person's move's commit in the
    embedded default) reads whether anyone seated has somewhere to be sent notices in its own
    match read, as a person's move does: with no one, every statement
    of the person's move and of the bot turns after it that reads the push subscriptions or
    the webhooks is a read of the match row; once the person has a webhook, the bot's move
    that hands them the turn delivers their `your_turn` to it."""
    alice, ta = make_player()
    ca = client_for(ta)
    match = create_match(ca, bots=["greedy"])

    def move() -> list[str]:
        """The person plays their first legal move once on turn; the statements of the
        request, the bot turns sent at its commit included."""
        view = state(ca, match["id"])
        assert view["turn"] == 0 and view["status"] == "active", view
        with CaptureQueriesContext(connection) as captured:
            answer = post_move(ca, match["id"], view["legal_moves"][0], view["version"])
        assert answer.status_code == 200, answer.content
        return [q["sql"] for q in captured.captured_queries]

    def bot_moved(statements: list[str]) -> bool:
        return sum('"games_move"' in s and "INSERT" in s for s in statements) > 1

    statements = move()
    while not bot_moved(statements):
        statements = move()
    noticing = _noticing(statements)
    assert len(noticing) >= 2  # the person's match read and the bot's
    assert all(_match_read(s) for s in noticing), noticing
    assert not WebhookDelivery.objects.exists()

    hook = receiver([200] * 8)
    made = ca.post("/api/v1/me/webhooks", {"url": f"{hook.url}/in"}, format="json")
    assert made.status_code == 201, made.content
    while not bot_moved(move()):
        pass
    _told_your_turn(hook, match["id"], alice.id)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="guarded writes: PostgreSQL")
def test_a_socket_move_written_from_the_held_match_still_tells_the_next_person(
    make_player, client_for, receiver, local_urls
):
    """A socket's move written without reading the match (games.services.Held) asks in its
    write whether anyone seated has somewhere to be sent notices, as the read would: the next
    person's webhook is told `your_turn`."""
    from .test_held_moves import Table, _body

    table = Table(make_player, client_for)
    seat = table.on_turn()
    hook = receiver([200] * 8)
    made = table.clients[1 - seat].post(
        "/api/v1/me/webhooks", {"url": f"{hook.url}/in"}, format="json"
    )
    assert made.status_code == 201, made.content
    while table.on_turn() == seat:
        status, data, statements = table.send(seat, _body(table.view(seat)), None, table.held())
        assert status == 200, data
        assert not any(_match_read(s) for s in statements), statements
    _told_your_turn(hook, table.id, Match.objects.get(id=table.id).seat_players[1 - seat])
