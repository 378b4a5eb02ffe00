"""A match's lifecycle beside its moves: create, join, score_deal and settle_match.

The statement counts are pinned (django_assert_max_num_queries; an executemany counts once, as
it is one round trip; inside a test's transaction BEGIN and COMMIT are a savepoint and its
release), so a change that adds a statement to these paths fails here. Beside
them, what the leaner paths rely on: create and join answer what a read of the match answers
afterwards, a seat row written behind the service's back still makes a join 409 `match_full`,
a deal is scored from its own final state whatever the match holds, and settlement is atomic
on its own and inside match_settle.
"""

from __future__ import annotations

from typing import Any

import pytest

from games import engine
from games.models import Deal, Match, ScoreEntry, Seat
from games.services import deal_score, match_create, match_settle
from players.models import Board, BoardEntry, Player, RatingHistory
from tests import leakscan
from tests.helpers import create_match, end_deal_by_last_card

pytestmark = pytest.mark.django_db


@pytest.fixture
def deferred_scan() -> Any:
    """The leak scanner's own queries are not counted against the endpoint (tests/leakscan.py)."""
    leakscan.DEFER = True
    yield
    leakscan.DEFER = False
    leakscan.scan_deferred()


def end_deal(match: Match, players: list[Player]) -> None:
    """Seat 0 plays its last card, 7D; seat 1 keeps JS 7C 3H (R-31: 144 points). Nothing runs
    on commit in these tests, so the deal stays over and unscored until a test scores it."""
    end_deal_by_last_card(match.id, players[0].id, seat=0)


def finished_match(players: list[Player]) -> Match:
    match = match_create(player=players[0], seats=2, seated=players, deals=1)
    end_deal(match, players)
    assert deal_score(match_id=match.id, deal_number=1)
    return match


def detail(client: Any, match_id: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/matches/{match_id}")
    assert response.status_code == 200
    return response.json()


def test_create_makes_at_most_7_queries(
    make_player, client_for, deferred_scan, django_assert_max_num_queries
):
    _, token = make_player()
    client = client_for(token)
    # token, BEGIN, lock the creator, count their matches, INSERT match, INSERT seat, COMMIT: the
    # response is built from the rows in hand
    with django_assert_max_num_queries(7):
        response = client.post("/api/v1/matches", {"seats": 2, "deals": 1}, format="json")
    assert response.status_code == 201


def test_create_against_bots_makes_at_most_10_queries(
    make_player, client_for, deferred_scan, django_assert_max_num_queries
):
    _, token = make_player()
    client = client_for(token)
    create_match(client, seats=3, bots=["greedy", "random"])  # the bot players exist now
    # token, 2 bot players, BEGIN, lock the creator, count their matches, INSERT deal, INSERT the
    # match as started, INSERT seats, COMMIT
    with django_assert_max_num_queries(10):
        response = client.post(
            "/api/v1/matches", {"seats": 3, "bots": ["greedy", "random"]}, format="json"
        )
    assert response.status_code == 201


def test_join_makes_at_most_10_queries(
    make_player, client_for, deferred_scan, django_assert_max_num_queries
):
    (_, ta), (_, tb) = make_player(), make_player()
    match = create_match(client_for(ta), seats=2)
    joiner = client_for(tb)
    # token, BEGIN, lock, the joiner's row lock and count of matches going on (games.services:
    # counted after the lock, as a create counts), INSERT seat, INSERT deal, UPDATE match,
    # COMMIT, the seats for the answer
    with django_assert_max_num_queries(10):
        response = joiner.post(f"/api/v1/matches/{match['id']}/join")
    assert response.status_code == 200 and response.json()["status"] == "active"
    # A second join is a no-op: token, BEGIN, lock, COMMIT, seats and deals for the answer.
    with django_assert_max_num_queries(6):
        response = joiner.post(f"/api/v1/matches/{match['id']}/join")
    assert response.status_code == 200


def test_score_deal_makes_at_most_9_queries_and_10_with_a_next_deal(
    make_player, django_assert_max_num_queries
):
    players = [make_player()[0], make_player()[0]]
    match = match_create(player=players[0], seats=2, seated=players, deals=2)
    end_deal(match, players)
    # BEGIN, lock, read the deal, claim it, score entries, players' counters, seats, deal 2,
    # match, COMMIT
    with django_assert_max_num_queries(10):
        assert deal_score(match_id=match.id, deal_number=1)
    assert Match.objects.get(id=match.id).current_deal == 2
    end_deal(match, players)
    # BEGIN, lock, read the deal, claim it, score entries, players' counters, seats, match, COMMIT
    with django_assert_max_num_queries(9):
        assert deal_score(match_id=match.id, deal_number=2)
    assert Match.objects.get(id=match.id).status == Match.Status.FINISHED
    with django_assert_max_num_queries(4):  # scored already: BEGIN, lock, read the deal, COMMIT
        assert not deal_score(match_id=match.id, deal_number=2)


def test_settle_match_makes_at_most_12_queries(make_player, django_assert_max_num_queries):
    players = [make_player()[0], make_player()[0]]
    assert match_settle(match_id=finished_match(players).id)  # boards, pools and entries exist
    match = finished_match(players)
    # BEGIN, lock, score entries, lock players, history check, players, pools with their boards,
    # board entries, their upsert, rating history, match, COMMIT
    with django_assert_max_num_queries(12):
        assert match_settle(match_id=match.id)
    with django_assert_max_num_queries(3):  # settled already: BEGIN, lock, COMMIT
        assert not match_settle(match_id=match.id)


def test_create_and_join_answer_what_the_match_reads_afterwards(make_player, client_for):
    (_, ta), (_, tb) = make_player(), make_player()
    ca, cb = client_for(ta), client_for(tb)
    created = create_match(ca, seats=3, bots=["greedy"], turn_seconds=60)
    assert created == detail(ca, created["id"])
    joined = cb.post(f"/api/v1/matches/{created['id']}/join").json()
    assert joined["status"] == "active" and joined["deals"][0]["status"] == "active"
    assert joined == detail(ca, created["id"])
    assert cb.post(f"/api/v1/matches/{created['id']}/join").json() == joined
    against_bots = create_match(ca, seats=3, bots=["greedy", "random"], deals=2)
    assert against_bots["status"] == "active"
    assert against_bots == detail(ca, against_bots["id"])


def test_a_seat_row_written_behind_the_service_still_makes_join_match_full(make_player, client_for):
    (a, ta), (b, _), (_, tc) = make_player(), make_player(), make_player()
    match = create_match(client_for(ta), seats=2)
    Seat.objects.create(match_id=match["id"], seat=1, player=b)  # seat_players still open
    response = client_for(tc).post(f"/api/v1/matches/{match['id']}/join")
    assert response.status_code == 409 and response.json()["code"] == "match_full"
    stored = Match.objects.get(id=match["id"])
    assert stored.status == Match.Status.WAITING and stored.version == 0
    assert stored.seat_players == [str(a.id), None]
    assert not Deal.objects.filter(match_id=match["id"]).exists()


def test_a_deal_is_scored_from_its_own_final_state(make_player):
    players = [make_player()[0], make_player()[0]]
    match = match_create(player=players[0], seats=2, seated=players, deals=1)
    end_deal(match, players)
    # The match no longer points at the deal: the deal's stored final state is what counts.
    Match.objects.filter(id=match.id).update(live_deal=None, state=None)
    assert deal_score(match_id=match.id, deal_number=1)
    final = engine.State.from_json(Deal.objects.get(match=match, number=1).final_state)
    scores = ScoreEntry.objects.filter(match=match).order_by("seat")
    assert [(s.penalty, s.cards_left, s.won) for s in scores] == [
        (0, [], True),
        (144, [c.code for c in final.hands[1]], False),
    ]
    assert sorted(scores[1].cards_left) == ["3H", "7C", "JS"]


@pytest.fixture
def parked(settings: Any) -> Any:
    """Nothing runs on commit: the test calls the services (the tasks' bodies) itself."""
    from pisyedili_api import tasks

    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "memory://"
    original = tasks._publish
    tasks._publish = lambda name, args: None
    yield
    tasks._publish = original


@pytest.mark.django_db(transaction=True)  # on its own: not inside a test's transaction
def test_settlement_is_atomic_inside_match_settle_and_on_its_own(make_player, monkeypatch, parked):
    from players.services import standings as services

    players = [make_player()[0], make_player()[0]]
    match = finished_match(players)

    def fail(rows: Any) -> None:
        raise RuntimeError("the board entries could not be written")

    monkeypatch.setattr(services, "_board_entries_add", fail)
    with pytest.raises(RuntimeError):
        match_settle(match_id=match.id)
    with pytest.raises(RuntimeError):
        services.player_standings_settle(
            match_id=match.id,
            player_ids=[p.id for p in players],
            places=[1, 2],
            rules={},
            finished_at=Match.objects.get(id=match.id).finished_at,
            deals_played=1,
            deals_won=[1, 0],
            penalties=[0, 144],
        )
    assert Match.objects.get(id=match.id).settled_at is None
    assert [(p.matches, p.wins) for p in Player.objects.filter(id__in=[p.id for p in players])] == [
        (0, 0),
        (0, 0),
    ]
    assert not Board.objects.exists() and not BoardEntry.objects.exists()
    assert not RatingHistory.objects.exists()
    monkeypatch.undo()
    assert match_settle(match_id=match.id)
    history = RatingHistory.objects.filter(match_id=match.id)
    assert sorted(h.place for h in history) == [1, 2]
    seats = dict(Seat.objects.filter(match=match).values_list("player_id", "place"))
    assert {h.player_id: h.place for h in history} == seats
