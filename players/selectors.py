"""Reads on players."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import connection
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from pisyedili_api.cursors import cursor_decode, cursor_encode, invalid_cursor
from pisyedili_api.errors import ApplicationError

from . import sql
from .boards import DEFAULT_RULESET, PERIODS, period_bounds, period_start
from .models import (
    ApiToken,
    Board,
    BoardEntry,
    BoardPeriod,
    Player,
    RatingHistory,
    search_key,
    token_public_id,
)


def player_get(*, player_id: Any) -> Player:
    player = Player.objects.filter(id=player_id).first()
    if player is None:
        raise ApplicationError("not_found", "No such player.")
    return player


@dataclass(frozen=True, slots=True)
class TokenRow:
    """One of a user's live API tokens as GET /auth/tokens lists it (never its digest)."""

    id: UUID
    created_at: datetime
    last_used: datetime
    current: bool
    device: str


def api_tokens_list(*, user_id: int, current_digest: str) -> list[TokenRow]:
    """The user's tokens that still authenticate (not idle-expired), the most recently used
    first; `current` marks the one whose digest is `current_digest`."""
    idle_before = timezone.now() - timedelta(seconds=settings.TOKEN_IDLE_SECONDS)
    rows = ApiToken.objects.filter(user_id=user_id, last_used__gt=idle_before).order_by(
        "-last_used", "-created_at"
    )
    fields = ("digest", "created_at", "last_used", "device")
    return [
        TokenRow(token_public_id(digest), created, used, digest == current_digest, device)
        for digest, created, used, device in rows.values_list(*fields)
    ]


def player_search(*, text: str) -> QuerySet[Player]:
    """The people (no bots, no deleted accounts) whose username or display name starts with
    `text`, letter case and accents ignored (models.search_key), for cursor pages ordered by
    username key then id.

    On PostgreSQL each prefix is a LIKE on an index of its key (varchar_pattern_ops); SQLite
    uses an index for a range only (its LIKE ignores an index on a case-sensitive column), so
    there each prefix is also the range [key, key with its last character stepped on): the
    same rows, since SQLite compares text by code point."""
    key = search_key(text)
    username, display_name = Q(username_key__startswith=key), Q(display_name_key__startswith=key)
    if connection.vendor == "sqlite" and key and ord(key[-1]) < 0x10FFFF:
        step = ord(key[-1]) + 1
        upper = key[:-1] + chr(0xE000 if 0xD800 <= step < 0xE000 else step)  # no surrogates
        username &= Q(username_key__gte=key, username_key__lt=upper)
        display_name &= Q(display_name_key__gte=key, display_name_key__lt=upper)
    return Player.objects.filter(username | display_name, is_bot=False, deleted_at__isnull=True)


# ---- leaderboards (docs/api.md "Leaderboards") ----
#
# A page is read from BoardEntry rows of one (board, period) by keyset: the order is
# (value, player_id), descending for rating and wins, ascending for points, and every order
# has its composite index, so a page is one index range scan wherever it starts. The rank of
# a row is 1 + the number of rows strictly better (competition ranking: 1, 1, 3); the page's
# first rank and position come from one count over the index range before it, and the ranks
# of the rest of the page follow from the page itself. Hand-written SQL: the ORM has no row
# comparison, and keyset paging with shared ranks is not what DRF's CursorPagination does
# (the statements are in players/sql.py).

METRICS = tuple(sql.BOARD_ORDER)
# A board value in a cursor is a rating, a win count or an average penalty: far below this,
# which every backend's integers and floats hold (SQLite's stop at 64 bits).
KEYSET_VALUE_MAX = 2**53


@dataclass(frozen=True, slots=True)
class Keyset:
    """Where a page starts: after (forward) or before (backward) the row (value, player_id)."""

    metric: str
    value: float
    player_id: UUID
    forward: bool

    def cursor(self, scope: str) -> str:
        """The cursor of this key on the board `scope` (pisyedili_api.cursors.list_scope)."""
        body = {
            "m": self.metric,
            "v": self.value,
            "p": str(self.player_id),
            "d": "n" if self.forward else "p",
        }
        return cursor_encode(body, salt="leaderboard", scope=scope)

    @classmethod
    def from_cursor(cls, cursor: str, *, metric: str, scope: str) -> Keyset:
        """An opaque cursor of this metric's board `scope` (signed, pisyedili_api.cursors),
        else 400 `invalid`."""
        message = _("Invalid cursor: pass back a `next` or `previous` link of this board.")
        body = cursor_decode(cursor, salt="leaderboard", scope=scope, message=message)
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
    """A page's rows as (rank, row), the row as BOARD_ROW_FIELDS (serializers.leaderboard_entry)."""

    results: list[tuple[int, tuple[Any, ...]]]
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
        results.append((rank, row))
    return LeaderboardPage(
        results,
        next=Keyset(metric, rows[-1][0], rows[-1][1], True) if has_next else None,
        previous=Keyset(metric, rows[0][0], rows[0][1], False) if position > 0 else None,
    )


class _BoardQuery:
    """The keyset statements of players/sql.py over the BoardEntry rows of one (board,
    period[, humans]) in one metric's order."""

    def __init__(self, pool: BoardPeriod, metric: str, humans_only: bool):
        self.pool_id = pool.id
        self.metric, self.humans_only = metric, humans_only
        self.descending = sql.BOARD_ORDER[metric][1]
        self.player_field = BoardEntry._meta.get_field("player")

    def _player(self, player_id: UUID) -> Any:
        return self.player_field.target_field.get_db_prep_value(player_id, connection)

    def _fetch(self, statement: str, params: list[Any]) -> list[tuple[Any, ...]]:
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            rows = cursor.fetchall()
        return [(row[0], self.player_field.to_python(row[1]), *row[2:]) for row in rows]

    def row_of(self, player_id: UUID) -> tuple[Any, ...] | None:
        statement = sql.board_row_of(self.metric, self.humans_only)
        rows = self._fetch(statement, [self.pool_id, self._player(player_id)])
        return rows[0] if rows else None

    def rows(
        self, key: tuple[Any, ...] | None, *, forward: bool, limit: int
    ) -> list[tuple[Any, ...]]:
        """Up to `limit` rows after (forward) or before `key` = (value, player_id, …), in
        display order; from the top when `key` is None."""
        if limit <= 0:
            return []
        descending = self.descending == forward  # scan direction of the index
        statement = sql.board_rows(
            self.metric, self.humans_only, descending=descending, after_key=key is not None
        )
        params: list[Any] = [self.pool_id]
        if key is not None:
            params += [key[0], self._player(key[1])]
        rows = self._fetch(statement, [*params, limit])
        return rows if forward else rows[::-1]

    def before(self, row: tuple[Any, ...]) -> tuple[int, int]:
        """(rows before `row` in the order, rows strictly better than it): the rows of better
        value plus the tied rows ahead of it by player id."""
        statement = sql.board_before(self.metric, self.humans_only)
        params = [self.pool_id, row[0], self.pool_id, row[0], self._player(row[1])]
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            strictly_better, tied_ahead = cursor.fetchone()
        return strictly_better + tied_ahead, strictly_better


def leaderboards_list(
    *, now: datetime | None = None
) -> list[tuple[Board, dict[str, tuple[datetime | None, datetime | None]]]]:
    """Every board, by ruleset and table size, with the bounds of the current periods (UTC)."""
    now = now or timezone.now()
    periods = {kind: period_bounds(kind, now) for kind in PERIODS}
    return [(board, periods) for board in Board.objects.order_by("ruleset", "seats")]


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
        list[RatingHistory](page),
        HistoryKeyset(last.finished_at, last.match_id, True) if has_next else None,
        HistoryKeyset(first.finished_at, first.match_id, False) if has_previous else None,
    )


@dataclass(frozen=True, slots=True)
class HistoryKeyset:
    finished_at: datetime
    match_id: UUID
    forward: bool

    def cursor(self, scope: str) -> str:
        """The cursor of this key in the history `scope` (pisyedili_api.cursors.list_scope)."""
        body = {
            "t": self.finished_at.isoformat(),
            "m": str(self.match_id),
            "d": "n" if self.forward else "p",
        }
        return cursor_encode(body, salt="history", scope=scope)

    @classmethod
    def from_cursor(cls, cursor: str, *, scope: str) -> HistoryKeyset:
        """An opaque cursor of the rating history `scope` (signed, pisyedili_api.cursors),
        else 400 `invalid`."""
        message = _("Invalid cursor: pass back a `next` or `previous` link.")
        body = cursor_decode(cursor, salt="history", scope=scope, message=message)
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
