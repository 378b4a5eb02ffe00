"""The statements of players/ that are written by hand, in one place: each is the whole
statement as it runs, its identifiers in named slots filled from the models
(pisyedili_api.rawsql.statement: `{player}` the table, `{player.wins}` a column).

Only where it pays: the deal counters (one row at a time in player-id order, so concurrent
matches never deadlock, all in one round trip) and the board upserts (INSERT … ON CONFLICT,
which the ORM does not write with these increments).
"""

from __future__ import annotations

from pisyedili_api import rawsql

from .models import BoardEntry, Player


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
    recomputed from the sums, the ratings and is_human take the new values. Parameters: the
    row's values in the order of BOARD_ENTRY_COLUMNS."""
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
                / ({entry}.{entry.deals_played} + EXCLUDED.{entry.deals_played}),
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
