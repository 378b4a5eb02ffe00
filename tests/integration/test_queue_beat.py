"""Quick play under the full stack: the Celery beat sends `games.queue_pair` and a real worker
runs it, so a wait ends there with no web request: bots fill the table of a person who allowed
them, and the wait of a person who did not expires (its `queue` event: test_queue.py)."""

from __future__ import annotations

import pytest

from games.models import Match, QueueEntry
from games.services import queue_join
from tests.integration.conftest import stack  # noqa: F401  (the worker and beat fixture)
from tests.integration.workers import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


def test_the_beat_on_a_worker_ends_the_waits(make_player, stack):  # noqa: F811
    ana, _ = make_player()
    bob, _ = make_player()
    bob.rating_mu, bob.rating_sigma = 80.0, 1.0  # far from Ana: they never pair in 5 s
    bob.save(update_fields=["rating_mu", "rating_sigma"])
    try:
        queue_join(player=ana, seats=2, wait_seconds=5, bots_allowed=True)
        queue_join(player=bob, seats=2, wait_seconds=5, bots_allowed=False)
        assert QueueEntry.objects.filter(status="waiting").count() == 2
        wait_for(
            lambda: not QueueEntry.objects.filter(status="waiting").exists(),
            60,
            "the beat's games.queue_pair on the worker to end both waits\n" + stack.logs(),
        )
    finally:
        stack.stop()
    seated, expired = QueueEntry.objects.get(player=ana), QueueEntry.objects.get(player=bob)
    assert seated.status == "seated" and seated.bot_seats == 1
    assert (seated.ended_at - seated.created_at).total_seconds() >= 5
    match = Match.objects.get(id=seated.match_id)
    assert match.seat_players[0] == str(ana.id) and match.seat_bots == ["", "greedy"]
    assert expired.status == "expired" and expired.match_id is None
