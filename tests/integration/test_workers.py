"""Issue 4 on real processes: a Celery worker and beat on Redis and PostgreSQL play the bots,
score the deals and settle the matches; a worker SIGKILLed mid-match, a task delivered twice
and their Redis stopped (a private one on a port of its own) lose or double nothing; the turn
clock plays for a late person.

One worker and one beat serve the whole module (tests/integration/workers.py)."""

from __future__ import annotations

import time
import uuid

import pytest

from games.models import Deal, DealLuck, Match, Move, ScoreEntry
from games.selectors import deal_problems
from games.services import match_create
from games.tasks import deal_score_task, match_play_bot_turn_task, match_settle_task
from players.models import Player, RatingHistory
from players.services import bot_player_get_or_create
from tests.helpers import end_deal_by_last_card

from .live import register
from .workers import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


def assert_match_intact(match_id: str) -> Match:
    """Finished and settled once; the move log contiguous, every deal replays from its seed and
    moves to what is stored, one score entry per deal and seat, one version step per move and
    per scored deal."""
    match = Match.objects.get(id=match_id)
    assert match.status == "finished" and match.settled_at is not None
    seqs = list(Move.objects.filter(match=match).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1)) and match.move_count == len(seqs)
    deals = list(Deal.objects.filter(match=match).order_by("number"))
    assert [d.number for d in deals] == list(range(1, match.deals_total + 1))
    for deal in deals:
        assert deal.scored_at is not None
        assert deal_problems(deal) == [], (deal.number, deal_problems(deal))
    assert ScoreEntry.objects.filter(match=match).count() == len(deals) * match.seat_count
    assert match.version == 1 + len(seqs) + len(deals)
    assert RatingHistory.objects.filter(match_id=match.id).count() == match.seat_count
    return match


def bots_only_match(make_player, strategies: list[str], deals: int) -> Match:
    """A bots-only match: the organizer creates it and sits out (match_create(seated=…))."""
    organizer, _ = make_player()
    ordinal: dict[str, int] = {}
    bots = []
    for name in strategies:
        ordinal[name] = ordinal.get(name, 0) + 1
        bots.append(bot_player_get_or_create(strategy=name, ordinal=ordinal[name]))
    return match_create(
        player=organizer, seats=len(bots), seated=bots, deals=deals, rules={"draw_policy": "free"}
    )


def test_a_one_human_three_bots_over_http_all_deals(live_server, stack):
    _, human = register(live_server.url)
    created = human.post(
        "/api/v1/matches", {"seats": 4, "bots": ["greedy", "random", "greedy"], "deals": 2}
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    view = human.state(match_id)
    seen_deal_over = False
    deadline = time.monotonic() + 120
    while view["status"] == "active":
        assert time.monotonic() < deadline, stack.logs()
        if view["turn"] == 0:
            response = human.post(
                f"/api/v1/matches/{match_id}/moves",
                {**view["legal_moves"][-1], "version": view["version"]},
            )
            assert response.status_code == 200, response.text
            view = response.json()
        else:
            if view["phase"] == "deal_over":
                # Between the deal's end and games.score_deal: the result is there to show.
                seen_deal_over = True
                assert view["result"]["reason"] in ("shed", "stock_exhausted")
            view = human.state(match_id, f"?after_version={view['version']}&wait=10")
    assert view["phase"] == "match_over"
    wait_for(lambda: Match.objects.get(id=match_id).settled_at, 30, "the settlement")
    match = assert_match_intact(match_id)
    assert match.current_deal == 2
    assert set(Move.objects.filter(match=match, by_bot=True).values_list("seat", flat=True)) == {
        1,
        2,
        3,
    }
    assert not Move.objects.filter(match=match, seat=0, by_bot=True).exists()
    assert seen_deal_over or match.deals.count() == 2  # the poll may have missed the moment
    detail = human.get(f"/api/v1/matches/{match_id}").json()
    assert [s["total"] for s in detail["seats"]] == match.totals
    assert all(s["place"] for s in detail["seats"])


def test_b_bots_only_match_completes(make_player, stack):
    match = bots_only_match(make_player, ["greedy", "random", "greedy"], deals=2)
    wait_for(
        lambda: Match.objects.get(id=match.id).settled_at, 90, "the bots-only match", every=0.2
    )
    assert_match_intact(str(match.id))
    bot = Player.objects.get(username="bot-random-1")
    assert bot.matches == 1 and bot.deals_played == 2
    # The analysis queue's work goes on after the settlement, and ends: each deal's luck and
    # skill, then their count on the boards.
    wait_for(
        lambda: DealLuck.objects.filter(match_id=match.id, counted_at__isnull=False).count() == 6,
        90,
        "every seat's luck of both deals counted",
        every=0.2,
    )


def test_c_worker_sigkilled_mid_match_then_restarted(make_player, stack):
    match = bots_only_match(make_player, ["greedy", "random", "random"], deals=3)
    wait_for(lambda: Match.objects.get(id=match.id).move_count >= 25, 60, "25 moves")
    stack.kill_worker()
    killed_at = Match.objects.get(id=match.id)
    assert killed_at.status == "active", "the match ended before the kill: make it longer"
    time.sleep(1.0)
    assert Match.objects.get(id=match.id).version == killed_at.version, "nobody plays now"
    stack.start_worker()
    wait_for(
        lambda: Match.objects.get(id=match.id).settled_at,
        90,
        "the match to finish after the restart",
        every=0.2,
    )
    assert_match_intact(str(match.id))


def test_d_a_task_delivered_twice_applies_once(make_player, settings, stack):
    # Park the tasks this process sends on a queue no worker reads, then deliver them ourselves
    # twice each to the worker's queues.
    parked = f"test-parked-{uuid.uuid4().hex[:8]}"
    settings.CELERY_BOT_QUEUE = settings.CELERY_SCORING_QUEUE = parked
    human, _ = make_player()
    bot = bot_player_get_or_create(strategy="greedy", ordinal=1)
    match = match_create(player=human, seats=2, seated=[bot, human], deals=1)  # the bot opens
    assert match.version == 1
    for _ in range(2):
        match_play_bot_turn_task.apply_async((str(match.id), 1), queue=stack.bot_queue)
    wait_for(lambda: Match.objects.get(id=match.id).version > 1, 30, "the bot's turn")
    # Whatever the bot did at version 1 was one move; the copy found the version moved on.
    time.sleep(1.0)
    assert Move.objects.filter(match=match, seq=1).count() == 1
    opening = Move.objects.get(match=match, seq=1)
    assert opening.seat == 0 and opening.by_bot

    # Score a deal twice: end the deal with a scripted last card, then send score_deal twice.
    settings.CELERY_BOT_QUEUE = settings.CELERY_SCORING_QUEUE = parked
    end_deal_by_last_card(match.id, human.id, seat=1)
    over = Match.objects.get(id=match.id)
    assert Deal.objects.get(match=match, number=1).status == "over"
    for _ in range(2):
        deal_score_task.apply_async((str(match.id), 1), queue=stack.scoring_queue)
    wait_for(lambda: Match.objects.get(id=match.id).settled_at, 30, "scoring and settlement")
    for _ in range(2):
        match_settle_task.apply_async((str(match.id),), queue=stack.scoring_queue)
    time.sleep(1.5)
    final = Match.objects.get(id=match.id)
    assert final.version == over.version + 1  # scored once: one step
    entries = list(ScoreEntry.objects.filter(match=match).order_by("seat"))
    assert [(e.penalty, e.hand_penalty, e.multiplier) for e in entries] == [(144, 48, 3), (0, 0, 3)]
    assert sorted(entries[0].cards_left) == ["3H", "7C", "JS"]
    human.refresh_from_db()
    assert (human.deals_played, human.deals_won, human.penalty_points) == (1, 1, 0)
    assert (human.matches, human.wins) == (1, 1)
    assert RatingHistory.objects.filter(match_id=match.id).count() == 2
    import redis

    redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(parked)


def test_e_redis_down_a_move_still_succeeds_and_the_bot_answers_later(live_server, stack):
    _, human = register(live_server.url)
    created = human.post("/api/v1/matches", {"seats": 2, "bots": ["greedy"], "deals": 1})
    match_id = created.json()["id"]
    view = human.state(match_id)
    assert view["turn"] == 0  # the person opens deal 1
    try:
        stack.redis.stop()  # the stack's own Redis, on a port of its own
        posted = 0
        while view["turn"] == 0:  # a draw can leave the person on turn: play on until it passes
            plays = [m for m in view["legal_moves"] if m["action"] == "play"]
            started = time.monotonic()
            response = human.post(
                f"/api/v1/matches/{match_id}/moves",
                {**(plays or view["legal_moves"])[0], "version": view["version"]},
            )
            took = time.monotonic() - started
            assert response.status_code == 200, response.text
            assert took < 10, f"the move waited {took:.1f}s for the broker"
            view = response.json()
            posted += 1
        moved = view
        assert moved["turn"] == 1  # the bot's turn: its task could not be sent
        time.sleep(1.0)
        assert human.state(match_id)["version"] == moved["version"]
    finally:
        stack.redis.start()
    answered = wait_for(
        lambda: (v := human.state(match_id))["version"] > moved["version"] and v,
        60,
        "the bot's answer once Redis is back",
        every=0.25,
    )
    assert answered["version"] > moved["version"]
    human_moves = Move.objects.filter(match_id=match_id, seat=0)
    assert human_moves.count() == posted and not human_moves.filter(by_bot=True).exists()
    assert Move.objects.filter(match_id=match_id, seat=1, by_bot=True).exists()


def test_f_turn_clock_plays_for_a_late_person_never_before(live_server, stack):
    _, human = register(live_server.url)
    created = human.post(
        "/api/v1/matches", {"seats": 2, "bots": ["greedy"], "deals": 1, "turn_seconds": 2}
    )
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["turn_seconds"] == 2 and body["turn_deadline"] is not None
    match_id = body["id"]
    view = human.state(match_id)
    assert view["turn"] == 0 and view["turn_deadline"] == body["turn_deadline"]
    deadline = Match.objects.get(id=match_id).turn_deadline
    # Not before the deadline: with half a second to go nothing has been played for seat 0.
    from django.utils import timezone

    time.sleep(max(0.0, (deadline - timezone.now()).total_seconds() - 0.5))
    assert not Move.objects.filter(match_id=match_id).exists()
    # After it: the greedy move for seat 0, marked by_bot, and play goes on (the bot answers).
    wait_for(
        lambda: Move.objects.filter(match_id=match_id, seat=0, by_bot=True).exists(),
        15,
        "the default move",
    )
    first = Move.objects.filter(match_id=match_id).order_by("seq").first()
    assert first.seat == 0 and first.by_bot and first.at >= deadline
    wait_for(
        lambda: Move.objects.filter(match_id=match_id, seat=1).exists(), 15, "the bot's answer"
    )
    log = human.get(f"/api/v1/matches/{match_id}/moves").json()
    assert log[0]["seat"] == 0 and log[0]["by_bot"] is True
