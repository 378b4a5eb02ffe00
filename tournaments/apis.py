"""Tournament routes: one thin API class per operation (validate → service/selector → render);
what the served schema says of each is in tournaments/schema.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.clock import TURN_SECONDS_MAX, TURN_SECONDS_MIN
from pisyedili_api.caching import no_store
from pisyedili_api.cursors import SignedCursorPagination, cursor_field
from pisyedili_api.errors import ApplicationError
from pisyedili_api.keyed import keyed_write
from pisyedili_api.openapi import error_responses
from pisyedili_api.renderers import ErrorsAsJSON, JSONRenderer
from pisyedili_api.serializers import QuerySerializer, StrictSerializer, body_fields_check
from players.auth import AuthenticatedRequest

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from players.models import Player

from . import schema
from .selectors import (
    tournament_get,
    tournament_list,
    tournament_standings,
    tournament_tables,
)
from .serializers import (
    FORMATS,
    STATUSES,
    PaginatedTournamentSerializer,
    StandingsSerializer,
    TablesSerializer,
    TournamentSerializer,
    standings_csv,
    tournament_summary,
    tournament_tables_out,
)
from .services import (
    MAX_ROUNDS,
    tournament_cancel,
    tournament_create,
    tournament_entrant_remove,
    tournament_invitation_accept,
    tournament_invitation_decline,
    tournament_start,
)

MAX_ENTRANTS = settings.TOURNAMENT_MAX_ENTRANTS

# ---- CSV ----


class StandingsCSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None
    ) -> Any:
        return standings_csv(data["results"]).encode()


class CSVOnly(BaseContentNegotiation):
    """standings.csv answers CSV whatever the Accept header says; a `format` other than `csv`
    or `json` (accepted on every route) is 404, as on every route that does not name it."""

    def select_parser(self, request: Any, parsers: Any) -> Any:
        return parsers[0] if parsers else None

    def select_renderer(self, request: Any, renderers: Any, format_suffix: Any = None) -> Any:
        if request.query_params.get("format") not in (None, "", "csv", "json"):
            raise Http404
        return (renderers[0], renderers[0].media_type)


# ---- views ----


class TournamentCursorPagination(SignedCursorPagination):
    salt = "tournaments"  # a match list's cursor is no tournament list's
    ordering = ("-created_at", "-id")
    page_size = 20
    page_size_query_param = "limit"
    max_page_size = 100


class TournamentListCreateApi(APIView):
    """`GET /tournaments` (public, newest first) and `POST /tournaments` (create, in draft)."""

    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    def get_throttles(self) -> list[Any]:
        """A create counts towards THROTTLE_TOURNAMENT; reading the list does not."""
        if self.request is not None and self.request.method == "POST":
            self.throttle_scope = "tournament"
            return super().get_throttles()
        return []

    class FilterSerializer(QuerySerializer):
        class Meta:
            ref_name = "TournamentFilter"

        status = serializers.ChoiceField(
            choices=STATUSES, required=False, help_text="Only the tournaments in this status."
        )
        invited = serializers.BooleanField(
            required=False,
            default=False,
            help_text="Only drafts whose invitation to the caller awaits an answer (token).",
        )
        limit = serializers.IntegerField(
            min_value=1,
            max_value=100,
            required=False,
            help_text="Tournaments per page (default 20).",
        )
        cursor = cursor_field()

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "TournamentCreate"

        name = serializers.CharField(
            max_length=100,
            help_text="Plain text (no control or format characters, as a display name).",
        )
        players = serializers.ListField(
            child=serializers.UUIDField(),
            required=False,
            default=list,
            max_length=MAX_ENTRANTS,
            help_text="Entrant player ids (people or bots), in seeding order. People are"
            " invited: the tournament starts once each has accepted.",
        )
        bots = serializers.ListField(
            child=serializers.CharField(max_length=32),
            required=False,
            default=list,
            max_length=MAX_ENTRANTS,
            help_text="More entrants: one bot player per strategy name (GET /api/v1/bots).",
        )
        format = serializers.ChoiceField(choices=FORMATS)
        table_size = serializers.IntegerField(min_value=2, max_value=4)
        deals = serializers.IntegerField(
            min_value=1, max_value=52, required=False, help_text="Deals per match (default 4)."
        )
        rules = serializers.DictField(required=False)
        fill_bots = serializers.CharField(
            max_length=32,
            required=False,
            allow_null=True,
            help_text="Bot strategy seated in empty seats; without it the remainder gets byes.",
        )
        rounds = serializers.IntegerField(
            min_value=1,
            max_value=MAX_ROUNDS,
            required=False,
            help_text="Swiss: default ceil(log2 n), capped so repeats can be avoided. Duplicate:"
            " default table_size (every two entrants of different groups meet once).",
        )
        turn_seconds = serializers.IntegerField(
            min_value=TURN_SECONDS_MIN,
            max_value=TURN_SECONDS_MAX,
            required=False,
            help_text="Turn clock of every match: seconds a person has per turn, past it the"
            " greedy move is played for them. Absent: the server's default; never off.",
        )

    @schema.tournaments_list
    @extend_schema(
        parameters=[FilterSerializer],
        responses={
            200: PaginatedTournamentSerializer,
            **error_responses("invalid", "not_authenticated"),
        },
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        invited = None
        if filters.validated_data["invited"]:
            invited = _caller(request, "invited=true needs your token.").id
        tournaments = tournament_list(status=filters.validated_data.get("status"), invited=invited)
        paginator = TournamentCursorPagination()
        page = paginator.paginate_queryset(tournaments, request, view=self)
        response = paginator.get_paginated_response([tournament_summary(t) for t in page or []])
        return response if invited is None else no_store(response)  # the caller's invitations

    @schema.tournaments_create
    @extend_schema(
        request=InputSerializer,
        responses={
            201: TournamentSerializer,
            **error_responses("invalid", "not_authenticated", "too_many_tournaments", "throttled"),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        tournament = tournament_create(organizer=request.user.player, **body.validated_data)
        return Response(
            tournament_summary(tournament_get(tournament_id=tournament.id)),
            status=status.HTTP_201_CREATED,
        )


class TournamentDetailApi(APIView):
    permission_classes = [AllowAny]

    @schema.tournaments_detail
    @extend_schema(
        responses={
            200: TournamentSerializer,
            **error_responses("not_authenticated", "not_found"),
        },
    )
    def get(self, request: Request, tournament_id: Any) -> Response:
        return Response(tournament_summary(tournament_get(tournament_id=tournament_id)))


class TournamentStartApi(APIView):
    throttle_scope = "tournament"

    @schema.tournaments_start
    @extend_schema(
        request=None,
        responses={
            200: TournamentSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "not_organizer",
                "not_found",
                "tournament_started",
                "tournament_over",
                "invitations_pending",
                "not_enough_entrants",
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, tournament_id: Any) -> Response:
        body_fields_check(request.data)
        tournament_start(tournament_id=tournament_id, player=request.user.player)
        return Response(tournament_summary(tournament_get(tournament_id=tournament_id)))


class TournamentCancelApi(APIView):
    throttle_scope = "tournament"

    @schema.tournaments_cancel
    @extend_schema(
        request=None,
        responses={
            200: TournamentSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "not_organizer",
                "not_found",
                "tournament_over",
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, tournament_id: Any) -> Response:
        body_fields_check(request.data)
        tournament_cancel(tournament_id=tournament_id, player=request.user.player)
        return Response(tournament_summary(tournament_get(tournament_id=tournament_id)))


class TournamentInvitationAcceptApi(APIView):
    """The caller accepts their invitation (again: no change)."""

    throttle_scope = "tournament"

    @schema.tournaments_invitation_accept
    @extend_schema(
        request=None,
        responses={
            200: TournamentSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "not_invited",
                "not_found",
                "tournament_started",
                "tournament_over",
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, tournament_id: Any) -> Response:
        body_fields_check(request.data)
        tournament_invitation_accept(tournament_id=tournament_id, player=request.user.player)
        return Response(tournament_summary(tournament_get(tournament_id=tournament_id)))


class TournamentInvitationDeclineApi(APIView):
    """The caller declines (or withdraws before the start): they leave the tournament."""

    throttle_scope = "tournament"

    @schema.tournaments_invitation_decline
    @extend_schema(
        request=None,
        responses={
            200: TournamentSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "not_invited",
                "not_found",
                "tournament_started",
                "tournament_over",
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, tournament_id: Any) -> Response:
        body_fields_check(request.data)
        tournament_invitation_decline(tournament_id=tournament_id, player=request.user.player)
        return Response(tournament_summary(tournament_get(tournament_id=tournament_id)))


class TournamentEntrantRemoveApi(APIView):
    """The organizer takes an entrant out of a draft tournament."""

    throttle_scope = "tournament"

    class InputSerializer(StrictSerializer):
        player = serializers.UUIDField(help_text="The entrant to take out (a player's id).")

    @schema.tournaments_entrant_remove
    @extend_schema(
        request=InputSerializer,
        responses={
            200: TournamentSerializer,
            **error_responses(
                "invalid",
                "not_authenticated",
                "not_organizer",
                "not_found",
                "tournament_started",
                "tournament_over",
                "throttled",
            ),
        },
    )
    @keyed_write
    def post(self, request: AuthenticatedRequest, tournament_id: Any) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        tournament_entrant_remove(
            tournament_id=tournament_id,
            player=request.user.player,
            entrant_id=body.validated_data["player"],
        )
        return Response(tournament_summary(tournament_get(tournament_id=tournament_id)))


def _caller(request: Request, message: str) -> Player:
    """The caller's player on a public route whose option needs a token, else 401."""
    if request.user is None or not getattr(request.user, "is_authenticated", False):
        raise ApplicationError("not_authenticated", message)
    # Authenticated: a User (PlayerTokenAuthentication), not the AnonymousUser.
    return cast("User", request.user).player


def _standings_body(tournament_id: Any) -> dict[str, Any]:
    tournament = tournament_get(tournament_id=tournament_id)
    return {
        "tournament": str(tournament.id),
        "status": tournament.status,
        "current_round": tournament.current_round,
        "rounds_total": tournament.rounds_total,
        "results": tournament_standings(tournament),
    }


class TournamentStandingsApi(ErrorsAsJSON, APIView):
    """JSON, or CSV with `?format=csv` (or `Accept: text/csv`)."""

    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer, StandingsCSVRenderer]

    @schema.tournaments_standings
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "format",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                required=False,
                enum=["json", "csv"],
                description="`csv` answers text/csv (the columns of standings.csv).",
            )
        ],
        responses={
            (200, "application/json"): StandingsSerializer,
            (200, "text/csv"): schema.standings_csv,
            **error_responses("not_authenticated", "not_found"),
        },
    )
    def get(self, request: Request, tournament_id: Any, format: str | None = None) -> Response:
        return Response(_standings_body(tournament_id))


class TournamentStandingsCsvApi(ErrorsAsJSON, APIView):
    permission_classes = [AllowAny]
    renderer_classes = [StandingsCSVRenderer]
    content_negotiation_class = CSVOnly

    @schema.tournaments_standings_csv
    @extend_schema(
        responses={
            (200, "text/csv"): schema.standings_csv_file,
            **error_responses("not_authenticated", "not_found"),
        },
    )
    def get(self, request: Request, tournament_id: Any) -> Response:
        response = Response(_standings_body(tournament_id))
        response["Content-Disposition"] = f'inline; filename="standings-{tournament_id}.csv"'
        return response


class TournamentTablesApi(APIView):
    """Every round's tables (public); `mine=true`: the caller's own tables and byes."""

    permission_classes = [AllowAny]

    class FilterSerializer(QuerySerializer):
        class Meta:
            ref_name = "TournamentTablesFilter"

        mine = serializers.BooleanField(
            required=False, default=False, help_text="Only the caller's tables (needs a token)."
        )

    @schema.tournaments_tables
    @extend_schema(
        parameters=[FilterSerializer],
        responses={
            200: TablesSerializer,
            **error_responses("invalid", "not_authenticated", "not_found"),
        },
    )
    def get(self, request: Request, tournament_id: Any) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        player_id = None
        if filters.validated_data["mine"]:
            player_id = _caller(request, "mine=true needs your token.").id
        tournament = tournament_get(tournament_id=tournament_id)
        response = Response(
            {
                "tournament": str(tournament.id),
                "rounds": tournament_tables_out(tournament_tables(tournament, player_id=player_id)),
            }
        )
        return response if player_id is None else no_store(response)  # mine=true: the caller's
