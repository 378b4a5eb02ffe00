"""The statements of games/ that are written by hand, in one place, each whole as it runs.

Only the move route keeps hand-written SQL (docs/architecture.md "A move, end to end"): the
match row lock that also looks the mover up (pisyedili_api.rawsql.fetch_by_pk with
players.auth.DeferredPlayer.lookup_sql), and the Move insert riding in a data-modifying CTE of
the match update (one round trip). Its INSERT and UPDATE are built by the generic helpers of
pisyedili_api.rawsql from the models' metadata; this module writes what joins them.

Two more questions every move asks ride in that lock statement as scalar subqueries, each a
round trip saved (bench/live.py): a keyed move's idempotency record, and whether anyone seated
at the match has a push subscription or an active webhook (when no one has, the move's notices
need no lookup). Where the lock statement cannot ask them, they run alone: the record's
statement, and which of the people a version's notices tell has either
(games.services.notify.notices_send).
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from pisyedili_api import rawsql

from .models import IdempotencyRecord, Match, PushSubscription, Seat, Webhook


def inserts_then_update(inserts: list[str], update: str) -> str:
    """INSERTs (a move's row, its idempotency record) and an UPDATE (its match's) as one
    statement: each insert rides in a data-modifying CTE (PostgreSQL). The parameters: the
    inserts', in order, then the update's."""
    ctes = ", ".join(f"inserted_{n} AS ({insert})" for n, insert in enumerate(inserts))
    return f"WITH {ctes} {update}"


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
def _idempotency_columns(vendor: str, player: str) -> tuple[str, str]:
    hash_, response = (
        rawsql.statement(
            "(SELECT r." + column + " FROM {record} r WHERE r.{record.player} = {player}"
            " AND r.{record.match} = %s AND r.{record.key} = %s)",
            record=IdempotencyRecord,
            player=player,
        )
        for column in ("{record.request_hash}", "{record.response}")
    )
    return hash_, response


def idempotency_columns(player: str) -> tuple[str, str]:
    """Two scalar subqueries for the match lock statement: the request hash and the stored
    response of the idempotency record of (player, match, key), NULL where there is none.
    `player` is an SQL expression (`%s`, or a caller's lookup); each subquery's parameters:
    the player's, then the match id and the key."""
    return _idempotency_columns(connection.vendor, player)


@cache
def _match_version_seen(vendor: str) -> str:
    return rawsql.statement(
        "(SELECT m.{match.version} FROM {match} m WHERE m.{match.pk} = %s)", match=Match
    )


def match_version_seen() -> str:
    """A scalar subquery for the match lock statement: the version of the match of the
    parameter in the statement's snapshot. Where the lock waited for another writer, the locked
    row is read again after it (PostgreSQL's READ COMMITTED) but the subqueries are not: a
    version here unlike the row's says they may be stale."""
    return _match_version_seen(connection.vendor)


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
    """An expression for the match lock statement: whether anyone seated at the match of the
    parameter has a push subscription or an active webhook (else no notice of its versions
    goes anywhere)."""
    return _notices_wanted(connection.vendor)
