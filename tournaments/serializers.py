"""Response shapes of the tournament routes (docs/api.md "Tournaments"): the serializer
classes that document them in the schema, and the functions that build the public
`<tournament>` from its rows. The standings and the tables are computed by the selectors
(tournaments/selectors.py), which name each player with `player_ref`.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from rest_framework import serializers

from games.serializers import SeatPlayerSerializer

from .models import Entrant, Tournament
from .selectors import TablesShown, player_ref

CSV_COLUMNS = (
    "rank",
    "player_id",
    "display_name",
    "is_bot",
    "matches",
    "byes",
    "deals_played",
    "deals_won",
    "penalty",
    "head_to_head",
)
DUPLICATE_CSV_COLUMNS = (*CSV_COLUMNS, "matchpoints")  # a duplicate tournament's standings

STATUSES = ["draft", "running", "finished", "cancelled"]
FORMATS = ["round_robin", "swiss", "duplicate"]


class TournamentSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    organizer = SeatPlayerSerializer()
    format = serializers.ChoiceField(choices=FORMATS)
    table_size = serializers.IntegerField()
    deals_per_match = serializers.IntegerField()
    rules = serializers.DictField()
    fill_bots = serializers.CharField(allow_null=True, help_text="Bot strategy of empty seats.")
    status = serializers.ChoiceField(choices=STATUSES)
    rounds_total = serializers.IntegerField()
    current_round = serializers.IntegerField(help_text="0 until the tournament starts.")
    turn_seconds = serializers.IntegerField(help_text="The turn clock of every match.")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    players = SeatPlayerSerializer(many=True, help_text="Entrants, invited or accepted.")
    pending_invitations = SeatPlayerSerializer(
        many=True, help_text="Entrants who have not accepted yet; the start waits for them."
    )


class PaginatedTournamentSerializer(serializers.Serializer):
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = TournamentSerializer(many=True)


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="Players equal on every tie-break share a rank.")
    player = SeatPlayerSerializer()
    matches = serializers.IntegerField()
    byes = serializers.IntegerField()
    deals_played = serializers.IntegerField()
    deals_won = serializers.IntegerField()
    penalty = serializers.IntegerField(help_text="Total penalty, byes included; lower is better.")
    head_to_head = serializers.IntegerField(
        help_text="Matches won minus lost against players tied on penalty and deals won."
    )
    matchpoints = serializers.FloatField(
        required=False,
        help_text="Duplicate only, the first key: per deal, 1 for each result beaten and ½ for"
        " each tie among the results on the same cards in the same seat at the other tables.",
    )


class StandingsSerializer(serializers.Serializer):
    tournament = serializers.UUIDField()
    status = serializers.ChoiceField(choices=STATUSES)
    current_round = serializers.IntegerField()
    rounds_total = serializers.IntegerField()
    results = StandingSerializer(many=True)


class TableSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player = SeatPlayerSerializer()
    entrant = serializers.BooleanField(help_text="False for a bot filling an empty seat.")


class TableSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    match = serializers.UUIDField()
    status = serializers.ChoiceField(choices=["waiting", "active", "finished"])
    seats = TableSeatSerializer(many=True)


class RoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    byes = SeatPlayerSerializer(many=True)
    tables = TableSerializer(many=True)


class TablesSerializer(serializers.Serializer):
    tournament = serializers.UUIDField()
    rounds = RoundSerializer(many=True)


# ---- response bodies ----


def tournament_summary(tournament: Tournament) -> dict[str, Any]:
    return {
        "id": str(tournament.id),
        "name": tournament.name,
        "organizer": player_ref(tournament.organizer),
        "format": tournament.format,
        "table_size": tournament.table_size,
        "deals_per_match": tournament.deals_per_match,
        "rules": tournament.rules,
        "fill_bots": tournament.fill_bot or None,
        "status": tournament.status,
        "rounds_total": tournament.rounds_total,
        "current_round": tournament.current_round,
        "turn_seconds": tournament.turn_seconds,
        "created_at": tournament.created_at,
        "started_at": tournament.started_at,
        "finished_at": tournament.finished_at,
        "players": [player_ref(e.player) for e in tournament.entrants.all()],
        "pending_invitations": [
            player_ref(e.player)
            for e in tournament.entrants.all()
            if e.status != Entrant.Status.ACCEPTED and tournament.status == Tournament.Status.DRAFT
        ],
    }


def tournament_tables_out(shown: TablesShown) -> list[dict[str, Any]]:
    """The `rounds` of `GET …/tables`: every round shown with its tables and byes."""
    players = shown.players
    return [
        {
            "number": rnd.round.number,
            "started_at": rnd.round.started_at,
            "finished_at": rnd.round.finished_at,
            "byes": [player_ref(players[p]) for p in rnd.byes],
            "tables": [
                {
                    "table": t.number,
                    "match": str(t.match.id),
                    "status": t.match.status,
                    "seats": [
                        {
                            "seat": seat,
                            "player": player_ref(players[p]),
                            "entrant": p in shown.entrants,
                        }
                        for seat, p in enumerate(t.match.seat_players)
                    ],
                }
                for t in rnd.tables
            ],
        }
        for rnd in shown.rounds
    ]


def _csv_text(text: str) -> str:
    """A display name a spreadsheet would run as a formula is quoted (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _points_text(points: float) -> str:
    return f"{points:g}"


def standings_csv(standings: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    duplicate = bool(standings) and "matchpoints" in standings[0]
    writer.writerow(DUPLICATE_CSV_COLUMNS if duplicate else CSV_COLUMNS)
    for row in standings:
        player = row["player"]
        writer.writerow(
            [
                row["rank"],
                player["id"],
                _csv_text(player["display_name"]),
                "true" if player["is_bot"] else "false",
                row["matches"],
                row["byes"],
                row["deals_played"],
                row["deals_won"],
                row["penalty"],
                row["head_to_head"],
                *([_points_text(row["matchpoints"])] if duplicate else []),
            ]
        )
    return out.getvalue()
