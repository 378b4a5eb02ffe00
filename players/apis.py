"""Player routes of API.md: register, token, me, a player by id, the bot catalogue."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from pisyedili_api.openapi import error_responses

from .models import Player
from .selectors import player_get
from .services import player_register, player_token


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
        responses={200: PlayerOutputSerializer, **error_responses("not_authenticated", "not_found")},
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
