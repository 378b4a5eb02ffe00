"""Resign: a seated person gives up a match under way (docs/rules.md, "Server policies").

From then on the reference bot (clock.DEFAULT_MOVE_STRATEGY, the turn clock's strategy) plays
that seat to the end of the match, its moves marked `by_bot` in the log, and the person is
placed last in the match for the ratings and the boards whatever the points
(scoring.match_final_places). A match left with no person ends at once as `abandoned` and is
settled as a finished one, so resigning never saves a rating; a tournament's table is played
to its end by its bots instead (its totals count in the tournament's standings).
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from pisyedili_api.errors import ApplicationError
from pisyedili_api.tasks import send_on_commit
from players.models import Player

from .. import clock, events
from ..models import Match, Seat
from ..models import Move as MoveRow
from ..selectors import match_hidden_check, seat_of
from .lifecycle import _after_commit_bot_turn
from .locks import match_lock
from .scoring import (
    _deal_claim,
    _deal_record,
    _deals_abandon,
    _seats_save_totals,
    match_final_places,
)


def match_resign(*, match_id: UUID | str, player: Player, absent: bool = False) -> Match:
    """The caller resigns their seat of an active match: the reference bot plays it from now
    on (at once when it is on turn), and the version steps once; `absent`: the turn clock
    resigns them (match_absent_turn). Resigning again changes nothing. 403 `not_seated`, 409
    `match_not_active` (waiting, finished, cancelled, or abandoned by others)."""
    with transaction.atomic():
        match = match_lock(match_id)
        if match is None:
            raise ApplicationError("not_found", "No such match.")
        seat = seat_of(match, player.id)
        if seat is None:
            match_hidden_check(match, player.id)
            raise ApplicationError("not_seated")
        if seat in match.resigned:
            return match  # resigned already: the same answer, nothing changes
        if match.status != Match.Status.ACTIVE:
            raise ApplicationError("match_not_active")
        now = timezone.now()
        match.resigned = [*match.resigned, seat]
        match.seat_bots[seat] = clock.DEFAULT_MOVE_STRATEGY
        match.version += 1
        Seat.objects.filter(match_id=match.id, seat=seat).update(resigned_at=now, absent=absent)
        fields = ["resigned", "seat_bots", "version", "turn_deadline"]
        if _people_left(match) or _tournament_table(match):
            state = match.state or {}
            if state.get("turn") == seat:
                match.turn_deadline = None  # a bot's turn now: the clock stops
        else:
            _abandon(match, now)
            fields += ["status", "finished_at", "totals"]
        Match.objects.filter(id=match.id).update(**{name: getattr(match, name) for name in fields})
        events.match_version_on_commit(
            match,
            status_changed=match.status == Match.Status.ABANDONED,
            resigned=seat,
            absent=absent,
        )
        _after_commit_bot_turn(match)
    return match


def match_absent_turn(*, match_id: UUID | str, seat: int) -> bool:
    """The turn clock has just played a turn of `seat` (games.services.moves): count it, and
    resign the seat's person once the clock has played `TURN_CLOCK_RESIGN_AFTER` of its turns
    in a row with no move of theirs between (docs/rules.md "Server policies": absent). True
    if it resigned them."""
    limit = settings.TURN_CLOCK_RESIGN_AFTER
    if limit <= 0:
        return False
    with transaction.atomic():
        row = (
            Seat.objects.select_for_update()
            .select_related("player")
            .filter(match_id=match_id, seat=seat, resigned_at__isnull=True)
            .first()
        )
        if row is None:
            return False
        moves = MoveRow.objects.filter(match_id=match_id, seat=seat, seq__gt=row.clock_seq)
        last = moves.order_by("-seq").values_list("seq", flat=True).first()
        if last is None:
            return False  # counted already
        present = moves.filter(by_bot=False).exists()
        row.clock_turns = 1 if present else row.clock_turns + 1
        row.clock_seq = last
        row.save(update_fields=["clock_turns", "clock_seq"])
    if row.clock_turns < limit:
        return False
    try:
        match_resign(match_id=match_id, player=row.player, absent=True)
    except ApplicationError:
        return False  # the clock's turn ended the match
    return True


def _people_left(match: Match) -> bool:
    """Whether a person still plays a seat of `match` (no bot plays it)."""
    return any(
        holder is not None and not match.seat_bots[seat]
        for seat, holder in enumerate(match.seat_players)
    )


def _tournament_table(match: Match) -> bool:
    """Whether `match` is a table of a tournament (tournaments.models.Table)."""
    return Match.objects.filter(id=match.id, tournament_table__isnull=False).exists()


def _abandon(match: Match, now: datetime) -> None:
    """The locked `match` has no person left: a live deal that is over is scored (its scores
    count), one still being played is closed as `abandoned` where it stands (never scored;
    its replay is shown once no table sharing it plays it), and the match ends as `abandoned`
    with its places (the resigned seats last); its settlement is sent on commit."""
    deal = _deal_claim(match, match.current_deal, now) if match.current_deal else None
    if deal is not None:
        _deal_record(match, deal)
    else:
        _deals_abandon(match, now)
    match.status = Match.Status.ABANDONED
    match.finished_at = now
    match.turn_deadline = None
    _seats_save_totals(match, places=match_final_places(match))
    send_on_commit("games.match_settle", str(match.id))
