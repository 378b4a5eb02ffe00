"""Reads on tournaments: one tournament, the list, the tables, and the standings.

Standings are recounted from the ScoreEntry rows of the tournament's matches (entrants' seats
only; filler bots never count):

1. total penalty, lower first (every scored deal, so they move while a match is played);
2. deals won, more first;
3. head-to-head among the players still tied: +1 for every finished match in which a player's
   match total was lower than a tied opponent's at the same table, −1 for every one where it
   was higher; more first.

A duplicate tournament (pairing.duplicate_schedule) ranks by total matchpoints first, more
first, then by the three above. Each deal score is compared with every other result obtained
with the same cards in the same seat, i.e. the same deal number and seat at the other tables of
the round (they play the same seeds): 1 for each beaten (a lower penalty), ½ for each tie. A
deal counts (matchpoints, penalty, deals won, head-to-head) only once every table of its round
has scored it (or finished its match without it), so no table's result is shown while another
table still plays those cards. A finished round's matchpoints are stored on the round.

A seat whose person resigned its match (games.services.resign) forfeits it: its bot plays on,
but in every deal of that match the seat counts the highest penalty at its table in that deal
and wins none (`_forfeited`), and it loses head-to-head to a seat that played on at an equal
total: resigning, however early, never ranks better than playing on.
The bye score is the round's mean of the totals as played.

Players equal on all the keys share a rank (1, 1, 3, …); the listing order among them is the
order of entry. A bye counts once all of the round's matches are finished, and then scores the
mean match total of every seat that played that round (rounded half up, filler bots included);
it counts no deal played or won.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db.models import Exists, OuterRef, Prefetch, QuerySet

from games.models import Match, ScoreEntry
from pisyedili_api.errors import ApplicationError
from players.models import Player

from .models import Entrant, Round, Table, Tournament


def player_ref(player: Player) -> dict[str, Any]:
    """A player as every tournament object names one (games.serializers.SeatPlayerSerializer)."""
    return {"id": str(player.id), "display_name": player.display_name, "is_bot": player.is_bot}


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
        .only(
            "number",
            "round__number",
            "match__id",
            "match__status",
            "match__seat_players",
            "match__resigned",
        )
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
    duplicate = tournament.format == Tournament.Format.DUPLICATE
    for row in rows.values():
        if duplicate:
            row["matchpoints"] = 0.0
    tables = _tournament_matches(tournament)
    match_totals: dict[str, list[int]] = {
        str(m.id): [0] * len(m.seat_players) for _, _, m in tables
    }
    played = _score_entries(list(match_totals))
    entries = _forfeited(tables, played)
    if duplicate:
        counted = _counted_entries(tables, entries)
        entries = [e for e in entries if e in counted]
        stored = dict(
            Round.objects.filter(tournament=tournament).values_list("number", "matchpoints")
        )
        for (number, _deal, _seat), results in _deal_groups(tables, entries).items():
            points = stored.get(number)
            for player_id, earned in _matchpoints(results).items():
                if points is None and player_id in rows:  # a finished round's are stored
                    rows[player_id]["matchpoints"] += earned
        for points in stored.values():
            for player_id, earned in (points or {}).items():
                if player_id in rows:
                    rows[player_id]["matchpoints"] += earned
    # The bye score's totals, as played (before the forfeits, which are no points scored).
    if duplicate:
        counted_deals = {(match_id, deal) for match_id, deal, *_ in entries}
        played = [e for e in played if (e[0], e[1]) in counted_deals]
    for match_id, _deal, seat, _player_id, penalty, _won in played:
        match_totals[match_id][seat] += penalty
    forfeit_totals: dict[str, list[int]] = {m: [0] * len(t) for m, t in match_totals.items()}
    for match_id, _deal, seat, player_id, penalty, won in entries:
        forfeit_totals[match_id][seat] += penalty
        entrant = rows.get(player_id)
        if entrant is not None:
            entrant["deals_played"] += 1
            entrant["deals_won"] += int(won)
            entrant["penalty"] += penalty

    by_round: dict[int, list[Match]] = defaultdict(list)
    for number, _, match in tables:
        by_round[number].append(match)
    # A match counts (`matches`, head-to-head) once it is finished, a duplicate one once every
    # table of its round is: until then its deals count nowhere (docs/api.md, the standings).
    finished = [match for _, _, match in tables if match.status == Match.Status.FINISHED]
    if duplicate:
        settled = {
            n for n, ms in by_round.items() if all(m.status == Match.Status.FINISHED for m in ms)
        }
        finished = [match for number, _, match in tables if number in settled]
    for match in finished:
        for player_id in match.seat_players:
            if player_id in rows:
                rows[player_id]["matches"] += 1

    for number, round_byes in Round.objects.filter(tournament=tournament).values_list(
        "number", "byes"
    ):
        matches = by_round.get(number, [])
        if not (matches and all(m.status == Match.Status.FINISHED for m in matches)):
            continue  # a bye counts, and scores, once its round is over
        seat_totals = [t for m in matches for t in match_totals[str(m.id)]]
        bye_score = _round_half_up(sum(seat_totals), len(seat_totals))
        for player_id in round_byes:
            if player_id in rows:
                rows[player_id]["byes"] += 1
                rows[player_id]["penalty"] += bye_score

    # Head-to-head inside each group tied on (matchpoints, penalty, deals won).
    groups: dict[tuple[float, int, int], set[str]] = defaultdict(set)
    for pid, row in rows.items():
        groups[(row.get("matchpoints", 0.0), row["penalty"], row["deals_won"])].add(pid)
    for group in groups.values():
        if len(group) < 2:
            continue
        for match in finished:
            # A forfeit loses to the seat that played on at an equal total.
            totals = forfeit_totals[str(match.id)]
            keys = [(total, seat in match.resigned) for seat, total in enumerate(totals)]
            seated = [(p, s) for s, p in enumerate(match.seat_players) if p in group]
            for a, seat_a in seated:
                for b, seat_b in seated:
                    if a != b and keys[seat_a] != keys[seat_b]:
                        rows[a]["head_to_head"] += 1 if keys[seat_a] < keys[seat_b] else -1

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


def _rank_key(row: dict[str, Any]) -> tuple[float, int, int, int]:
    return (-row.get("matchpoints", 0.0), row["penalty"], -row["deals_won"], -row["head_to_head"])


# A score entry as the standings read it: (match id, deal number, seat, player id, penalty, won).
Entry = tuple[str, int, int, str, int, bool]


def _score_entries(match_ids: list[str]) -> list[Entry]:
    return [
        (str(match_id), number, seat, str(player_id), penalty, won)
        for match_id, number, seat, player_id, penalty, won in ScoreEntry.objects.filter(
            match_id__in=match_ids
        ).values_list("match_id", "deal__number", "seat", "player_id", "penalty", "won")
    ]


def _forfeited(tables: list[tuple[int, int, Match]], entries: list[Entry]) -> list[Entry]:
    """`entries` with the forfeits of the resigned seats (Match.resigned): in every deal of a
    match whose seat's person resigned, that seat counts the highest penalty at its table in
    that deal, and no deal won."""
    resigned = {str(m.id): set(m.resigned) for _, _, m in tables if m.resigned}
    if not resigned:
        return entries
    highest: dict[tuple[str, int], int] = defaultdict(int)
    for match_id, deal, _seat, _player, penalty, _won in entries:
        if match_id in resigned:
            highest[match_id, deal] = max(highest[match_id, deal], penalty)
    return [
        (match_id, deal, seat, player, highest[match_id, deal], False)
        if seat in resigned.get(match_id, ())
        else (match_id, deal, seat, player, penalty, won)
        for match_id, deal, seat, player, penalty, won in entries
    ]


def _counted_entries(tables: list[tuple[int, int, Match]], entries: list[Entry]) -> set[Entry]:
    """The entries of the deals that every table of their round has scored (or finished its
    match without): only these count in a duplicate tournament's standings."""
    scored: dict[int, set[tuple[str, int]]] = defaultdict(set)
    round_of = {str(m.id): number for number, _, m in tables}
    for match_id, deal, *_ in entries:
        scored[round_of[match_id]].add((match_id, deal))
    open_tables: dict[int, list[str]] = defaultdict(list)
    for number, _, match in tables:
        if match.status != Match.Status.FINISHED:
            open_tables[number].append(str(match.id))
    return {
        e
        for e in entries
        if all((m, e[1]) in scored[round_of[e[0]]] for m in open_tables[round_of[e[0]]])
    }


def _deal_groups(
    tables: list[tuple[int, int, Match]], entries: list[Entry]
) -> dict[tuple[int, int, int], list[tuple[str, int]]]:
    """(round, deal number, seat) -> [(player id, penalty)]: the results on the same cards."""
    round_of = {str(m.id): number for number, _, m in tables}
    groups: dict[tuple[int, int, int], list[tuple[str, int]]] = defaultdict(list)
    for match_id, deal, seat, player_id, penalty, _won in entries:
        groups[(round_of[match_id], deal, seat)].append((player_id, penalty))
    return groups


def _matchpoints(results: list[tuple[str, int]]) -> dict[str, float]:
    """Each result against every other on the same cards: 1 per beaten (lower penalty), ½ per
    tie."""
    points = {player_id: 0.0 for player_id, _ in results}
    for i, (player_id, penalty) in enumerate(results):
        for j, (_, other) in enumerate(results):
            if i != j:
                points[player_id] += 1.0 if penalty < other else 0.5 if penalty == other else 0.0
    return points


def round_matchpoints(rnd: Round) -> dict[str, float]:
    """Each entrant's matchpoints over the deals of a duplicate round (player id -> points)."""
    tables = [
        (rnd.number, t.number, t.match)
        for t in Table.objects.filter(round=rnd).select_related("match").order_by("number")
    ]
    entries = _forfeited(tables, _score_entries([str(m.id) for _, _, m in tables]))
    counted = _counted_entries(tables, entries)
    entries = [e for e in entries if e in counted]
    totals: dict[str, float] = defaultdict(float)
    for results in _deal_groups(tables, entries).values():
        for player_id, earned in _matchpoints(results).items():
            totals[player_id] += earned
    return dict(totals)


def _round_half_up(total: int, count: int) -> int:
    return (2 * total + count) // (2 * count) if count else 0


@dataclass(frozen=True)
class RoundShown:
    """One round as `tournament_tables` shows it: its tables and byes (player ids)."""

    round: Round
    tables: list[Table]
    byes: list[str]


@dataclass(frozen=True)
class TablesShown:
    """The rounds shown, with the players they name (by id) and the tournament's entrants."""

    rounds: list[RoundShown]
    players: dict[str, Player]
    entrants: set[str]


def tournament_tables(
    tournament: Tournament, *, player_id: UUID | str | None = None
) -> TablesShown:
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
    shown: list[RoundShown] = []
    for rnd in rounds:
        tables_shown = [
            t for t in by_round.get(rnd.id, []) if wanted is None or wanted in t.match.seat_players
        ]
        byes = [p for p in rnd.byes if wanted is None or p == wanted]
        if wanted is not None and not tables_shown and not byes:
            continue
        shown.append(RoundShown(rnd, tables_shown, byes))
    return TablesShown(shown, players, entrants)
