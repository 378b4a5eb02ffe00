"""Notices to away players (docs/api.md "Notifications"): Web Push (RFC 8030, the message
encrypted to the browser's keys by RFC 8291 and signed with the server's VAPID key, RFC 8292:
pywebpush) and webhooks (a POST signed with HMAC-SHA256, as Stripe signs its own).

The `me` events `your_turn`, `challenge` and `tournament_round` (games.events) become notices
once published: `notices_send` writes one PushMessage per push subscription and one
WebhookDelivery per active webhook of the people they concern, and sends `games.push_send` /
`games.webhook_deliver` for each (a worker's work, on CELERY_NOTIFY_QUEUE). A failed try is
retried with backoff (Celery's retry on a worker; games.sweep in the embedded default, which
has no worker to wait), NOTIFY_TRIES tries in all; games.sweep also sends again what a lost
task left waiting. A push goes only
to a player with no open stream (they see the event live otherwise); a webhook gets every
notice. A notice holds its kind, the match or tournament id and a short text: never a card
(`notice`, which copies what it names and nothing else).

Both POST to URLs a player gave, so each is checked when it is given and again before each
POST (`url_check`): https, and every address its host resolves to outside the server's own
networks (loopback, private, link-local, shared, reserved), unless NOTIFY_ALLOW_HTTP and
NOTIFY_ALLOWED_NETWORKS say otherwise; and the address each connection reaches is checked the
same way before a byte is sent (outbound_session), so a name that resolves elsewhere meanwhile
reaches nothing more. No redirect is followed, no proxy of the environment is used.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import hmac
import ipaddress
import logging
import math
import secrets
import socket
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID

import orjson
import requests
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import NewConnectionError

from pisyedili_api import rawsql
from pisyedili_api.errors import ApplicationError, invalid
from pisyedili_api.renderers import json_datetime
from pisyedili_api.tasks import RetryLater, in_background, send
from players.models import ApiToken, Player

from .. import sql
from ..models import PushMessage, PushSubscription, Webhook, WebhookDelivery

logger = logging.getLogger(__name__)

# The `me` events that are worth telling a player who is away, and the short text of each (in
# English: a client shows its own words by `type`).
NOTICE_TEXTS = {
    "your_turn": "Your turn",
    "challenge": "You are challenged to a match",
    "tournament_round": "A tournament round is dealt",
    "tournament_invitation": "You are invited to a tournament",
}
# What a notice copies of its event, by kind: ids, numbers and the moment past which it is
# moot (the turn clock's deadline, the challenge's expiry), nothing else.
_NOTICE_FIELDS = {
    "your_turn": ("match", "turn_deadline"),
    "challenge": ("match", "expires_at"),
    "tournament_round": ("tournament", "round"),
    "tournament_invitation": ("tournament",),
}
# Tries of one notice: the first and 5 retries (as idempotent_task retries a transient error),
# the n-th retry NOTIFY_RETRY_SECONDS × 2^(n-1) after the failure before it (at most 30 s).
NOTIFY_TRIES = 6
RETRY_MAX_SECONDS = 30.0
# A notice still waiting this long past its due time lost its task (the broker down when it was
# sent, a worker killed): games.sweep sends it again (NOTIFY_SWEEP_BATCH at a time per kind).
NOTIFY_LOST_SECONDS = 60.0
NOTIFY_SWEEP_BATCH = 500
SIGNATURE_HEADER = "Pisyedili-Signature"
DELIVERY_HEADER = "Pisyedili-Delivery"
PUSH_DISABLED = gettext_noop("Web Push is off on this server: it has no VAPID key.")


def notice(event: dict[str, Any]) -> dict[str, Any]:
    """The notice of a `me` event (one of NOTICE_TEXTS): its kind, the match (or tournament and
    round) it names, and a short text."""
    kind = event["type"]
    fields = {name: event[name] for name in _NOTICE_FIELDS[kind]}
    return {"type": kind, **fields, "text": NOTICE_TEXTS[kind]}


# ---- where the server may POST ----


def _allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(net, strict=False) for net in settings.NOTIFY_ALLOWED_NETWORKS]


# IPv6 forms that carry an IPv4 address in their last 32 bits: NAT64's well-known prefix
# (RFC 6052), the IPv4-translated (RFC 2765) and the old IPv4-compatible addresses.
_IPV4_IN_LAST_32_BITS = tuple(
    ipaddress.ip_network(net) for net in ("64:ff9b::/96", "::ffff:0:0:0/96", "::/96")
)


def _as_ipv4(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> Any:
    """The IPv4 address an IPv6 address reaches through (mapped, 6to4, Teredo's client, NAT64,
    translated, compatible), else `ip` itself."""
    if isinstance(ip, ipaddress.IPv4Address):
        return ip
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if any(ip in net for net in _IPV4_IN_LAST_32_BITS):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def address_allowed(address: str) -> bool:
    """Whether the server may connect to `address`: a global address (neither multicast nor
    reserved), or one of NOTIFY_ALLOWED_NETWORKS; an IPv6 address that carries an IPv4 one
    (mapped, 6to4, NAT64…) is judged as that IPv4 address."""
    ip = _as_ipv4(ipaddress.ip_address(address.split("%", 1)[0]))
    if any(ip in net for net in _allowed_networks()):
        return True
    return ip.is_global and not ip.is_multicast and not ip.is_reserved


def url_check(url: str, field: str) -> None:
    """400 `invalid` naming `field` unless the server may POST to `url`: https (http too with
    NOTIFY_ALLOW_HTTP), a host and no credentials, and every address the host resolves to
    allowed (address_allowed)."""
    schemes = ("https", "http") if settings.NOTIFY_ALLOW_HTTP else ("https",)
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise invalid(field, _("not a URL")) from None
    if parts.scheme not in schemes or not parts.hostname:
        raise invalid(field, _("must be an https URL"))
    if parts.username is not None or parts.password is not None:
        raise invalid(field, _("must not hold a user name or password"))
    try:
        found = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        raise invalid(field, _("its host does not resolve")) from None
    if not found or not all(address_allowed(str(info[4][0])) for info in found):
        raise invalid(field, _("its host is in a private or local network"))


# The bytes of a receiver's answer read at most (never decompressed): only its status counts.
ANSWER_MAX_BYTES = 4096
_deadlines = threading.local()


class _Deadline:
    """The whole of one POST within `seconds` (NOTIFY_TIMEOUT_SECONDS): requests' timeout bounds
    each wait for a byte, so a receiver sending one byte a second would hold the worker for as
    long as it liked. A timer shuts the connections the POST opened once the time is up (their
    read then fails: a failed try)."""

    def __init__(self, seconds: float) -> None:
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = []
        self.expired = False
        self.timer = threading.Timer(seconds, self.expire)
        self.timer.daemon = True

    def opened(self, sock: socket.socket) -> None:
        with self.lock:
            self.sockets.append(sock)
            if not self.expired:
                return
        self.expire()

    def expire(self) -> None:
        with self.lock:
            self.expired = True
            sockets = list(self.sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> _Deadline:
        _deadlines.current = self
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()
        _deadlines.current = None


class _Guarded:
    """A connection of the notices' session: the address it reached is checked before a byte
    is sent (address_allowed), so a host that resolves elsewhere between url_check and the
    POST (DNS rebinding) reaches nothing of the server's own networks; and it is shut at the
    POST's deadline (_Deadline)."""

    def _new_conn(self) -> socket.socket:
        sock: socket.socket = super()._new_conn()  # type: ignore[misc]
        address = str(sock.getpeername()[0])
        if not address_allowed(address):
            sock.close()
            raise NewConnectionError(self, f"{address} is not an address to POST to")  # type: ignore[arg-type]
        deadline: _Deadline | None = getattr(_deadlines, "current", None)
        if deadline is not None:
            deadline.opened(sock)
        return sock


class _GuardedHTTPConnection(_Guarded, HTTPConnection):
    pass


class _GuardedHTTPSConnection(_Guarded, HTTPSConnection):
    pass


class _GuardedAdapter(HTTPAdapter):
    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": type("Pool", (HTTPConnectionPool,), {"ConnectionCls": _GuardedHTTPConnection}),
            "https": type(
                "Pool", (HTTPSConnectionPool,), {"ConnectionCls": _GuardedHTTPSConnection}
            ),
        }


class _OutboundSession(requests.Session):
    """Each request whole within NOTIFY_TIMEOUT_SECONDS (_Deadline), and at most
    ANSWER_MAX_BYTES of its answer's body read, as sent (a small gzip body that unpacks to
    gigabytes is never unpacked), then the connection closed: only the status counts.
    pywebpush reads the body it gets (`.text`), hence here and not in each caller."""

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        kwargs["stream"] = True
        with _Deadline(settings.NOTIFY_TIMEOUT_SECONDS):
            response = super().send(request, **kwargs)
            try:
                body = response.raw.read(ANSWER_MAX_BYTES, decode_content=False)
            except Exception:  # the answer cut off (the deadline): its status stands
                body = b""
            finally:
                response.close()
        response._content = body  # requests' own field for a body already read
        return response


def outbound_session() -> requests.Session:
    """The requests session of every push and webhook POST: guarded connections (_Guarded),
    answers read no further than their status (_OutboundSession), and no proxy from the
    environment (the address reached must be the URL's own)."""
    session = _OutboundSession()
    session.trust_env = False
    for scheme in ("http://", "https://"):
        session.mount(scheme, _GuardedAdapter())
    return session


# ---- Web Push ----


@functools.lru_cache(maxsize=4)
def _vapid(private_key: str) -> Any:
    from py_vapid import Vapid

    return Vapid.from_string(private_key=private_key)


def push_enabled() -> bool:
    return bool(settings.WEB_PUSH_VAPID_PRIVATE_KEY)


def vapid_public_key() -> str | None:
    """The server's VAPID public key (the browser's `applicationServerKey`): base64url of the
    uncompressed P-256 point; None while push is off."""
    if not push_enabled():
        return None
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    key = _vapid(settings.WEB_PUSH_VAPID_PRIVATE_KEY).public_key
    raw = key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def push_subscribe(
    *, player: Player, token: ApiToken, endpoint: str, p256dh: str, auth: str
) -> tuple[PushSubscription, bool]:
    """Keep the browser subscription of `player`, registered by the session `token` (it goes
    when the token is revoked); whether it is new. An endpoint is one browser: the same one
    again from `player` replaces its keys and its session; one another player holds moves to
    `player` (the other's row deleted, its waiting messages with it). 409 `push_disabled`
    without a VAPID key; 400 `invalid` naming `endpoint` for a URL the server may not POST to
    or beyond WEB_PUSH_MAX_PER_PLAYER; 401 for a token revoked meanwhile."""
    if not push_enabled():
        raise ApplicationError("push_disabled", _(PUSH_DISABLED))
    url_check(endpoint, "endpoint")
    kept = functools.partial(
        _push_subscription_keep,
        player=player,
        token=token,
        endpoint=endpoint,
        p256dh=p256dh,
        auth=auth,
    )
    try:
        return kept()
    except IntegrityError:
        # The endpoint registered by another player meanwhile (tried again, it moves from
        # them), or the token revoked meanwhile (tried again, it is gone: 401).
        return kept()


def _push_subscription_keep(
    *, player: Player, token: ApiToken, endpoint: str, p256dh: str, auth: str
) -> tuple[PushSubscription, bool]:
    with transaction.atomic():
        Player.objects.select_for_update().filter(id=player.id).first()  # one count at a time
        if not ApiToken.objects.filter(digest=token.digest).exists():
            raise ApplicationError("not_authenticated", "Invalid token.")
        found = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        if found is not None and found.player_id == player.id:
            found.p256dh, found.auth, found.token_id = p256dh, auth, token.digest
            found.save(update_fields=["p256dh", "auth", "token"])
            return found, False
        limit = settings.WEB_PUSH_MAX_PER_PLAYER
        if PushSubscription.objects.filter(player=player).count() >= limit:
            message = _("at most %(limit)d push subscriptions per player") % {"limit": limit}
            raise invalid("endpoint", message)
        if found is not None:
            found.delete()  # another player's: the browser is this player's now
        created = PushSubscription.objects.create(
            player=player, token_id=token.digest, endpoint=endpoint, p256dh=p256dh, auth=auth
        )
        return created, True


def push_unsubscribe(*, player: Player, subscription_id: Any) -> None:
    deleted, _rows = PushSubscription.objects.filter(id=subscription_id, player=player).delete()
    if not deleted:
        raise ApplicationError("not_found", _("No such push subscription."))


def _push_ttl(payload: dict[str, Any]) -> int | None:
    """How long a push service may hold the notice `payload` for a browser that is off:
    WEB_PUSH_TTL_SECONDS, or less, up to the moment past which the notice is moot (a turn's
    clock deadline, a challenge's expiry); None once that has passed (the clock has played
    the turn, the invitation has expired): not worth a buzz any more."""
    moot = payload.get("turn_deadline") or payload.get("expires_at")
    if not moot:
        return int(settings.WEB_PUSH_TTL_SECONDS)
    left = math.ceil((datetime.fromisoformat(moot) - timezone.now()).total_seconds())
    return min(int(settings.WEB_PUSH_TTL_SECONDS), left) if left > 0 else None


def push_send(*, message_id: str) -> bool:
    """Push the waiting message `message_id` to its subscription, unless its player has an
    open stream now (dropped: they see the event live) or its moment has passed (`_push_ttl`).
    Whether it was sent. A push service
    that answers 404/410 (the subscription is gone) deletes the subscription; 429 or 5xx, or
    no answer, is RetryLater; any other refusal drops the message."""
    from pywebpush import WebPushException, webpush

    from live import hub

    row = PushMessage.objects.select_related("subscription").filter(id=message_id).first()
    if row is None:
        return False  # sent already, or given up
    subscription = row.subscription
    ttl = _push_ttl(row.payload)
    if not push_enabled() or ttl is None or hub.player_streaming(str(subscription.player_id)):
        row.delete()
        return False
    try:
        url_check(subscription.endpoint, "endpoint")
    except ApplicationError:
        logger.warning("push endpoint of %s refused; message dropped", subscription.id)
        row.delete()
        return False
    info = {
        "endpoint": subscription.endpoint,
        "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
    }
    try:
        webpush(
            subscription_info=info,
            data=orjson.dumps(row.payload).decode(),
            vapid_private_key=_vapid(settings.WEB_PUSH_VAPID_PRIVATE_KEY),
            vapid_claims={"sub": settings.WEB_PUSH_VAPID_SUBJECT},
            ttl=ttl,
            timeout=settings.NOTIFY_TIMEOUT_SECONDS,
            requests_session=outbound_session(),
        )
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status in (404, 410):
            subscription.delete()  # the browser unsubscribed: the push service forgot it
            return False
        if status is None or status == 429 or status >= 500:
            _failed(PushMessage, row.id, f"push service answered {status}")
            return False
        logger.warning("push service refused a message (%s); dropped", status)
        row.delete()
        return False
    except requests.RequestException:
        _failed(PushMessage, row.id, "push service did not answer")
        return False
    row.delete()
    return True


def _failed(
    model: type[PushMessage] | type[WebhookDelivery],
    row_id: Any,
    why: str,
    given_up: Callable[[], None] | None = None,
) -> None:
    """A failed try of a waiting notice: RetryLater, its next try due after the backoff; after
    NOTIFY_TRIES tries it is given up (the row goes, `given_up` is called) and this returns."""
    attempts = (model.objects.filter(id=row_id).values_list("attempts", flat=True).first() or 0) + 1
    if attempts >= NOTIFY_TRIES:
        model.objects.filter(id=row_id).delete()
        logger.warning("notice %s given up after %d tries: %s", row_id, attempts, why)
        if given_up is not None:
            given_up()
        return
    wait = min(RETRY_MAX_SECONDS, settings.NOTIFY_RETRY_SECONDS * 2 ** (attempts - 1))
    model.objects.filter(id=row_id).update(
        attempts=attempts, due=timezone.now() + timedelta(seconds=wait)
    )
    raise RetryLater(why)


# ---- webhooks ----


def webhook_create(*, player: Player, url: str) -> Webhook:
    """A webhook of `player` to `url`, with a new secret; 400 `invalid` naming `url` for a URL
    the server may not POST to, or beyond WEBHOOK_MAX_PER_PLAYER."""
    url_check(url, "url")
    with transaction.atomic():
        Player.objects.select_for_update().filter(id=player.id).first()  # one count at a time
        limit = settings.WEBHOOK_MAX_PER_PLAYER
        if Webhook.objects.filter(player=player).count() >= limit:
            message = _("at most %(limit)d webhooks per player") % {"limit": limit}
            raise invalid("url", message)
        return Webhook.objects.create(
            player=player, url=url, secret="whsec_" + secrets.token_urlsafe(32)
        )


def webhook_delete(*, player: Player, webhook_id: Any) -> None:
    deleted, _rows = Webhook.objects.filter(id=webhook_id, player=player).delete()
    if not deleted:
        raise ApplicationError("not_found", _("No such webhook."))


def webhook_signature(secret: str, timestamp: int, body: bytes) -> str:
    """The `Pisyedili-Signature` header of `body` sent at `timestamp` (Unix seconds):
    `t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<body>" keyed by the secret>`."""
    signed = f"{timestamp}.".encode() + body
    digest = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def webhook_deliver(*, delivery_id: str) -> bool:
    """POST the waiting delivery `delivery_id` to its webhook; whether it was delivered (a
    2xx answer). A failure is RetryLater until the notice has had its NOTIFY_TRIES tries; a
    notice given up counts against the webhook (_webhook_lost)."""
    row = WebhookDelivery.objects.select_related("webhook").filter(id=delivery_id).first()
    if row is None:
        return False  # delivered already, or given up
    hook = row.webhook
    if not hook.active:
        row.delete()
        return False
    body = orjson.dumps(
        {
            "id": str(row.id),
            "created_at": json_datetime(row.created_at),
            "player": str(hook.player_id),
            **row.payload,
        }
    )
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "pisyedili-webhooks",
        DELIVERY_HEADER: str(row.id),
        SIGNATURE_HEADER: webhook_signature(hook.secret, int(time.time()), body),
    }
    try:
        url_check(hook.url, "url")
        answer = outbound_session().post(
            hook.url,
            data=body,
            headers=headers,
            timeout=settings.NOTIFY_TIMEOUT_SECONDS,
            allow_redirects=False,
        )
        delivered = 200 <= answer.status_code < 300
        why = f"answered {answer.status_code}"
    except (requests.RequestException, ApplicationError) as exc:
        delivered, why = False, type(exc).__name__
    if delivered:
        row.delete()
        Webhook.objects.filter(id=hook.id, failures__gt=0).update(failures=0)
        return True
    _failed(WebhookDelivery, row.id, f"webhook {hook.id} {why}", lambda: _webhook_lost(hook.id))
    return False


def _webhook_lost(hook_id: Any) -> None:
    """A notice of webhook `hook_id` given up after all its tries: WEBHOOK_MAX_FAILURES of them
    in a row (each failing for half a minute or more: a receiver down, not redeploying)
    turn the webhook off, its waiting deliveries dropped."""
    Webhook.objects.filter(id=hook_id).update(failures=F("failures") + 1)
    failures = Webhook.objects.filter(id=hook_id).values_list("failures", flat=True).first()
    if failures is not None and failures >= settings.WEBHOOK_MAX_FAILURES:
        Webhook.objects.filter(id=hook_id, active=True).update(
            active=False, disabled_at=timezone.now()
        )
        WebhookDelivery.objects.filter(webhook_id=hook_id).delete()
        logger.warning("webhook %s turned off after %d notices given up", hook_id, failures)


def notices_resend(*, eager: bool) -> int:
    """games.sweep: send again each waiting notice that is due: in the embedded default (no
    worker to retry it later) as soon as its next try is due; with a worker only once it is
    NOTIFY_LOST_SECONDS overdue (its task was lost). Each is due again NOTIFY_LOST_SECONDS
    later, so a slow try is not doubled by the next sweep. How many were sent."""
    now = timezone.now()
    cutoff = now if eager else now - timedelta(seconds=NOTIFY_LOST_SECONDS)
    later = now + timedelta(seconds=NOTIFY_LOST_SECONDS)
    sent = 0
    kinds = ((PushMessage, "games.push_send"), (WebhookDelivery, "games.webhook_deliver"))
    for model, task in kinds:
        ids = list(
            model.objects.filter(due__lte=cutoff)
            .order_by("due")
            .values_list("id", flat=True)[:NOTIFY_SWEEP_BATCH]
        )
        model.objects.filter(id__in=ids).update(due=later)
        for row_id in ids:
            send(task, str(row_id))
        sent += len(ids)
    return sent


# ---- from events to notices ----


def notices_send(people: list[tuple[str, dict[str, Any]]]) -> None:
    """The notices of the `me` events `people` ((player id, event) pairs, just published):
    a push message per subscription and a delivery per active webhook of each player, and the
    task that sends each, on the background pool in the embedded default. One query when no
    one concerned has a subscription or a webhook."""
    picked = [(player, notice(event)) for player, event in people if event["type"] in NOTICE_TEXTS]
    if not picked:
        return
    players = sorted({player for player, _notice in picked})
    params = [rawsql.prepared(PushSubscription, player=player)[0] for player in players]
    targets = rawsql.fetch_all(sql.notice_targets(len(params)), params + params)
    concerned = {str(UUID(str(player))) for (player,) in targets}
    if not concerned:
        return
    pushes: list[PushMessage] = []
    deliveries: list[WebhookDelivery] = []
    by_player: dict[str, list[dict[str, Any]]] = {}
    for player, item in picked:
        if player in concerned:
            by_player.setdefault(player, []).append(item)
    if push_enabled():
        # A session idle past TOKEN_IDLE_SECONDS no longer signs its device in (players.auth):
        # nor is the device told the player's turns, though its token row waits for a login
        # to be cleared.
        idle = timezone.now() - timedelta(seconds=settings.TOKEN_IDLE_SECONDS)
        for sub_id, player_id in (
            PushSubscription.objects.filter(player_id__in=by_player)
            .exclude(token__last_used__lt=idle)
            .values_list("id", "player_id")
        ):
            pushes += [
                PushMessage(subscription_id=sub_id, payload=item)
                for item in by_player[str(player_id)]
            ]
    for hook_id, player_id in Webhook.objects.filter(
        player_id__in=by_player, active=True
    ).values_list("id", "player_id"):
        deliveries += [
            WebhookDelivery(webhook_id=hook_id, payload=item) for item in by_player[str(player_id)]
        ]
    PushMessage.objects.bulk_create(pushes)
    WebhookDelivery.objects.bulk_create(deliveries)
    with in_background():
        for message in pushes:
            send("games.push_send", str(message.id))
        for delivery in deliveries:
            send("games.webhook_deliver", str(delivery.id))


def notices_delete(*, player: Player) -> None:
    """An account's deletion: its push subscriptions and webhooks go (their waiting messages
    and deliveries with them)."""
    PushSubscription.objects.filter(player=player).delete()
    Webhook.objects.filter(player=player).delete()
