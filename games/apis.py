"""Match routes of docs/api.md: one thin API class per operation (validate, call, render)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _
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
from pisyedili_api.cursors import SignedCursorPagination, cursor_field
from pisyedili_api.errors import ApplicationError
from pisyedili_api.openapi import error_responses
from pisyedili_api.serializers import StrictSerializer, body_fields_check
from players.auth import AuthenticatedRequest, DeferredPlayer, DeferredTokenAuthentication
from players.models import Player

from .clock import TURN_SECONDS_MAX, TURN_SECONDS_MIN
from .models import Match
from .selectors import (
    deal_analysis_view,
    deal_get,
    deal_luck_view,
    deal_replay_get,
    match_get,
    match_list,
    match_moves_for_player,
    match_view_for_player,
)
from .serializers import (
    DealReplaySerializer,
    DealRevealSerializer,
    MatchSerializer,
    MoveBodySerializer,
    MoveEntrySerializer,
    MovePostSerializer,
    MoveReplySerializer,
    PaginatedMatchSerializer,
    StateSerializer,
    deal_replay,
    deal_reveal,
    match_summary,
    match_view,
    move_entry,
    move_reply,
)
from .services import (
    match_apply_move,
    match_cancel,
    match_create,
    match_join,
    match_leave,
    match_rematch,
)
from .services.analysis import deal_analysis_request

if TYPE_CHECKING:
    # What APIView.get_permissions answers in the DRF stubs: objects with has_permission.
    from rest_framework.permissions import _SupportsHasPermission

MAX_WAIT_SECONDS = 25


def caller_player(request: Request) -> Player | None:
    """The signed-in caller's player, or None for an anonymous one (a spectator)."""
    user = request.user
    if user is None or not user.is_authenticated:
        return None
    return getattr(user, "player", None)


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
            choices=["waiting", "active", "finished", "cancelled"],
            required=False,
            help_text="Only the matches in this status; `waiting` is the lobby: the matches"
            " with open seats to join (`open_seats`).",
        )
        player = serializers.UUIDField(
            required=False, help_text="Only the matches in which this player has a seat."
        )
        limit = serializers.IntegerField(
            min_value=1, max_value=100, required=False, help_text="Matches per page (default 20)."
        )
        cursor = cursor_field()

    class InputSerializer(StrictSerializer):
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
        spectators = serializers.ChoiceField(
            choices=Match.Spectators.values,
            required=False,
            default=Match.Spectators.PUBLIC,
            help_text="Who may watch the match: `public`, anyone, signed in or not,"
            " sees the public view (no hand); `none`, only its seats.",
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
            ),
            OpenApiExample(
                "a private table",
                value={"seats": 2, "spectators": "none"},
                request_only=True,
            ),
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
        body_fields_check(request.data)
        match = match_join(match_id=match_id, player=request.user.player)
        return Response(match_summary(match_get(match=match)))


class MatchStateApi(APIView):
    permission_classes = [AllowAny]  # spectators: the public view, signed in or not

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
            "A seat's view: its hand, whose turn it is, the legal moves (docs/rules.md §10). "
            "Anyone else (signed in or not) gets the public view of a `spectators: public` "
            "match: the same keys with `you` null and no hand and no legal move (hand counts, "
            "top card, turn, stock count, totals); of a `spectators: none` match, 403 "
            "`spectators_not_allowed`. With `after_version` and `wait` it is a long-poll: it "
            "answers as soon as the match's version passes `after_version`, or after `wait` "
            "seconds with the current view."
        ),
        parameters=[FilterSerializer],
        responses={
            200: StateSerializer,
            **error_responses(
                "invalid", "not_authenticated", "spectators_not_allowed", "not_found"
            ),
        },
        examples=[
            OpenApiExample(
                "a spectator's public view",
                value={
                    "match": "9b0c6a4e-2f6d-4a51-8f0e-3c1d2b7a9e10",
                    "version": 12,
                    "status": "active",
                    "deal": 1,
                    "deals_total": 4,
                    "phase": "play",
                    "you": None,
                    "turn": 1,
                    "dealer": 1,
                    "direction": 1,
                    "hand": [],
                    "hand_counts": [5, 6],
                    "top_card": "9D",
                    "active_suit": "D",
                    "pending_sevens": 0,
                    "draws_this_turn": 0,
                    "stock_count": 30,
                    "totals": [0, 0],
                    "commitment": "5d41402abc4b2a76b9719d911017c592…",
                    "legal_moves": [],
                    "turn_deadline": None,
                    "result": None,
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, match_id: Any) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        match, seat = match_view_for_player(
            match_id=match_id,
            player=caller_player(request),
            after_version=filters.validated_data.get("after_version"),
            wait=filters.validated_data.get("wait", 0),
        )
        return no_store(Response(match_view(match, seat)))


# One instance validates every move POST (run_validation keeps no state): a serializer built per
# request costs the hottest route more than the validation itself.
_MOVE_POST = MovePostSerializer()


class MatchMovesApi(APIView):
    """`POST …/moves` (play one move) and `GET …/moves` (the move log as the caller may see it)."""

    InputSerializer = MovePostSerializer

    # The move body (read by hand in _move_input: the hottest route); any other field is 400.
    BODY_FIELDS = ("action", "card", "suit", "version")

    class FilterSerializer(serializers.Serializer):
        class Meta:
            ref_name = "MoveFilter"

        deal = serializers.IntegerField(
            min_value=1,
            max_value=10_000,
            required=False,
            help_text="Only this deal's moves (the deal's number, from 1).",
        )
        after_seq = serializers.IntegerField(
            min_value=0,
            required=False,
            help_text="Only the moves after this one (`seq` > after_seq): what a client that"
            " holds the log up to it has not seen yet.",
        )

    def get_authenticators(self) -> list[BaseAuthentication]:
        """POST: its token is looked up by the statement that locks the match (DeferredPlayer)."""
        # The schema names the route's scheme as every route's (drf-spectacular's fake view).
        fake = getattr(self, "swagger_fake_view", False)
        if self.request is not None and self.request.method == "POST" and not fake:
            return [DeferredTokenAuthentication()]
        return super().get_authenticators()

    def get_permissions(self) -> Sequence[_SupportsHasPermission]:
        if self.request is not None and self.request.method == "GET":
            return [AllowAny()]  # the log of a spectators: public match is public
        return super().get_permissions()

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
            200: MoveReplySerializer,
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
            reply=move_reply,
            idempotency_key=idempotency_key,
            request_body={**valid["move_body"], "version": valid["version"]},
        )
        return no_store(Response(view))

    @staticmethod
    def _idempotency_key(request: Request) -> str | None:
        """The Idempotency-Key header, if any; 400 unless it is 1..255 printable characters."""
        key = request.META.get("HTTP_IDEMPOTENCY_KEY")  # request.headers would copy every header
        if key is not None and not (1 <= len(key) <= 255 and key.isprintable()):
            message = _("Idempotency-Key must be 1..255 printable characters.")
            raise ApplicationError("invalid", message, {"Idempotency-Key": [message]})
        return key

    @extend_schema(
        operation_id="matches_moves_list",
        summary="Get the move log",
        description=(
            "The match's moves in order as the caller may see them: cards another seat drew are "
            "shown once the deal is over (R-3). Seats, and anyone (signed in or not) on a "
            "`spectators: public` match, who sees no `drawn` card of a deal in progress; a "
            "`spectators: none` match is 403 `spectators_not_allowed` to a caller at no seat."
        ),
        parameters=[FilterSerializer],
        responses={
            200: MoveEntrySerializer(many=True),
            **error_responses(
                "invalid", "not_authenticated", "spectators_not_allowed", "not_found"
            ),
        },
    )
    def get(self, request: Request, match_id: Any) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        moves = match_moves_for_player(
            match_id=match_id,
            player=caller_player(request),
            deal=filters.validated_data.get("deal"),
            after_seq=filters.validated_data.get("after_seq"),
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


# ---- the lobby and the rematch ----

_MATCH_EXAMPLE: dict[str, Any] = {
    "id": "5b0c6f1e-8a57-4a3e-9d53-6f7d2b7a9c10",
    "status": "waiting",
    "created_at": "2026-03-01T10:00:00.123456Z",
    "finished_at": None,
    "deals_total": 4,
    "current_deal": None,
    "version": 0,
    "rules": {"deals_per_match": 4},
    "seats": [
        {
            "seat": 0,
            "player": {
                "id": "0f6c1d2e-3b4a-4c5d-8e9f-a0b1c2d3e4f5",
                "display_name": "Ana",
                "is_bot": False,
            },
            "total": 0,
            "place": None,
        },
        {"seat": 1, "player": None, "total": 0, "place": None},
    ],
    "deals": [],
    "turn_seconds": None,
    "turn_deadline": None,
    "open_seats": 1,
    "cancel_reason": None,
    "rematch_of": None,
    "next_match": None,
}


def match_example(name: str, **changes: Any) -> OpenApiExample:
    """A response example of `<match>`: the waiting two-seat match above, with `changes`."""
    return OpenApiExample(name, value={**_MATCH_EXAMPLE, **changes}, response_only=True)


class MatchLeaveApi(APIView):
    @extend_schema(
        operation_id="matches_leave",
        summary="Leave a waiting match",
        description=(
            "A seated person leaves a match that is still waiting for players: the seat is open"
            " again. The creator leaving a table nobody else has joined cancels it"
            " (`cancel_reason` `cancelled`); leaving one that others have joined makes the person"
            " in the lowest seat its creator. No body."
        ),
        request=None,
        responses={
            200: MatchSerializer,
            **error_responses(
                "invalid", "not_authenticated", "not_seated", "not_found", "match_not_waiting"
            ),
        },
        examples=[
            match_example(
                "the creator alone leaves: cancelled",
                status="cancelled",
                cancel_reason="cancelled",
                finished_at="2026-03-01T10:05:00.000000Z",
                version=1,
            )
        ],
    )
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        body_fields_check(request.data)
        match = match_leave(match_id=match_id, player=request.user.player)
        return Response(match_summary(match_get(match=match)))


class MatchCancelApi(APIView):
    @extend_schema(
        operation_id="matches_cancel",
        summary="Cancel a waiting match",
        description=(
            "Its creator cancels a match that is still waiting for players: status `cancelled`,"
            " `cancel_reason` `cancelled`. It never starts; it counts towards no limit. No body."
        ),
        request=None,
        responses={
            200: MatchSerializer,
            **error_responses(
                "invalid", "not_authenticated", "not_creator", "not_found", "match_not_waiting"
            ),
        },
        examples=[
            match_example(
                "cancelled",
                status="cancelled",
                cancel_reason="cancelled",
                finished_at="2026-03-01T10:05:00.000000Z",
                version=1,
            )
        ],
    )
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        body_fields_check(request.data)
        match = match_cancel(match_id=match_id, player=request.user.player)
        return Response(match_summary(match_get(match=match)))


class MatchRematchApi(APIView):
    @extend_schema(
        operation_id="matches_rematch",
        summary="Ask for a rematch of a finished match",
        description=(
            "A seat of a finished match: `201` and the next match, with the same seat count,"
            " deals, rules and turn clock, the first dealer moved on by one seat. The bots sit"
            " in their seats at once, the caller in their old seat; the other people's seats are"
            " open: they join it as any match (it starts when the last seat fills). Asked again,"
            " by anyone: `200` and the same next match. The two are linked by `next_match` and"
            " `rematch_of`. Counts towards the caller's active-match limits. No body."
        ),
        request=None,
        responses={
            201: MatchSerializer,
            200: MatchSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "not_seated",
                "not_found",
                "match_not_finished",
                "too_many_active_matches",
            ),
        },
        examples=[
            match_example(
                "the next match",
                rematch_of="9d2f4c61-0b7e-4f3a-a1c5-2e8b6d4f0a93",
            )
        ],
    )
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        body_fields_check(request.data)
        match, created = match_rematch(match_id=match_id, player=request.user.player)
        return Response(
            match_summary(match_get(match=match)),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class DealReplayApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="matches_deals_replay",
        summary="Replay a finished deal",
        description=(
            "Once deal `number` is over: every position from the deal to its end with all hands "
            "open, rebuilt by the engine from the seed and the move log, for replay viewers. "
            "`positions[0]` is the deal as dealt (`move` and `seat` null), `positions[i]` the "
            "position after move i. Public on a `spectators: public` match; seats only on a "
            "`spectators: none` match (403 `spectators_not_allowed`). Before the deal is over, "
            "409 `deal_not_over`."
        ),
        responses={
            200: DealReplaySerializer,
            **error_responses(
                "not_authenticated", "spectators_not_allowed", "not_found", "deal_not_over"
            ),
        },
        examples=[
            OpenApiExample(
                "a two-seat deal",
                value={
                    "match": "9b0c6a4e-2f6d-4a51-8f0e-3c1d2b7a9e10",
                    "number": 1,
                    "dealer": 1,
                    "opener": 0,
                    "commitment": "…",
                    "seed": "…",
                    "rules": {"opening": "opener_only", "…": "…"},
                    "seat_count": 2,
                    "hands_at_start": [["4C", "7H", "…"], ["2D", "JS", "…"]],
                    "positions": [
                        {
                            "index": 0,
                            "move": None,
                            "seat": None,
                            "state": {
                                "hands": [["4C", "7H", "…"], ["2D", "JS", "…"]],
                                "turn": 0,
                                "direction": 1,
                                "top_card": None,
                                "active_suit": None,
                                "pending_sevens": 0,
                                "stock_count": 38,
                                "phase": "opening",
                                "discard_count": 0,
                            },
                        },
                        {
                            "index": 1,
                            "move": {
                                "seq": 1,
                                "seat": 0,
                                "action": "play",
                                "card": "4C",
                                "suit": None,
                                "drawn": [],
                            },
                            "seat": 0,
                            "state": {
                                "hands": [["7H", "…"], ["2D", "JS", "…"]],
                                "turn": 1,
                                "direction": 1,
                                "top_card": "4C",
                                "active_suit": "C",
                                "pending_sevens": 0,
                                "stock_count": 38,
                                "phase": "play",
                                "discard_count": 1,
                            },
                        },
                    ],
                    "result": {
                        "winners": [0],
                        "reason": "shed",
                        "last_card": "9D",
                        "multiplier": 1,
                        "penalties": [0, 42],
                        "hand_penalties": [0, 42],
                    },
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, match_id: Any, number: int) -> Response:
        match, deal, steps = deal_replay_get(
            match_id=match_id, number=number, player=caller_player(request)
        )
        return Response(deal_replay(match, deal, steps))
