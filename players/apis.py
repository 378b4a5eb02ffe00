"""Player routes of API.md: register, token, me, a player by id, the bot catalogue."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from pisyedili_api.errors import ApplicationError
from pisyedili_api.openapi import error_responses

from .models import Player
from .selectors import (
    METRICS,
    PERIODS,
    leaderboard_entry,
    leaderboard_position,
    leaderboard_queryset,
    player_get,
)
from .services import player_register, player_token


class PlayerRefSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    display_name = serializers.CharField()
    is_bot = serializers.BooleanField()


def inline_page(entry: type[serializers.Serializer]) -> Any:
    from drf_spectacular.utils import inline_serializer

    return inline_serializer(
        "LeaderboardPageResponse",
        fields={
            "results": entry(many=True),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
        },
    )


class RatingSerializer(serializers.Serializer):
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()


class StatsSerializer(serializers.Serializer):
    matches = serializers.IntegerField()
    wins = serializers.IntegerField()
    deals_played = serializers.IntegerField()
    deals_won = serializers.IntegerField()
    penalty_points = serializers.IntegerField()


class PlayerOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    username = serializers.CharField()
    display_name = serializers.CharField()
    is_bot = serializers.BooleanField()
    rating = RatingSerializer()
    stats = StatsSerializer()


def player_out(player: Player) -> dict[str, Any]:
    return {
        "id": str(player.id),
        "username": player.username,
        "display_name": player.display_name,
        "is_bot": player.is_bot,
        "rating": {
            "mu": player.rating_mu,
            "sigma": player.rating_sigma,
            "ordinal": player.rating_ordinal,
        },
        "stats": {
            "matches": player.matches,
            "wins": player.wins,
            "deals_played": player.deals_played,
            "deals_won": player.deals_won,
            "penalty_points": player.penalty_points,
        },
    }


class RegisterApi(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_scope = "auth"

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "Register"

        username = serializers.RegexField(r"^[A-Za-z0-9_.@+-]{1,150}$", max_length=150)
        password = serializers.CharField(max_length=128, trim_whitespace=False)
        display_name = serializers.CharField(max_length=64, required=False, allow_blank=False)

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "Registered"

        id = serializers.UUIDField()
        username = serializers.CharField()
        display_name = serializers.CharField()
        token = serializers.CharField()

    @extend_schema(
        operation_id="auth_register",
        request=InputSerializer,
        responses={201: OutputSerializer, **error_responses("invalid", "throttled")},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player, token = player_register(**body.validated_data)
        out = {
            "id": str(player.id),
            "username": player.username,
            "display_name": player.display_name,
            "token": token,
        }
        return Response(self.OutputSerializer(out).data, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_scope = "auth"

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "TokenRequest"

        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, trim_whitespace=False)

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "Token"

        token = serializers.CharField()

    @extend_schema(
        operation_id="auth_token",
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            **error_responses("invalid", "not_authenticated", "throttled"),
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response({"token": player_token(**body.validated_data)})


class PlayerMeApi(APIView):
    @extend_schema(
        operation_id="players_me",
        responses={200: PlayerOutputSerializer, **error_responses("not_authenticated")},
    )
    def get(self, request: Request) -> Response:
        return Response(player_out(request.user.player))


class PlayerDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="players_detail",
        responses={
            200: PlayerOutputSerializer,
            **error_responses("not_authenticated", "not_found"),
        },
    )
    def get(self, request: Request, player_id: Any) -> Response:
        return Response(player_out(player_get(player_id=player_id)))


class BotListApi(APIView):
    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "Bot"

        strategy = serializers.CharField()
        description = serializers.CharField()

    @extend_schema(
        operation_id="bots_list",
        responses={200: OutputSerializer(many=True), **error_responses("not_authenticated")},
    )
    def get(self, request: Request) -> Response:
        from games.engine.bots import BOTS

        return Response(
            [{"strategy": name, "description": bot.description} for name, bot in BOTS.items()]
        )


class LeaderboardApi(APIView):
    """`GET /leaderboard` (public; `around=me` needs a token): ranks with ties shared, paged by
    an opaque offset cursor."""

    permission_classes = [AllowAny]

    class FilterSerializer(serializers.Serializer):
        class Meta:
            ref_name = "LeaderboardFilter"

        metric = serializers.ChoiceField(choices=list(METRICS), required=False, default="rating")
        period = serializers.ChoiceField(choices=list(PERIODS), required=False, default="all")
        around = serializers.ChoiceField(choices=["me"], required=False)
        limit = serializers.IntegerField(min_value=1, max_value=100, required=False, default=50)
        cursor = serializers.CharField(required=False, max_length=100)

    class EntrySerializer(serializers.Serializer):
        class Meta:
            ref_name = "LeaderboardEntry"

        rank = serializers.IntegerField()
        player = PlayerRefSerializer()
        rating = serializers.FloatField()
        matches = serializers.IntegerField()
        wins = serializers.IntegerField()
        deals_won = serializers.IntegerField()
        avg_penalty = serializers.FloatField()

    @extend_schema(
        operation_id="leaderboard",
        parameters=[FilterSerializer],
        responses={
            200: inline_page(EntrySerializer),
            **error_responses("invalid", "not_authenticated"),
        },
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        limit = data["limit"]
        board = leaderboard_queryset(metric=data["metric"], period=data["period"])
        offset = decode_offset(data.get("cursor"))
        if data.get("around") == "me":
            if request.user is None or not hasattr(request.user, "player"):
                raise ApplicationError("not_authenticated", "around=me needs your token.")
            position = leaderboard_position(board, request.user.player)
            offset = max(0, position - limit // 2) if position is not None else 0
        page = list(board[offset : offset + limit + 1])
        has_next = len(page) > limit

        def link(new_offset: int) -> str:
            params = request.query_params.copy()
            params.pop("around", None)
            params["cursor"] = encode_offset(new_offset)
            return request.build_absolute_uri(request.path) + "?" + params.urlencode()

        return Response(
            {
                "results": [leaderboard_entry(p) for p in page[:limit]],
                "next": link(offset + limit) if has_next else None,
                "previous": link(max(0, offset - limit)) if offset > 0 else None,
            }
        )


def encode_offset(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o={offset}".encode()).decode()


def decode_offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii")
        name, value = text.split("=", 1)
        if name != "o" or not value.isdigit() or int(value) > 10_000_000:
            raise ValueError(text)
        return int(value)
    except (ValueError, UnicodeError, binascii.Error):
        raise ApplicationError(
            "invalid", "Invalid cursor.", {"cursor": ["Invalid cursor."]}
        ) from None
