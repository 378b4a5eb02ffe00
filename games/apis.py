"""Match routes of docs/api.md: one thin API class per operation (validate, call, render)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from django.utils.cache import patch_cache_control
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import APIException, NotAuthenticated
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import engine
from games.engine.rules import option_specs
from pisyedili_api.cursors import SignedCursorPagination
from pisyedili_api.errors import ApplicationError
from pisyedili_api.openapi import error_responses
from players.auth import AuthenticatedRequest, DeferredPlayer, DeferredTokenAuthentication

from .clock import TURN_SECONDS_MAX, TURN_SECONDS_MIN
from .selectors import (
    deal_analysis_view,
    deal_get,
    deal_luck_view,
    match_get,
    match_list,
    match_moves_for_player,
    match_view_for_player,
)
from .serializers import (
    DealRevealSerializer,
    MatchSerializer,
    MoveBodySerializer,
    MoveEntrySerializer,
    MovePostSerializer,
    PaginatedMatchSerializer,
    StateSerializer,
    deal_reveal,
    match_summary,
    move_entry,
    state_view,
)
from .services import match_apply_move, match_create, match_join
from .services.analysis import deal_analysis_request

if TYPE_CHECKING:
    # What APIView.get_permissions answers in the DRF stubs: objects with has_permission.
    from rest_framework.permissions import _SupportsHasPermission

MAX_WAIT_SECONDS = 25


def no_store(response: Response) -> Response:
    """Per-seat responses must never be cached by a proxy or browser (they show a hand)."""
    patch_cache_control(response, no_store=True, private=True)
    return response


# ---- pagination ----


class MatchCursorPagination(SignedCursorPagination):
    salt = "matches"
    ordering = ("-listed_at", "-id")  # selectors.match_list
    page_size = 20
    page_size_query_param = "limit"
    max_page_size = 100


# ---- views ----


class MatchListCreateApi(APIView):
    """`GET /matches` (public, newest first) and `POST /matches` (create)."""

    def get_permissions(self) -> Sequence[_SupportsHasPermission]:
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    class FilterSerializer(serializers.Serializer):
        class Meta:
            ref_name = "MatchFilter"

        status = serializers.ChoiceField(
            choices=["waiting", "active", "finished"],
            required=False,
            help_text="Only the matches in this status.",
        )
        player = serializers.UUIDField(
            required=False, help_text="Only the matches in which this player has a seat."
        )
        limit = serializers.IntegerField(
            min_value=1, max_value=100, required=False, help_text="Matches per page (default 20)."
        )
        cursor = serializers.CharField(
            required=False,
            max_length=500,
            help_text="A page's signed cursor, from `next` or `previous` of this list; any other"
            " value is 400 invalid.",
        )

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "MatchCreate"

        seats = serializers.IntegerField(min_value=2, max_value=7)
        bots = serializers.ListField(
            child=serializers.CharField(max_length=32), required=False, default=list, max_length=6
        )
        deals = serializers.IntegerField(
            min_value=1,
            max_value=52,
            required=False,
            help_text="Deals per match (default 4); this server plays at most"
            " MAX_DEALS_PER_MATCH (20 unless configured).",
        )
        rules = serializers.DictField(required=False)
        turn_seconds = serializers.IntegerField(
            min_value=TURN_SECONDS_MIN,
            max_value=TURN_SECONDS_MAX,
            required=False,
            allow_null=True,
            help_text="Turn clock: seconds a person has per turn; past it the greedy move is"
            " played for them (by_bot in the move log). Null or absent: no clock.",
        )

    @extend_schema(
        operation_id="matches_list",
        summary="List matches, newest first",
        description=(
            "Public. Cursor pages of matches, newest first, filtered by `status` and by `player` "
            "(the matches in which that player has a seat). `next`/`previous` are signed links: "
            "pass them back as they are."
        ),
        parameters=[FilterSerializer],
        responses={
            200: PaginatedMatchSerializer,
            **error_responses("invalid", "not_authenticated"),
        },
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        matches = match_list(
            status=filters.validated_data.get("status"),
            player_id=filters.validated_data.get("player"),
        )
        paginator = MatchCursorPagination()
        page = paginator.paginate_queryset(matches, request, view=self)
        return paginator.get_paginated_response([match_summary(m) for m in page or []])

    @extend_schema(
        operation_id="matches_create",
        summary="Create a match",
        description=(
            "The caller takes seat 0, `bots` the next seats; the match starts (deal 1 is dealt) "
            "once every seat is filled. A player sits in at most MAX_ACTIVE_MATCHES_PER_PLAYER "
            "waiting or active matches, and MAX_BOT_MATCHES_PER_PLAYER of those against bots only "
            "(`409 too_many_active_matches`); `deals` is capped at MAX_DEALS_PER_MATCH."
        ),
        request=InputSerializer,
        responses={
            201: MatchSerializer,
            **error_responses("invalid", "not_authenticated", "too_many_active_matches"),
        },
        examples=[
            OpenApiExample(
                "two greedy bots",
                value={"seats": 3, "bots": ["greedy", "greedy"], "deals": 4},
                request_only=True,
            )
        ],
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        match = match_create(player=request.user.player, **body.validated_data)
        return Response(match_summary(match_get(match=match)), status=status.HTTP_201_CREATED)


class MatchDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="matches_detail",
        summary="Get a match",
        description=(
            "Public. The match's public summary: seats, totals, deals; no card and no seed."
        ),
        responses={200: MatchSerializer, **error_responses("not_authenticated", "not_found")},
    )
    def get(self, request: Request, match_id: Any) -> Response:
        return Response(match_summary(match_get(match_id=match_id)))


class MatchJoinApi(APIView):
    @extend_schema(
        operation_id="matches_join",
        summary="Join a match",
        description=(
            "Takes the lowest open seat; the match starts when it was the last. Joining a match in"
            " which the caller sits already changes nothing. Counts towards the caller's "
            "active-match limit."
        ),
        request=None,
        responses={
            200: MatchSerializer,
            **error_responses(
                "not_authenticated", "not_found", "match_full", "too_many_active_matches"
            ),
        },
    )
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        match = match_join(match_id=match_id, player=request.user.player)
        return Response(match_summary(match_get(match=match)))


class MatchStateApi(APIView):
    class FilterSerializer(serializers.Serializer):
        class Meta:
            ref_name = "StateFilter"

        after_version = serializers.IntegerField(
            min_value=0,
            required=False,
            help_text="Long-poll: answer once the match's version is past this one.",
        )
        wait = serializers.FloatField(
            min_value=0,
            max_value=MAX_WAIT_SECONDS,
            required=False,
            help_text="Long-poll: seconds to wait for a version past `after_version` (0..25);"
            " then the current view. Without it the answer comes at once.",
        )

    @extend_schema(
        operation_id="matches_state",
        summary="Get the caller's view of a match",
        description=(
            "The seat's view: its hand, whose turn it is, the legal moves (docs/rules.md §10). "
            "With `after_version` and `wait` it is a long-poll: it answers as soon as the match's "
            "version passes `after_version`, or after `wait` seconds with the current view."
        ),
        parameters=[FilterSerializer],
        responses={
            200: StateSerializer,
            **error_responses("invalid", "not_authenticated", "not_seated", "not_found"),
        },
    )
    def get(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        match, seat = match_view_for_player(
            match_id=match_id,
            player=request.user.player,
            after_version=filters.validated_data.get("after_version"),
            wait=filters.validated_data.get("wait", 0),
        )
        return no_store(Response(state_view(match, seat)))


# One instance validates every move POST (run_validation keeps no state): a serializer built per
# request costs the hottest route more than the validation itself.
_MOVE_POST = MovePostSerializer()


class MatchMovesApi(APIView):
    """`POST …/moves` (play one move) and `GET …/moves` (the move log as the caller may see it)."""

    InputSerializer = MovePostSerializer

    class FilterSerializer(serializers.Serializer):
        class Meta:
            ref_name = "MoveFilter"

        deal = serializers.IntegerField(
            min_value=1,
            max_value=10_000,
            required=False,
            help_text="Only this deal's moves (the deal's number, from 1).",
        )

    def get_authenticators(self) -> list[BaseAuthentication]:
        """POST: its token is looked up by the statement that locks the match (DeferredPlayer)."""
        # The schema names the route's scheme as every route's (drf-spectacular's fake view).
        fake = getattr(self, "swagger_fake_view", False)
        if self.request is not None and self.request.method == "POST" and not fake:
            return [DeferredTokenAuthentication()]
        return super().get_authenticators()

    @extend_schema(
        operation_id="matches_moves_create",
        summary="Play one move",
        description=(
            "`version` is the match version the move was chosen at (else `409 stale_version`); of "
            "two moves at one version exactly one applies. An `Idempotency-Key` belongs to the "
            "caller in this match and replays the first answer to the same body for at least "
            "IDEMPOTENCY_TTL_SECONDS (24 h)."
        ),
        request=InputSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                required=False,
                description="Repeat a request safely: same key and body, same first response.",
            )
        ],
        responses={
            200: StateSerializer,
            **error_responses(
                "invalid",
                "invalid_move",
                "not_authenticated",
                "not_seated",
                "not_found",
                "stale_version",
                "not_your_turn",
                "match_not_active",
                "illegal_move",
                "idempotency_mismatch",
            ),
        },
        examples=[
            OpenApiExample("draw", value={"action": "draw", "version": 17}, request_only=True),
            OpenApiExample(
                "play a Jack",
                value={"action": "play", "card": "JS", "suit": "H", "version": 17},
                request_only=True,
            ),
        ],
    )
    def post(self, request: Request, match_id: Any) -> Response:
        caller = cast(DeferredPlayer, request.user)  # get_authenticators; IsAuthenticated
        try:
            idempotency_key = self._idempotency_key(request)
            valid = _MOVE_POST.run_validation(request.data)
        except (ApplicationError, APIException, engine.InvalidMove):
            caller.verify()  # a bad token is 401 before a bad body is 400, as on every route
            raise
        view = match_apply_move(
            match_id=match_id,
            player_id=caller,
            move=valid["move"],
            version=valid["version"],
            idempotency_key=idempotency_key,
            request_body={**valid["move_body"], "version": valid["version"]},
        )
        return no_store(Response(view))

    @staticmethod
    def _idempotency_key(request: Request) -> str | None:
        """The Idempotency-Key header, if any; 400 unless it is 1..255 printable characters."""
        key = request.META.get("HTTP_IDEMPOTENCY_KEY")  # request.headers would copy every header
        if key is not None and not (1 <= len(key) <= 255 and key.isprintable()):
            message = "Idempotency-Key must be 1..255 printable characters."
            raise ApplicationError("invalid", message, {"Idempotency-Key": [message]})
        return key

    @extend_schema(
        operation_id="matches_moves_list",
        summary="Get the move log",
        description=(
            "The match's moves in order as the caller may see them: cards another seat drew are "
            "shown once the deal is over (R-3)."
        ),
        parameters=[FilterSerializer],
        responses={
            200: MoveEntrySerializer(many=True),
            **error_responses("invalid", "not_authenticated", "not_seated", "not_found"),
        },
    )
    def get(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        moves = match_moves_for_player(
            match_id=match_id, player=request.user.player, deal=filters.validated_data.get("deal")
        )
        return no_store(Response([move_entry(m, reveal_drawn=shown) for m, shown in moves]))


class DealDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="matches_deals_detail",
        summary="Get a deal",
        description=(
            "Public. A deal's commitment; once it is over, its seed, the hands at its start and "
            "every move, so that anyone can replay and check it (R-3, R-4), and each seat's luck"
            " once a worker has estimated it (null before)."
        ),
        responses={200: DealRevealSerializer, **error_responses("not_authenticated", "not_found")},
    )
    def get(self, request: Request, match_id: Any, number: int) -> Response:
        deal, moves = deal_get(match_id=match_id, number=number)
        body = deal_reveal(deal, moves)
        body["luck"] = deal_luck_view(deal) if moves is not None else None  # shown with the seed
        return Response(body)


class MoveValueSerializer(serializers.Serializer):
    class Meta:
        ref_name = "MoveValue"

    move = MoveBodySerializer()
    value = serializers.FloatField(help_text="Expected deal score after this move.")


class DecisionSerializer(serializers.Serializer):
    class Meta:
        ref_name = "AnalysedDecision"

    seq = serializers.IntegerField(help_text="The move's `seq` in the move log.")
    seat = serializers.IntegerField()
    by_bot = serializers.BooleanField(help_text="Played by the turn clock for the person.")
    played = MoveBodySerializer()
    played_value = serializers.FloatField()
    best = MoveBodySerializer()
    best_value = serializers.FloatField()
    loss = serializers.FloatField(help_text="played_value − best_value, expected points.")
    loss_stderr = serializers.FloatField()
    verdict = serializers.ChoiceField(choices=["inaccuracy", "mistake", "blunder"], allow_null=True)
    values = MoveValueSerializer(many=True)


class DealAnalysisApi(APIView):
    """`GET …/deals/{n}/analysis`: computed on a worker when first asked for, then cached."""

    permission_classes = [AllowAny]
    throttle_scope = "deal_analysis"

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "DealAnalysis"

        status = serializers.ChoiceField(choices=["pending", "ready"])
        samples = serializers.IntegerField(required=False)
        bot = serializers.CharField(required=False)
        seed = serializers.CharField(required=False)
        cpu_seconds = serializers.FloatField(required=False)
        thresholds = serializers.DictField(child=serializers.FloatField(), required=False)
        decisions = DecisionSerializer(many=True, required=False)

    @extend_schema(
        operation_id="matches_deals_analysis",
        summary="Get a deal's move analysis",
        description=(
            "Every decision of a person (2+ legal moves) in a deal that is over: the estimated"
            " value (expected deal score, lower is better) of the move played and of the best"
            " move from that seat's observation only, the loss and its verdict (`inaccuracy` /"
            " `mistake` / `blunder`, docs/api.md). The first request has a worker compute it:"
            " `202 {status: pending}`, poll again; then `200` with the analysis, kept. For a"
            " seat of the match; for anyone once the match is finished and public. Throttled per"
            " user (THROTTLE_DEAL_ANALYSIS)."
        ),
        responses={
            200: OutputSerializer,
            202: OutputSerializer,
            **error_responses(
                "not_authenticated", "not_seated", "not_found", "deal_not_over", "throttled"
            ),
        },
        examples=[
            OpenApiExample(
                "pending", value={"status": "pending"}, response_only=True, status_codes=["202"]
            ),
            OpenApiExample(
                "ready",
                value={
                    "status": "ready",
                    "samples": 64,
                    "bot": "greedy",
                    "seed": "moves:5c1e…",
                    "cpu_seconds": 0.41,
                    "thresholds": {
                        "inaccuracy": 3.0,
                        "mistake": 8.0,
                        "blunder": 20.0,
                        "significance_z": 2.0,
                    },
                    "decisions": [
                        {
                            "seq": 4,
                            "seat": 0,
                            "by_bot": False,
                            "played": {"action": "play", "card": "KH"},
                            "played_value": 31.2,
                            "best": {"action": "play", "card": "7H"},
                            "best_value": 18.9,
                            "loss": 12.3,
                            "loss_stderr": 2.1,
                            "verdict": "mistake",
                            "values": [
                                {"move": {"action": "play", "card": "7H"}, "value": 18.9},
                                {"move": {"action": "play", "card": "KH"}, "value": 31.2},
                            ],
                        }
                    ],
                },
                response_only=True,
                status_codes=["200"],
            ),
        ],
    )
    def get(self, request: Request, match_id: Any, number: int) -> Response:
        user = request.user
        player = getattr(user, "player", None) if user is not None else None
        try:
            analysis = deal_analysis_request(match_id=match_id, number=number, player=player)
        except ApplicationError as exc:
            if exc.code == "not_authenticated":
                raise NotAuthenticated(exc.message) from None  # with WWW-Authenticate
            raise
        body = deal_analysis_view(analysis)
        ready = body["status"] == "ready"
        return Response(body, status=status.HTTP_200_OK if ready else status.HTTP_202_ACCEPTED)


class RuleListApi(APIView):
    """`GET /rules` (public): the rule options a match's `rules` may set, with their defaults
    and values, as docs/rules.md lists them."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "RuleOption"

        name = serializers.CharField(help_text="The option, as a key of `rules`.")
        type = serializers.ChoiceField(choices=["choice", "boolean", "integer"])
        default = serializers.JSONField(help_text="Its value when a match leaves it out.")
        choices = serializers.ListField(
            child=serializers.JSONField(),
            required=False,
            help_text="The values of a choice or boolean option.",
        )
        min = serializers.IntegerField(required=False, help_text="An integer option's least.")
        max = serializers.IntegerField(required=False, help_text="An integer option's most.")

    @extend_schema(
        operation_id="rules_list",
        summary="List the rule options",
        description=(
            "Public. Every house rule a match's `rules` may set (docs/rules.md), in the order "
            "of its table: name, kind, default, and the values it takes. `deals_per_match` is "
            "also the `deals` field of a create, at most MAX_DEALS_PER_MATCH on this server."
        ),
        responses={200: OutputSerializer(many=True), **error_responses("not_authenticated")},
        examples=[
            OpenApiExample(
                "rules",
                value=[
                    {
                        "name": "draw_policy",
                        "type": "choice",
                        "default": "free",
                        "choices": ["free", "one_then_pass", "until_playable"],
                    },
                    {"name": "hand_size", "type": "integer", "default": 7, "min": 1, "max": 25},
                ],
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        return Response(option_specs())
