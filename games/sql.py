"""The statements of games/ that are written by hand, in one place, each whole as it runs.

Only the move route keeps hand-written SQL (docs/architecture.md "A move, end to end"): the
match row lock that also looks the mover up (pisyedili_api.rawsql.fetch_by_pk with
players.auth.DeferredPlayer.lookup_sql), and the Move insert riding in a data-modifying CTE of
the match update (one round trip). Its INSERT and UPDATE are built by the generic helpers of
pisyedili_api.rawsql from the models' metadata; this module writes what joins them.
"""

from __future__ import annotations


def move_then_match_update(move_insert: str, match_update: str) -> str:
    """The Move INSERT and the match UPDATE as one statement: the insert rides in a
    data-modifying CTE (PostgreSQL)."""
    return f"WITH new_move AS ({move_insert}) {match_update}"
