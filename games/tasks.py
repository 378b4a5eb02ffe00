"""Celery tasks of the games app: thin, take ids, re-read state, safe to run twice."""

from __future__ import annotations

import logging
import threading
from collections import deque

from celery import shared_task
from django.conf import settings

logger = logging.getLogger(__name__)
_local = threading.local()


@shared_task(
    name="games.play_bot_turn", acks_late=True, reject_on_worker_lost=True, ignore_result=True
)
def play_bot_turn(match_id: str, version: int) -> bool:
    """Play the bot on turn if the match is still at `version` (a stale version means done)."""
    from .services import match_play_bot_turn

    return match_play_bot_turn(match_id=match_id, version=version)


def enqueue_bot_turn(match_id: str, version: int) -> None:
    """Called from `transaction.on_commit` once a move leaves a bot on turn.

    With a broker the task goes to a worker. In the embedded default (task_always_eager) it runs
    here, in-process; consecutive bot turns are drained by a loop instead of nesting, so a long
    chain of bot moves cannot exhaust the stack. The human's move has committed by now, so a
    failure here is logged and never turns that move's response into an error.
    """
    try:
        if not play_bot_turn.app.conf.task_always_eager:
            play_bot_turn.apply_async((match_id, version), queue=settings.CELERY_BOT_QUEUE)
            return
    except Exception:  # broker down: the move stands; the bot turn is retried by a sweep/next move
        logger.exception("could not enqueue bot turn for match %s at version %s", match_id, version)
        return
    pending: deque[tuple[str, int]] | None = getattr(_local, "pending", None)
    if pending is not None:
        pending.append((match_id, version))
        return
    _local.pending = pending = deque([(match_id, version)])
    try:
        while pending:
            args = pending.popleft()
            try:
                play_bot_turn.apply(args=args, throw=True)
            except Exception:
                logger.exception("bot turn failed for match %s at version %s", *args)
    finally:
        _local.pending = None
