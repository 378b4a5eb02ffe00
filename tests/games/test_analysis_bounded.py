"""Background analysis is bounded and never loops (games.services.analysis, docs/api.md "Luck and
move analysis"): a long deal's estimates take fewer samples (ANALYSIS_MAX_PLAYOUTS), one task
spends at most ANALYSIS_MAX_ACTIONS simulated moves (past them it fails at once), an attempt
is claimed so a copy sent meanwhile does nothing, an analysis that keeps failing is tried
ANALYSIS_MAX_ATTEMPTS times (a worker killed mid-task counts) and then stored as failed with
its reason, and the sweeper never sends it again. Tasks run in-process (test settings)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.utils import timezone

from games import engine
from games.engine import analysis as engine_analysis
from games.models import Deal, DealAnalysis, DealLuck, Match
from games.services import analysis as analysis_service
from games.services.analysis import deal_luck
from games.tasks import sweep
from tests.helpers import create_match, play_to_the_end

# The tasks run on commit: in place, inside the test's transaction
# (conftest.commits_in_place).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("commits_in_place")]


def one_deal(client) -> Deal:
    """A one-deal match of a person against the greedy bot, played to its end."""
    match = create_match(client, seats=2, bots=["greedy"], deals=1)
    play_to_the_end(client, match["id"])
    return Deal.objects.get(match_id=match["id"], number=1)


@pytest.fixture
def person(make_player, client_for):
    _, token = make_player()
    return client_for(token)


@pytest.fixture
def luck_fails(monkeypatch):
    """The luck estimate raises, every time; the calls are counted."""
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("hand 7H …")  # an error's text is never stored (it may name cards)

    monkeypatch.setattr(engine_analysis, "expected_deal_scores", failing)
    return calls


def sweeps(settings, times: int) -> list[dict[str, int]]:
    settings.GAMES_STUCK_SECONDS = -5  # everything counts as stuck
    settings.ANALYSIS_STUCK_SECONDS = -5
    return [sweep.apply().get() for _ in range(times)]


def test_a_luck_that_keeps_failing_is_stored_failed_after_max_attempts_and_never_resent(
    person, luck_fails, settings
):
    assert settings.ANALYSIS_MAX_ATTEMPTS == 3
    deal = one_deal(person)  # the first attempt ran when the deal was scored, and failed
    deal.refresh_from_db()
    assert (deal.luck_attempts, deal.luck_failure, deal.luck_attempted_at) == (1, "", None)
    assert [c["luck"] for c in sweeps(settings, 4)] == [1, 1, 0, 0]
    deal.refresh_from_db()
    assert deal.luck_attempts == 3 and len(luck_fails) == 3
    assert deal.luck_failure == "failed in 3 attempts; the last raised RuntimeError"
    assert not DealLuck.objects.filter(deal=deal).exists()
    # Sent again by hand, it does nothing.
    assert deal_luck(match_id=deal.match_id, deal_number=1) is False
    assert len(luck_fails) == 3


def test_a_luck_past_its_budget_fails_at_once_and_is_never_resent(person, settings):
    settings.ANALYSIS_MAX_ACTIONS = 500  # far less than one deal's 256 play-outs
    deal = one_deal(person)
    deal.refresh_from_db()
    assert deal.luck_attempts == 1
    assert deal.luck_failure == (
        "too long to analyse: more than 500 simulated moves (ANALYSIS_MAX_ACTIONS)"
    )
    assert [c["luck"] for c in sweeps(settings, 2)] == [0, 0]


def test_a_worker_killed_mid_attempt_counts_and_the_last_gives_up(person, luck_fails, settings):
    deal = one_deal(person)
    # As if the worker running attempt 3 was killed (the hard time limit): no except ran.
    long_ago = timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 1)
    Deal.objects.filter(id=deal.id).update(luck_attempts=3, luck_attempted_at=long_ago)
    assert [c["luck"] for c in sweeps(settings, 2)] == [1, 0]
    deal.refresh_from_db()
    assert deal.luck_failure == "did not finish in 3 attempts (killed, or past the time limit)"
    assert len(luck_fails) == 1  # only the scoring's attempt computed anything


@pytest.mark.parametrize("cpu", ["starved", "spent"])
def test_a_luck_the_soft_time_limit_ends_counts_only_if_it_spent_the_cpu(
    person, monkeypatch, settings, cpu
):
    """Celery's soft time limit counts wall time: an analysis worker held off the CPU by play
    (it runs at the lowest priority) hits it with its work barely begun. Such an attempt is
    not counted, and never makes the luck fail for good; one that spent half the limit's time
    on the CPU is counted as any failure."""
    settings.CELERY_TASK_SOFT_TIME_LIMIT = 0.2
    calls = []

    def limited(*args, **kwargs):
        calls.append(1)
        if cpu == "spent":
            started = time.process_time()
            while time.process_time() - started < 0.15:
                pass
        else:
            time.sleep(0.01)
        raise SoftTimeLimitExceeded()  # as billiard raises it on the limit's signal

    monkeypatch.setattr(engine_analysis, "expected_deal_scores", limited)
    deal = one_deal(person)
    sweeps(settings, 4)
    deal.refresh_from_db()
    assert deal.luck_attempted_at is None and not DealLuck.objects.filter(deal=deal).exists()
    if cpu == "starved":
        assert len(calls) == 5 and deal.luck_attempts == 0 and deal.luck_failure == ""
    else:
        assert len(calls) == 3 and deal.luck_attempts == 3
        assert deal.luck_failure == "failed in 3 attempts; the last raised SoftTimeLimitExceeded"


def test_an_attempt_under_way_is_not_started_twice(person, luck_fails, settings):
    deal = one_deal(person)
    Deal.objects.filter(id=deal.id).update(luck_attempted_at=timezone.now())  # under way
    assert [c["luck"] for c in sweeps(settings, 1)] == [0]  # the sweeper leaves it
    assert deal_luck(match_id=deal.match_id, deal_number=1) is False  # a copy does nothing
    assert len(luck_fails) == 1
    deal.refresh_from_db()
    assert deal.luck_attempts == 1


def test_a_long_deal_takes_fewer_samples_per_decision(person, settings):
    """ANALYSIS_MAX_PLAYOUTS so small that a deal with one decision off the reference bot's
    move counts as long (at 40, a deal with five or fewer such decisions did not: a flake)."""
    settings.ANALYSIS_MAX_PLAYOUTS = 2
    deal = one_deal(person)
    match = Match.objects.get(id=deal.match_id)
    start = engine.new_deal(
        engine.Rules.from_json(match.rules), match.seat_count, deal.opener, bytes(deal.seed)
    )
    moves = analysis_service._deal_moves(match, 1)[1]
    full = engine_analysis.deal_skill(start, moves, k=settings.ANALYSIS_SKILL_SAMPLES)
    assert full.effects, "the person's moves never left the reference bot's"
    expected = engine_analysis.scaled_k(settings.ANALYSIS_SKILL_SAMPLES, 1, len(full.effects))
    rows = DealLuck.objects.filter(deal=deal)
    assert rows.count() == 2 and {r.skill_samples for r in rows} == {expected}
    assert expected < settings.ANALYSIS_SKILL_SAMPLES
    # Recomputed with the K recorded, the same numbers (as docs/api.md promises).
    again = engine_analysis.deal_skill(
        start, moves, k=expected, seed=analysis_service.skill_seed(deal)
    )
    assert [r.skill for r in rows.order_by("seat")] == pytest.approx(list(again.skill))


def test_a_move_analysis_that_keeps_failing_is_failed_for_good(person, monkeypatch, settings):
    deal = one_deal(person)
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("boom")

    monkeypatch.setattr(engine_analysis, "deal_move_analysis", failing)
    url = f"/api/v1/matches/{deal.match_id}/deals/1/analysis"
    assert person.get(url).status_code == 202  # the first attempt ran on commit, and failed
    assert person.get(url).json() == {"status": "pending"}
    assert [c["analyses"] for c in sweeps(settings, 4)] == [1, 1, 0, 0]
    assert len(calls) == 3
    row = DealAnalysis.objects.get(deal=deal)
    assert (row.status, row.attempts) == ("failed", 3)
    response = person.get(url)
    assert response.status_code == 200  # for good: the same answer from now on
    assert response.json() == {
        "status": "failed",
        "reason": "failed in 3 attempts; the last raised RuntimeError",
    }


def test_a_move_analysis_past_its_budget_fails_at_once(person, settings):
    deal = one_deal(person)
    settings.ANALYSIS_MAX_ACTIONS = 50
    url = f"/api/v1/matches/{deal.match_id}/deals/1/analysis"
    assert person.get(url).status_code == 202
    body = person.get(url).json()
    assert body["status"] == "failed" and body["reason"].startswith("too long to analyse")
    assert DealAnalysis.objects.get(deal=deal).attempts == 1
    assert [c["analyses"] for c in sweeps(settings, 1)] == [0]
