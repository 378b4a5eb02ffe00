"""The games tasks in-process: each one run twice has its effect once; the turn clock never
plays before the deadline; the sweeper finds stuck work and only stuck work; transient errors
are retried, others are not; the task options issue 4 asks for."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

import pytest
from django.db import OperationalError, close_old_connections
from django.utils import timezone

from games import engine, tasks
from games.models import Deal, Match, Move, ScoreEntry, TurnClockRun
from games.recovery import overdue_turns, stuck_work
from games.serializers import move_reply
from games.services import (
    deal_score,
    match_apply_move,
    match_create,
    match_play_bot_turn,
    match_play_overdue_turn,
    match_settle,
)
from pisyedili_api import tasks as seam
from pisyedili_api.celery import app
from players.models import Player, RatingHistory
from players.services import bot_player_get_or_create

# Tasks run on commit: in place, inside the test's transaction
# (conftest.commits_in_place).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("commits_in_place")]


@pytest.fixture
def parked(settings, monkeypatch):
    """Nothing runs on commit: the tests call the services (the tasks' bodies) themselves. What
    would reach the broker is recorded with the queue Celery's router gives it."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "memory://"
    sent = []

    def record(name, args):
        sent.append((name, args, app.amqp.router.route({}, name, args, {})["queue"].name))

    monkeypatch.setattr(seam, "_publish", record)
    return sent


def two_people(make_player, **options):
    (a, _), (b, _) = make_player(), make_player()
    match = match_create(player=a, seats=2, seated=[a, b], deals=1, **options)
    return match, a, b


def end_deal_with_a_seven(match, players):
    """Seat 0 plays its last card, 7D; seat 1 holds JS 7C 3H: (25+20+3)×3 = 144 (R-31)."""
    current = Match.objects.get(id=match.id)
    rules = engine.Rules.from_json(current.rules)
    position = engine.deal_from_codes(
        hands=["7D", "JS 7C 3H"], top="9D", stock=["2C", "4C"], turn=0, rules=rules, phase="play"
    )
    Match.objects.filter(id=match.id).update(state=position.to_json())
    return match_apply_move(
        match_id=match.id,
        player_id=players[0].id,
        move=engine.Move.from_json({"action": "play", "card": "7D"}),
        version=current.version,
        reply=move_reply,
    )


def test_the_move_that_ends_a_deal_stores_the_result_and_sends_score_deal(make_player, parked):
    match, a, b = two_people(make_player)
    view = end_deal_with_a_seven(match, [a, b])
    assert view["phase"] == "deal_over" and view["turn"] is None and view["legal_moves"] == []
    assert view["result"]["penalties"] == [0, 144] and view["result"]["multiplier"] == 3
    deal = Deal.objects.get(match=match, number=1)
    assert deal.status == "over" and deal.scored_at is None and deal.final_state
    assert not ScoreEntry.objects.filter(match=match).exists()
    assert parked == [("games.deal_score", (str(match.id), 1), "scoring")]


def test_score_deal_twice_scores_once(make_player, parked):
    match, a, b = two_people(make_player)
    end_deal_with_a_seven(match, [a, b])
    before = Match.objects.get(id=match.id).version
    assert deal_score(match_id=match.id, deal_number=1) is True
    assert deal_score(match_id=match.id, deal_number=1) is False
    assert tasks.deal_score_task.apply(args=(str(match.id), 1)).get() is False
    entries = list(ScoreEntry.objects.filter(match=match).order_by("seat"))
    assert [(e.penalty, e.hand_penalty, e.multiplier, e.won) for e in entries] == [
        (0, 0, 3, True),
        (144, 48, 3, False),
    ]
    assert sorted(entries[1].cards_left) == ["3H", "7C", "JS"]
    after = Match.objects.get(id=match.id)
    assert after.version == before + 1 and after.status == "finished" and after.totals == [0, 144]
    b.refresh_from_db()
    assert (b.deals_played, b.deals_won, b.penalty_points) == (1, 0, 144)
    assert [s.place for s in after.seats.order_by("seat")] == [1, 2]
    # Finished: settle_match is sent, once.
    assert [name for name, _, _ in parked].count("games.match_settle") == 1


@pytest.mark.django_db(transaction=True)  # two threads: each must see the other's commits
def test_score_deal_at_once_from_two_workers_scores_once(make_player, parked):
    match, a, b = two_people(make_player)
    end_deal_with_a_seven(match, [a, b])
    barrier, results = threading.Barrier(2), []

    def run():
        barrier.wait()
        try:
            results.append(deal_score(match_id=match.id, deal_number=1))
        finally:
            close_old_connections()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False, True]
    assert ScoreEntry.objects.filter(match=match).count() == 2


def test_score_deal_deals_the_next_deal_and_sends_the_bot_opener(make_player, parked):
    person, _ = make_player()
    bot = bot_player_get_or_create(strategy="greedy", ordinal=1)
    match = match_create(player=person, seats=2, seated=[person, bot], deals=2)
    end_deal_with_a_seven(match, [person, bot])
    parked.clear()
    assert deal_score(match_id=match.id, deal_number=1) is True
    after = Match.objects.get(id=match.id)
    assert after.current_deal == 2 and after.status == "active"
    assert Deal.objects.get(match=match, number=2).opener == 1  # the bot opens deal 2
    assert parked == [
        ("games.deal_luck", (str(match.id), 1), "analysis"),
        ("games.match_play_bot_turn", (str(match.id), after.version), "bots"),
    ]


def test_settle_match_twice_settles_once(make_player, parked):
    match, a, b = two_people(make_player)
    end_deal_with_a_seven(match, [a, b])
    deal_score(match_id=match.id, deal_number=1)
    assert match_settle(match_id=match.id) is True
    assert match_settle(match_id=match.id) is False
    assert tasks.match_settle_task.apply(args=(str(match.id),)).get() is False
    a.refresh_from_db(), b.refresh_from_db()
    assert (a.matches, a.wins, b.matches, b.wins) == (1, 1, 1, 0)
    assert a.rating_mu > 25.0 > b.rating_mu
    assert RatingHistory.objects.filter(match_id=match.id).count() == 2
    assert Match.objects.get(id=match.id).settled_at is not None


def test_settle_match_does_nothing_before_the_match_is_finished(make_player, parked):
    match, a, b = two_people(make_player)
    assert match_settle(match_id=match.id) is False
    assert deal_score(match_id=match.id, deal_number=1) is False  # the deal is not over
    assert Player.objects.get(id=a.id).matches == 0


def test_bot_turn_twice_moves_once(make_player, parked):
    person, _ = make_player()
    bot = bot_player_get_or_create(strategy="greedy", ordinal=1)
    match = match_create(player=person, seats=2, seated=[bot, person], deals=1)
    assert match_play_bot_turn(match_id=match.id, version=1) is True
    assert match_play_bot_turn(match_id=match.id, version=1) is False
    assert Move.objects.filter(match=match).count() == 1


def test_turn_clock_never_before_the_deadline(make_player, parked):
    match, a, b = two_people(make_player, turn_seconds=60)
    m = Match.objects.get(id=match.id)
    assert m.turn_deadline is not None
    assert timedelta(seconds=59) < m.turn_deadline - timezone.now() <= timedelta(seconds=60)
    assert match_play_overdue_turn(match_id=match.id, version=m.version) == 0
    assert tasks.match_play_overdue_turn_task.apply(args=(str(match.id), m.version)).get() == 0
    assert not Move.objects.filter(match=match).exists()
    assert overdue_turns(now=timezone.now()) == []


def test_turn_clock_plays_the_greedy_move_after_the_deadline(make_player, parked):
    match, a, b = two_people(make_player, turn_seconds=60)
    m = Match.objects.get(id=match.id)
    Match.objects.filter(id=match.id).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert overdue_turns(now=timezone.now()) == [(str(match.id), m.version)]
    played = match_play_overdue_turn(match_id=match.id, version=m.version)
    assert played >= 1
    moves = list(Move.objects.filter(match=match).order_by("seq"))
    assert all(mv.seat == 0 and mv.by_bot for mv in moves) and len(moves) == played
    after = Match.objects.get(id=match.id)
    assert after.state["turn"] == 1  # the turn passed on
    # Seat 1 is a person too: a fresh deadline of 60 s from now.
    assert after.turn_deadline - timezone.now() > timedelta(seconds=58)
    # Run again for the old version: nothing.
    assert match_play_overdue_turn(match_id=match.id, version=m.version) == 0


def test_a_move_in_time_wins_over_the_overdue_task(make_player, parked):
    match, a, b = two_people(make_player, turn_seconds=60)
    m = Match.objects.get(id=match.id)
    Match.objects.filter(id=match.id).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    state = engine.State.from_json(m.state)
    move = engine.legal_moves(state)[0]
    match_apply_move(
        match_id=match.id, player_id=a.id, move=move, version=m.version, reply=move_reply
    )
    assert match_play_overdue_turn(match_id=match.id, version=m.version) == 0
    assert not Move.objects.filter(match=match, by_bot=True).exists()


def test_a_clock_that_stood_still_gives_the_time_back_before_it_plays(make_player, parked):
    """The turn clock could not run for 100 s (its database was down: nobody could move):
    its next run moves every running deadline on by the time lost (and OUTAGE_SECONDS more)
    and plays no turn; the clock then runs on in time, gives nothing back twice, and plays a
    turn past its deadline as ever."""
    match, a, b = two_people(make_player, turn_seconds=60)
    now = timezone.now()
    Match.objects.filter(id=match.id).update(turn_deadline=now - timedelta(seconds=30))
    TurnClockRun.objects.create(id=1, ran_at=now - timedelta(seconds=100))
    assert tasks.expire_turns.apply().get() == 0
    deadline = Match.objects.get(id=match.id).turn_deadline
    assert timedelta(seconds=75) < deadline - timezone.now() < timedelta(seconds=81)
    assert parked == []  # no overdue turn sent
    assert tasks.expire_turns.apply().get() == 0  # in time now: nothing given back again
    assert Match.objects.get(id=match.id).turn_deadline == deadline
    Match.objects.filter(id=match.id).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert tasks.expire_turns.apply().get() == 1
    assert [name for name, _, _ in parked] == ["games.match_play_overdue_turn"]


def test_no_clock_no_deadline(make_player, parked):
    match, a, b = two_people(make_player)
    assert Match.objects.get(id=match.id).turn_deadline is None


def test_sweeper_finds_stuck_work_and_only_stuck_work(make_player, parked):
    person, _ = make_player()
    bot = bot_player_get_or_create(strategy="greedy", ordinal=1)
    bot_first = match_create(player=person, seats=2, seated=[bot, person], deals=1)
    person_first = match_create(player=person, seats=2, seated=[person, bot], deals=1)
    now = timezone.now()
    # Fresh: nothing is stuck yet.
    fresh = stuck_work(older_than=now - timedelta(seconds=3))
    assert fresh.bot_turns == [] and fresh.deals == [] and fresh.settlements == []
    # Later: the bot turn is stuck; the person's turn is not the sweeper's business.
    later = stuck_work(older_than=now + timedelta(seconds=1))
    assert later.bot_turns == [(str(bot_first.id), 1)]
    assert str(person_first.id) not in {m for m, _ in later.bot_turns}

    ended, a, b = two_people(make_player)
    end_deal_with_a_seven(ended, [a, b])
    assert stuck_work(older_than=timezone.now() + timedelta(seconds=1)).deals == [
        (str(ended.id), 1)
    ]
    deal_score(match_id=ended.id, deal_number=1)
    swept = stuck_work(older_than=timezone.now() + timedelta(seconds=1))
    assert swept.deals == [] and swept.settlements == [str(ended.id)]
    # A table of a duplicate round waits for the tables sharing its deals: not stuck while
    # one of them is still played (the last to finish sends the settlements).
    shared = "d" * 64
    Match.objects.filter(id__in=[ended.id, person_first.id]).update(seed_key=shared)
    assert stuck_work(older_than=timezone.now() + timedelta(seconds=1)).settlements == []
    Match.objects.filter(id=person_first.id).update(status="abandoned")
    swept = stuck_work(older_than=timezone.now() + timedelta(seconds=1))
    assert swept.settlements == [str(ended.id)]
    Match.objects.filter(id__in=[ended.id, person_first.id]).update(seed_key=None)
    match_settle(match_id=ended.id)
    assert stuck_work(older_than=timezone.now() + timedelta(seconds=1)).settlements == []


def test_sweep_task_sends_the_stuck_work(make_player, parked, settings):
    settings.GAMES_STUCK_SECONDS = -5  # everything counts as stuck
    person, _ = make_player()
    bot = bot_player_get_or_create(strategy="greedy", ordinal=1)
    match = match_create(player=person, seats=2, seated=[bot, person], deals=1)
    parked.clear()
    counts = tasks.sweep.apply().get()
    assert counts == {
        "bot_turns": 1,
        "deals": 0,
        "settlements": 0,
        "luck": 0,
        "luck_counts": 0,
        "analyses": 0,
    }
    assert parked == [("games.match_play_bot_turn", (str(match.id), 1), "bots")]


def test_transient_errors_are_retried_others_are_not(make_player, parked, monkeypatch):
    import games.services

    calls = []

    def flaky(*, match_id, deal_number):
        calls.append(match_id)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return True

    monkeypatch.setattr(games.services, "deal_score", flaky)
    # Retried (eager apply runs the retry at once; a worker sends it again with backoff).
    result = tasks.deal_score_task.apply(args=("m", 1), throw=False)
    assert result.state == "SUCCESS" and result.result is True and len(calls) == 2

    def broken(*, match_id, deal_number):
        calls.append(match_id)
        raise ValueError("a bug, not a blip")

    calls.clear()
    monkeypatch.setattr(games.services, "deal_score", broken)
    result = tasks.deal_score_task.apply(args=("m", 1), throw=False)
    assert result.state == "FAILURE" and isinstance(result.result, ValueError)
    assert len(calls) == 1


def test_a_beat_task_that_meets_a_blip_skips_its_run_and_says_so_once(monkeypatch, caplog):
    """The turn clock, the pairing and the sweepers run every second or few: while the
    database does not answer each run is skipped (the next beat is its retry), and the worker's
    log says so once, not with a traceback a second."""
    import games.services

    def down():
        raise OperationalError("connection refused")

    monkeypatch.setattr(games.services, "queue_pair", down)
    with caplog.at_level(logging.WARNING, logger="pisyedili_api.tasks"):
        for _ in range(5):
            result = tasks.queue_pair.apply(throw=False)
            assert result.state == "SUCCESS" and result.result is None
    lines = [r for r in caplog.records if "games.queue_pair" in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is not None


def test_task_options(settings):
    from pisyedili_api.celery import app

    for task in (
        tasks.match_play_bot_turn_task,
        tasks.deal_score_task,
        tasks.match_settle_task,
        tasks.match_play_overdue_turn_task,
    ):
        assert task.acks_late and task.reject_on_worker_lost
        assert OperationalError in task.autoretry_for and task.max_retries == 5
    # Time limits once, for every task: the app's, never a task's own.
    assert app.conf.task_soft_time_limit < app.conf.task_time_limit
    assert app.conf.task_serializer == "json" and app.conf.accept_content == ["json"]
    assert {q.name for q in app.conf.task_queues} >= {"bots", "scoring"}
    schedule = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert schedule >= {"games.sweep", "games.expire_turns"}


@pytest.mark.parametrize("seconds", [0, -1, 86_401, "soon", 1.5])
def test_turn_seconds_out_of_range_is_invalid(make_player, client_for, seconds):
    _, token = make_player()
    response = client_for(token).post(
        "/api/v1/matches", {"seats": 2, "bots": ["greedy"], "turn_seconds": seconds}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert "turn_seconds" in response.json()["detail"]
    assert not Match.objects.exists()


def test_turn_seconds_is_shown_in_the_match(make_player, client_for):
    _, token = make_player()
    client = client_for(token)
    body = client.post(
        "/api/v1/matches", {"seats": 2, "bots": ["greedy"], "turn_seconds": 45}, format="json"
    ).json()
    assert body["turn_seconds"] == 45 and body["turn_deadline"] is not None
    plain = client.post("/api/v1/matches", {"seats": 2, "bots": ["greedy"]}, format="json").json()
    assert plain["turn_seconds"] is None and plain["turn_deadline"] is None
