"""Celery tasks of the games app: thin, take ids, re-read state, safe to run twice.

Each task is named after the service it runs (`deal_score` ↔ `games.deal_score`,
`deal_score_task`); the beat tasks after what they do. Queues: CELERY_TASK_ROUTES (notify:
CELERY_NOTIFY_QUEUE, `celery` by default); time limits: CELERY_TASK_SOFT_TIME_LIMIT /
CELERY_TASK_TIME_LIMIT (settings, once for all).

| task | queue | what |
| --- | --- | --- |
| `games.match_play_bot_turn(match_id, version)` | bots | the bot on turn moves, if at `version` |
| `games.match_play_overdue_turn(match_id, version)` | bots | turn clock: a late person's move |
| `games.deal_score(match_id, deal_number)` | scoring | score a deal over; next deal or finish |
| `games.match_settle(match_id)` | scoring | a finished match's standings, once |
| `games.deal_luck(match_id, deal_number)` | analysis | a scored deal's luck by seat, once |
| `games.deal_analyse(match_id, deal_number)` | analysis | a requested deal's move analysis, once |
| `games.match_luck_count(match_id)` | analysis | a settled match's luck on the boards, once |
| `games.sweep()` | scoring | beat: re-send stuck work and due notices; expire old waits |
| `games.expire_turns()` | scoring | beat: send `match_play_overdue_turn` for turns overdue |
| `games.queue_pair()` | scoring | beat: pair the quick-play queue; end the waits that ended |
| `games.push_send(message_id)` | notify | push a notice to a browser if its player is away |
| `games.webhook_deliver(delivery_id)` | notify | POST a notice to a webhook until delivered |
| `games.noop()` | scoring | does nothing (bench/bot_latency.py measures the broker round trip) |

Every task that changes something is idempotent (a moved version, `Deal.scored_at`,
`Match.settled_at`, a deal's DealLuck / ready DealAnalysis rows, all checked under the match row
lock or by a conditional update): `idempotent_task` (pisyedili_api.tasks)
gives it acks_late, reject_on_worker_lost and bounded retries of transient errors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from pisyedili_api.tasks import (  # noqa: F401  (in_background & co. re-exported for callers)
    RetryLater,
    background_submit,
    background_wait,
    idempotent_task,
    in_background,
    send,
)

from . import clock, recovery, services

logger = logging.getLogger(__name__)


@idempotent_task(name="games.match_play_bot_turn")
def match_play_bot_turn_task(match_id: str, version: int) -> bool:
    """Play the bot on turn if the match is still at `version` (a stale version means done)."""
    return services.match_play_bot_turn(match_id=match_id, version=version)


@idempotent_task(name="games.match_play_overdue_turn")
def match_play_overdue_turn_task(match_id: str, version: int) -> int:
    """The turn clock's default move(s) for a person past the deadline, if still at `version`."""
    return services.match_play_overdue_turn(match_id=match_id, version=version)


@idempotent_task(name="games.deal_score")
def deal_score_task(match_id: str, deal_number: int) -> bool:
    """Score a deal that is over, then deal the next one or finish the match (once)."""
    return services.deal_score(match_id=match_id, deal_number=deal_number)


@idempotent_task(name="games.match_settle")
def match_settle_task(match_id: str) -> bool:
    """Update a finished match's players' standings (once) and send match_settled."""
    return services.match_settle(match_id=match_id)


@idempotent_task(name="games.deal_luck")
def deal_luck_task(match_id: str, deal_number: int) -> bool:
    """Estimate and store each seat's luck of a scored deal (once); count it on the boards
    if the match is settled."""
    return services.deal_luck(match_id=match_id, deal_number=deal_number)


@idempotent_task(name="games.deal_analyse")
def deal_analyse_task(match_id: str, deal_number: int) -> bool:
    """Compute a requested deal's move analysis (once)."""
    return services.deal_analyse(match_id=match_id, deal_number=deal_number)


@idempotent_task(name="games.match_luck_count")
def match_luck_count_task(match_id: str) -> int:
    """Count a settled match's luck not counted yet on the boards' skill (once)."""
    return services.match_luck_count(match_id=match_id)


@idempotent_task(name="games.sweep", retry=False)
def sweep() -> dict[str, int]:
    """Beat: re-send what should have happened by now and did not (a lost message, a worker
    killed mid-task, the broker down when a move committed). Sending twice is harmless."""
    stuck_for = timedelta(seconds=settings.GAMES_STUCK_SECONDS)
    work = recovery.stuck_work(older_than=timezone.now() - stuck_for)
    for match_id, version in work.bot_turns:
        send(match_play_bot_turn_task, match_id, version)
    for match_id, number in work.deals:
        send(deal_score_task, match_id, number)
    for match_id in work.settlements:
        send(match_settle_task, match_id)
    lost = recovery.stuck_analysis(
        older_than=timezone.now() - stuck_for,
        queued_before=timezone.now() - timedelta(seconds=settings.ANALYSIS_STUCK_SECONDS),
        since=timezone.now() - timedelta(hours=settings.ANALYSIS_SWEEP_HOURS),
        lease_before=timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT),
    )
    for match_id, number in lost.luck:
        send(deal_luck_task, match_id, number)
    for match_id in lost.luck_counts:
        send(match_luck_count_task, match_id)
    for match_id, number in lost.analyses:
        send(deal_analyse_task, match_id, number)
    counts = {
        "bot_turns": len(work.bot_turns),
        "deals": len(work.deals),
        "settlements": len(work.settlements),
        "luck": len(lost.luck),
        "luck_counts": len(lost.luck_counts),
        "analyses": len(lost.analyses),
    }
    if any(counts.values()):
        logger.warning("sweep re-sent stuck work: %s", counts)
    # Data that only grew: idempotency records past their window (bounded batches).
    expired = services.idempotency_records_expire()
    if expired:
        logger.info("sweep deleted %d expired idempotency records", expired)
    # Matches nobody joined within MATCH_WAITING_TTL (bounded batches, like the rest).
    cancelled = services.matches_waiting_expire()
    if cancelled:
        logger.info("sweep cancelled %d matches waiting past MATCH_WAITING_TTL", cancelled)
    # Notices waiting past their next try (embedded default) or lost (bounded batches).
    resent = services.notices_resend(eager=bool(sweep.request.is_eager))
    if resent:
        logger.info("sweep sent %d waiting notices again", resent)
    # Private tables' invitations past PRIVATE_INVITATION_SECONDS (bounded batches).
    expired_invitations = services.invitations_expire()
    if expired_invitations:
        logger.info("sweep marked %d invitations expired", expired_invitations)
    return counts


@idempotent_task(name="games.expire_turns", retry=False)
def expire_turns() -> int:
    """Beat: send `games.match_play_overdue_turn` for every person's turn past its deadline
    (after a while in which the clock could not run, it first gives the time lost back:
    games.clock.overdue_after_a_run)."""
    overdue = clock.overdue_after_a_run(timezone.now()) or []
    for match_id, version in overdue:
        send(match_play_overdue_turn_task, match_id, version)
    return len(overdue)


@idempotent_task(name="games.queue_pair", retry=False)
def queue_pair() -> dict[str, int]:
    """Beat: pair the whole quick-play queue (each join pairs its own table at once); seat bots
    or expire the entries whose wait ended. Rows another pairing holds are skipped."""
    seated, expired = services.queue_pair()
    return {"seated": seated, "expired": expired}


# Not idempotent_task: it changes nothing, and bench/bot_latency.py awaits its result.
@shared_task(name="games.noop", ignore_result=False)
def noop() -> None:
    """Nothing: the broker and worker round trip that bench/bot_latency.py compares against."""


def _tried(task: Any, work: Callable[[], bool]) -> bool:
    """`work()`; on RetryLater (the row holds its next try), Celery's retry with backoff on a
    worker; in the embedded default (applied eagerly, where Celery's retry would not wait and
    would hold the one background thread) games.sweep sends it again once due."""
    try:
        return work()
    except RetryLater:
        if task.request.is_eager:
            return False
        raise


@idempotent_task(name="games.push_send", retry_later=True)
def push_send_task(message_id: str) -> bool:
    """Push a waiting notice to its browser subscription (dropped if its player is streaming);
    a push service that answers 5xx or not at all is tried again with backoff, then the notice
    given up."""
    return _tried(push_send_task, lambda: services.push_send(message_id=message_id))


@idempotent_task(name="games.webhook_deliver", retry_later=True)
def webhook_deliver_task(delivery_id: str) -> bool:
    """POST a waiting notice to its webhook; a failure is tried again with backoff, then given
    up (the webhook is turned off after WEBHOOK_MAX_FAILURES failures in a row)."""
    return _tried(webhook_deliver_task, lambda: services.webhook_deliver(delivery_id=delivery_id))
