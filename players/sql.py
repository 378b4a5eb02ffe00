"""The statements of players/ that are written by hand, in one place: each is the whole
statement as it runs, its identifiers in named slots filled from the models
(pisyedili_api.rawsql.statement: `{player}` the table, `{player.wins}` a column).

Only where it pays: the token lookup every API request runs (the ORM's select_related over
three models cost more CPU to compile than the database spent answering it, bench/api.py),
also as the scalar subquery the move route's match read carries; the deal counters (one
row at a time in player-id order, so concurrent matches never deadlock, all in one round
trip); the board upserts (INSERT … ON CONFLICT, which the ORM does not write with these
increments); the leaderboard's keyset pages (row comparisons, which the ORM does not write).
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection

from pisyedili_api import rawsql

from .models import ApiToken, BoardEntry, Player


def _idle_cutoff(vendor: str, seconds: int) -> str:
    """SQL for "now minus `seconds`" in the form the backend stores datetimes, with no
    parameter: the move route's match read takes none for it (games.services.moves)."""
    if vendor == "postgresql":
        return f"CURRENT_TIMESTAMP - INTERVAL '{seconds} seconds'"
    if vendor == "sqlite":
        # Django keeps UTC datetimes as 'YYYY-MM-DD HH:MM:SS[.ffffff]' text; same order.
        return f"datetime('now', '-{seconds} seconds')"
    raise NotImplementedError(f"token expiry on {vendor}")


# A live token (not idle-expired) by its digest, with its user and player.
_TOKEN_FROM = """
    FROM {token} t
    JOIN {user} u ON u.{user.pk} = t.{token.user}
    JOIN {player} p ON p.{player.user} = u.{user.pk}
    WHERE t.{token.digest} = %s AND t.{token.last_used} > {cutoff}"""


@cache
def _token_user_player(vendor: str, idle_seconds: int) -> str:
    player_columns = ", ".join(f"p.{c}" for c in rawsql.columns(Player).values())
    return rawsql.statement(
        "SELECT u.{user.pk}, u.{user.is_active}, t.{token.last_used}, {player_columns}"
        + _TOKEN_FROM,
        token=ApiToken,
        user=get_user_model(),
        player=Player,
        player_columns=player_columns,
        cutoff=_idle_cutoff(vendor, idle_seconds),
    )


def token_user_player() -> str:
    """The user id, is_active and the token's last_used, then every column of the player
    (rawsql.from_row), of the live token whose digest is the parameter."""
    return _token_user_player(connection.vendor, int(settings.TOKEN_IDLE_SECONDS))


@cache
def _token_player(vendor: str, idle_seconds: int) -> str:
    return rawsql.statement(
        "(SELECT p.{player.pk}" + _TOKEN_FROM + " AND u.{user.is_active})",
        token=ApiToken,
        user=get_user_model(),
        player=Player,
        cutoff=_idle_cutoff(vendor, idle_seconds),
    )


def token_player() -> str:
    """A scalar subquery: the id of the active player whose live token has the parameter as
    its digest, else NULL."""
    return _token_player(connection.vendor, int(settings.TOKEN_IDLE_SECONDS))


def deals_add() -> str:
    """One more deal for a player: parameters (1 if won else 0, penalty points, player id)."""
    return rawsql.statement(
        """
        UPDATE {player}
        SET {player.deals_played} = {player.deals_played} + 1,
            {player.deals_won} = {player.deals_won} + %s,
            {player.penalty_points} = {player.penalty_points} + %s
        WHERE {player.id} = %s
        """,
        player=Player,
    )


def board_entry_upsert() -> str:
    """One board entry added to: the counters add this match's counts, avg_penalty is
    recomputed from the sums (null while no deal is counted: a match abandoned in its first
    deal), the ratings and is_human take the new values. Parameters: the row's values in the
    order of BOARD_ENTRY_COLUMNS."""
    return rawsql.statement(
        """
        INSERT INTO {entry} (
            {entry.pool}, {entry.player}, {entry.is_human}, {entry.matches}, {entry.wins},
            {entry.deals_played}, {entry.deals_won}, {entry.penalty_points},
            {entry.avg_penalty}, {entry.rating_mu}, {entry.rating_sigma},
            {entry.rating_ordinal}, {entry.updated_at}
        )
        VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
        ON CONFLICT ({entry.pool}, {entry.player}) DO UPDATE SET
            {entry.matches} = {entry}.{entry.matches} + EXCLUDED.{entry.matches},
            {entry.wins} = {entry}.{entry.wins} + EXCLUDED.{entry.wins},
            {entry.deals_played} = {entry}.{entry.deals_played} + EXCLUDED.{entry.deals_played},
            {entry.deals_won} = {entry}.{entry.deals_won} + EXCLUDED.{entry.deals_won},
            {entry.penalty_points}
                = {entry}.{entry.penalty_points} + EXCLUDED.{entry.penalty_points},
            {entry.avg_penalty}
                = ({entry}.{entry.penalty_points} + EXCLUDED.{entry.penalty_points}) * 1.0
                / NULLIF({entry}.{entry.deals_played} + EXCLUDED.{entry.deals_played}, 0),
            {entry.is_human} = EXCLUDED.{entry.is_human},
            {entry.rating_mu} = EXCLUDED.{entry.rating_mu},
            {entry.rating_sigma} = EXCLUDED.{entry.rating_sigma},
            {entry.rating_ordinal} = EXCLUDED.{entry.rating_ordinal},
            {entry.updated_at} = EXCLUDED.{entry.updated_at}
        """,
        entry=BoardEntry,
    )


# The attributes of board_entry_upsert's parameters, in order.
BOARD_ENTRY_COLUMNS = (
    "pool_id",
    "player_id",
    "is_human",
    "matches",
    "wins",
    "deals_played",
    "deals_won",
    "penalty_points",
    "avg_penalty",
    "rating_mu",
    "rating_sigma",
    "rating_ordinal",
    "updated_at",
)


# ---- leaderboard keyset pages (players.selectors.leaderboard_page) ----
#
# One (board, period) pool's rows in one metric's order, (value, player) descending for rating
# and wins, ascending for points; every order has its composite index. `{value}` is the
# metric's column, `{humans}` leaves bots out (a literal predicate, so the partial index
# applies). Rows: BOARD_ROW_FIELDS.

# metric -> (BoardEntry field, best first is descending)
BOARD_ORDER = {
    "rating": ("rating_ordinal", True),
    "wins": ("wins", True),
    "points": ("avg_penalty", False),  # only the rows with a deal scored (avg_penalty)
    "skill": ("skill", True),  # only the rows with a skill (BoardEntry.skill)
}
BOARD_ROW_FIELDS = (
    "value",
    "player_id",
    "matches",
    "wins",
    "deals_won",
    "avg_penalty",
    "rating_ordinal",
    "skill",
    "skill_deals",
    "display_name",
    "is_bot",
)

_BOARD_ROWS = """
    SELECT e.{value}, e.{entry.player}, e.{entry.matches}, e.{entry.wins}, e.{entry.deals_won},
           e.{entry.avg_penalty}, e.{entry.rating_ordinal}, e.{entry.skill},
           e.{entry.skill_deals}, p.{player.display_name}, p.{player.is_bot}
    FROM {entry} e
    JOIN {player} p ON p.{player.pk} = e.{entry.player}
    WHERE e.{entry.pool} = %s{humans}"""


def _board_statement(text: str, metric: str, humans_only: bool, **fragments: str) -> str:
    field, _ = BOARD_ORDER[metric]
    text = text.replace("{value}", f"{{entry.{field}}}")
    rows = " AND e.{entry.is_human}" if humans_only else ""
    if metric == "skill":  # a literal predicate, so the partial skill index applies
        rows += " AND e.{entry.skill} IS NOT NULL"
    elif metric == "points":  # no deal scored: no mean penalty, not on the board
        rows += " AND e.{entry.avg_penalty} IS NOT NULL"
    text = text.replace("{humans}", rows)
    for name, sql in fragments.items():
        text = text.replace(f"{{{name}}}", sql)
    return rawsql.statement(text, entry=BoardEntry, player=Player)


def board_row_of(metric: str, humans_only: bool) -> str:
    """One player's row of a pool. Parameters: pool id, player id."""
    return _board_statement(_BOARD_ROWS + " AND e.{entry.player} = %s", metric, humans_only)


def board_rows(metric: str, humans_only: bool, *, descending: bool, after_key: bool) -> str:
    """Up to LIMIT rows of a pool in index order (`descending` or not), from the top or past
    a key (value, player). Parameters: pool id, [key value, key player id,] limit."""
    key = " AND (e.{value}, e.{entry.player}) {past} (%s, %s)" if after_key else ""
    return _board_statement(
        _BOARD_ROWS + key + " ORDER BY e.{value} {order}, e.{entry.player} {order} LIMIT %s",
        metric,
        humans_only,
        past="<" if descending else ">",
        order="DESC" if descending else "ASC",
    )


def board_before(metric: str, humans_only: bool) -> str:
    """(rows strictly better than a row, tied rows ahead of it by player id): two counts over
    index ranges in one round trip. Parameters: pool id, value, pool id, value, player id."""
    _, descending = BOARD_ORDER[metric]
    return _board_statement(
        """
        SELECT
            (SELECT COUNT(*) FROM {entry} e
             WHERE e.{entry.pool} = %s{humans} AND e.{value} {better} %s),
            (SELECT COUNT(*) FROM {entry} e
             WHERE e.{entry.pool} = %s{humans} AND e.{value} = %s
               AND e.{entry.player} {better} %s)
        """,
        metric,
        humans_only,
        better=">" if descending else "<",
    )
