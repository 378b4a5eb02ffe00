"""Reads on players."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast
from uuid import UUID

from django.db import connection
from django.db.models import Field, Q
from django.utils import timezone

from pisyedili_api.cursors import cursor_decode, cursor_encode, invalid_cursor
from pisyedili_api.errors import ApplicationError

from .boards import DEFAULT_RULESET, PERIODS, period_bounds, period_start
from .models import Board, BoardEntry, BoardPeriod, Player, RatingHistory


def player_get(*, player_id: Any) -> Player:
    player = Player.objects.filter(id=player_id).first()
    if player is None:
        raise ApplicationError("not_found", "No such player.")
    return player


# ---- leaderboards (docs/api.md "Leaderboards") ----
#
# A page is read from BoardEntry rows of one (board, period) by keyset: the order is
# (value, player_id), descending for rating and wins, ascending for points, and every order
# has its composite index, so a page is one index range scan wherever it starts. The rank of
# a row is 1 + the number of rows strictly better (competition ranking: 1, 1, 3); the page's
# first rank and position come from one count over the index range before it, and the ranks
# of the rest of the page follow from the page itself. Hand-written SQL: the ORM has no row
# comparison, and keyset paging with shared ranks is not what DRF's CursorPagination does.

METRICS = ("rating", "wins", "points", "skill")
# A board value in a cursor is a rating, a win count or an average penalty: far below this,
# which every backend's integers and floats hold (SQLite's stop at 64 bits).
KEYSET_VALUE_MAX = 2**53
_ORDER = {  # metric -> (BoardEntry field, best first is descending)
    "rating": ("rating_ordinal", True),
    "wins": ("wins", True),
    "points": ("avg_penalty", False),
    "skill": ("skill", True),  # rows with a skill only (BoardEntry.skill)
}


@dataclass(frozen=True, slots=True)
class Keyset:
    """Where a page starts: after (forward) or before (backward) the row (value, player_id)."""

    metric: str
    value: float
    player_id: UUID
    forward: bool

    def encode(self) -> str:
        body = {
            "m": self.metric,
            "v": self.value,
            "p": str(self.player_id),
            "d": "n" if self.forward else "p",
        }
        return cursor_encode(body, salt="leaderboard")

    @classmethod
    def decode(cls, cursor: str, *, metric: str) -> Keyset:
        """An opaque cursor of this metric's board (signed, pisyedili_api.cursors), else 400
        `invalid`."""
        message = "Invalid cursor: pass back a `next` or `previous` link of this board."
        body = cursor_decode(cursor, salt="leaderboard", message=message)
        try:
            value = body["v"]
            if (
                body["m"] != metric
                or body["d"] not in ("n", "p")
                or isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or (metric == "wins" and not isinstance(value, int))
                or abs(value) > KEYSET_VALUE_MAX
            ):
                raise ValueError(body)
            return cls(metric, value, UUID(body["p"]), body["d"] == "n")
        except (ValueError, TypeError, KeyError, AttributeError):
            raise invalid_cursor(message) from None


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    results: list[dict[str, Any]]
    next: Keyset | None
    previous: Keyset | None


def board_period_get(
    *, seats: int | None, ruleset: str, period: str, now: datetime
) -> BoardPeriod | None:
    """The pool of a board (table size, ruleset) in the period of kind `period` holding `now`."""
    return BoardPeriod.objects.filter(
        board__seats=seats or Board.ALL_SEATS,
        board__ruleset=ruleset,
        period_kind=period,
        period_start=period_start(period, now),
    ).first()


def leaderboard_page(
    *,
    metric: str,
    period: str,
    seats: int | None = None,
    ruleset: str = DEFAULT_RULESET,
    humans_only: bool = False,
    limit: int = 50,
    cursor: Keyset | None = None,
    around_player_id: UUID | None = None,
    now: datetime | None = None,
) -> LeaderboardPage:
    """One page of a board: from the top, from a cursor, or centred on `around_player_id`
    (an empty page when that player has no row on the board: no match in the period)."""
    pool = board_period_get(seats=seats, ruleset=ruleset, period=period, now=now or timezone.now())
    if pool is None:
        return LeaderboardPage([], None, None)
    query = _BoardQuery(pool, metric, humans_only)
    if around_player_id is not None:
        me = query.row_of(around_player_id)
        if me is None:
            return LeaderboardPage([], None, None)
        before = query.rows(me, forward=False, limit=limit - 1)
        after = query.rows(me, forward=True, limit=limit)  # one more: is there a next page?
        take_before = min(len(before), max((limit - 1) // 2, limit - 1 - len(after)))
        rows = before[len(before) - take_before :] + [me] + after[: limit - 1 - take_before]
        has_next = len(after) > limit - 1 - take_before
    elif cursor is None or cursor.forward:
        rows = query.rows(
            None if cursor is None else (cursor.value, cursor.player_id),
            forward=True,
            limit=limit + 1,
        )
        has_next = len(rows) > limit
        rows = rows[:limit]
    else:
        rows = query.rows((cursor.value, cursor.player_id), forward=False, limit=limit)
        has_next = bool(rows) and bool(query.rows(rows[-1], forward=True, limit=1))
    if not rows:
        return LeaderboardPage([], None, None)
    position, better = query.before(rows[0]) if (cursor or around_player_id) else (0, 0)
    results = []
    for i, row in enumerate(rows):
        if i == 0:
            rank = better + 1
        elif row[0] != rows[i - 1][0]:
            rank = position + i + 1
        results.append(query.entry(row, rank))
    return LeaderboardPage(
        results,
        next=Keyset(metric, rows[-1][0], rows[-1][1], True) if has_next else None,
        previous=Keyset(metric, rows[0][0], rows[0][1], False) if position > 0 else None,
    )


class _BoardQuery:
    """SQL over the BoardEntry rows of one (board, period[, humans]) in one metric's order."""

    def __init__(self, pool: BoardPeriod, metric: str, humans_only: bool):
        meta = BoardEntry._meta
        q = connection.ops.quote_name
        self.table = q(meta.db_table)

        def col(name: str) -> str:
            # A concrete field of BoardEntry, never a reverse relation: it has a column.
            return f"{self.table}.{q(cast('Field[Any, Any]', meta.get_field(name)).column)}"

        field, self.descending = _ORDER[metric]
        self.player_field = meta.get_field("player")
        self.value, self.player = col(field), col("player")
        self.where = f"{col('pool')} = %s"
        self.params: list[Any] = [pool.id]
        if humans_only:  # a literal predicate, so the partial index applies
            self.where += f" AND {col('is_human')}"
        if metric == "skill":
            self.where += f" AND {self.value} IS NOT NULL"
        people = q(Player._meta.db_table)
        self.select = (
            f"SELECT {self.value}, {self.player}, "
            + ", ".join(
                col(name)
                for name in (
                    "matches",
                    "wins",
                    "deals_won",
                    "avg_penalty",
                    "rating_ordinal",
                    "skill",
                    "luck_deals",
                )
            )
            + f", {people}.{q('display_name')}, {people}.{q('is_bot')}"
            + f" FROM {self.table} JOIN {people} ON {people}.{q('id')} = {self.player}"
        )

    def _player(self, player_id: UUID) -> Any:
        return self.player_field.target_field.get_db_prep_value(player_id, connection)

    def _fetch(self, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        return [(row[0], self.player_field.to_python(row[1]), *row[2:]) for row in rows]

    def row_of(self, player_id: UUID) -> tuple[Any, ...] | None:
        sql = f"{self.select} WHERE {self.where} AND {self.player} = %s"
        rows = self._fetch(sql, [*self.params, self._player(player_id)])
        return rows[0] if rows else None

    def rows(
        self, key: tuple[Any, ...] | None, *, forward: bool, limit: int
    ) -> list[tuple[Any, ...]]:
        """Up to `limit` rows after (forward) or before `key` = (value, player_id, …), in
        display order; from the top when `key` is None."""
        if limit <= 0:
            return []
        descending = self.descending == forward  # scan direction of the index
        direction = "DESC" if descending else "ASC"
        sql = f"{self.select} WHERE {self.where}"
        params = list(self.params)
        if key is not None:
            sql += f" AND ({self.value}, {self.player}) {'<' if descending else '>'} (%s, %s)"
            params += [key[0], self._player(key[1])]
        sql += f" ORDER BY {self.value} {direction}, {self.player} {direction} LIMIT %s"
        rows = self._fetch(sql, [*params, limit])
        return rows if forward else rows[::-1]

    def before(self, row: tuple[Any, ...]) -> tuple[int, int]:
        """(rows before `row` in the order, rows strictly better than it): the rows of better
        value plus the tied rows ahead of it by player id; two index ranges, one round trip."""
        better, ahead = (">", ">") if self.descending else ("<", "<")
        count = f"SELECT COUNT(*) FROM {self.table} WHERE {self.where} AND "
        sql = (
            f"SELECT ({count}{self.value} {better} %s),"
            f" ({count}{self.value} = %s AND {self.player} {ahead} %s)"
        )
        player = self._player(row[1])
        with connection.cursor() as cursor:
            cursor.execute(sql, [*self.params, row[0], *self.params, row[0], player])
            strictly_better, tied_ahead = cursor.fetchone()
        return strictly_better + tied_ahead, strictly_better

    def entry(self, row: tuple[Any, ...], rank: int) -> dict[str, Any]:
        _, player_id, matches, wins, deals_won, avg_penalty, ordinal, skill, luck_deals = row[:9]
        name, is_bot = row[9:]
        return {
            "rank": rank,
            "player": {"id": player_id, "display_name": name, "is_bot": bool(is_bot)},
            "rating": round(ordinal, 4),
            "matches": matches,
            "wins": wins,
            "deals_won": deals_won,
            "avg_penalty": round(avg_penalty, 4),
            "skill": None if skill is None else round(skill, 4),
            "skill_deals": luck_deals,
        }


def leaderboards_list(*, now: datetime | None = None) -> list[dict[str, Any]]:
    """Every board with its rules, player count and the current period bounds (UTC)."""
    now = now or timezone.now()
    periods = {}
    for kind in PERIODS:
        start, end = period_bounds(kind, now)
        periods[kind] = {"start": start, "end": end}
    return [
        {
            "seats": board.seats or None,
            "ruleset": board.ruleset,
            "rules": board.rules,
            "players": board.player_count,
            "periods": periods,
        }
        for board in Board.objects.order_by("ruleset", "seats")
    ]


# ---- rating history ----


def player_history_page(
    *, player_id: UUID, limit: int, cursor: HistoryKeyset | None = None
) -> tuple[list[RatingHistory], HistoryKeyset | None, HistoryKeyset | None]:
    """The player's rating after each settled match, newest first, by keyset
    (finished_at, match_id); 404 for an unknown player."""
    player_get(player_id=player_id)
    rows = RatingHistory.objects.filter(player_id=player_id)
    if cursor is None or cursor.forward:
        if cursor is not None:
            rows = rows.filter(
                Q(finished_at__lt=cursor.finished_at)
                | Q(finished_at=cursor.finished_at, match_id__lt=cursor.match_id)
            )
        page = list(rows.order_by("-finished_at", "-match_id")[: limit + 1])
        has_next, page = len(page) > limit, page[:limit]
        has_previous = cursor is not None and bool(page)
    else:
        page = list(
            rows.filter(
                Q(finished_at__gt=cursor.finished_at)
                | Q(finished_at=cursor.finished_at, match_id__gt=cursor.match_id)
            ).order_by("finished_at", "match_id")[: limit + 1]
        )
        has_previous, page = len(page) > limit, page[:limit][::-1]
        has_next = bool(page)
    if not page:
        return [], None, None
    first, last = page[0], page[-1]
    return (
        page,
        HistoryKeyset(last.finished_at, last.match_id, True) if has_next else None,
        HistoryKeyset(first.finished_at, first.match_id, False) if has_previous else None,
    )


@dataclass(frozen=True, slots=True)
class HistoryKeyset:
    finished_at: datetime
    match_id: UUID
    forward: bool

    def encode(self) -> str:
        body = {
            "t": self.finished_at.isoformat(),
            "m": str(self.match_id),
            "d": "n" if self.forward else "p",
        }
        return cursor_encode(body, salt="history")

    @classmethod
    def decode(cls, cursor: str) -> HistoryKeyset:
        """An opaque cursor of a rating history (signed, pisyedili_api.cursors), else 400
        `invalid`."""
        message = "Invalid cursor: pass back a `next` or `previous` link."
        body = cursor_decode(cursor, salt="history", message=message)
        try:
            at = datetime.fromisoformat(body["t"])
            if body["d"] not in ("n", "p") or at.tzinfo is None:
                raise ValueError(body)
            # In range however the database reads it (a UTC offset may push a year 1/9999
            # timestamp past datetime's range).
            at.astimezone(UTC)
            return cls(at, UUID(body["m"]), body["d"] == "n")
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError):
            raise invalid_cursor(message) from None
