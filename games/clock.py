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

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from games import engine

from .models import Match, TurnClockRun
from .recovery import overdue_turns

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


# ---- a clock that could not run gives the time back ----

# A clock that has not run for longer than this (its database down, no worker, no beat) has
# stood still: people could not move either (the web tier reads the same database), so every
# running deadline moves on by the time it stood still, and this much more for their clients
# to come back, before it plays anyone's turn.
OUTAGE_SECONDS = 10.0


def overdue_after_a_run(now: datetime) -> list[tuple[str, int]] | None:
    """One run of the turn clock (games.expire_turns) at `now`: the turns past their deadline
    (games.recovery.overdue_turns), its run marked (TurnClockRun); None while another run holds
    the mark (this one does nothing). Where the last run was more than OUTAGE_SECONDS before,
    every running deadline first moves on by that gap and OUTAGE_SECONDS more, and no turn is
    overdue in this run."""
    with transaction.atomic():
        mark = TurnClockRun.objects.select_for_update(skip_locked=True).filter(id=1).first()
        if mark is None:
            if TurnClockRun.objects.filter(id=1).exists():
                return None  # another run holds it
            try:
                with transaction.atomic():
                    TurnClockRun.objects.create(id=1, ran_at=now)
            except IntegrityError:
                return None  # another run made it
            return overdue_turns(now=now)
        stood_still = now - mark.ran_at
        mark.ran_at = now
        mark.save(update_fields=["ran_at"])
        if stood_still <= timedelta(seconds=OUTAGE_SECONDS):
            return overdue_turns(now=now)
        lost = stood_still + timedelta(seconds=OUTAGE_SECONDS)
        running = Match.objects.filter(status=Match.Status.ACTIVE, turn_deadline__isnull=False)
        running.update(turn_deadline=F("turn_deadline") + lost)
        return []
