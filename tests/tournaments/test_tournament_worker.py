"""A bots-only tournament run by a real Celery worker and beat on Redis (the `stack` of
tests/integration): bot turns, scoring, settlement and every `tournaments.advance` (sent by
games.signals.match_settled) go through the broker; nothing runs in-process after the start."""

from __future__ import annotations

import time

import pytest

from games.models import Match
from players.services import bot_player_get_or_create
from tests.integration.conftest import stack  # noqa: F401  (the worker and beat fixture)
from tests.integration.workers import wait_for
from tournaments.models import Round, Tournament
from tournaments.services import tournament_create, tournament_start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


def test_worker_plays_every_round_and_advances(make_player, stack):  # noqa: F811
    organizer, _ = make_player()
    bots = [bot_player_get_or_create(strategy="greedy", ordinal=i) for i in range(1, 5)]
    tournament = tournament_create(
        organizer=organizer,
        name="On the worker",
        format="round_robin",
        table_size=2,
        players=[b.id for b in bots],
        deals=1,
    )
    started = time.monotonic()
    try:
        tournament_start(tournament_id=tournament.id, player=organizer)
        assert time.monotonic() - started < 5  # the start only deals round 1; the worker plays
        matches = Match.objects.filter(tournament_table__tournament=tournament)
        wait_for(
            lambda: Tournament.objects.get(id=tournament.id).status == "finished"
            and not matches.filter(settled_at=None).exists(),
            180,
            "the worker to finish the tournament\n" + stack.logs(),
        )
    finally:
        # Stop the worker and beat before the database is flushed for the next test: a sweep
        # running during the flush could deadlock with it.
        stack.stop()
    rounds = Round.objects.filter(tournament=tournament).order_by("number")
    assert [r.number for r in rounds] == [1, 2, 3]
    assert all(r.finished_at is not None for r in rounds)
    assert matches.count() == 6 and all(m.status == "finished" for m in matches)
