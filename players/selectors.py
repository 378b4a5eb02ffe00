"""Reads on players."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import (
    Count,
    ExpressionWrapper,
    F,
    FloatField,
    OuterRef,
    QuerySet,
    Subquery,
    Sum,
    Window,
)
from django.db.models.functions import Cast, Coalesce, Rank
from django.utils import timezone

from pisyedili_api.errors import ApplicationError

from .models import Player


def player_get(*, player_id: Any) -> Player:
    player = Player.objects.filter(id=player_id).first()
    if player is None:
        raise ApplicationError("not_found", "No such player.")
    return player


# ---- leaderboard (API.md "Leaderboards") ----

METRICS = ("rating", "wins", "points")
PERIODS = ("all", "month", "week")


def period_start(period: str, now: datetime | None = None) -> datetime | None:
    """Calendar month / ISO week (Monday) to date, UTC; None for all time."""
    now = now or timezone.now()
    day = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "month":
        return day.replace(day=1)
    if period == "week":
        return day - timedelta(days=day.weekday())
    return None


def leaderboard_queryset(*, metric: str, period: str) -> QuerySet[Player]:
    """Players with at least one deal in the period, ranked by `metric` (ties share a rank)."""
    from games.models import ScoreEntry, Seat

    start = period_start(period)
    players = Player.objects.all()
    if start is None:
        players = players.annotate(
            p_matches=F("matches"),
            p_wins=F("wins"),
            p_deals=F("deals_played"),
            p_deals_won=F("deals_won"),
            p_points=F("penalty_points"),
        )
    else:

        def count(qs: QuerySet[Any], expr: Any) -> Any:
            return Coalesce(Subquery(qs.values("player").annotate(v=expr).values("v")[:1]), 0)

        scores = ScoreEntry.objects.filter(player=OuterRef("pk"), created_at__gte=start)
        seats = Seat.objects.filter(player=OuterRef("pk"), match__finished_at__gte=start)
        players = players.annotate(
            p_matches=count(seats, Count("id")),
            p_wins=count(seats.filter(place=1), Count("id")),
            p_deals=count(scores, Count("id")),
            p_deals_won=count(scores.filter(won=True), Count("id")),
            p_points=count(scores, Sum("penalty")),
        )
    players = players.filter(p_deals__gt=0).annotate(
        p_rating=ExpressionWrapper(
            F("rating_mu") - 3.0 * F("rating_sigma"), output_field=FloatField()
        ),
        p_avg=ExpressionWrapper(
            Cast("p_points", FloatField()) / Cast("p_deals", FloatField()),
            output_field=FloatField(),
        ),
    )
    value = {
        "rating": F("p_rating").desc(),
        "wins": F("p_wins").desc(),
        "points": F("p_avg").asc(),
    }[metric]
    return players.annotate(rank=Window(Rank(), order_by=value)).order_by(value, "username")


def leaderboard_position(board: QuerySet[Player], player: Player) -> int | None:
    """0-based index of `player` in the ordered board, or None when not on it."""
    ids = list(board.values_list("id", flat=True))
    try:
        return ids.index(player.id)
    except ValueError:
        return None


def leaderboard_entry(player: Player) -> dict[str, Any]:
    return {
        "rank": player.rank,  # type: ignore[attr-defined]
        "player": {
            "id": str(player.id),
            "display_name": player.display_name,
            "is_bot": player.is_bot,
        },
        "rating": round(player.p_rating, 4),  # type: ignore[attr-defined]
        "matches": player.p_matches,  # type: ignore[attr-defined]
        "wins": player.p_wins,  # type: ignore[attr-defined]
        "deals_won": player.p_deals_won,  # type: ignore[attr-defined]
        "avg_penalty": round(player.p_avg, 4),  # type: ignore[attr-defined]
    }
