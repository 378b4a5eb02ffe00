"""Player routes of docs/api.md: register, token (and its rotation and logout), me, a player by id,
the bot catalogue; what the served schema says of each is in players/schema.py."""

from __future__ import annotations

import unicodedata
from typing import Any, NoReturn

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import Throttled
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from pisyedili_api.caching import no_store
from pisyedili_api.cursors import SignedCursorPagination, cursor_field, list_scope
from pisyedili_api.errors import ApplicationError
from pisyedili_api.openapi import error_responses
from pisyedili_api.serializers import QuerySerializer, StrictSerializer, body_fields_check

from . import schema
from .auth import AuthenticatedRequest
from .boards import DEFAULT_RULESET, PERIODS
from .models import search_key
from .selectors import (
    METRICS,
    HistoryKeyset,
    Keyset,
    api_tokens_list,
    leaderboard_page,
    leaderboards_list,
    player_get,
    player_history_page,
    player_search,
)
from .serializers import (
    BoardRatingSerializer,
    PlayerOutputSerializer,
    PlayerRefSerializer,
    RatingSerializer,
    history_entry,
    leaderboard_entry,
    leaderboard_summary,
    page_of,
    player_out,
)
from .services import (
    DISPLAY_NAME_MAX,
    api_token_revoke,
    api_token_revoke_by_id,
    api_token_rotate,
    api_tokens_revoke_others,
    login_locked_out,
    player_delete,
    player_display_name_change,
    player_password_change,
    player_register,
    player_token,
    request_device,
)
from .throttles import UsernameRateThrottle

# What a username may hold, said when one holds anything else (DRF's own message names no
# character). The length is its own check (max_length): a long name of good characters is told
# only that it is too long.
USERNAME_CHARACTERS = gettext_lazy(
    "A username may hold only the letters A-Z and a-z, the digits 0-9 and the characters"
    " _ . @ + -, with no spaces."
)

# What a board's ruleset key is, said when a query's is not one.
RULESET_KEY = gettext_lazy(
    "A ruleset is `default` or the 12 lowercase hex digits of a board's key (GET /leaderboards)."
)


class RegisterApi(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_scope = "auth"

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "Register"

        username = serializers.RegexField(
            r"^[A-Za-z0-9_.@+-]+$",
            max_length=150,
            error_messages={"invalid": USERNAME_CHARACTERS},
            help_text="Unique in any letter case; names starting with `bot` and a separator "
            "(or nothing) are reserved for bots.",
        )
        password = serializers.CharField(
            max_length=128,
            trim_whitespace=False,
            help_text="At least 8 characters, not a common password, not only digits, not "
            "only whitespace, not like the username (Django's password validators).",
        )
        display_name = serializers.CharField(
            max_length=DISPLAY_NAME_MAX,
            required=False,
            allow_blank=False,
            help_text="Plain text (no control characters), shown as is; the username by default.",
        )

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "Registered"

        id = serializers.UUIDField()
        username = serializers.CharField()
        display_name = serializers.CharField()
        token = serializers.CharField(help_text="Shown this once: only its hash is kept.")

    @schema.auth_register
    @extend_schema(
        request=InputSerializer,
        responses={201: OutputSerializer, **error_responses("invalid", "throttled")},
        # Public: no token (an explicit empty security requirement; drf-spectacular reads [{}]
        # so, though its stubs type `auth` as a list of scheme names).
        auth=[{}],  # type: ignore[list-item]
    )
    def post(self, request: Request) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player, token = player_register(
            **body.validated_data, device=request_device(request._request)
        )
        out = {
            "id": str(player.id),
            "username": player.username,
            "display_name": player.display_name,
            "token": token,
        }
        return Response(self.OutputSerializer(out).data, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    """A new token for a username and password. Throttled per client (`auth`) and per username
    (`auth_username`); a username with LOGIN_FAILURE_LIMIT failed logins is locked out for
    LOGIN_LOCKOUT_SECONDS (429 with Retry-After), which a correct login resets."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_scope = "auth"
    throttle_classes = [ScopedRateThrottle, UsernameRateThrottle]

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "Login"

        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, trim_whitespace=False)

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "Token"

        token = serializers.CharField()

    def throttled(self, request: Request, wait: float) -> NoReturn:
        """A username locked out is answered as the lockout (its Retry-After, the cool-off)
        whichever throttle refused first: a client that waits out a throttle's shorter
        Retry-After would only meet the lockout then."""
        username = request.data.get("username") if isinstance(request.data, dict) else None
        named = username.strip() if isinstance(username, str) else ""
        if named and login_locked_out(request=request._request, username=named):
            message = _("Too many failed logins for this username; retry later.")
            raise Throttled(settings.AXES_COOLOFF_TIME.total_seconds(), message)
        super().throttled(request, wait)

    @schema.auth_token
    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            **error_responses("invalid", "not_authenticated", "throttled"),
        },
        # Public: no token (an explicit empty security requirement; drf-spectacular reads [{}]
        # so, though its stubs type `auth` as a list of scheme names).
        auth=[{}],  # type: ignore[list-item]
    )
    def post(self, request: Request) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        # The Django request: django-axes marks a locked-out login on it (AxesMiddleware).
        key = player_token(request=request._request, **body.validated_data)
        return Response(self.OutputSerializer({"token": key}).data)


class TokenRotateApi(APIView):
    """`POST /auth/token/rotate`: a new token replaces the caller's; the old key stops working."""

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "RotatedToken"

        token = serializers.CharField(help_text="Shown this once: only its hash is kept.")

    @schema.auth_token_rotate
    @extend_schema(
        request=None,
        responses={200: OutputSerializer, **error_responses("invalid", "not_authenticated")},
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        body_fields_check(request.data)
        return Response(self.OutputSerializer({"token": api_token_rotate(token=request.auth)}).data)


class LogoutApi(APIView):
    """`POST /auth/logout`: revoke the caller's token (other tokens of the player stay)."""

    @schema.auth_logout
    @extend_schema(
        request=None,
        responses={204: None, **error_responses("invalid", "not_authenticated")},
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        body_fields_check(request.data)
        api_token_revoke(token=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


PASSWORD_HELP = (
    "At least 8 characters, not a common password, not only digits, not only whitespace, not"
    " like the username (Django's password validators)."
)


class PasswordChangeApi(APIView):
    """`POST /auth/password`: a new password, given the old one; every other token of the
    player is revoked (their streams end), the caller's stays."""

    throttle_scope = "account"

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "PasswordChange"

        old_password = serializers.CharField(
            max_length=128, trim_whitespace=False, help_text="The current password."
        )
        new_password = serializers.CharField(
            max_length=128, trim_whitespace=False, help_text=PASSWORD_HELP
        )

    @schema.auth_password
    @extend_schema(
        request=InputSerializer,
        responses={204: None, **error_responses("invalid", "not_authenticated", "throttled")},
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player_password_change(request=request._request, token=request.auth, **body.validated_data)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenListApi(APIView):
    """`GET /auth/tokens`: the caller's tokens that still authenticate (never a key or digest)."""

    throttle_scope = "account"

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "ApiTokenInfo"

        id = serializers.UUIDField(help_text="Revoke it with POST /auth/tokens/{id}/revoke.")
        created_at = serializers.DateTimeField(help_text="When it was handed out (a login…).")
        last_used = serializers.DateTimeField(
            help_text="Its last authenticated request, to the minute (TOKEN_TOUCH_SECONDS)."
        )
        current = serializers.BooleanField(help_text="The token that made this call.")
        device = serializers.CharField(
            help_text="What it was handed to, read from its login's User-Agent (\"Firefox ·"
            ' Windows", "curl"); empty when that named nothing known.'
        )

    @schema.auth_tokens_list
    @extend_schema(
        responses={
            200: OutputSerializer(many=True),
            **error_responses("not_authenticated", "throttled"),
        },
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        rows = api_tokens_list(user_id=request.auth.user_id, current_digest=request.auth.digest)
        return no_store(Response(self.OutputSerializer(rows, many=True).data))


class TokenRevokeApi(APIView):
    """`POST /auth/tokens/{token_id}/revoke`: one of the caller's tokens stops working."""

    throttle_scope = "account"

    @schema.auth_tokens_revoke
    @extend_schema(
        request=None,
        responses={
            204: None,
            **error_responses("invalid", "not_authenticated", "not_found", "throttled"),
        },
    )
    def post(self, request: AuthenticatedRequest, token_id: Any) -> Response:
        body_fields_check(request.data)
        api_token_revoke_by_id(user_id=request.auth.user_id, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenRevokeOthersApi(APIView):
    """`POST /auth/tokens/revoke-others`: every token of the caller's but the caller's own
    stops working ("sign out everywhere else")."""

    throttle_scope = "account"

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "TokensRevoked"

        revoked = serializers.IntegerField(help_text="How many tokens were revoked (0 or more).")

    @schema.auth_tokens_revoke_others
    @extend_schema(
        request=None,
        responses={
            200: OutputSerializer,
            **error_responses("invalid", "not_authenticated", "throttled"),
        },
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        body_fields_check(request.data)
        revoked = api_tokens_revoke_others(token=request.auth)
        return Response(self.OutputSerializer({"revoked": revoked}).data)


class AccountDeleteApi(APIView):
    """`POST /auth/account/delete`: the caller's account goes, given its password; the matches
    it played keep an anonymous "Deleted player"."""

    throttle_scope = "account"

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "AccountDelete"

        password = serializers.CharField(
            max_length=128, trim_whitespace=False, help_text="The account's password."
        )

    @schema.auth_account_delete
    @extend_schema(
        request=InputSerializer,
        responses={204: None, **error_responses("invalid", "not_authenticated", "throttled")},
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player_delete(request=request._request, token=request.auth, **body.validated_data)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlayerMeApi(APIView):
    class UpdateSerializer(StrictSerializer):
        class Meta:
            ref_name = "PlayerMeUpdate"

        display_name = serializers.CharField(
            max_length=DISPLAY_NAME_MAX,
            help_text="Plain text (no control or format characters), shown as is.",
        )

    def get_throttles(self) -> list[Any]:
        """A change of the name counts towards THROTTLE_ACCOUNT; reading oneself does not."""
        if self.request is not None and self.request.method == "PATCH":
            self.throttle_scope = "account"
            return super().get_throttles()
        return []

    @schema.players_me
    @extend_schema(
        responses={200: PlayerOutputSerializer, **error_responses("not_authenticated")},
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        return no_store(Response(player_out(request.user.player)))

    @schema.players_me_update
    @extend_schema(
        request=UpdateSerializer,
        responses={
            200: PlayerOutputSerializer,
            **error_responses("invalid", "not_authenticated", "throttled"),
        },
    )
    def patch(self, request: AuthenticatedRequest) -> Response:
        body = self.UpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = player_display_name_change(player=request.user.player, **body.validated_data)
        return Response(player_out(player))


class PlayerDetailApi(APIView):
    permission_classes = [AllowAny]

    @schema.players_detail
    @extend_schema(
        responses={
            200: PlayerOutputSerializer,
            **error_responses("not_authenticated", "not_found"),
        },
    )
    def get(self, request: Request, player_id: Any) -> Response:
        return Response(player_out(player_get(player_id=player_id)))


SEARCH_MIN, SEARCH_MAX = 2, 150


class PlayerSearchPagination(SignedCursorPagination):
    salt = "player-search"
    ordering = ("username_key", "id")  # selectors.player_search
    page_size = 20
    page_size_query_param = "limit"
    max_page_size = 100


class PlayerSearchApi(APIView):
    """`GET /players?search=…` (public, throttled per user, per client when anonymous): the
    people whose username or display name starts with the text, letter case and accents
    ignored; public fields only."""

    permission_classes = [AllowAny]
    throttle_scope = "player_search"

    class FilterSerializer(QuerySerializer):
        class Meta:
            ref_name = "PlayerSearchFilter"

        search = serializers.CharField(
            max_length=SEARCH_MAX,
            help_text=f"{SEARCH_MIN}..{SEARCH_MAX} characters: the start of a username or a"
            " display name, in any letter case, accents ignored (`omer` finds `Ömer`).",
        )
        limit = serializers.IntegerField(
            min_value=1, max_value=100, required=False, help_text="Players per page (default 20)."
        )
        cursor = cursor_field()

        def validate_search(self, value: str) -> str:
            if len(value) < SEARCH_MIN or len(search_key(value)) < SEARCH_MIN:
                raise serializers.ValidationError(
                    _("Search for at least %(least)d characters.") % {"least": SEARCH_MIN}
                )
            if any(unicodedata.category(char) in ("Cc", "Cs", "Co", "Cn") for char in value):
                raise serializers.ValidationError(
                    _("The search may not contain control characters.")
                )
            return value

    class ResultSerializer(serializers.Serializer):
        class Meta:
            ref_name = "PlayerSearchResult"

        id = serializers.UUIDField()
        username = serializers.CharField()
        display_name = serializers.CharField()
        is_bot = serializers.BooleanField(help_text="Always false: search finds people.")
        rating = RatingSerializer(help_text="The global rating, as on /players/{id}.")

    @schema.players_search
    @extend_schema(
        parameters=[FilterSerializer],
        responses={
            200: page_of(ResultSerializer, "PlayerSearchPageResponse"),
            **error_responses("invalid", "not_authenticated", "throttled"),
        },
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        paginator = PlayerSearchPagination()
        page = paginator.paginate_queryset(
            player_search(text=filters.validated_data["search"]), request, view=self
        )
        results = [
            {
                "id": player.id,
                "username": player.username,
                "display_name": player.display_name,
                "is_bot": player.is_bot,
                "rating": {
                    "mu": player.rating_mu,
                    "sigma": player.rating_sigma,
                    "ordinal": player.rating_ordinal,
                },
            }
            for player in page or []
        ]
        return paginator.get_paginated_response(self.ResultSerializer(results, many=True).data)


class LevelRatingSerializer(serializers.Serializer):
    class Meta:
        ref_name = "BotLevelRating"

    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()
    mean_penalty = serializers.FloatField(help_text="Mean deal score in the measurement.")
    cpu_ms_per_decision = serializers.FloatField()
    measured_by = serializers.CharField(help_text="The command that measured it.")
    model = serializers.CharField()
    deals = serializers.IntegerField(help_text="Deals the measurement played in all.")


class BotListApi(APIView):
    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "Bot"

        strategy = serializers.CharField()
        description = serializers.CharField()
        level = serializers.CharField(
            allow_null=True,
            help_text="The level this strategy plays (weakest first in the list); null for none.",
        )
        rating = LevelRatingSerializer(
            allow_null=True, help_text="The level's rating, measured by self-play."
        )

    @schema.bots_list
    @extend_schema(
        responses={200: OutputSerializer(many=True), **error_responses("not_authenticated")},
    )
    def get(self, request: Request) -> Response:
        from games.engine.bots import BOTS, LEVEL_OF, LEVELS, level_ratings

        measured = level_ratings()
        ratings = measured.get("levels", {})

        def bot_out(name: str) -> dict[str, Any]:
            level = LEVEL_OF.get(name)
            rating = ratings.get(level) if level is not None else None
            return {
                "strategy": name,
                "description": BOTS[name].description,
                "level": level,
                "rating": None
                if rating is None
                else {
                    **{key: rating[key] for key in ("mu", "sigma", "ordinal", "mean_penalty")},
                    "cpu_ms_per_decision": rating["cpu_ms_per_decision"],
                    "measured_by": measured["command"],
                    "model": measured["model"],
                    "deals": measured["deals"],
                },
            }

        names = [*LEVELS, *(name for name in BOTS if name not in LEVELS)]
        return Response([bot_out(name) for name in names])


class LeaderboardApi(APIView):
    """`GET /leaderboard` (public; `around=me` needs a token): one board (table size and
    ruleset; by default every table size under the default rules) in one period, ranked by
    `metric` with ties sharing a rank, paged both ways by opaque keyset cursors."""

    permission_classes = [AllowAny]

    class FilterSerializer(QuerySerializer):
        class Meta:
            ref_name = "LeaderboardFilter"

        metric = serializers.ChoiceField(
            choices=list(METRICS),
            required=False,
            default="rating",
            help_text="rating: the board's openskill ordinal (mu - 3 sigma), highest first; "
            "wins: matches won, most first; points: mean penalty per deal, lowest first; "
            "skill: mean skill per deal (what the player's own decisions gained against the "
            "table, the luck of the deal and of every draw taken out), highest first, only players "
            "with an analysed deal.",
        )
        period = serializers.ChoiceField(
            choices=list(PERIODS),
            required=False,
            default="all",
            help_text="all time, the current calendar month or the current ISO week "
            "(Monday 00:00 UTC); see GET /leaderboards for the bounds.",
        )
        around = serializers.ChoiceField(
            choices=["me"],
            required=False,
            help_text="Centre the page on the caller (token required); an empty page when "
            "the caller has no match on this board in this period.",
        )
        limit = serializers.IntegerField(
            min_value=1, max_value=200, required=False, default=50, help_text="Rows per page."
        )
        cursor = cursor_field(max_length=400)
        seats = serializers.IntegerField(
            min_value=2,
            max_value=7,
            required=False,
            help_text="Table size of the board; every table size when absent.",
        )
        ruleset = serializers.RegexField(
            r"^(default|[0-9a-f]{12})$",
            required=False,
            default=DEFAULT_RULESET,
            error_messages={"invalid": RULESET_KEY},
            help_text="Ruleset key of the board (see GET /leaderboards).",
        )
        humans_only = serializers.BooleanField(
            required=False, default=False, help_text="Leave bots out (ranks among people)."
        )

    class EntrySerializer(serializers.Serializer):
        class Meta:
            ref_name = "LeaderboardEntry"

        rank = serializers.IntegerField()
        player = PlayerRefSerializer()
        rating = serializers.FloatField()
        matches = serializers.IntegerField()
        wins = serializers.IntegerField()
        deals_won = serializers.IntegerField()
        avg_penalty = serializers.FloatField(
            allow_null=True,
            help_text="Mean penalty per deal; null (off the points board) until one is scored.",
        )
        skill = serializers.FloatField(
            allow_null=True,
            help_text="Mean skill per deal: what the player's own decisions gained against the"
            " table (higher is better; games.DealLuck.skill).",
        )
        skill_deals = serializers.IntegerField(help_text="Analysed deals behind `skill`.")

    @schema.leaderboard
    @extend_schema(
        parameters=[FilterSerializer],
        responses={
            200: page_of(EntrySerializer, "LeaderboardPageResponse"),
            **error_responses("invalid", "not_authenticated"),
        },
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        cursor = data.get("cursor")
        around = None
        if data.get("around") == "me":
            if request.user is None or not hasattr(request.user, "player"):
                raise ApplicationError("not_authenticated", "around=me needs your token.")
            around = request.user.player.id
        page = leaderboard_page(
            metric=data["metric"],
            period=data["period"],
            seats=data.get("seats"),
            ruleset=data["ruleset"],
            humans_only=data["humans_only"],
            limit=data["limit"],
            cursor=None
            if cursor is None
            else Keyset.from_cursor(
                cursor, metric=data["metric"], scope=list_scope(request.get_full_path())
            ),
            around_player_id=around,
        )
        response = Response(
            {
                "results": self.EntrySerializer(
                    [leaderboard_entry(rank, row) for rank, row in page.results], many=True
                ).data,
                "next": cursor_link(request, page.next),
                "previous": cursor_link(request, page.previous),
            }
        )
        # around=me: the page the caller is on, theirs alone (another cursor's page is public).
        return response if around is None else no_store(response)


def cursor_link(request: Request, key: Any) -> str | None:
    """This request's URL with `cursor` set to `key` (and no `around`), or None."""
    if key is None:
        return None
    params = request.query_params.copy()
    params.pop("around", None)
    params["cursor"] = key.cursor(list_scope(request.get_full_path()))
    return request.build_absolute_uri(request.path) + "?" + params.urlencode()


class LeaderboardListApi(APIView):
    """`GET /leaderboards` (public): every board, with the bounds of the current periods."""

    permission_classes = [AllowAny]

    class PeriodSerializer(serializers.Serializer):
        class Meta:
            ref_name = "LeaderboardPeriod"

        start = serializers.DateTimeField(allow_null=True)
        end = serializers.DateTimeField(allow_null=True, help_text="Exclusive.")

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "Leaderboard"

        seats = serializers.IntegerField(
            allow_null=True, help_text="Table size; null for the board of every table size."
        )
        ruleset = serializers.CharField(help_text="`default` or a hash of the rules.")
        rules = serializers.DictField(help_text="The rules (without deals_per_match).")
        players = serializers.IntegerField(help_text="Players on the all-time board.")
        periods = serializers.DictField(
            child=serializers.DictField(), help_text="all, month, week: {start, end} (UTC)."
        )

    @schema.leaderboards_list
    @extend_schema(
        responses={200: OutputSerializer(many=True), **error_responses("not_authenticated")},
    )
    def get(self, request: Request) -> Response:
        boards = [leaderboard_summary(board, periods) for board, periods in leaderboards_list()]
        for board in boards:
            board["periods"] = {
                kind: self.PeriodSerializer(bounds).data
                for kind, bounds in board["periods"].items()
            }
        return Response(self.OutputSerializer(boards, many=True).data)


class PlayerHistoryApi(APIView):
    """`GET /players/{id}/history` (public): the player's ratings after each settled match,
    newest first, paged by keyset cursors."""

    permission_classes = [AllowAny]

    class FilterSerializer(QuerySerializer):
        class Meta:
            ref_name = "PlayerHistoryFilter"

        limit = serializers.IntegerField(
            min_value=1, max_value=200, required=False, default=50, help_text="Rows per page."
        )
        cursor = cursor_field(max_length=400)

    class EntrySerializer(serializers.Serializer):
        class Meta:
            ref_name = "PlayerHistoryEntry"

        match = serializers.UUIDField(
            source="match_id",
            allow_null=True,
            help_text="The match; null for a private match the caller may not see.",
        )
        finished_at = serializers.DateTimeField()
        seats = serializers.IntegerField()
        ruleset = serializers.CharField()
        place = serializers.IntegerField()
        rating = RatingSerializer(help_text="Global rating (as on /players/{id}) after the match.")
        boards = BoardRatingSerializer(
            many=True, help_text="All-time rating on each board the match moved, after it."
        )
        change = serializers.FloatField(
            help_text="How the match moved the global rating's ordinal: `rating.ordinal` minus"
            " the ordinal right before its settlement (the starting rating's for a first match).",
        )

    @schema.players_history
    @extend_schema(
        parameters=[FilterSerializer],
        responses={
            200: page_of(EntrySerializer, "PlayerHistoryPageResponse"),
            **error_responses("invalid", "not_authenticated", "not_found"),
        },
    )
    def get(self, request: Request, player_id: Any) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        cursor = data.get("cursor")
        rows, next_key, previous_key = player_history_page(
            player_id=player_id,
            limit=data["limit"],
            cursor=None
            if cursor is None
            else HistoryKeyset.from_cursor(cursor, scope=list_scope(request.get_full_path())),
        )
        # A private match is named only to its guests (games.selectors.match_guest).
        from games.selectors import private_matches_hidden

        viewer = getattr(request.user, "player", None) if request.user is not None else None
        hidden = private_matches_hidden(
            [row.match_id for row in rows], viewer.id if viewer is not None else None
        )
        results = [history_entry(row, hidden=row.match_id in hidden) for row in rows]
        return Response(
            {
                "results": self.EntrySerializer(results, many=True).data,
                "next": cursor_link(request, next_key),
                "previous": cursor_link(request, previous_key),
            }
        )
