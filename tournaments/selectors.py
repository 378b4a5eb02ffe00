"""Reads on tournaments: one tournament, the list, the tables, and the standings.

Standings are recounted from the ScoreEntry rows of the tournament's matches (entrants' seats
only; filler bots never count):

1. total penalty, lower first (every scored deal, so they move while a match is played);
2. deals won, more first;
3. head-to-head among the players still tied: +1 for every match in which a player's match
   total was lower than a tied opponent's at the same table, −1 for every one where it was
   higher; more first.

Players equal on all three share a rank (1, 1, 3, …); the listing order among them is the
order of entry. A bye scores the mean match total of every seat that played that round
(rounded half up, filler bots included) once all of the round's matches are finished, and
counts no deal played or won.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from typing import Any
from uuid import UUID

from django.db.models import Exists, OuterRef, Prefetch, QuerySet

from games.models import Match, ScoreEntry
from pisyedili_api.errors import ApplicationError
from players.models import Player

from .models import Entrant, Round, Table, Tournament
from .serializers import player_ref

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


def tournament_get(*, tournament_id: UUID | str) -> Tournament:
    tournament = (
        Tournament.objects.filter(id=tournament_id)
        .select_related("organizer")
        .prefetch_related(Prefetch("entrants", queryset=Entrant.objects.select_related("player")))
        .first()
    )
    if tournament is None:
        raise ApplicationError("not_found", "No such tournament.")
    return tournament


def tournament_list(
    *, status: str | None = None, invited: UUID | str | None = None
) -> QuerySet[Tournament]:
    """Newest first; `invited`: only the drafts where that player's invitation awaits an answer."""
    tournaments = Tournament.objects.all()
    if status:
        tournaments = tournaments.filter(status=status)
    if invited is not None:
        tournaments = tournaments.filter(
            status=Tournament.Status.DRAFT,
            entrants__player_id=invited,
            entrants__status=Entrant.Status.INVITED,
        )
    return tournaments.select_related("organizer").prefetch_related(
        Prefetch("entrants", queryset=Entrant.objects.select_related("player"))
    )


def tournaments_to_advance() -> list[str]:
    """Ids of running tournaments whose current round has no table still waiting or playing."""
    # One single-table query when nothing runs (the usual case for a beat task every few seconds).
    if not Tournament.objects.filter(status=Tournament.Status.RUNNING).exists():
        return []
    playing = Table.objects.filter(
        tournament=OuterRef("pk"), round__number=OuterRef("current_round")
    ).exclude(match__status=Match.Status.FINISHED)
    return [
        str(pk)
        for pk in Tournament.objects.filter(status=Tournament.Status.RUNNING)
        .exclude(Exists(playing))
        .values_list("id", flat=True)
    ]


def _tournament_matches(tournament: Tournament) -> list[tuple[int, int, Match]]:
    """(round number, table number, match) for every table of the tournament."""
    tables = (
        Table.objects.filter(tournament=tournament)
        .select_related("round", "match")
        .only("number", "round__number", "match__id", "match__status", "match__seat_players")
        .order_by("round__number", "number")
    )
    return [(t.round.number, t.number, t.match) for t in tables]


def tournament_standings(tournament: Tournament) -> list[dict[str, Any]]:
    """Ranked standings rows (see the module docstring for the order and the bye score)."""
    entrants = list(
        Entrant.objects.filter(tournament=tournament).select_related("player").order_by("position")
    )
    ids = [str(e.player_id) for e in entrants]
    rows: dict[str, dict[str, Any]] = {
        pid: {
            "player": player_ref(e.player),
            "matches": 0,
            "byes": 0,
            "deals_played": 0,
            "deals_won": 0,
            "penalty": 0,
            "head_to_head": 0,
        }
        for pid, e in zip(ids, entrants, strict=True)
    }
    tables = _tournament_matches(tournament)
    match_totals: dict[str, list[int]] = {
        str(m.id): [0] * len(m.seat_players) for _, _, m in tables
    }
    for match_id, seat, player_id, penalty, won in ScoreEntry.objects.filter(
        match_id__in=list(match_totals)
    ).values_list("match_id", "seat", "player_id", "penalty", "won"):
        match_totals[str(match_id)][seat] += penalty
        row = rows.get(str(player_id))
        if row is not None:
            row["deals_played"] += 1
            row["deals_won"] += int(won)
            row["penalty"] += penalty

    by_round: dict[int, list[Match]] = defaultdict(list)
    for number, _, match in tables:
        by_round[number].append(match)
        for player_id in match.seat_players:
            if player_id in rows:
                rows[player_id]["matches"] += 1

    for number, round_byes in Round.objects.filter(tournament=tournament).values_list(
        "number", "byes"
    ):
        matches = by_round.get(number, [])
        done = bool(matches) and all(m.status == Match.Status.FINISHED for m in matches)
        seat_totals = [t for m in matches for t in match_totals[str(m.id)]]
        bye_score = _round_half_up(sum(seat_totals), len(seat_totals)) if done else 0
        for player_id in round_byes:
            if player_id in rows:
                rows[player_id]["byes"] += 1
                rows[player_id]["penalty"] += bye_score

    # Head-to-head inside each group tied on (penalty, deals won).
    groups: dict[tuple[int, int], set[str]] = defaultdict(set)
    for pid, row in rows.items():
        groups[(row["penalty"], row["deals_won"])].add(pid)
    for group in groups.values():
        if len(group) < 2:
            continue
        for _, _, match in tables:
            totals = match_totals[str(match.id)]
            seated = [(p, s) for s, p in enumerate(match.seat_players) if p in group]
            for a, seat_a in seated:
                for b, seat_b in seated:
                    if a != b and totals[seat_a] != totals[seat_b]:
                        rows[a]["head_to_head"] += 1 if totals[seat_a] < totals[seat_b] else -1

    order = {pid: i for i, pid in enumerate(ids)}
    ranked = sorted(rows, key=lambda pid: (_rank_key(rows[pid]), order[pid]))
    result: list[dict[str, Any]] = []
    for i, pid in enumerate(ranked):
        row = rows[pid]
        if i and _rank_key(rows[ranked[i - 1]]) == _rank_key(row):
            row["rank"] = result[-1]["rank"]
        else:
            row["rank"] = i + 1
        result.append({"rank": row.pop("rank"), **row})
    return result


def _rank_key(row: dict[str, Any]) -> tuple[int, int, int]:
    return (row["penalty"], -row["deals_won"], -row["head_to_head"])


def _round_half_up(total: int, count: int) -> int:
    return (2 * total + count) // (2 * count) if count else 0


def _csv_text(text: str) -> str:
    """A display name a spreadsheet would run as a formula is quoted (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def standings_csv(standings: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
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
            ]
        )
    return out.getvalue()


def tournament_tables(
    tournament: Tournament, *, player_id: UUID | str | None = None
) -> list[dict[str, Any]]:
    """Every round's tables (match id, status, who sits where) and byes; with `player_id`, only
    the tables and byes of that player, and only the rounds they are in."""
    wanted = str(player_id) if player_id is not None else None
    tables = (
        Table.objects.filter(tournament=tournament)
        .select_related("match")
        .only("number", "round_id", "match__id", "match__status", "match__seat_players")
        .order_by("number")
    )
    by_round: dict[int, list[Table]] = defaultdict(list)
    for table in tables:
        by_round[table.round_id].append(table)
    seat_ids = {p for t in tables for p in t.match.seat_players if p}
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    seat_ids |= {p for r in rounds for p in r.byes}
    players = {str(p.id): p for p in Player.objects.filter(id__in=seat_ids)}
    entrants = {
        str(p)
        for p in Entrant.objects.filter(tournament=tournament).values_list("player_id", flat=True)
    }
    result = []
    for rnd in rounds:
        shown = [
            t for t in by_round.get(rnd.id, []) if wanted is None or wanted in t.match.seat_players
        ]
        byes = [p for p in rnd.byes if wanted is None or p == wanted]
        if wanted is not None and not shown and not byes:
            continue
        result.append(
            {
                "number": rnd.number,
                "started_at": rnd.started_at,
                "finished_at": rnd.finished_at,
                "byes": [player_ref(players[p]) for p in byes],
                "tables": [
                    {
                        "table": t.number,
                        "match": str(t.match.id),
                        "status": t.match.status,
                        "seats": [
                            {
                                "seat": seat,
                                "player": player_ref(players[p]),
                                "entrant": p in entrants,
                            }
                            for seat, p in enumerate(t.match.seat_players)
                        ],
                    }
                    for t in shown
                ],
            }
        )
    return result
