"""Celery tasks of the tournaments app: thin, take ids, safe to run twice."""

from __future__ import annotations

import logging

from celery import shared_task

logger = logging.getLogger(__name__)


@shared_task(name="tournaments.advance", acks_late=True, ignore_result=True)
def advance(tournament_id: str) -> bool:
    """Start the next round once the current one is over (a no-op otherwise, or when run again)."""
    from .services import tournament_advance

    return tournament_advance(tournament_id=tournament_id)


def enqueue_advance(tournament_id: str) -> None:
    """Send `tournaments.advance` to a worker (in-process under task_always_eager). The settled
    match has committed already, so a failure here is logged, never raised into its caller."""
    try:
        advance.delay(tournament_id)
    except Exception:
        logger.exception("could not advance tournament %s", tournament_id)
