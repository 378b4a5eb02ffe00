"""Writes on players' standings: deal counters, the global rating, the leaderboard boards and
the rating history, written when a deal is scored and when a match settles."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import date, datetime
from typing import Any, NamedTuple
from uuid import UUID

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from openskill.models import PlackettLuce

from pisyedili_api import rawsql

from .. import sql
from ..boards import PERIODS, period_start, rules_for_board, ruleset_key
from ..models import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    Board,
    BoardEntry,
    BoardPeriod,
    Player,
    RatingHistory,
)

_RATING_MODEL = PlackettLuce()


def _rate(ratings: list[tuple[float, float]], places: list[int]) -> list[tuple[float, float]]:
    """openskill Plackett-Luce: one team per seat, `places` 1 = best (shared places tie)."""
    teams = [[_RATING_MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    ranks: list[float] = list(places)  # openskill takes float ranks
    rated = _RATING_MODEL.rate(teams, ranks=ranks)
    return [(team[0].mu, team[0].sigma) for team in rated]


def player_deals_add(*, deals: Sequence[tuple[UUID, bool, int]]) -> None:
    """Count one more deal for each player of (player id, won it, penalty points): deals
    played, deals won, penalty points. One row at a time in player-id order, so concurrent
    matches never deadlock, all in one round trip (players/sql.py)."""
    rows = [
        [1 if deal_won else 0, penalty, *rawsql.prepared(Player, id=player_id)]
        for player_id, deal_won, penalty in sorted(deals)
    ]
    rawsql.execute_many(sql.deals_add(), rows)


def player_standings_settle(
    *,
    match_id: UUID,
    player_ids: list[UUID],
    places: list[int],
    rules: Mapping[str, Any],
    finished_at: datetime,
    deals_played: int,
    deals_won: list[int],
    penalties: list[int],
) -> None:
    """Settle a finished match's standings, by seat: wins and the global openskill rating on
    Player, the leaderboard boards it belongs to, and a rating-history row per player.

    Boards: the match's table size and every table size, for its ruleset; on each, the all-time,
    calendar-month and ISO-week rows of the period containing `finished_at` (6 rows a seat).
    Each (board, period) is its own rating pool. Rows are updated incrementally with one
    INSERT … ON CONFLICT DO UPDATE adding this match's counts, never by recounting.

    The caller runs it once per match; it is safe anyway: the players' rows are locked (in id
    order, so concurrent settlements never deadlock) and a match with history rows is settled.
    Every board row of a player is written only under that player's lock, so the ratings read
    here cannot change before they are written back.

    Atomic; inside a caller's transaction it takes no savepoint of its own (an error rolls the
    caller's transaction back as a whole)."""
    seats = len(player_ids)
    if not (
        seats >= 2
        and len(places) == len(deals_won) == len(penalties) == seats
        and deals_played >= 0
    ):
        raise ValueError("one place, deals won and penalty per seat")
    with transaction.atomic(savepoint=False):
        players = {
            p.id: p
            for p in Player.objects.select_for_update(no_key=True)
            .filter(id__in=player_ids)
            .order_by("id")
        }
        if RatingHistory.objects.filter(match_id=match_id).exists():
            return  # settled already
        ordinal_before = {pid: players[pid].rating_ordinal for pid in player_ids}
        rated = _rate(
            [(players[pid].rating_mu, players[pid].rating_sigma) for pid in player_ids], places
        )
        for seat, pid in enumerate(player_ids):
            player = players[pid]
            player.rating_mu, player.rating_sigma = rated[seat]
            player.matches += 1
            if places[seat] == 1:
                player.wins += 1
        _players_save(sorted(players.values(), key=lambda p: p.id), _STANDINGS)

        pools = _board_pools(seats=seats, rules=rules, finished_at=finished_at)
        boards = [pool.board for pool in pools if pool.period_kind == "all"]
        current = {
            (pool_id, player_id): (mu, sigma)
            for pool_id, player_id, mu, sigma in BoardEntry.objects.filter(
                pool__in=pools, player_id__in=player_ids
            ).values_list("pool_id", "player_id", "rating_mu", "rating_sigma")
        }
        rows = []
        after: dict[tuple[int, UUID], tuple[float, float]] = {}
        new_on_board: dict[int, int] = {}
        for pool in pools:
            board, kind = pool.board, pool.period_kind
            before = [
                current.get((pool.id, pid), (DEFAULT_MU, DEFAULT_SIGMA)) for pid in player_ids
            ]
            for seat, (mu, sigma) in enumerate(_rate(before, places)):
                pid = player_ids[seat]
                if kind == "all":
                    after[board.id, pid] = (mu, sigma)
                    if (pool.id, pid) not in current:
                        new_on_board[board.id] = new_on_board.get(board.id, 0) + 1
                rows.append(
                    _BoardRow(
                        pool_id=pool.id,
                        player_id=pid,
                        is_human=not players[pid].is_bot,
                        matches=1,
                        wins=1 if places[seat] == 1 else 0,
                        deals_played=deals_played,
                        deals_won=deals_won[seat],
                        penalty_points=penalties[seat],
                        # A match abandoned in its first deal scored none (docs/rules.md).
                        avg_penalty=penalties[seat] / deals_played if deals_played else None,
                        rating_mu=mu,
                        rating_sigma=sigma,
                        rating_ordinal=mu - 3.0 * sigma,
                    )
                )
        _board_entries_add(rows)
        for board_id, count in new_on_board.items():
            Board.objects.filter(id=board_id).update(player_count=F("player_count") + count)

        RatingHistory.objects.bulk_create(
            [
                RatingHistory(
                    player_id=pid,
                    match_id=match_id,
                    finished_at=finished_at,
                    seats=seats,
                    ruleset=boards[0].ruleset,
                    place=places[seat],
                    rating_mu=players[pid].rating_mu,
                    rating_sigma=players[pid].rating_sigma,
                    rating_ordinal=players[pid].rating_ordinal,
                    rating_ordinal_before=ordinal_before[pid],
                    boards=[
                        {
                            "seats": board.seats or None,
                            "ruleset": board.ruleset,
                            "mu": after[board.id, pid][0],
                            "sigma": after[board.id, pid][1],
                            "ordinal": after[board.id, pid][0] - 3.0 * after[board.id, pid][1],
                        }
                        for board in boards
                    ],
                )
                for seat, pid in enumerate(player_ids)
            ]
        )


_STANDINGS = ("rating_mu", "rating_sigma", "matches", "wins")


def _players_save(players: list[Player], names: Sequence[str]) -> None:
    """Write the attributes `names` of each player to its row: one UPDATE (the rows are locked
    already, in id order)."""
    Player.objects.bulk_update(players, names)


def _board_pools(
    *, seats: int, rules: Mapping[str, Any], finished_at: datetime
) -> list[BoardPeriod]:
    """The pools a match counts in, each with its board loaded: on the board of its table size,
    then on the board of every table size (for the ruleset of `rules`), the periods of PERIODS
    containing `finished_at`. Boards and pools are created if missing (race-safe); once they
    exist, this is one query."""
    ruleset = ruleset_key(rules)
    sizes = (seats, Board.ALL_SEATS)
    starts = {kind: period_start(kind, finished_at) for kind in PERIODS}
    keys = [(size, kind, starts[kind]) for size in sizes for kind in PERIODS]

    def existing() -> dict[tuple[int, str, date], BoardPeriod]:
        rows = BoardPeriod.objects.select_related("board").filter(
            board__seats__in=sizes,
            board__ruleset=ruleset,
            period_start__in=set(starts.values()),
        )
        return {(p.board.seats, p.period_kind, p.period_start): p for p in rows}

    found = existing()
    missing = [key for key in keys if key not in found]
    if missing:
        boards = _boards_get_or_create(sizes=sizes, ruleset=ruleset, rules=rules)
        BoardPeriod.objects.bulk_create(
            [
                BoardPeriod(board=boards[size], period_kind=kind, period_start=start)
                for size, kind, start in missing
            ],
            ignore_conflicts=True,
        )
        found = existing()
    return [found[key] for key in keys]


def _boards_get_or_create(
    *, sizes: Sequence[int], ruleset: str, rules: Mapping[str, Any]
) -> dict[int, Board]:
    """The boards of table sizes `sizes` (Board.ALL_SEATS for every size) and `ruleset` by
    size, created from `rules` if missing (race-safe)."""

    def existing() -> dict[int, Board]:
        return {b.seats: b for b in Board.objects.filter(seats__in=sizes, ruleset=ruleset)}

    found = existing()
    missing = [size for size in sizes if size not in found]
    if missing:
        Board.objects.bulk_create(
            [Board(seats=size, ruleset=ruleset, rules=rules_for_board(rules)) for size in missing],
            ignore_conflicts=True,
        )
        found = existing()
    return found


@dataclass(frozen=True, slots=True)
class _BoardRow:
    pool_id: int
    player_id: UUID
    is_human: bool
    matches: int
    wins: int
    deals_played: int
    deals_won: int
    penalty_points: int
    avg_penalty: float | None
    rating_mu: float
    rating_sigma: float
    rating_ordinal: float


def _board_entries_add(rows: list[_BoardRow]) -> None:
    """INSERT … ON CONFLICT DO UPDATE (PostgreSQL and SQLite; players/sql.py), one row per
    statement, all in one round trip. (One statement of every row would carry 13 parameters a
    row, too many for psycopg to cache its parsing: it cost more than the rest of the
    settlement.)"""
    now = timezone.now()
    params = []
    for row in rows:
        values = {**asdict(row), "updated_at": now}
        params.append(
            rawsql.prepared(BoardEntry, **{n: values[n] for n in sql.BOARD_ENTRY_COLUMNS})
        )
    rawsql.execute_many(sql.board_entry_upsert(), params)


class SeatLuck(NamedTuple):
    """One seat's figures of one analysed deal (games.DealLuck), as the standings count them."""

    player_id: UUID
    luck: float | None  # start-only: expected − penalty; None: counted already (skill added later)
    skill: float | None  # from the seat's own decisions (DealSkill.skill); None: a row without one


def player_luck_add(*, luck: Sequence[SeatLuck]) -> None:
    """Count analysed deals, one per seat's row: the players' luck and skill counters of their
    stats (a None figure counts for nothing). In player-id order, as every player-row write."""
    for row in sorted(luck, key=lambda row: row.player_id):
        counters: dict[str, Any] = {}
        if row.luck is not None:
            counters |= {"luck_deals": F("luck_deals") + 1, "luck_sum": F("luck_sum") + row.luck}
        if row.skill is not None:
            counters |= {
                "skill_deals": F("skill_deals") + 1,
                "skill_sum": F("skill_sum") + row.skill,
            }
        if counters:
            Player.objects.filter(id=row.player_id).update(**counters)


def player_boards_luck_add(
    *,
    seats: int,
    rules: Mapping[str, Any],
    finished_at: datetime,
    luck: Sequence[SeatLuck],
) -> None:
    """Add analysed deals of one settled match to its players' `skill` on the boards the match
    counts in (those of player_standings_settle, whose rows exist): per seat with a skill one
    deal more and its skill, the mean recomputed from the sums (a row without a skill counts
    for nothing). The players' rows are locked in id order first, as player_standings_settle
    does (a board row is written only under its player's lock). The caller holds the match
    row lock and counts each deal once."""
    sums: dict[UUID, tuple[int, float]] = {}
    for row in luck:
        if row.skill is not None:
            deals, total = sums.get(row.player_id, (0, 0.0))
            sums[row.player_id] = (deals + 1, total + row.skill)
    if not sums:
        return
    with transaction.atomic(savepoint=False):
        list(
            Player.objects.select_for_update(no_key=True)
            .filter(id__in=list(sums))
            .order_by("id")
            .values_list("id", flat=True)
        )
        pools = _board_pools(seats=seats, rules=rules, finished_at=finished_at)
        for player_id, (deals, total) in sorted(sums.items()):
            # SET reads the row's old values: the skill is the new sum over the new count.
            BoardEntry.objects.filter(pool__in=pools, player_id=player_id).update(
                skill_deals=F("skill_deals") + deals,
                skill_sum=F("skill_sum") + total,
                skill=(F("skill_sum") + total) / (F("skill_deals") + deals),
            )
