"""`POST /matches/{id}/resign`: the reference bot plays a resigned seat to the end, its person
placed last for the ratings and the boards; a match left with no person ends as `abandoned`;
a resigned seat frees its player's slot (docs/api.md, docs/rules.md "Server policies")."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.throttling import SimpleRateThrottle

from games import engine
from games.models import Match, Move, ScoreEntry, Seat
from games.services import match_play_bot_turn, match_play_overdue_turn
from players.models import RatingHistory
from tests.helpers import create_match, end_deal_by_last_card, post_move, state

pytestmark = pytest.mark.django_db


def _resign(client, match_id, body=None):
    return client.post(f"/api/v1/matches/{match_id}/resign", body or {}, format="json")


def _ok(response):
    assert response.status_code == 200, response.content
    return response.json()


def _refused(response, code, status):
    assert response.status_code == status, response.content
    assert response.json()["code"] == code and response.json()["message"]
    return response.json()


def _two_people(make_player, client_for, **body):
    """Ana (seat 0) and Bob (seat 1) at a started two-seat match."""
    (ana_player, ta), (bob_player, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    match = create_match(ana, seats=2, **body)
    _ok(bob.post(f"/api/v1/matches/{match['id']}/join"))
    return (ana_player, ana), (bob_player, bob), match["id"]


def test_resigning_against_bots_abandons_the_match_and_places_the_person_last(
    make_player, client_for, commits_in_place
):
    player, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=3, bots=["greedy", "random"], deals=2)
    before = state(client, match["id"])
    assert before["status"] == "active" and before["resigned"] == []
    # Ana leads on points: resigning places her last all the same.
    Match.objects.filter(id=match["id"]).update(totals=[0, 50, 90])
    answer = _ok(_resign(client, match["id"]))
    assert answer["status"] == "abandoned" and answer["finished_at"] is not None
    assert answer["version"] == before["version"] + 1
    seats = answer["seats"]
    assert [s["resigned"] for s in seats] == [True, False, False]
    assert [s["place"] for s in seats] == [3, 1, 2]
    view = state(client, match["id"])
    assert view["status"] == "abandoned" and view["phase"] == "match_over"
    assert view["resigned"] == [0] and view["legal_moves"] == [] and view["turn"] is None
    # Settled as a finished match: the rating history has her last.
    assert RatingHistory.objects.get(match_id=match["id"], player=player).place == 3
    player.refresh_from_db()
    assert player.matches == 1 and player.wins == 0 and player.rating_mu < 25.0
    # Resigning again changes nothing; a move is refused.
    again = _ok(_resign(client, match["id"]))
    assert again["version"] == answer["version"] and again["status"] == "abandoned"
    _refused(
        post_move(client, match["id"], {"action": "draw"}, view["version"]), "match_not_active", 409
    )
    listed = client.get("/api/v1/matches", {"status": "abandoned"}).json()["results"]
    assert [m["id"] for m in listed] == [match["id"]]


def test_the_reference_bot_plays_a_resigned_seat_to_the_end(
    make_player, client_for, commits_in_place
):
    (ana_player, ana), (bob_player, bob), match_id = _two_people(make_player, client_for, deals=1)
    view = state(bob, match_id)
    moves_before = Move.objects.filter(match_id=match_id).count()
    answer = _ok(_resign(bob, match_id))
    assert answer["status"] == "active"
    assert [s["resigned"] for s in answer["seats"]] == [False, True]
    assert [s["absent"] for s in answer["seats"]] == [False, False]
    assert Match.objects.get(id=match_id).seat_bots == ["", "greedy"]
    # Bob may no longer move; his view shows no legal move.
    bob_view = state(bob, match_id)
    assert bob_view["resigned"] == [1] and bob_view["legal_moves"] == []
    _refused(post_move(bob, match_id, {"action": "draw"}, bob_view["version"]), "resigned", 409)
    # Ana plays on; every move of seat 1 from now on is the bot's.
    for _ in range(2000):
        view = state(ana, match_id)
        if view["status"] != "active":
            break
        if view["turn"] != 0:
            raise AssertionError(f"the bot did not move for seat 1: {view}")
        _ok(post_move(ana, match_id, view["legal_moves"][-1], view["version"]))
    assert view["status"] == "finished"
    after = Move.objects.filter(match_id=match_id, seq__gt=moves_before)
    assert after.filter(seat=1).exists()
    assert not after.filter(seat=1, by_bot=False).exists()
    assert str(after.filter(seat=1).first().player_id) == str(bob_player.id)
    log = ana.get(f"/api/v1/matches/{match_id}/moves").json()
    assert all(m["by_bot"] for m in log if m["seat"] == 1 and m["seq"] > moves_before)
    finished = ana.get(f"/api/v1/matches/{match_id}").json()
    assert [s["place"] for s in finished["seats"]] == [1, 2]
    assert RatingHistory.objects.get(match_id=match_id, player=bob_player).place == 2
    assert RatingHistory.objects.get(match_id=match_id, player=ana_player).place == 1


def test_a_resigned_seat_places_last_whatever_its_points(make_player, client_for, commits_in_place):
    (ana_player, ana), (bob_player, bob), match_id = _two_people(make_player, client_for, deals=1)
    _ok(_resign(bob, match_id))
    # The deal ends with Bob's seat (the bot now) shedding its last card: he scores 0, Ana 144.
    current = Match.objects.get(id=match_id)
    position = engine.deal_from_codes(
        hands=["JS 7C 3H", "7D"],
        top="9D",
        stock=["2C", "4C"],
        turn=1,
        rules=engine.Rules.from_json(current.rules),
        phase="play",
    )
    Match.objects.filter(id=match_id).update(state=position.to_json())
    assert match_play_bot_turn(match_id=match_id, version=current.version)
    match = Match.objects.get(id=match_id)
    assert match.status == "finished" and match.totals[1] < match.totals[0]
    assert dict(Seat.objects.filter(match_id=match_id).values_list("seat", "place")) == {0: 1, 1: 2}
    assert RatingHistory.objects.get(match_id=match_id, player=ana_player).place == 1


def test_the_last_person_to_resign_abandons_it_and_is_placed_above_the_first(
    make_player, client_for, commits_in_place
):
    (ana_player, ana), (bob_player, bob), match_id = _two_people(make_player, client_for)
    assert _ok(_resign(ana, match_id))["status"] == "active"
    answer = _ok(_resign(bob, match_id))
    assert answer["status"] == "abandoned"
    assert [s["place"] for s in answer["seats"]] == [2, 1]
    assert Match.objects.get(id=match_id).resigned == [0, 1]


def test_a_deal_over_when_the_match_is_abandoned_is_scored(make_player, client_for):
    player, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=2, bots=["greedy"], deals=3)
    # The deal ends (Ana sheds her last 7: 144 points to the bot); its scoring is not run yet.
    end_deal_by_last_card(match["id"], player.id, seat=0)
    answer = _ok(_resign(client, match["id"]))
    assert answer["status"] == "abandoned"
    assert ScoreEntry.objects.filter(match_id=match["id"]).count() == 2
    assert [s["total"] for s in answer["seats"]] == [0, 144]
    assert [s["place"] for s in answer["seats"]] == [2, 1]


def test_resigning_frees_the_slot_of_the_limits(make_player, client_for, settings):
    settings.MAX_BOT_MATCHES_PER_PLAYER = 2
    _, token = make_player()
    client = client_for(token)
    first = create_match(client, seats=2, bots=["greedy"])
    create_match(client, seats=2, bots=["greedy"])
    _refused(client.post("/api/v1/matches", {"seats": 2, "bots": ["greedy"]}, format="json"),
             "too_many_active_matches", 409)  # fmt: skip
    _ok(_resign(client, first["id"]))
    create_match(client, seats=2, bots=["greedy"])


def test_a_resigned_seat_of_a_match_still_played_holds_no_slot(make_player, client_for, settings):
    settings.MAX_ACTIVE_MATCHES_PER_PLAYER = 1
    (_, ana), (_, bob), match_id = _two_people(make_player, client_for)
    _refused(
        ana.post("/api/v1/matches", {"seats": 2}, format="json"), "too_many_active_matches", 409
    )
    _ok(_resign(ana, match_id))
    assert Match.objects.get(id=match_id).status == "active"  # Bob plays on against the bot
    create_match(ana, seats=2)


def test_refusals_change_nothing(make_player, client_for, api):
    (_, ana), (_, bob), match_id = _two_people(make_player, client_for)
    _, other_token = make_player()
    other = client_for(other_token)
    version = Match.objects.get(id=match_id).version
    _refused(_resign(other, match_id), "not_seated", 403)
    _refused(_resign(ana, "00000000-0000-4000-8000-000000000000"), "not_found", 404)
    body = _refused(_resign(ana, match_id, {"seat": 0}), "invalid", 400)
    assert body["detail"] == {"seat": ["Unknown field."]}
    _refused(api.post(f"/api/v1/matches/{match_id}/resign"), "not_authenticated", 401)
    waiting = create_match(other, seats=2)
    _refused(_resign(other, waiting["id"]), "match_not_active", 409)
    match = Match.objects.get(id=match_id)
    assert match.version == version and match.resigned == [] and match.seat_bots == ["", ""]
    assert not Seat.objects.filter(resigned_at__isnull=False).exists()


def test_resign_is_throttled_per_user(make_player, client_for, monkeypatch):
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "match_resign": "2/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    _, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=2)
    _refused(_resign(client, match["id"]), "match_not_active", 409)
    _refused(_resign(client, match["id"]), "match_not_active", 409)
    third = _refused(_resign(client, match["id"]), "throttled", 429)
    assert third and "Retry-After" in _resign(client, match["id"])
    # Another player has counts of their own.
    _, other = make_player()
    _refused(_resign(client_for(other), match["id"]), "not_seated", 403)


def test_a_rematch_of_a_match_with_a_resigned_person_seats_only_the_real_bots(
    make_player, client_for
):
    (_, ana), (bob_player, bob), match_id = _two_people(make_player, client_for)
    _ok(_resign(bob, match_id))
    Match.objects.filter(id=match_id).update(status="finished")
    response = bob.post(f"/api/v1/matches/{match_id}/rematch")
    assert response.status_code == 201, response.content
    rematch = Match.objects.get(id=response.json()["id"])
    assert rematch.seat_bots == ["", ""] and rematch.resigned == []
    assert rematch.seat_players == [None, str(bob_player.id)]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(4))
def test_a_resign_racing_a_move_applies_once(make_player, round_):
    """On PostgreSQL, the seat on turn posts a move and resigns at the same moment: the resign
    applies exactly once, the move before it or not at all, and the log stays consistent."""
    from games import engine
    from games.serializers import move_reply
    from games.services import match_apply_move, match_create, match_join, match_resign
    from pisyedili_api.errors import ApplicationError

    (ana, _), (bob, _) = make_player(), make_player()
    match = match_create(player=ana, seats=2, deals=1)
    match_join(match_id=match.id, player=bob)
    match = Match.objects.get(id=match.id)
    seat = match.state["turn"]
    mover = (ana, bob)[seat]
    legal = engine.legal_moves(engine.State.from_json(match.state))
    move, version, count = legal[-1], match.version, match.move_count
    start, answers = threading.Barrier(2), {}

    def play():
        try:
            start.wait()
            if not round_ % 2:
                time.sleep(0.02)  # the resign locks first in even rounds, the move in odd ones
            view = match_apply_move(
                match_id=match.id, player_id=mover.id, move=move, version=version, reply=move_reply
            )
            answers["move"] = view["version"]
        except ApplicationError as exc:
            answers["move"] = exc.code
        finally:
            connection.close()

    def resign():
        try:
            start.wait()
            if round_ % 2:
                time.sleep(0.02)
            answers["resign"] = match_resign(match_id=match.id, player=mover).version
        finally:
            connection.close()

    threads = [threading.Thread(target=play), threading.Thread(target=resign)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    after = Match.objects.get(id=match.id)
    assert after.resigned == [seat] and after.seat_bots[seat] == "greedy"
    resigned_at = Seat.objects.get(match_id=match.id, seat=seat).resigned_at
    people_moves = Move.objects.filter(match_id=match.id, seat=seat, by_bot=False, seq__gt=count)
    if answers["move"] == "resigned":  # the resign came first: the move applied nothing
        assert answers["resign"] == version + 1
        assert not people_moves.exists()
    else:  # the move came first, at its version; the resign right after it
        assert answers["move"] == version + 1 and answers["resign"] == version + 2
        assert people_moves.count() == 1 and people_moves.get().seq == count + 1
        assert people_moves.get().at < resigned_at
    # Whatever came first, every move of that seat after the resignation is the bot's.
    assert not Move.objects.filter(
        match_id=match.id, seat=seat, by_bot=False, at__gt=resigned_at
    ).exists()
    assert after.move_count == Move.objects.filter(match_id=match.id).count()


def test_on_its_turn_the_bot_plays_the_resigned_seat_at_once(
    make_player, client_for, commits_in_place
):
    (ana_player, ana), (_, bob), match_id = _two_people(
        make_player, client_for, deals=1, turn_seconds=60
    )
    before = Match.objects.get(id=match_id)
    assert before.state["turn"] == 0 and before.turn_deadline is not None  # Ana opens
    answer = _ok(_resign(ana, match_id))
    assert answer["version"] == before.version + 1
    after = Match.objects.get(id=match_id)
    # The reference bot took Ana's turn through the bot-turn task, marked by_bot, as her seat.
    moves = Move.objects.filter(match_id=match_id, seq__gt=before.move_count)
    assert moves.first().seat == 0 and str(moves.first().player_id) == str(ana_player.id)
    assert all(m.by_bot for m in moves.filter(seat=0))
    assert after.version > answer["version"]
    # Bob is on turn now with his own clock; a bot's turn never has one.
    view = state(bob, match_id)
    assert view["turn"] == 1 and view["turn_deadline"] is not None
    assert after.turn_deadline is not None


def _clock_or_move(match_id, clocked_seat, mover):
    """Play on: when `clocked_seat` is on turn its deadline passes and the turn clock plays
    it; the other seat moves in time (`mover`, its first legal move). Returns after the clock
    played `clocked_seat`'s turn or the match stopped."""
    for _ in range(200):
        view = state(mover, match_id)
        if view["status"] != "active":
            return view
        if view["turn"] == clocked_seat:
            Match.objects.filter(id=match_id).update(
                turn_deadline=timezone.now() - timedelta(seconds=1)
            )
            assert match_play_overdue_turn(match_id=match_id, version=view["version"]) >= 1
            return state(mover, match_id)
        _ok(post_move(mover, match_id, view["legal_moves"][0], view["version"]))
    raise AssertionError("the clocked seat never came on turn")


def test_the_clock_resigns_a_person_whose_turns_it_played_three_times_in_a_row(
    make_player, client_for, commits_in_place, settings
):
    settings.TURN_CLOCK_RESIGN_AFTER = 3
    (ana_player, ana), (bob_player, bob), match_id = _two_people(
        make_player, client_for, deals=3, turn_seconds=60
    )
    for turn in (1, 2):
        view = _clock_or_move(match_id, 0, bob)
        assert view["resigned"] == [], f"resigned after {turn} clock turns"
        assert Seat.objects.get(match_id=match_id, seat=0).clock_turns == turn
    view = _clock_or_move(match_id, 0, bob)
    assert view["status"] == "active" and view["resigned"] == [0]
    seat = Seat.objects.get(match_id=match_id, seat=0)
    assert seat.resigned_at is not None and seat.clock_turns == 3 and seat.absent
    seats = _ok(bob.get(f"/api/v1/matches/{match_id}"))["seats"]
    assert [s["absent"] for s in seats] == [True, False]
    # As a resignation: the reference bot plays the seat from now on, Ana is placed last.
    assert Match.objects.get(id=match_id).seat_bots == ["greedy", ""]
    assert Match.objects.get(id=match_id).turn_deadline is None or view["turn"] == 1
    _refused(post_move(ana, match_id, {"action": "draw"}, view["version"]), "resigned", 409)


def test_a_move_of_their_own_starts_the_count_again(
    make_player, client_for, commits_in_place, settings
):
    settings.TURN_CLOCK_RESIGN_AFTER = 3
    (ana_player, ana), (bob_player, bob), match_id = _two_people(
        make_player, client_for, deals=3, turn_seconds=60
    )
    _clock_or_move(match_id, 0, bob)
    _clock_or_move(match_id, 0, bob)
    assert Seat.objects.get(match_id=match_id, seat=0).clock_turns == 2
    # Ana comes back and makes one move herself.
    for _ in range(200):
        view = state(ana, match_id)
        if view["turn"] == 0:
            _ok(post_move(ana, match_id, view["legal_moves"][0], view["version"]))
            break
        view = state(bob, match_id)
        _ok(post_move(bob, match_id, view["legal_moves"][0], view["version"]))
    for turn in (1, 2):
        view = _clock_or_move(match_id, 0, bob)
        assert view["resigned"] == []
        assert Seat.objects.get(match_id=match_id, seat=0).clock_turns == turn


def test_with_no_limit_the_clock_plays_on_for_good(
    make_player, client_for, commits_in_place, settings
):
    settings.TURN_CLOCK_RESIGN_AFTER = 0
    (ana_player, ana), (bob_player, bob), match_id = _two_people(
        make_player, client_for, deals=3, turn_seconds=60
    )
    for _ in range(5):
        view = _clock_or_move(match_id, 0, bob)
        if view["status"] != "active":
            break
        assert view["resigned"] == []
