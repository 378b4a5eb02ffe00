"""Stream tickets and the one way a stream learns who is calling.

Browsers' EventSource cannot send `Authorization`, and an API token in a URL ends up in logs.
So a client trades its token for a ticket to one stream (`POST /api/v1/auth/stream-ticket`
with the stream's `path`) and opens `<path>?ticket=…`. The ticket is signed
(django.core.signing, SECRET_KEY) and stateless: it names the player and the stream's path,
lapses STREAM_TICKET_SECONDS after it was issued, and opens that path again as often as the
client reconnects until then (EventSource's own reconnect, with Last-Event-ID, included), on any
web process and across restarts; on any other path it is refused (401).

A ticket is bound to the token that asked for it: it carries HMAC-SHA256(token digest, nonce),
and is good only while a live token of the named player gives that binding. The digest is
stored in the database alone, never sent, so the signing key and a player id are not enough to
make a ticket, and a ticket dies with its token (logout, rotation, the account's deletion).

A stream's caller (`StreamCaller`) keeps that token's digest: live.hub ends the streams of a
token when it is revoked.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

from django.conf import settings
from django.core import signing
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from pisyedili_api.openapi import error_responses
from pisyedili_api.serializers import StrictSerializer
from players.auth import AuthenticatedRequest
from players.models import ApiToken, Player

_SALT = "players.stream-ticket"


@dataclass(frozen=True, slots=True)
class StreamCaller:
    """Who opened a stream: the player, and the digest of the API token they came with (a
    ticket's: the token that asked for it)."""

    player: Player
    token: str


def _binding(digest: str, nonce: str) -> str:
    return hmac.new(digest.encode(), nonce.encode(), hashlib.sha256).hexdigest()


# The paths of the event streams (a match's, the caller's own, the lobby's), as a request's
# `path_info` gives them.
STREAM_PATH = re.compile(
    r"^/api/v1/(?:matches/[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|me|lobby)/events$"
)


def ticket_issue(*, player: Player, token: ApiToken, path: str) -> str:
    """A signed ticket for `player`'s stream at `path`, bound to `token` (theirs)."""
    nonce = secrets.token_urlsafe(16)
    body = {"p": str(player.id), "n": nonce, "t": _binding(token.digest, nonce), "s": path}
    return signing.dumps(body, salt=_SALT)


def ticket_redeem(ticket: str, path: str) -> StreamCaller:
    """The caller of `ticket` on the stream at `path`: 401 when it is forged, expired, made for
    another stream, or its token no longer lives."""
    try:
        body = signing.loads(ticket, salt=_SALT, max_age=settings.STREAM_TICKET_SECONDS)
        player_id, nonce, binding = str(body["p"]), str(body["n"]), str(body["t"])
        stream = str(body["s"])
    except signing.SignatureExpired:
        raise AuthenticationFailed("The stream ticket has expired.") from None
    except (signing.BadSignature, KeyError, TypeError):
        raise AuthenticationFailed("Invalid stream ticket.") from None
    # An id in a route is taken in any case (docs/api.md "Conventions"); a ticket names it in
    # lower case.
    if not hmac.compare_digest(stream, path.lower()):
        raise AuthenticationFailed("The stream ticket is for another stream.")
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
    Token …`); 401 otherwise. A token sent beside a ticket must be good too (as on every
    route). An empty `ticket` is no ticket, as every optional query parameter sent empty."""
    ticket = request.GET.get("ticket") if tickets else None
    if ticket:
        if "HTTP_AUTHORIZATION" in request.META:
            _header_caller(request)
        return ticket_redeem(ticket, request.path_info)
    return _header_caller(request)


def _header_caller(request: HttpRequest) -> StreamCaller:
    """The caller the `Authorization` header names (the API's authentication classes); 401
    for none or a bad one."""
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
    """`POST /auth/stream-ticket`: a ticket to one stream, for clients that cannot send headers."""

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "StreamTicketPath"

        path = serializers.RegexField(
            STREAM_PATH,
            max_length=100,
            help_text="The stream the ticket opens: `/api/v1/matches/{match_id}/events` (the "
            "match's id in lower case), `/api/v1/me/events` or `/api/v1/lobby/events`.",
            error_messages={"invalid": gettext_lazy("Not the path of an event stream.")},
        )

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        class Meta:
            ref_name = "StreamTicket"

        ticket = serializers.CharField()
        expires_in = serializers.IntegerField(help_text="Seconds the ticket stays valid.")

    @extend_schema(
        operation_id="auth_stream_ticket",
        summary="Get a stream ticket",
        request=InputSerializer,
        responses={200: OutputSerializer, **error_responses("invalid", "not_authenticated")},
        examples=[
            OpenApiExample(
                "A ticket",
                value={"ticket": "eyJwIjoiNmY…:1tY…:Vb3…", "expires_in": 300},
                response_only=True,
            )
        ],
        description="Opens the stream at `path` (`GET <path>?ticket=…`, or its WebSocket) as "
        "often as the client reconnects within `expires_in` s: EventSource's own reconnect, "
        "with Last-Event-ID, works as it is. Any other stream is 401 with it, and so is an "
        "expired ticket, or one whose token was revoked (logout, rotation) since.",
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        path = body.validated_data["path"]
        return Response(
            {
                "ticket": ticket_issue(player=request.user.player, token=request.auth, path=path),
                "expires_in": settings.STREAM_TICKET_SECONDS,
            }
        )
