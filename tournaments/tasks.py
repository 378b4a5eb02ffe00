"""Celery tasks of the tournaments app: thin, take ids, safe to run twice.

| task | queue | what |
| --- | --- | --- |
| `tournaments.advance(tournament_id)` | scoring | next round (or the end) once a round is over |
| `tournaments.sweep()` | scoring | beat: advance every running tournament whose round is over |

`advance` is sent when a tournament match is settled (games.signals.match_settled). If that
message is lost (the broker down at that moment, a worker killed before it sent it), the sweep
finds the tournament and advances it: both run the same idempotent service.
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from games.tasks import IDEMPOTENT, enqueue, in_background


@shared_task(name="tournaments.advance", soft_time_limit=20, time_limit=30, **IDEMPOTENT)
def advance(tournament_id: str) -> bool:
    """Start the next round once the current one is over (a no-op otherwise, or when run again)."""
    from .services import tournament_advance

    return tournament_advance(tournament_id=tournament_id)


@shared_task(name="tournaments.sweep", soft_time_limit=20, time_limit=30, **IDEMPOTENT)
def sweep() -> int:
    """Advance the running tournaments whose current round has no match left to play."""
    from .selectors import tournaments_to_advance
    from .services import tournament_advance

    return sum(tournament_advance(tournament_id=t) for t in tournaments_to_advance())


def enqueue_advance(tournament_id: str) -> None:
    """Send `tournaments.advance` to a worker. In the embedded default (task_always_eager) it
    runs on the background thread (games.tasks.in_background), never in the request whose move
    ended the round. The settled match has committed already, so a failure here is logged,
    never raised into its caller; the sweep advances the tournament later."""
    with in_background():
        enqueue(advance, (tournament_id,), settings.CELERY_SCORING_QUEUE)
