"""The match row lock: every service that writes a match, or rows whose count it decides (seats,
scores, luck), takes it first, so two writers of one match run one after the other
(docs/architecture.md "A move, end to end")."""

from __future__ import annotations

from typing import Any, Protocol
from uuid import UUID

from pisyedili_api import rawsql

from ..models import Match


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


def match_lock(
    match_id: UUID | str, caller: CallerLookup | None = None
) -> tuple[Match | None, Any]:
    """The match row locked with SELECT … FOR UPDATE (a plain SELECT where the backend has no
    row locks), None if there is none; and for a `caller`, the value of its lookup read by the
    same statement (else None). Plain SQL: this runs on every move (pisyedili_api.rawsql)."""
    if caller is None:
        return rawsql.fetch_by_pk(Match, match_id, lock=True)[1], None
    found, match = rawsql.fetch_by_pk(
        Match, match_id, lock=True, extra=caller.lookup_sql(), extra_params=caller.lookup_params()
    )
    return match, found
