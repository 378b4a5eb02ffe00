"""The turn clock: a match may give each person `turn_seconds` to move.

The deadline is stored on the match row (`Match.turn_deadline`) when a person comes on turn and
cleared when a bot is on turn or the deal is over. Past the deadline the beat task
`games.expire_turns` sends `games.play_overdue_turn`, which plays the greedy bot's move for that
seat (marked `by_bot`) until the turn passes; a move that arrives first moves the version on and
the overdue turn does nothing (the version check under the match row lock decides).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from games import engine

# The strategy that moves for a person whose turn ran out.
DEFAULT_MOVE_STRATEGY = "greedy"
TURN_SECONDS_MIN = 1
TURN_SECONDS_MAX = 86_400


def deadline_for(match: Any, state: engine.State, now: datetime | None = None) -> datetime | None:
    """The deadline of the seat on turn in `state`: `turn_seconds` from now for a person, None
    for a bot, a finished deal or a match without a clock."""
    if not match.turn_seconds or state.turn is None or state.is_over:
        return None
    if match.seat_bots[state.turn]:
        return None
    return (now or timezone.now()) + timedelta(seconds=match.turn_seconds)


def deadline_after_move(
    match: Any, seat: int, move: engine.Move, after: engine.State, now: datetime | None = None
) -> datetime | None:
    """The deadline once `seat` has made `move`: unchanged while the same turn goes on (a draw,
    an Ace follow-up), a fresh one when a turn begins (another seat's, or the same seat's again
    after an 8 at a table of two)."""
    same_turn = after.turn == seat and (
        move.action == "draw" or after.phase == "ace_followup" or after.draws_this_turn > 0
    )
    if same_turn and match.turn_deadline is not None:
        return match.turn_deadline  # type: ignore[no-any-return]
    return deadline_for(match, after, now)
