"""Stream tickets and the one way a stream learns who is calling.

Browsers' EventSource cannot send `Authorization`, and an API token in a URL ends up in logs.
So a client trades its token for a ticket (`POST /api/v1/auth/stream-ticket`) and opens
`…/events?ticket=…`: the ticket is signed (django.core.signing, SECRET_KEY), names the player,
lapses after LIVE_TICKET_SECONDS, and works once: its nonce is claimed with SET NX in the "live"
cache (Redis when there is one, so a ticket used on one web process is refused on every other).
"""

from __future__ import annotations

import secrets
from typing import Any, cast

from django.conf import settings
from django.core import signing
from django.core.cache import caches
from django.http import HttpRequest
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
from .models import Player

_SALT = "players.stream-ticket"


def ticket_issue(*, player: Player) -> str:
    """A signed single-use ticket for `player`'s next stream."""
    return signing.dumps({"p": str(player.id), "n": secrets.token_urlsafe(16)}, salt=_SALT)


def ticket_redeem(ticket: str) -> Player:
    """The player of `ticket`, claiming it: 401 when it is forged, expired or used already."""
    lifetime = settings.LIVE_TICKET_SECONDS
    try:
        body = signing.loads(ticket, salt=_SALT, max_age=lifetime)
    except signing.SignatureExpired:
        raise AuthenticationFailed("The stream ticket has expired.") from None
    except signing.BadSignature:
        raise AuthenticationFailed("Invalid stream ticket.") from None
    # The claim outlives the ticket, so a used ticket never becomes usable again.
    if not caches["live"].add(f"ticket:{body['n']}", 1, timeout=lifetime + 5):
        raise AuthenticationFailed("The stream ticket was used already.")
    player = Player.objects.filter(id=body["p"], user__is_active=True).first()
    if player is None:
        raise AuthenticationFailed("Invalid stream ticket.")
    return player


def stream_player(request: HttpRequest, *, tickets: bool = True) -> Player:
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
    if player is None:
        raise NotAuthenticated()
    return player


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
        "(EventSource cannot send Authorization). An expired or used ticket is 401.",
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        body_fields_check(request.data)
        return Response(
            {
                "ticket": ticket_issue(player=request.user.player),
                "expires_in": settings.LIVE_TICKET_SECONDS,
            }
        )
