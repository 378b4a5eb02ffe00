"""A bots-only duplicate tournament run by a real Celery worker and beat on Redis (the `stack` of
tests/integration): every table of each round plays the round's deals, bot turns, scoring,
settlement and every `tournaments.advance` go through the broker, and the rounds' matchpoints
are stored once each round is over."""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict

import pytest

from games.models import Deal, Match
from players.services import bot_player_get_or_create
from tests.integration.conftest import stack  # noqa: F401  (the worker and beat fixture)
from tests.integration.workers import wait_for
from tournaments.models import Round, Tournament
from tournaments.selectors import tournament_standings
from tournaments.services import tournament_create, tournament_start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


def test_worker_plays_a_duplicate_tournament_to_the_end(make_player, stack):  # noqa: F811
    organizer, _ = make_player()
    bots = [bot_player_get_or_create(strategy="greedy", ordinal=i) for i in (1, 2)]
    bots += [bot_player_get_or_create(strategy="random", ordinal=i) for i in (1, 2)]
    tournament = tournament_create(
        organizer=organizer,
        name="Duplicate on the worker",
        format="duplicate",
        table_size=2,
        players=[b.id for b in bots],
        deals=2,
    )
    started = time.monotonic()
    try:
        tournament_start(tournament_id=tournament.id, player=organizer)
        assert time.monotonic() - started < 5  # the start only deals round 1; the worker plays
        matches = Match.objects.filter(tournament_table__tournament=tournament)
        wait_for(
            lambda: Tournament.objects.get(id=tournament.id).status == "finished"
            and not matches.filter(settled_at=None).exists(),
            240,
            "the worker to finish the duplicate tournament\n" + stack.logs(),
        )
    finally:
        # Stop the worker and beat before the database is flushed for the next test.
        stack.stop()
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    assert [r.number for r in rounds] == [1, 2]
    assert all(r.finished_at is not None and r.matchpoints is not None for r in rounds)
    assert matches.count() == 4 and all(m.status == "finished" for m in matches)
    # Every table of a round played the same deals: one commitment per (round, deal number),
    # the seed behind it, and the same hands seat by seat.
    deals: dict[tuple[int, int], list[Deal]] = defaultdict(list)
    for deal in Deal.objects.filter(match__in=matches).select_related(
        "match__tournament_table__round"
    ):
        deals[(deal.match.tournament_table.round.number, deal.number)].append(deal)
    assert sorted(deals) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    for same in deals.values():
        assert len(same) == 2
        assert len({d.commitment for d in same}) == 1
        assert hashlib.sha256(bytes(same[0].seed)).hexdigest() == same[0].commitment
        assert same[0].hands_at_start == same[1].hands_at_start
    assert len({d[0].commitment for d in deals.values()}) == 4
    # Per round: 2 deals × 2 seats, each compared once between the 2 tables → 4 points.
    assert [sum(r.matchpoints.values()) for r in rounds] == [4.0, 4.0]
    standings = tournament_standings(Tournament.objects.get(id=tournament.id))
    assert sum(row["matchpoints"] for row in standings) == 8.0
    assert [row["matchpoints"] for row in standings] == sorted(
        (row["matchpoints"] for row in standings), reverse=True
    )
