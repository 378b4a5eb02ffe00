"""Stream tickets and the one way a stream learns who is calling.

Browsers' EventSource cannot send `Authorization`, and an API token in a URL ends up in logs.
So a client trades its token for a ticket (`POST /api/v1/auth/stream-ticket`) and opens
`…/events?ticket=…`: the ticket is signed (django.core.signing, SECRET_KEY), names the player,
lapses after LIVE_TICKET_SECONDS, and works once: its nonce is claimed with SET NX in the "live"
cache (Redis when there is one, so a ticket used on one web process is refused on every other).

A ticket is bound to the token that asked for it: it carries HMAC-SHA256(token digest, nonce),
and is good only while a live token of the named player gives that binding. The digest is
stored in the database alone, never sent, so the signing key and a player id are not enough to
make a ticket, and a ticket dies with its token (logout, rotation, the account's deletion).

A stream's caller (`StreamCaller`) keeps that token's digest: games.events ends the streams of a
token when it is revoked.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

from django.conf import settings
from django.core import signing
from django.core.cache import caches
from django.http import HttpRequest
from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from pisyedili_api.openapi import error_responses
from pisyedili_api.serializers import body_fields_check

from .auth import AuthenticatedRequest
from .models import ApiToken, Player

_SALT = "players.stream-ticket"


@dataclass(frozen=True, slots=True)
class StreamCaller:
    """Who opened a stream: the player, and the digest of the API token they came with (a
    ticket's: the token that asked for it)."""

    player: Player
    token: str


def _binding(digest: str, nonce: str) -> str:
    return hmac.new(digest.encode(), nonce.encode(), hashlib.sha256).hexdigest()


def ticket_issue(*, player: Player, token: ApiToken) -> str:
    """A signed single-use ticket for `player`'s next stream, bound to `token` (theirs)."""
    nonce = secrets.token_urlsafe(16)
    body = {"p": str(player.id), "n": nonce, "t": _binding(token.digest, nonce)}
    return signing.dumps(body, salt=_SALT)


def ticket_redeem(ticket: str) -> StreamCaller:
    """The caller of `ticket`, claiming it: 401 when it is forged, expired, used already, or
    its token no longer lives."""
    lifetime = settings.LIVE_TICKET_SECONDS
    try:
        body = signing.loads(ticket, salt=_SALT, max_age=lifetime)
        player_id, nonce, binding = str(body["p"]), str(body["n"]), str(body["t"])
    except signing.SignatureExpired:
        raise AuthenticationFailed("The stream ticket has expired.") from None
    except (signing.BadSignature, KeyError, TypeError):
        raise AuthenticationFailed("Invalid stream ticket.") from None
    # The claim outlives the ticket, so a used ticket never becomes usable again.
    if not caches["live"].add(f"ticket:{nonce}", 1, timeout=lifetime + 5):
        raise AuthenticationFailed("The stream ticket was used already.")
    player = Player.objects.filter(id=player_id, user__is_active=True).first()
    if player is None or player.user_id is None:
        raise AuthenticationFailed("Invalid stream ticket.")
    idle_before = timezone.now() - timedelta(seconds=settings.TOKEN_IDLE_SECONDS)
    digests = ApiToken.objects.filter(user_id=player.user_id, last_used__gt=idle_before)
    for digest in digests.values_list("digest", flat=True):
        if hmac.compare_digest(_binding(digest, nonce), binding):
            return StreamCaller(player, digest)
    raise AuthenticationFailed("Invalid stream ticket.")


def stream_caller(request: HttpRequest, *, tickets: bool = True) -> StreamCaller:
    """The caller of a stream (an async view outside DRF): a `ticket` query parameter (unless
    `tickets` is False), else the API's configured authentication classes (`Authorization:
    Token …`); 401 otherwise."""
    ticket = request.GET.get("ticket") if tickets else None
    if ticket is not None:
        return ticket_redeem(ticket)
    # api_settings imports the dotted paths of the setting: classes, which the stubs type as str.
    classes = cast("list[type[BaseAuthentication]]", api_settings.DEFAULT_AUTHENTICATION_CLASSES)
    drf_request = Request(request, authenticators=[auth() for auth in classes])
    user: Any = drf_request.user
    player: Player | None = getattr(user, "player", None) if user is not None else None
    token = drf_request.auth
    if player is None or not isinstance(token, ApiToken):
        raise NotAuthenticated()
    return StreamCaller(player, token.digest)


class StreamTicketApi(APIView):
    """`POST /auth/stream-ticket`: a ticket for one stream, for clients that cannot send headers."""

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        class Meta:
            ref_name = "StreamTicket"

        ticket = serializers.CharField()
        expires_in = serializers.IntegerField(help_text="Seconds the ticket stays valid.")

    @extend_schema(
        operation_id="auth_stream_ticket",
        summary="Get a stream ticket",
        request=None,
        responses={200: OutputSerializer, **error_responses("not_authenticated")},
        examples=[
            OpenApiExample(
                "A ticket",
                value={"ticket": "eyJwIjoiNmY…:1tY…:Vb3…", "expires_in": 30},
                response_only=True,
            )
        ],
        description="Use once within `expires_in` s: `GET …/events?ticket=…` "
        "(EventSource cannot send Authorization). An expired or used ticket is 401, and so is "
        "one whose token was revoked (logout, rotation) since.",
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        body_fields_check(request.data)
        return Response(
            {
                "ticket": ticket_issue(player=request.user.player, token=request.auth),
                "expires_in": settings.LIVE_TICKET_SECONDS,
            }
        )
