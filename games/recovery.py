"""Reads for the beat tasks: work that should have happened by now (games.tasks.sweep) and
turns past their deadline (games.tasks.expire_turns). Finding something twice is harmless:
every task it leads to is idempotent."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Exists, OuterRef, Q, Subquery
from django.db.models.fields.json import KT

from .models import Deal, DealAnalysis, DealLuck, Match, Move, ScoreEntry

# At most this many of each kind per sweep; the next sweep takes the rest.
SWEEP_BATCH = 500


@dataclass
class StuckWork:
    bot_turns: list[tuple[str, int]] = field(default_factory=list)  # (match id, version)
    deals: list[tuple[str, int]] = field(default_factory=list)  # (match id, deal number)
    settlements: list[str] = field(default_factory=list)  # match ids


def stuck_work(*, older_than: datetime) -> StuckWork:
    """Bot turns with nothing played since `older_than` (active match, live deal going on, a
    bot on turn), deals over but unscored since then, matches finished (or abandoned) but
    unsettled since."""
    work = StuckWork()
    last_move_at = Move.objects.filter(match=OuterRef("pk"), seq=OuterRef("move_count")).values(
        "at"
    )[:1]
    idle = (
        Match.objects.filter(
            status=Match.Status.ACTIVE,
            live_deal__status=Deal.Status.ACTIVE,
            live_deal__started_at__lt=older_than,
        )
        .annotate(last_move_at=Subquery(last_move_at), turn=KT("state__turn"))
        .filter(Q(last_move_at__lt=older_than) | Q(last_move_at__isnull=True))
        .values_list("id", "version", "seat_bots", "turn")
    )
    for match_id, version, seat_bots, turn in idle.iterator():
        if turn is not None and turn != "" and seat_bots[int(turn)]:
            work.bot_turns.append((str(match_id), version))
            if len(work.bot_turns) >= SWEEP_BATCH:
                break
    work.deals = [
        (str(match_id), number)
        for match_id, number in Deal.objects.filter(
            status=Deal.Status.OVER, scored_at__isnull=True, finished_at__lt=older_than
        )
        .order_by("finished_at")
        .values_list("match_id", "number")[:SWEEP_BATCH]
    ]
    # A table of a duplicate round settles once every table sharing its deals stops (the last
    # to finish sends the others theirs): until then it waits, it is not stuck.
    still_played = (
        Match.objects.filter(seed_key__isnull=False)
        .exclude(status__in=Match.STOPPED)
        .values("seed_key")
    )
    work.settlements = [
        str(match_id)
        for match_id in Match.objects.filter(
            status__in=Match.OVER,
            settled_at__isnull=True,
            finished_at__lt=older_than,
        )
        .exclude(seed_key__in=still_played)
        .order_by("finished_at")
        .values_list("id", flat=True)[:SWEEP_BATCH]
    ]
    return work


def overdue_turns(*, now: datetime) -> list[tuple[str, int]]:
    """(match id, version) of every active match whose person on turn is past the deadline."""
    return [
        (str(match_id), version)
        for match_id, version in Match.objects.filter(
            turn_deadline__lte=now, status=Match.Status.ACTIVE
        )
        .order_by("turn_deadline")
        .values_list("id", "version")[:SWEEP_BATCH]
    ]


@dataclass
class StuckAnalysis:
    luck: list[tuple[str, int]] = field(default_factory=list)  # (match id, deal number)
    luck_counts: list[str] = field(default_factory=list)  # match ids
    analyses: list[tuple[str, int]] = field(default_factory=list)  # (match id, deal number)


def stuck_analysis(
    *, older_than: datetime, queued_before: datetime, since: datetime, lease_before: datetime
) -> StuckAnalysis:
    """Deals scored between `since` and `queued_before` with no luck stored (read by the index
    on the score entries' created_at: a window, not every deal ever scored), settled matches
    with luck stored before `older_than` and not yet counted on the boards, and analyses still
    pending since before `queued_before` (work of the analysis queue, which may wait its turn
    that long). Never a luck or an analysis that failed for good, nor one whose attempt under
    way started after `lease_before` (games.services.analysis)."""
    luck = (
        ScoreEntry.objects.filter(seat=0, created_at__gte=since, created_at__lt=queued_before)
        .filter(deal__luck_failure="")
        .filter(
            Q(deal__luck_attempted_at__isnull=True) | Q(deal__luck_attempted_at__lt=lease_before)
        )
        .filter(~Exists(DealLuck.objects.filter(deal_id=OuterRef("deal_id"))))
        .order_by("created_at")
        .values_list("match_id", "deal__number")[:SWEEP_BATCH]
    )
    uncounted = (
        DealLuck.objects.filter(
            counted_at__isnull=True,
            created_at__lt=older_than,
            match__settled_at__lt=older_than,
        )
        .values_list("match_id", flat=True)
        .distinct()[:SWEEP_BATCH]
    )
    pending = (
        DealAnalysis.objects.filter(
            status=DealAnalysis.Status.PENDING, requested_at__lt=queued_before
        )
        .filter(Q(attempted_at__isnull=True) | Q(attempted_at__lt=lease_before))
        .order_by("requested_at")
        .values_list("deal__match_id", "deal__number")[:SWEEP_BATCH]
    )
    return StuckAnalysis(
        luck=[(str(match_id), number) for match_id, number in luck],
        luck_counts=[str(match_id) for match_id in uncounted],
        analyses=[(str(match_id), number) for match_id, number in pending],
    )
