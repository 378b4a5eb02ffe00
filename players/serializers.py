"""Response shapes of the player routes (docs/api.md "Players", "Leaderboards"): the serializer
classes shared by several views (the views' own Input/OutputSerializer stay nested in them), and
the functions that build each body from the rows the selectors read.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from .models import Board, Player, RatingHistory


class PlayerRefSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    display_name = serializers.CharField()
    is_bot = serializers.BooleanField()


def page_of(entry: type[serializers.Serializer], name: str) -> Any:
    return inline_serializer(
        name,
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
    luck_deals = serializers.IntegerField(help_text="Deals whose luck has been estimated.")
    mean_luck = serializers.FloatField(
        allow_null=True,
        help_text="Mean start-only luck (expected − actual deal score) over them; null before"
        " the first.",
    )
    luck_adjusted_score = serializers.FloatField(
        help_text="Sum of the luck over them: the hand's quality taken out of the penalties."
    )
    skill_deals = serializers.IntegerField(help_text="Deals whose skill has been estimated.")
    mean_skill = serializers.FloatField(
        allow_null=True,
        help_text="Mean skill over them (what the player's own decisions gained against the"
        " table; higher is better): the boards' `skill`. Null before the first.",
    )


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
            "luck_deals": player.luck_deals,
            "mean_luck": (
                round(player.luck_sum / player.luck_deals, 4) if player.luck_deals else None
            ),
            "luck_adjusted_score": round(player.luck_sum, 4),
            "skill_deals": player.skill_deals,
            "mean_skill": (
                round(player.skill_sum / player.skill_deals, 4) if player.skill_deals else None
            ),
        },
    }


class BoardRatingSerializer(serializers.Serializer):
    class Meta:
        ref_name = "BoardRating"

    seats = serializers.IntegerField(allow_null=True)
    ruleset = serializers.CharField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()


# ---- response bodies ----


def leaderboard_entry(rank: int, row: tuple[Any, ...]) -> dict[str, Any]:
    """One leaderboard row (selectors.leaderboard_page) at its rank."""
    _, player_id, matches, wins, deals_won, avg_penalty, ordinal, skill, skill_deals = row[:9]
    name, is_bot = row[9:]
    return {
        "rank": rank,
        "player": {"id": player_id, "display_name": name, "is_bot": bool(is_bot)},
        "rating": round(ordinal, 4),
        "matches": matches,
        "wins": wins,
        "deals_won": deals_won,
        "avg_penalty": None if avg_penalty is None else round(avg_penalty, 4),
        "skill": None if skill is None else round(skill, 4),
        "skill_deals": skill_deals,
    }


def leaderboard_summary(
    board: Board, periods: dict[str, tuple[datetime | None, datetime | None]]
) -> dict[str, Any]:
    """A board of GET /leaderboards with the bounds of the current periods."""
    return {
        "seats": board.seats or None,
        "ruleset": board.ruleset,
        "rules": board.rules,
        "players": board.player_count,
        "periods": {kind: {"start": start, "end": end} for kind, (start, end) in periods.items()},
    }


def history_entry(row: RatingHistory, *, hidden: bool = False) -> dict[str, Any]:
    """One row of a player's rating history; `hidden`: its match is a private one the caller
    may not see, and is not named."""
    return {
        "match_id": None if hidden else row.match_id,
        "finished_at": row.finished_at,
        "seats": row.seats,
        "ruleset": row.ruleset,
        "place": row.place,
        "rating": {
            "mu": row.rating_mu,
            "sigma": row.rating_sigma,
            "ordinal": row.rating_ordinal,
        },
        "boards": row.boards,
        "change": round(row.rating_ordinal - row.rating_ordinal_before, 4),
    }
