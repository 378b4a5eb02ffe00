"""Match routes of docs/api.md: one thin API class per operation (validate, call, render); what
the served schema says of each (summary, description, examples) is in games/schema.py."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django_redis import get_redis_connection
from drf_spectacular.utils import OpenApiResponse, extend_schema
from limits import RateLimitItemPerSecond
from limits.errors import StorageError
from limits.storage import MemoryStorage, RedisStorage
from limits.strategies import MovingWindowRateLimiter
from rest_framework import serializers, status
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import APIException, NotAuthenticated, Throttled
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from games import engine
from games.engine.rules import option_specs
from pisyedili_api.caching import no_store
from pisyedili_api.cursors import SignedCursorPagination, cursor_field
from pisyedili_api.errors import ApplicationError
from pisyedili_api.keyed import IDEMPOTENCY_KEY_PARAMETER, key_check, keyed_write
from pisyedili_api.logfilters import Repeated
from pisyedili_api.openapi import error_responses
from pisyedili_api.serializers import QuerySerializer, StrictSerializer, body_fields_check
from players.auth import AuthenticatedRequest, DeferredPlayer, DeferredTokenAuthentication
from players.models import Player

from . import schema
from .clock import TURN_SECONDS_MAX, TURN_SECONDS_MIN
from .models import Match, QueueEntry
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
    invitations_attach,
    match_summary,
    match_view,
    move_entry,
    move_reply,
)
from .services import (
    PRESETS,
    Held,
    invitation_accept,
    invitation_decline,
    match_apply_move,
    match_cancel,
    match_create,
    match_invite,
    match_join,
    match_leave,
    match_rematch,
    match_resign,
    match_talk,
    presets,
    queue_get,
    queue_join,
    queue_leave,
)
from .services.analysis import deal_analysis_request
from .services.talk import TALK_PHRASES

if TYPE_CHECKING:
    # What APIView.get_permissions answers in the DRF stubs: objects with has_permission.
    from rest_framework.permissions import _SupportsHasPermission

logger = logging.getLogger(__name__)

MAX_WAIT_SECONDS = 25


def caller_player(request: Request) -> Player | None:
    """The signed-in caller's player, or None for an anonymous one (a spectator)."""
    user = request.user
    if user is None or not user.is_authenticated:
        return None
    return getattr(user, "player", None)


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

    def get_throttles(self) -> list[Any]:
        """A create counts towards THROTTLE_MATCH; the list is not throttled."""
        if self.request is not None and self.request.method == "POST":
            self.throttle_scope = "match"
            return super().get_throttles()
        return []

    class FilterSerializer(QuerySerializer):
        class Meta:
            ref_name = "MatchFilter"

        status = serializers.ChoiceField(
            choices=Match.Status.values,
            required=False,
            help_text="Only the matches in this status; `waiting` is the lobby: the matches"
            " with open seats to join (`open_seats`).",
        )
        player = serializers.UUIDField(
            required=False, help_text="Only the matches in which this player has a seat."
        )
        invited = serializers.BooleanField(
            required=False,
            help_text="`true` (token): only the waiting private matches to which the caller"
            " has a pending invitation, their challenges.",
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
            help_text="Who may watch the match: `public` (the default of a public match),"
            " anyone who may see it, signed in or not, sees the public view (no hand); `none`"
            " (the default of a private match), only its seats.",
        )
        private = serializers.BooleanField(
            required=False,
            default=False,
            help_text="A private table: shown only to its seats, its creator and its"
            " invitees; its seats are taken by invitation or by its join code.",
        )
        invite = serializers.ListField(
            child=serializers.CharField(max_length=150),
            required=False,
            default=list,
            max_length=6,
            help_text="Usernames to invite to a private match (a challenge each), at most its"
            " open seats.",
        )

    @schema.matches_list
    @extend_schema(
        parameters=[FilterSerializer],
        responses={
            200: PaginatedMatchSerializer,
            **error_responses("invalid", "not_authenticated"),
        },
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        viewer = caller_player(request)
        invited = filters.validated_data.get("invited", False)
        if invited and viewer is None:
            raise NotAuthenticated()
        viewer_id = viewer.id if viewer is not None else None
        matches = match_list(
            status=filters.validated_data.get("status"),
            player_id=filters.validated_data.get("player"),
            viewer_id=viewer_id,
            invited=invited,
        )
        paginator = MatchCursorPagination()
        page = list(paginator.paginate_queryset(matches, request, view=self) or [])
        invitations_attach(page)
        results = [match_summary(m, viewer_id) for m in page]
        response = paginator.get_paginated_response(results)
        # The caller's invitations, or a join code only its creator is shown: theirs alone.
        if invited or any(m["join_code"] for m in results):
            return no_store(response)
        return response

    @schema.matches_create
    @extend_schema(
        request=InputSerializer,
        responses={
            201: MatchSerializer,
            **error_responses(
                "invalid", "not_authenticated", "too_many_active_matches", "throttled"
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = request.user.player
        match = match_create(player=player, **body.validated_data)
        return Response(
            match_summary(match_get(match=match), player.id), status=status.HTTP_201_CREATED
        )


class MatchDetailApi(APIView):
    permission_classes = [AllowAny]

    @schema.matches_detail
    @extend_schema(
        responses={200: MatchSerializer, **error_responses("not_authenticated", "not_found")},
    )
    def get(self, request: Request, match_id: Any) -> Response:
        viewer = caller_player(request)
        viewer_id = viewer.id if viewer is not None else None
        match = match_get(match_id=match_id, viewer_id=viewer_id)
        summary = match_summary(match, viewer_id)
        # A join code is shown to the match's creator alone.
        return no_store(Response(summary)) if summary["join_code"] else Response(summary)


class MatchJoinApi(APIView):
    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "MatchJoin"

        code = serializers.CharField(
            max_length=64,
            required=False,
            help_text="A private match's join code (from its join link): seats whoever brings"
            " it. Ignored on a public match.",
        )

    def get_throttles(self) -> list[Any]:
        """A join that brings a private match's code counts towards THROTTLE_MATCH_INVITE, any
        other towards THROTTLE_MATCH."""
        data = self.request.data if self.request is not None else None
        coded = isinstance(data, dict) and "code" in data
        self.throttle_scope = "match_invite" if coded else "match"
        return super().get_throttles()

    @schema.matches_join
    @extend_schema(
        request=InputSerializer,
        responses={
            200: MatchSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "not_invited",
                "not_found",
                "match_full",
                "too_many_active_matches",
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = request.user.player
        match = match_join(match_id=match_id, player=player, code=body.validated_data.get("code"))
        return Response(match_summary(match_get(match=match), player.id))


class MatchInviteApi(APIView):
    """`POST …/invite`: the creator of a waiting private match invites more people."""

    throttle_scope = "match_invite"

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "MatchInvite"

        invite = serializers.ListField(
            child=serializers.CharField(max_length=150),
            min_length=1,
            max_length=6,
            help_text="Usernames to invite (a challenge each), at most the open seats not"
            " held by pending invitations.",
        )

    @schema.matches_invite
    @extend_schema(
        request=InputSerializer,
        responses={
            200: MatchSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "not_creator",
                "not_found",
                "match_not_waiting",
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = request.user.player
        usernames = body.validated_data["invite"]
        match = match_invite(match_id=match_id, player=player, usernames=usernames)
        return Response(match_summary(match_get(match=match), player.id))


class _InvitationAnswerApi(APIView):
    """`POST …/invitations/accept` and `…/decline`: the invitee answers a challenge."""

    throttle_scope = "match_invite"
    accept = True

    def answer(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        body_fields_check(request.data)
        player = request.user.player
        answer = invitation_accept if self.accept else invitation_decline
        match = answer(match_id=match_id, player=player)
        return Response(match_summary(match_get(match=match), player.id))


_ANSWER_ERRORS = (
    "invalid",
    "not_authenticated",
    "not_invited",
    "not_found",
    "invitation_not_pending",
    "throttled",
)


class InvitationAcceptApi(_InvitationAnswerApi):
    accept = True

    @schema.matches_invitations_accept
    @extend_schema(
        request=None,
        responses={
            200: MatchSerializer,
            **error_responses(*_ANSWER_ERRORS, "match_full", "too_many_active_matches"),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        return self.answer(request, match_id)


class InvitationDeclineApi(_InvitationAnswerApi):
    accept = False

    @schema.matches_invitations_decline
    @extend_schema(
        request=None, responses={200: MatchSerializer, **error_responses(*_ANSWER_ERRORS)}
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        return self.answer(request, match_id)


class MatchStateApi(APIView):
    permission_classes = [AllowAny]  # spectators: the public view, signed in or not

    class FilterSerializer(QuerySerializer):
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

    @schema.matches_state
    @extend_schema(
        parameters=[FilterSerializer],
        responses={
            200: StateSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "spectators_not_allowed",
                "not_found",
                "throttled",
                "unavailable",
            ),
        },
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


def _move_counts() -> tuple[MovingWindowRateLimiter, str]:
    """Where the moves are counted, and the prefix of their keys there: the throttle cache's
    Redis (CACHES), which every web process sees, under the cache's KEY_PREFIX, or this
    process's memory where the cache is the process's own (the embedded default)."""
    cache: dict[str, Any] = settings.CACHES["default"]
    return _counter(cache["BACKEND"], cache.get("LOCATION", "")), cache.get("KEY_PREFIX", "")


@functools.cache
def _counter(backend: str, location: str) -> MovingWindowRateLimiter:
    if backend != "django_redis.cache.RedisCache":
        return MovingWindowRateLimiter(MemoryStorage())
    # The cache's own connection pool: its connections, its timeouts.
    pool = get_redis_connection("default").connection_pool
    return MovingWindowRateLimiter(RedisStorage(location, pool, wrap_exceptions=True))


_UNCOUNTED = Repeated(logger, "move throttle not counted: its Redis did not answer")


class MoveRateThrottle(SimpleRateThrottle):
    """Moves, scope `match_move` (THROTTLE_MATCH_MOVE), per API token: `POST …/moves` and a
    match socket's `move` messages on one count. The move's caller is its token's, looked up by
    the statement that locks the match (DeferredPlayer), so the count is named after the token
    (a hash of its digest) with no query of its own.

    Counted by `limits`' moving window (DRF's rate and its parsing, another counter): in Redis
    one script a move, where DRF's cache throttle reads the history and writes it back, two
    round trips between which a move at the same moment also sees the last place free. A Redis
    that does not answer counts nothing, as for the cache's other throttles."""

    scope = "match_move"

    def __init__(self, caller: DeferredPlayer) -> None:
        super().__init__()
        self.ident = caller.throttle_ident
        self.retry = 0.0

    def allow_request(self, request: Request | None, view: APIView | None) -> bool:
        allowed, seconds = self.parse_rate(self.rate)
        if allowed is None or seconds is None:
            return True
        rate = RateLimitItemPerSecond(allowed, seconds)
        counts, prefix = _move_counts()
        try:
            if counts.hit(rate, prefix, self.scope, self.ident):
                return True
            reset, _left = counts.get_window_stats(rate, prefix, self.scope, self.ident)
        except StorageError:
            _UNCOUNTED.warning(exc_info=True)
            return True
        self.retry = max(reset - time.time(), 0.0)
        return False

    def wait(self) -> float:
        return self.retry


def move_post(
    caller: DeferredPlayer,
    match_id: Any,
    data: Callable[[], Any],
    key: Any,
    held: Held | None = None,
) -> dict[str, Any]:
    """`POST …/moves` once its token is parsed: the route's, and a match WebSocket's `move`
    message (live.streams), which so answers and refuses exactly as the route does. In order:
    the throttle (429), the Idempotency-Key `key` and the body `data()` (parsed then: 400; a
    bad token is 401 first, as on every route), then games.services.match_apply_move (its
    checks, its exactly-once); the mover's view right after the move, or the API's error
    raised. `held`: the match as the socket's process holds it (match_apply_move)."""
    throttle = MoveRateThrottle(caller)
    if not throttle.allow_request(None, None):
        raise Throttled(throttle.wait())
    try:
        if key is not None:
            key_check(key)
        valid = _MOVE_POST.run_validation(data())
    except (ApplicationError, APIException, engine.InvalidMove):
        caller.verify()  # a bad token is 401 before a bad body is 400, as on every route
        raise
    return match_apply_move(
        match_id=match_id,
        player_id=caller,
        move=valid["move"],
        version=valid["version"],
        reply=move_reply,
        idempotency_key=key,
        request_body={**valid["move_body"], "version": valid["version"]},
        held=held,
    )


class MatchMovesApi(APIView):
    """`POST …/moves` (play one move) and `GET …/moves` (the move log as the caller may see it)."""

    InputSerializer = MovePostSerializer

    # The move body (read by hand in _move_input: the hottest route); any other field is 400.
    BODY_FIELDS = ("action", "card", "suit", "version")

    class FilterSerializer(QuerySerializer):
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

    @schema.matches_moves_create
    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
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
                "resigned",
                "illegal_move",
                "idempotency_mismatch",
                "throttled",
            ),
        },
    )
    def post(self, request: Request, match_id: Any) -> Response:
        caller = cast(DeferredPlayer, request.user)  # get_authenticators; IsAuthenticated
        # request.headers would copy every header
        key = request.META.get("HTTP_IDEMPOTENCY_KEY")
        return no_store(Response(move_post(caller, match_id, lambda: request.data, key)))

    @schema.matches_moves_list
    @extend_schema(
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

    @schema.matches_deals_detail
    @extend_schema(
        responses={
            200: DealRevealSerializer,
            **error_responses("not_authenticated", "spectators_not_allowed", "not_found"),
        },
    )
    def get(self, request: Request, match_id: Any, number: int) -> Response:
        deal, moves = deal_get(match_id=match_id, number=number, player=caller_player(request))
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

        status = serializers.ChoiceField(choices=["pending", "ready", "failed"])
        reason = serializers.CharField(
            required=False, help_text="Why it failed (`failed` only): it is never computed again."
        )
        samples = serializers.IntegerField(required=False)
        bot = serializers.CharField(required=False)
        seed = serializers.CharField(required=False)
        cpu_seconds = serializers.FloatField(required=False)
        thresholds = serializers.DictField(child=serializers.FloatField(), required=False)
        decisions = DecisionSerializer(many=True, required=False)

    @schema.matches_deals_analysis
    @extend_schema(
        responses={
            200: OutputSerializer,
            202: OutputSerializer,
            **error_responses(
                "not_authenticated",
                "not_seated",
                "spectators_not_allowed",
                "not_found",
                "deal_not_over",
                "throttled",
            ),
        },
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
        pending = body["status"] == "pending"
        return Response(body, status=status.HTTP_202_ACCEPTED if pending else status.HTTP_200_OK)


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

    @schema.rules_list
    @extend_schema(
        responses={200: OutputSerializer(many=True), **error_responses("not_authenticated")},
    )
    def get(self, request: Request) -> Response:
        return Response(option_specs())


# ---- the lobby and the rematch ----


class MatchLeaveApi(APIView):
    throttle_scope = "match"

    @schema.matches_leave
    @extend_schema(
        request=None,
        responses={
            200: MatchSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "not_seated",
                "not_found",
                "match_not_waiting",
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        body_fields_check(request.data)
        match = match_leave(match_id=match_id, player=request.user.player)
        return Response(match_summary(match_get(match=match), request.user.player.id))


class MatchCancelApi(APIView):
    throttle_scope = "match"

    @schema.matches_cancel
    @extend_schema(
        request=None,
        responses={
            200: MatchSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "not_creator",
                "not_found",
                "match_not_waiting",
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        body_fields_check(request.data)
        match = match_cancel(match_id=match_id, player=request.user.player)
        return Response(match_summary(match_get(match=match), request.user.player.id))


class MatchRematchApi(APIView):
    throttle_scope = "match"

    @schema.matches_rematch
    @extend_schema(
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
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        body_fields_check(request.data)
        match, created = match_rematch(match_id=match_id, player=request.user.player)
        return Response(
            match_summary(match_get(match=match), request.user.player.id),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class MatchResignApi(APIView):
    """`POST …/resign`: the caller gives up their seat; the reference bot plays it."""

    throttle_scope = "match_resign"

    @schema.matches_resign
    @extend_schema(
        request=None,
        responses={
            200: MatchSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "not_seated",
                "not_found",
                "match_not_active",
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        body_fields_check(request.data)
        match = match_resign(match_id=match_id, player=request.user.player)
        return Response(match_summary(match_get(match=match), request.user.player.id))


class MatchTalkApi(APIView):
    """`POST …/talk`: a seat says a preset phrase to its table (seats and spectators)."""

    throttle_scope = "match_talk"

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "MatchTalk"

        phrase = serializers.ChoiceField(
            choices=TALK_PHRASES,
            help_text="A preset phrase's id: `good_game` (Good game), `well_played` (Well"
            " played), `oops` (Oops), `your_turn` (Your turn…); each client shows it in its"
            " own language. No free text.",
        )

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "TalkSaid"

        match = serializers.UUIDField()
        seat = serializers.IntegerField(help_text="The seat that said it.")
        phrase = serializers.ChoiceField(choices=TALK_PHRASES)
        at = serializers.DateTimeField()

    @schema.matches_talk
    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "not_seated",
                "not_found",
                "match_not_active",
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, match_id: Any) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        said = match_talk(
            match_id=match_id, player=request.user.player, phrase=body.validated_data["phrase"]
        )
        return Response(said)


class DealReplayApi(APIView):
    permission_classes = [AllowAny]

    @schema.matches_deals_replay
    @extend_schema(
        responses={
            200: DealReplaySerializer,
            **error_responses(
                "not_authenticated", "spectators_not_allowed", "not_found", "deal_not_over"
            ),
        },
    )
    def get(self, request: Request, match_id: Any, number: int) -> Response:
        match, deal, steps = deal_replay_get(
            match_id=match_id, number=number, player=caller_player(request)
        )
        return Response(deal_replay(match, deal, steps))


# ---- quick play ----


class RulePresetListApi(APIView):
    """`GET /rules/presets` (public): the named rule sets quick play offers."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "RulePreset"

        name = serializers.CharField(help_text="The preset's name, as `preset` of POST /queue.")
        rules = serializers.DictField(help_text="Its rules: every option, defaults filled in.")

    @schema.rules_presets
    @extend_schema(
        responses={200: OutputSerializer(many=True), **error_responses("not_authenticated")},
    )
    def get(self, request: Request) -> Response:
        return Response(presets())


class QueueEntrySerializer(serializers.Serializer):
    class Meta:
        ref_name = "QueueEntry"

    status = serializers.ChoiceField(
        choices=QueueEntry.Status.values,
        help_text="`waiting`; or how the wait ended: `seated` (at `match`), `expired` (no"
        " table, no bots allowed), `left`.",
    )
    seats = serializers.IntegerField()
    preset = serializers.CharField(
        allow_null=True, help_text="The preset asked for; null for custom rules."
    )
    rules = serializers.DictField(help_text="Every rule option, defaults filled in.")
    bots_allowed = serializers.BooleanField()
    wait_seconds = serializers.IntegerField()
    rating = serializers.FloatField(help_text="The caller's rating ordinal when they queued.")
    created_at = serializers.DateTimeField()
    deadline = serializers.DateTimeField(help_text="When the wait ends.")
    ended_at = serializers.DateTimeField(allow_null=True)
    match = serializers.UUIDField(allow_null=True, help_text="The match it seated the caller at.")
    bot_seats = serializers.IntegerField(help_text="The seats of that match bots fill.")


def queue_entry(entry: QueueEntry) -> dict[str, Any]:
    """`<queue entry>`: the caller's own entry (nobody else's ids or ratings)."""
    return {
        "status": entry.status,
        "seats": entry.seats,
        "preset": entry.preset or None,
        "rules": entry.rules,
        "bots_allowed": entry.bots_allowed,
        "wait_seconds": entry.wait_seconds,
        "rating": round(entry.rating, 4),
        "created_at": entry.created_at,
        "deadline": entry.deadline,
        "ended_at": entry.ended_at,
        "match": entry.match_id,
        "bot_seats": entry.bot_seats,
    }


class QueueApi(APIView):
    """`GET /queue` (the caller's entry) and `POST /queue` (join the quick-play queue)."""

    throttle_scope = "queue"

    def get_throttles(self) -> list[Any]:
        return super().get_throttles() if self.request.method == "POST" else []

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "QueueJoin"

        seats = serializers.IntegerField(min_value=2, max_value=7, help_text="Table size.")
        preset = serializers.ChoiceField(
            choices=list(PRESETS),
            required=False,
            help_text="A named rule set (GET /rules/presets); default `classic`. Not with `rules`.",
        )
        rules = serializers.DictField(
            required=False,
            help_text="Custom rule options, checked as POST /matches checks them. Not with"
            " `preset`.",
        )
        wait_seconds = serializers.IntegerField(
            help_text="How long to wait for people: QUEUE_WAIT_MIN..QUEUE_WAIT_MAX (5..600)."
        )
        bots_allowed = serializers.BooleanField(
            required=False,
            default=False,
            help_text="When the wait ends, bots fill the empty seats; else the wait ends"
            " with no table.",
        )

    @schema.queue_get
    @extend_schema(
        responses={
            200: QueueEntrySerializer,
            204: OpenApiResponse(description="The caller never queued: no body."),
            **error_responses("not_authenticated"),
        },
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        entry = queue_get(player=request.user.player)
        if entry is None:
            return no_store(Response(status=status.HTTP_204_NO_CONTENT))
        return no_store(Response(queue_entry(entry)))

    @schema.queue_join
    @extend_schema(
        request=InputSerializer,
        responses={
            201: QueueEntrySerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "already_queued",
                "too_many_active_matches",
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        entry = queue_join(player=request.user.player, **body.validated_data)
        return no_store(Response(queue_entry(entry), status=status.HTTP_201_CREATED))


class QueueLeaveApi(APIView):
    """`POST /queue/leave`: the caller leaves the quick-play queue."""

    throttle_scope = "queue"

    @schema.queue_leave
    @extend_schema(
        request=None,
        responses={
            200: QueueEntrySerializer,
            **error_responses(
                "invalid", "not_authenticated", "not_found", "not_queued", "throttled"
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest) -> Response:
        body_fields_check(request.data)
        return no_store(Response(queue_entry(queue_leave(player=request.user.player))))
