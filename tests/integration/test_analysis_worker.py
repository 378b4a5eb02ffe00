"""Luck and move analysis on real processes: a Celery worker (tests/integration/workers.py)
consumes the `analysis` queue, so a deal scored on the worker gets its luck rows, counted on the
boards' skill once the match is settled, and a deal's analysis asked for over HTTP is computed
there and then served."""

from __future__ import annotations

import time

import pytest

from games.models import DealLuck, Match
from pisyedili_api.tasks import route
from players.models import BoardEntry

from .live import register
from .workers import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


def test_a_scored_deal_gets_its_luck_through_the_analysis_queue(live_server, stack):
    assert route("games.deal_luck", (), {}, {}) == {"queue": stack.analysis_queue}
    assert route("games.deal_analyse", (), {}, {}) == {"queue": stack.analysis_queue}
    person_id, person = register(live_server.url)
    created = person.post("/api/v1/matches", {"seats": 2, "bots": ["greedy"], "deals": 1})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    view = person.state(match_id)
    deadline = time.monotonic() + 120
    while view["status"] == "active":
        assert time.monotonic() < deadline, stack.logs()
        if view["turn"] == 0:
            response = person.post(
                f"/api/v1/matches/{match_id}/moves",
                {**view["legal_moves"][-1], "version": view["version"]},
            )
            assert response.status_code == 200, response.text
            view = response.json()
        else:
            view = person.state(match_id, f"?after_version={view['version']}&wait=10")
    wait_for(lambda: Match.objects.get(id=match_id).settled_at, 30, "the settlement")
    rows = wait_for(
        lambda: list(DealLuck.objects.filter(match_id=match_id, counted_at__isnull=False)),
        30,
        "the luck of deal 1, counted on the boards",
    )
    assert sorted(r.seat for r in rows) == [0, 1]
    match = Match.objects.get(id=match_id)
    deal = match.deals.get(number=1)
    for row in rows:
        assert row.luck == pytest.approx(row.expected - row.penalty)
        assert row.penalty == deal.result["penalties"][row.seat]
    mine = next(r for r in rows if r.seat == 0)
    entries = BoardEntry.objects.filter(player_id=person_id)
    assert entries.count() == 6
    assert mine.skill is not None and mine.skill_samples is not None
    assert all(e.skill_deals == 1 and e.skill == pytest.approx(mine.skill) for e in entries)
    reveal = person.get(f"/api/v1/matches/{match_id}/deals/1").json()
    assert [s["seat"] for s in reveal["luck"]["seats"]] == [0, 1]

    url = f"/api/v1/matches/{match_id}/deals/1/analysis"
    first = person.get(url)
    assert first.status_code == 202 and first.json() == {"status": "pending"}
    ready = wait_for(
        lambda: (r := person.get(url)).status_code == 200 and r.json(),
        60,
        "the analysis",
        every=1.0,  # within the route's throttle
    )
    assert ready["status"] == "ready" and ready["cpu_seconds"] > 0
    assert all(d["seat"] == 0 and d["loss"] >= 0 for d in ready["decisions"])
