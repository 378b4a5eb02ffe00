"""One user cannot fill the workers: limits on matches going on at once (all, and against bots
only), a cap on deals, and bot turns that interleave across matches (one turn per task, the
next one sent to the back of the queue)."""

from __future__ import annotations

from collections import deque

import pytest
from rest_framework.throttling import SimpleRateThrottle

from games.models import Match, Move
from games.services import match_create, match_join, match_play_bot_turn
from pisyedili_api import tasks
from pisyedili_api.errors import ApplicationError
from players.services import bot_player_get_or_create
from tests.helpers import create_match

pytestmark = pytest.mark.django_db


def _refused(response, code="too_many_active_matches", status=409):
    assert response.status_code == status, response.content
    assert response.json()["code"] == code and response.json()["message"]
    return response.json()


def test_active_matches_are_limited_per_player(make_player, client_for, settings):
    settings.MAX_ACTIVE_MATCHES_PER_PLAYER = 3
    (ana_player, ta), (_, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    for _ in range(3):
        create_match(ana, seats=3)
    before = Match.objects.count()
    body = _refused(ana.post("/api/v1/matches", {"seats": 2}, format="json"))
    assert body["detail"] == {"active_matches": 3, "limit": 3}
    assert Match.objects.count() == before  # nothing created
    # Joining counts too: bob's match cannot take a fourth of ana's.
    theirs = create_match(bob, seats=2)
    _refused(ana.post(f"/api/v1/matches/{theirs['id']}/join"))
    assert Match.objects.get(id=theirs["id"]).seat_players[1] is None
    # Other players are not limited by ana's matches; a finished match frees a place.
    create_match(bob, seats=2)
    done = Match.objects.filter(created_by=ana_player).first()
    Match.objects.filter(id=done.id).update(status="finished")
    create_match(ana, seats=2)


def test_matches_against_bots_only_are_limited_per_player(make_player, client_for, settings):
    settings.MAX_BOT_MATCHES_PER_PLAYER = 2
    _, token = make_player()
    client = client_for(token)
    for _ in range(2):
        create_match(client, seats=3, bots=["random", "random"])
    body = _refused(client.post("/api/v1/matches", {"seats": 2, "bots": ["random"]}, format="json"))
    assert body["detail"] == {"bot_matches": 2, "limit": 2}
    # A match with a seat open for a person is not bots-only work.
    create_match(client, seats=3, bots=["random"])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seats": 2, "deals": 21}, "deals"),
        ({"seats": 2, "rules": {"deals_per_match": 52}}, "rules"),
    ],
)
def test_deals_are_capped(make_player, client_for, settings, body, field):
    settings.MAX_DEALS_PER_MATCH = 20
    _, token = make_player()
    body = _refused(client_for(token).post("/api/v1/matches", body, format="json"), "invalid", 400)
    assert field in body["detail"] and "MAX_DEALS_PER_MATCH" in body["message"]
    assert not Match.objects.exists()


def test_the_service_applies_the_limits_too(make_player, settings):
    settings.MAX_ACTIVE_MATCHES_PER_PLAYER = 1
    (ana, _), (bob, _) = make_player(), make_player()
    match_create(player=ana, seats=2)
    other = match_create(player=bob, seats=2)
    with pytest.raises(ApplicationError) as raised:
        match_join(match_id=other.id, player=ana)
    assert raised.value.code == "too_many_active_matches"


@pytest.mark.django_db
@pytest.mark.usefixtures("commits_in_place")  # what commits trigger, in place
def test_bot_turns_of_matches_interleave_one_turn_per_task(make_player, settings):
    """A FIFO of sent bot turns (the bots queue), worked one task at a time: each task plays one
    turn and sends the next to the back, so two bots-only matches alternate move by move and
    neither waits for the other to finish."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "memory://"
    queue: deque = deque()
    original = tasks._publish
    tasks._publish = lambda name, args: queue.append((name, args))
    try:
        organizer, _ = make_player()
        matches = []
        for n in (1, 3):
            bots = [bot_player_get_or_create(strategy="random", ordinal=n + i) for i in (0, 1)]
            matches.append(str(match_create(player=organizer, seats=2, seated=bots, deals=1).id))
        order = []
        for _ in range(40):
            name, args = queue.popleft()
            assert name == "games.match_play_bot_turn"
            before = Move.objects.filter(match_id=args[0]).count()
            assert match_play_bot_turn(match_id=args[0], version=args[1])
            assert Move.objects.filter(match_id=args[0]).count() == before + 1  # one turn
            order.append(args[0])
            queue = deque(item for item in queue if item[0] == "games.match_play_bot_turn")
            if len({a[0] for _, a in queue}) < 2:
                break  # a deal ended: its scoring is on the other queue
        assert len(order) >= 4
        # Never two turns of one match in a row while the other had a turn waiting.
        assert all(a != b for a, b in zip(order, order[1:], strict=False))
    finally:
        tasks._publish = original


@pytest.mark.django_db(transaction=True)
def test_concurrent_creates_by_one_player_stop_at_the_limit(make_player, settings):
    """The check runs under the player's row lock: racing creates are counted one by one."""
    import threading

    from django.db import connection

    settings.MAX_ACTIVE_MATCHES_PER_PLAYER = 3
    ana, _ = make_player()
    start, outcomes = threading.Barrier(8), []

    def create():
        try:
            start.wait()
            match_create(player=ana, seats=2)
            outcomes.append("created")
        except ApplicationError as exc:
            outcomes.append(exc.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["created"] * 3 + ["too_many_active_matches"] * 5
    assert Match.objects.filter(created_by=ana).count() == 3


@pytest.mark.django_db(transaction=True)
def test_concurrent_joins_by_one_player_stop_at_the_limit(make_player, settings):
    """A join counts under the joiner's row lock too: racing joins of one player (into
    different matches, each with a free seat) are counted one by one."""
    import threading

    from django.db import connection

    from games.services import match_join

    settings.MAX_ACTIVE_MATCHES_PER_PLAYER = 3
    ana, _ = make_player()
    hosts = [make_player()[0] for _ in range(8)]
    waiting = [match_create(player=host, seats=2) for host in hosts]
    start, outcomes = threading.Barrier(8), []

    def join(match):
        try:
            start.wait()
            match_join(match_id=match.id, player=ana)
            outcomes.append("joined")
        except ApplicationError as exc:
            outcomes.append(exc.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=join, args=(m,)) for m in waiting]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["joined"] * 3 + ["too_many_active_matches"] * 5
    assert Match.objects.filter(seats__player=ana).count() == 3


@pytest.mark.django_db(transaction=True)
def test_a_create_seating_a_bot_does_not_wait_for_that_bots_settlement(make_player, monkeypatch):
    """Settlement locks its players' rows FOR NO KEY UPDATE, which the create's foreign-key
    check (KEY SHARE, at commit) does not wait for. With FOR UPDATE it waited, and a create that
    held its own player's row lock deadlocked with a settlement waiting for that row."""
    import threading
    import uuid

    from django.db import connection
    from django.utils import timezone

    from players.services import standings

    ana, _ = make_player()
    other, _ = make_player()
    bot = bot_player_get_or_create(strategy="random", ordinal=1)
    locked, release = threading.Event(), threading.Event()
    real_rate = standings._rate

    def rate_holding_the_locks(*args, **kwargs):
        locked.set()
        release.wait(timeout=30)
        return real_rate(*args, **kwargs)

    monkeypatch.setattr(standings, "_rate", rate_holding_the_locks)

    def settle():
        try:
            standings.player_standings_settle(
                match_id=uuid.uuid4(),
                player_ids=[bot.id, other.id],
                places=[1, 2],
                rules={},
                finished_at=timezone.now(),
                deals_played=1,
                deals_won=[1, 0],
                penalties=[0, 10],
            )
        except Exception:  # noqa: BLE001 - the unknown match id may fail after the lock
            pass
        finally:
            connection.close()

    created = []

    def create():
        try:
            created.append(match_create(player=ana, seats=2, bots=["random"]))
        finally:
            connection.close()

    settler = threading.Thread(target=settle)
    settler.start()
    try:
        assert locked.wait(timeout=30)
        creator = threading.Thread(target=create)
        creator.start()
        creator.join(timeout=10)
        assert not creator.is_alive(), "the create waited for the settlement's row locks"
        assert created and created[0].seats.get(seat=1).player_id == bot.id
    finally:
        release.set()
        settler.join(timeout=30)


def test_table_writes_are_throttled_per_user_on_one_count(make_player, client_for, monkeypatch):
    """POST /matches, …/join, …/leave, …/cancel and …/rematch (THROTTLE_MATCH): a table made and
    dropped by the dozen fills every lobby; the list is not a write, and each user counts their
    own. A refused write changes nothing."""
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "match": "4/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    (_, ta), (_, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    made = create_match(ana, seats=3)  # 1
    theirs = create_match(bob, seats=2)
    assert ana.post(f"/api/v1/matches/{theirs['id']}/join").status_code == 200  # 2
    assert ana.post(f"/api/v1/matches/{made['id']}/cancel").status_code == 200  # 3
    again = create_match(ana, seats=3)  # 4
    before = Match.objects.count()
    refused = ana.post("/api/v1/matches", {"seats": 2}, format="json")
    _refused(refused, "throttled", 429)
    assert int(refused["Retry-After"]) > 0 and Match.objects.count() == before
    _refused(ana.post(f"/api/v1/matches/{again['id']}/cancel"), "throttled", 429)
    assert Match.objects.get(id=again["id"]).status == Match.Status.WAITING
    _refused(ana.post(f"/api/v1/matches/{again['id']}/leave"), "throttled", 429)
    assert ana.get("/api/v1/matches?status=waiting").status_code == 200  # reading is no write
    assert bob.post(f"/api/v1/matches/{again['id']}/join").status_code == 200  # his own count
