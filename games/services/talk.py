"""Table talk: a seat says one of a few preset phrases to its table (docs/api.md `…/talk`).

No free text: a phrase is an id (TALK_PHRASES), which each client shows in its own language.
Nothing is stored: the phrase goes out at once on the match's stream to its seats and
spectators (games.events.match_talk).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.utils import timezone

from pisyedili_api.errors import ApplicationError
from pisyedili_api.renderers import json_datetime
from players.models import Player

from .. import events
from ..models import Match
from ..selectors import match_hidden_check, match_read, seat_of

# The phrases a seat may say, by id: "Good game", "Well played", "Oops", "Your turn…".
TALK_PHRASES = ("good_game", "well_played", "oops", "your_turn")

# A match one may talk at: under way only. Once it is over (finished or abandoned) its stream
# has closed (`close` match_over), so a phrase would reach nobody: refused.
_TALKING = (Match.Status.ACTIVE,)


def match_talk(*, match_id: UUID | str, player: Player, phrase: str) -> dict[str, Any]:
    """The caller's seat says `phrase` (one of TALK_PHRASES: the caller checks it) to the
    table; what was said: `{match, seat, phrase, at}`. 403 `not_seated`, 409
    `match_not_active` (waiting for players, cancelled, or over: finished or abandoned)."""
    match = match_read(match_id)
    if match is None:
        raise ApplicationError("not_found", "No such match.")
    seat = seat_of(match, player.id)
    if seat is None:
        match_hidden_check(match, player.id)
        raise ApplicationError("not_seated")
    if match.status not in _TALKING:
        raise ApplicationError("match_not_active")
    at = json_datetime(timezone.now())
    said = {"match": str(match.id), "seat": seat, "phrase": phrase, "at": at}
    events.match_talk(match, said)
    return said
