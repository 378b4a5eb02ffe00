"""The statements of games/ that are written by hand, in one place, each whole as it runs.

Only the move route keeps hand-written SQL (docs/architecture.md "A move, end to end"): the
match row read (or lock) that also looks the mover up (pisyedili_api.rawsql.fetch_by_pk with
players.auth.DeferredPlayer.lookup_sql), and the Move insert (and the Deal's close, where the
move ends it) riding in data-modifying CTEs of the match update guarded by the version read
(one round trip). Its INSERTs and UPDATEs are built by the generic helpers of
pisyedili_api.rawsql from the models' metadata; this module writes what joins them.

A move sent on a match's WebSocket whose process holds the match at the version it is played
at (live.streams) is that one statement alone: the caller's lookup guards its update and
`notices_wanted` rides in its answer.

Two more questions a move may ask: a keyed move's idempotency record (read only where a check
fails: games.services.moves), and which of the people its notices tell has a push subscription
or an active webhook (games.services.notify.notices_send). Whether anyone seated at the match
has either rides in the match read (`notices_wanted`): with no one, the move's notices need
no lookup.
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from pisyedili_api import rawsql

from .models import IdempotencyRecord, Match, PushSubscription, Seat, Webhook


@cache
def _version_kept(vendor: str) -> str:
    return rawsql.statement(" AND {match.version} = %s RETURNING 1", match=Match)


def update_if_version_then_writes(update: str, writes: list[str], caller: str | None = None) -> str:
    """A match's UPDATE (by primary key, rawsql.update_sql) that writes only if the row still
    holds the version the caller read, and the writes that go with it (INSERTs by
    rawsql.insert_from_sql, UPDATEs by rawsql.update_from_sql, each from `updated`), written
    only with it, as one statement: `WITH updated AS (UPDATE … AND version = %s RETURNING 1),
    written_0 AS (INSERT … SELECT … FROM updated), … SELECT count(*) FROM updated`, whose one
    value is 1 if it wrote, 0 if another write moved the version on (then nothing is written).
    The parameters: the update's, the version read, then the writes', in order. PostgreSQL: a
    row changed since the statement's snapshot is checked again as it is now (READ COMMITTED),
    so two such writes of one version never both land.

    `caller` (a move written from the match as a process holds it, not read:
    games.services.moves): a caller's lookup (CallerLookup.lookup_sql), which must still name
    the mover for the row to be written (its parameters, then the mover's id, right after the
    version read), and a second value, whether anyone seated has somewhere to be sent notices
    (`notices_wanted`, the match id its last parameter): what the match read would have
    asked."""
    ctes = "".join(f", written_{n} AS ({write})" for n, write in enumerate(writes))
    if caller is None:
        return (
            f"WITH updated AS ({update}{_version_kept(connection.vendor)}){ctes}"
            " SELECT count(*) FROM updated"
        )
    return (
        f"WITH updated AS ({update}{_version_and_caller_kept(connection.vendor, caller)}){ctes}"
        f" SELECT count(*), {notices_wanted()} FROM updated"
    )


@cache
def _version_and_caller_kept(vendor: str, caller: str) -> str:
    return rawsql.statement(
        " AND {match.version} = %s AND ({caller}) = %s RETURNING 1", match=Match, caller=caller
    )


@cache
def _notice_targets(vendor: str, count: int) -> str:
    marks = ", ".join(["%s"] * count)
    return rawsql.statement(
        "SELECT {push.player} FROM {push} WHERE {push.player} IN ({marks})"
        " UNION SELECT {hook.player} FROM {hook}"
        " WHERE {hook.player} IN ({marks}) AND {hook.active}",
        push=PushSubscription,
        hook=Webhook,
        marks=marks,
    )


def notice_targets(count: int) -> str:
    """The ids of the players, among `count` given as parameters (the list twice: the push
    subscriptions' then the webhooks'), who have a push subscription or an active webhook."""
    return _notice_targets(connection.vendor, count)


@cache
def _idempotency_record(vendor: str) -> str:
    return rawsql.statement(
        "SELECT {record.request_hash}, {record.response} FROM {record}"
        " WHERE {record.player} = %s AND {record.match} = %s AND {record.key} = %s",
        record=IdempotencyRecord,
    )


def idempotency_record() -> str:
    """The request hash and the stored response of the idempotency record of the parameters
    (player, match, key): at most one row (IDEMPOTENCY_KEY_CONSTRAINT)."""
    return _idempotency_record(connection.vendor)


@cache
def _notices_wanted(vendor: str) -> str:
    return rawsql.statement(
        "EXISTS (SELECT 1 FROM {seat} s WHERE s.{seat.match} = %s AND ("
        "EXISTS (SELECT 1 FROM {push} p WHERE p.{push.player} = s.{seat.player})"
        " OR EXISTS (SELECT 1 FROM {hook} h WHERE h.{hook.player} = s.{seat.player}"
        " AND h.{hook.active})))",
        seat=Seat,
        push=PushSubscription,
        hook=Webhook,
    )


def notices_wanted() -> str:
    """An expression for the move's match read (or lock): whether anyone seated at the match of the
    parameter has a push subscription or an active webhook (else no notice of its versions
    goes anywhere)."""
    return _notices_wanted(connection.vendor)
