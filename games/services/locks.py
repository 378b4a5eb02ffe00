"""The match row lock: every service that writes a match, or rows whose count it decides (seats,
scores, luck), takes it first, so two writers of one match run one after the other
(docs/architecture.md "A move, end to end"). One writer reads without it: a move (a
person's, a bot's, the clock's) writes in one statement only if the match still holds the
version it read (games.sql.update_if_version_then_writes), and every write of a match's play
moves the version on."""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol
from uuid import UUID

from pisyedili_api import rawsql

from .. import sql
from ..models import Match, Seat


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
    row locks), None if there is none. Plain SQL (pisyedili_api.rawsql); a move takes it by
    `move_lock`."""
    return rawsql.fetch_by_pk(Match, match_id, lock=True)[1]


class MoveLock(NamedTuple):
    """What a move reads under the match row lock, in one statement (`move_lock`)."""

    match: Match | None  # None: no such match
    found: Any  # a caller's lookup value (`CallerLookup.player_id` reads it); else None
    notices: bool  # anyone seated has a push subscription or an active webhook


def move_lock(
    match_id: UUID | str, mover: UUID | str | CallerLookup | None = None, *, lock: bool = True
) -> MoveLock:
    """`match_lock` for a move (a person's; a bot's or the turn clock's, `mover` None, the seat
    on turn being known only from the row): the same statement also reads a caller's lookup
    (the token's player) and whether anyone seated has somewhere to be sent notices
    (games.sql.notices_wanted), so that the commit looks none up when no one has: round trips
    saved on the hottest routes. Read at the lock, before the write: a subscription made
    while the move runs is a later one. `lock` False: the same read without the lock, for a
    write that lands only if the version read is still the row's (games.services.moves)."""
    extra = [sql.notices_wanted()]
    params: list[Any] = [*rawsql.prepared(Seat, match=match_id)]
    if mover is not None and not isinstance(mover, UUID | str):  # the caller's lookup first
        extra, params = [mover.lookup_sql(), *extra], [*mover.lookup_params(), *params]
    values, match = rawsql.fetch_by_pk(Match, match_id, lock=lock, extra=extra, extra_params=params)
    if match is None:
        return MoveLock(None, None, False)
    return MoveLock(match, values[0] if len(values) > 1 else None, bool(values[-1]))
