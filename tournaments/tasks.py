"""Celery tasks of the tournaments app: thin, take ids, safe to run twice.

| task | queue | what |
| --- | --- | --- |
| `tournaments.tournament_advance(tournament_id)` | scoring | next round (or the end), round over |
| `tournaments.sweep()` | scoring | beat: advance every running tournament whose round is over |

`tournament_advance` is sent when a tournament match is settled (games.signals.match_settled).
If that message is lost (the broker down at that moment, a worker killed before it sent it),
the sweep finds the tournament and advances it: both run the same idempotent service. The
decorator, routes, time limits and beat style are those of games.tasks (pisyedili_api.tasks).
"""

from __future__ import annotations

from pisyedili_api.tasks import idempotent_task, in_background, send

from . import selectors, services


@idempotent_task(name="tournaments.tournament_advance")
def tournament_advance_task(tournament_id: str) -> bool:
    """Start the next round once the current one is over (a no-op otherwise, or when run again)."""
    return services.tournament_advance(tournament_id=tournament_id)


@idempotent_task(name="tournaments.sweep", retry=False)
def sweep() -> int:
    """Beat: advance the running tournaments whose current round has no match left to play."""
    return sum(
        services.tournament_advance(tournament_id=t) for t in selectors.tournaments_to_advance()
    )


def enqueue_advance(tournament_id: str) -> None:
    """Send `tournaments.tournament_advance`. In the embedded default (task_always_eager) it
    runs on the background thread (in_background), never in the request whose move ended the
    round. The settled match has committed already, so a failure here is logged, never raised
    into its caller; the sweep advances the tournament later."""
    with in_background():
        send(tournament_advance_task, tournament_id)
