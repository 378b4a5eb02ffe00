"""Celery tasks of the games app: thin, take ids, re-read state, safe to run twice.

| task | queue | what |
| --- | --- | --- |
| `games.play_bot_turn(match_id, version)` | bots | the bot on turn moves, if still at `version` |
| `games.play_overdue_turn(match_id, version)` | bots | turn clock: greedy move for a late person |
| `games.score_deal(match_id, deal_number)` | scoring | score a deal over; next deal or finish |
| `games.settle_match(match_id)` | scoring | a finished match's standings, once |
| `games.sweep()` | scoring | beat: re-send stuck work; delete expired idempotency records |
| `games.expire_turns()` | scoring | beat: send `play_overdue_turn` for turns past their deadline |
| `games.noop()` | scoring | does nothing (bench/bot_latency.py measures the broker round trip) |

Every task that changes something is idempotent (a moved version, `Deal.scored_at`,
`Match.settled_at`, all checked under the match row lock), so it runs with `acks_late` and
`reject_on_worker_lost`: a worker that dies mid-task has the message delivered again. Transient
errors (the database or the broker unreachable) are retried a bounded number of times with
exponential backoff; anything else fails the task and is left to the beat sweeper.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from celery import Task, shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError, connections
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)
_local = threading.local()

TRANSIENT_ERRORS = (
    OperationalError,
    InterfaceError,
    BrokerOperationalError,
    RedisConnectionError,
    RedisTimeoutError,
)

IDEMPOTENT: dict[str, Any] = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "ignore_result": True,
    "autoretry_for": TRANSIENT_ERRORS,
    "max_retries": 5,
    "retry_backoff": 1,  # 1, 2, 4, 8, 16 s (with jitter), at most 30
    "retry_backoff_max": 30,
    "retry_jitter": True,
}


@shared_task(name="games.play_bot_turn", soft_time_limit=20, time_limit=30, **IDEMPOTENT)
def play_bot_turn(match_id: str, version: int) -> bool:
    """Play the bot on turn if the match is still at `version` (a stale version means done)."""
    from .services import match_play_bot_turn

    return match_play_bot_turn(match_id=match_id, version=version)


@shared_task(name="games.play_overdue_turn", soft_time_limit=20, time_limit=30, **IDEMPOTENT)
def play_overdue_turn(match_id: str, version: int) -> int:
    """The turn clock's default move(s) for a person past the deadline, if still at `version`."""
    from .services import match_play_overdue_turn

    return match_play_overdue_turn(match_id=match_id, version=version)


@shared_task(name="games.score_deal", soft_time_limit=20, time_limit=30, **IDEMPOTENT)
def score_deal(match_id: str, deal_number: int) -> bool:
    """Score a deal that is over, then deal the next one or finish the match (once)."""
    from .services import deal_score

    return deal_score(match_id=match_id, deal_number=deal_number)


@shared_task(name="games.settle_match", soft_time_limit=20, time_limit=30, **IDEMPOTENT)
def settle_match(match_id: str) -> bool:
    """Update a finished match's players' standings (once) and send match_settled."""
    from .services import match_settle

    return match_settle(match_id=match_id)


@shared_task(name="games.sweep", soft_time_limit=20, time_limit=30, ignore_result=True)
def sweep() -> dict[str, int]:
    """Beat: re-send what should have happened by now and did not (a lost message, a worker
    killed mid-task, the broker down when a move committed). Sending twice is harmless."""
    from .recovery import stuck_work

    stuck_for = timedelta(seconds=settings.GAMES_STUCK_SECONDS)
    work = stuck_work(older_than=timezone.now() - stuck_for)
    for match_id, version in work.bot_turns:
        enqueue_bot_turn(match_id, version)
    for match_id, number in work.deals:
        enqueue_score_deal(match_id, number)
    for match_id in work.settlements:
        enqueue_settle_match(match_id)
    counts = {
        "bot_turns": len(work.bot_turns),
        "deals": len(work.deals),
        "settlements": len(work.settlements),
    }
    if any(counts.values()):
        logger.warning("sweep re-sent stuck work: %s", counts)
    # Data that only grew: idempotency records past their window (bounded batches).
    from .services import idempotency_records_expire

    expired = idempotency_records_expire()
    if expired:
        logger.info("sweep deleted %d expired idempotency records", expired)
    return counts


@shared_task(name="games.expire_turns", soft_time_limit=20, time_limit=30, ignore_result=True)
def expire_turns() -> int:
    """Beat: send `games.play_overdue_turn` for every person's turn past its deadline."""
    from .recovery import overdue_turns

    overdue = overdue_turns(now=timezone.now())
    for match_id, version in overdue:
        _send(play_overdue_turn, (match_id, version), settings.CELERY_BOT_QUEUE)
    return len(overdue)


@shared_task(name="games.noop", ignore_result=False)
def noop() -> None:
    """Nothing: the broker and worker round trip that bench/bot_latency.py compares against."""


def enqueue_bot_turn(match_id: str, version: int) -> None:
    """Called from `transaction.on_commit` once a move leaves a bot on turn."""
    _send(play_bot_turn, (match_id, version), settings.CELERY_BOT_QUEUE)


def enqueue_score_deal(match_id: str, deal_number: int) -> None:
    """Called from `transaction.on_commit` once a move ends a deal."""
    _send(score_deal, (match_id, deal_number), settings.CELERY_SCORING_QUEUE)


def enqueue_settle_match(match_id: str) -> None:
    """Called from `transaction.on_commit` once scoring finishes a match."""
    _send(settle_match, (match_id,), settings.CELERY_SCORING_QUEUE)


def enqueue(task: Task, args: tuple[Any, ...], queue: str) -> None:
    """Send another app's task the way the helpers above send these (tournaments.advance)."""
    _send(task, args, queue)


def _send(task: Task, args: tuple[Any, ...], queue: str) -> None:
    """Send `task` to a worker on `queue`, or run it here in the embedded default.

    The transaction that asked for it has committed, so a failure here (the broker down) is
    logged and never turns that move's response into an error: the beat sweeper sends the work
    again once it is stuck. In the embedded default (task_always_eager) tasks run in-process;
    tasks sent while one runs are queued and drained by a loop instead of nesting, so a long
    chain of bot moves and deals cannot exhaust the stack.
    """
    try:
        if not task.app.conf.task_always_eager:
            task.apply_async(args, queue=queue)
            return
    except Exception:
        logger.exception("could not send %s%s; the sweeper will send it again", task.name, args)
        return
    if getattr(_local, "background", False):
        background_submit(_send, task, args, queue)
        return
    pending: deque[tuple[Task, tuple[Any, ...]]] | None = getattr(_local, "pending", None)
    if pending is not None:
        pending.append((task, args))
        return
    _local.pending = pending = deque([(task, args)])
    try:
        while pending:
            queued, queued_args = pending.popleft()
            try:
                queued.apply(args=queued_args, throw=True)
            except Exception:
                logger.exception("%s%s failed in-process", queued.name, queued_args)
    finally:
        _local.pending = None


# ---- The embedded default's background thread ----
# Under task_always_eager a request that hands off a lot of work (a tournament's start or next
# round) sends it inside `in_background()`: the tasks then run, and drain as above, on a small
# thread pool (EMBEDDED_TASK_THREADS) instead of in the request. With a broker it changes nothing.

_background_lock = threading.Lock()
_background_pool: futures.ThreadPoolExecutor | None = None
_background_jobs: set[futures.Future[None]] = set()


@contextmanager
def in_background() -> Iterator[None]:
    """Tasks sent in this block (or by on_commit hooks of a transaction it commits) that would
    run in-process run on a background thread instead."""
    previous = getattr(_local, "background", False)
    _local.background = True
    try:
        yield
    finally:
        _local.background = previous


def background_submit(function: Callable[..., Any], *args: Any) -> None:
    """Run `function(*args)` on the background pool, then close that thread's database
    connections (a pooled thread must not hold one open between jobs)."""
    global _background_pool

    def job() -> None:
        try:
            function(*args)
        finally:
            connections.close_all()

    with _background_lock:
        if _background_pool is None:
            _background_pool = futures.ThreadPoolExecutor(
                max_workers=settings.EMBEDDED_TASK_THREADS, thread_name_prefix="embedded-task"
            )
        future = _background_pool.submit(job)
        _background_jobs.add(future)
    future.add_done_callback(_background_jobs.discard)


def background_wait(timeout: float) -> bool:
    """Wait until no background job is queued or running (jobs a job submits included); False
    if some still are after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while _background_jobs and time.monotonic() < deadline:
        futures.wait(list(_background_jobs), timeout=0.05)
    return not _background_jobs
