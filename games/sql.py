"""The statements of games/ that are written by hand, in one place, each whole as it runs.

Only the move route keeps hand-written SQL (docs/architecture.md "A move, end to end"): the
match row lock that also looks the mover up (pisyedili_api.rawsql.fetch_by_pk with
players.auth.DeferredPlayer.lookup_sql), and the Move insert riding in a data-modifying CTE of
the match update (one round trip). Its INSERT and UPDATE are built by the generic helpers of
pisyedili_api.rawsql from the models' metadata; this module writes what joins them. Beside it,
the long poll's LISTEN and UNLISTEN on a match's channel (games.events NOTIFYs it).
"""

from __future__ import annotations

from django.db import connection


def move_then_match_update(move_insert: str, match_update: str) -> str:
    """The Move INSERT and the match UPDATE as one statement: the insert rides in a
    data-modifying CTE (PostgreSQL)."""
    return f"WITH new_move AS ({move_insert}) {match_update}"


def listen(channel: str) -> str:
    return f"LISTEN {connection.ops.quote_name(channel)}"


def unlisten(channel: str) -> str:
    return f"UNLISTEN {connection.ops.quote_name(channel)}"
