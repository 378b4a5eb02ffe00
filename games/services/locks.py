"""The match row lock: every service that writes a match, or rows whose count it decides (seats,
scores, luck), takes it first, so two writers of one match run one after the other
(docs/architecture.md "A move, end to end")."""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol
from uuid import UUID

from pisyedili_api import rawsql

from .. import sql
from ..models import IdempotencyRecord, Match


class CallerLookup(Protocol):
    """A caller whose player id the statement that locks the match reads beside the row (the
    move POST's `request.user`, players.auth.DeferredPlayer): the service never sees a token."""

    def lookup_sql(self) -> str:
        """One SQL expression: the caller's player id, else NULL."""
        ...

    def lookup_params(self) -> list[Any]: ...

    def player_id(self, found: Any) -> UUID:
        """The caller's id from the value `lookup_sql` read; 401 if there is none."""
        ...

    def verify(self) -> UUID:
        """The caller's id by the lookup alone; 401 as `player_id`."""
        ...


def match_lock(match_id: UUID | str) -> Match | None:
    """The match row locked with SELECT … FOR UPDATE (a plain SELECT where the backend has no
    row locks), None if there is none. Plain SQL: this runs on every move
    (pisyedili_api.rawsql); a person's move takes it by `move_lock`."""
    return rawsql.fetch_by_pk(Match, match_id, lock=True)[1]


class MoveLock(NamedTuple):
    """What a person's move reads under the match row lock, in one statement (`move_lock`)."""

    match: Match | None  # None: no such match
    found: Any  # a caller's lookup value (`CallerLookup.player_id` reads it); else None
    record: tuple[str, str] | None  # the key's stored (request hash, response), if any
    notices: bool  # anyone seated has a push subscription or an active webhook


def move_lock(
    match_id: UUID | str, mover: UUID | str | CallerLookup, key: str | None = None
) -> MoveLock:
    """`match_lock` for a person's move: the same statement also reads the mover's stored
    idempotency record of `key` (games.sql.idempotency_columns) and whether anyone seated
    has somewhere to be sent notices (games.sql.notices_wanted): two round trips saved on the
    hottest route. Read at the lock, before the write: a subscription made while the move
    runs is a later one."""
    extra: list[str] = []
    params: list[Any] = []
    by_id = isinstance(mover, UUID | str)
    if isinstance(mover, UUID | str):
        player, player_params = "%s", rawsql.prepared(IdempotencyRecord, player=mover)
    else:
        player, player_params = mover.lookup_sql(), mover.lookup_params()
        extra, params = [player], list(player_params)
    match_param = rawsql.prepared(IdempotencyRecord, match=match_id)
    extra.append(sql.notices_wanted())
    params += match_param
    columns: list[str] = []
    record_params: list[Any] = []
    if key is not None:
        extra.append(sql.match_version_seen())
        params += match_param
        columns = list(sql.idempotency_columns(player))
        record_params = [*player_params, *match_param, key] * len(columns)
    values, match = rawsql.fetch_by_pk(
        Match, match_id, lock=True, extra=[*extra, *columns], extra_params=params + record_params
    )
    if match is None:
        return MoveLock(None, None, None, False)
    found, values = (None, values) if by_id else (values[0], values[1:])
    notices, record = bool(values[0]), None
    if key is not None:
        seen, request_hash, response = values[1:]
        if seen != match.version:
            # Another move committed while this one waited for the lock: its record (if it
            # had this key) is newer than the statement's snapshot. Read it again, now.
            again = rawsql.fetch_one("SELECT " + ", ".join(columns), record_params)
            request_hash, response = again if again is not None else (None, None)
        if request_hash is not None:
            record = (request_hash, response)
    return MoveLock(match, found, record, notices)
