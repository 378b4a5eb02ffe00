"""`POST /matches/{id}/rematch`: the next match of a finished one, once, whoever asks."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games.models import Deal, Match, Seat
from games.services import match_rematch
from pisyedili_api.errors import ApplicationError
from tests.helpers import create_match

pytestmark = pytest.mark.django_db


def _finish(match_id):
    Match.objects.filter(id=match_id).update(status="finished")


def test_a_rematch_seats_the_caller_and_the_bots_and_waits_for_the_others(make_player, client_for):
    (ana_player, ta), (bob_player, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    first = create_match(ana, seats=3, bots=["greedy"], deals=2, turn_seconds=60)
    bob.post(f"/api/v1/matches/{first['id']}/join")  # seat 2: started
    _finish(first["id"])
    Match.objects.filter(id=first["id"]).update(deals_total=3)  # an R-32 extra deal was played
    response = bob.post(f"/api/v1/matches/{first['id']}/rematch")
    assert response.status_code == 201, response.content
    rematch = response.json()
    assert rematch["status"] == "waiting" and rematch["rematch_of"] == first["id"]
    assert rematch["deals_total"] == 2 and rematch["turn_seconds"] == 60
    assert rematch["rules"] == first["rules"]
    seats = [s["player"] and s["player"]["id"] for s in rematch["seats"]]
    bot_id = first["seats"][1]["player"]["id"]
    assert seats == [None, bot_id, str(bob_player.id)]  # bob in his old seat, ana's open
    assert rematch["open_seats"] == 1
    assert ana.get(f"/api/v1/matches/{first['id']}").json()["next_match"] == rematch["id"]
    # Asked again, by anyone seated: the same match.
    again = ana.post(f"/api/v1/matches/{first['id']}/rematch")
    assert again.status_code == 200 and again.json()["id"] == rematch["id"]
    assert Match.objects.filter(rematch_of_id=first["id"]).count() == 1
    # Ana joins it like any match: it starts, the first dealer moved on by one seat.
    started = ana.post(f"/api/v1/matches/{rematch['id']}/join").json()
    assert started["status"] == "active" and started["seats"][0]["player"]["id"] == str(
        ana_player.id
    )
    first_deal = Deal.objects.get(match_id=first["id"], number=1)
    next_deal = Deal.objects.get(match_id=rematch["id"], number=1)
    assert next_deal.opener == (first_deal.opener + 1) % 3
    assert next_deal.dealer == (first_deal.dealer + 1) % 3


def test_the_second_to_ask_is_seated_in_the_rematch(make_player, client_for):
    """Bob asks first; Ana asking next takes her old seat's place in it (the open one) and the
    rematch starts; a third asking, once it has started, gets it as it is."""
    (ana_player, ta), (_, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    first = create_match(ana, seats=2, deals=1)
    bob.post(f"/api/v1/matches/{first['id']}/join")
    _finish(first["id"])
    rematch = bob.post(f"/api/v1/matches/{first['id']}/rematch").json()
    assert rematch["status"] == "waiting" and rematch["open_seats"] == 1
    again = ana.post(f"/api/v1/matches/{first['id']}/rematch")
    assert again.status_code == 200 and again.json()["id"] == rematch["id"]
    assert again.json()["status"] == "active"
    assert str(ana_player.id) in [s["player"]["id"] for s in again.json()["seats"]]
    once_more = ana.post(f"/api/v1/matches/{first['id']}/rematch")
    assert once_more.status_code == 200 and once_more.json()["version"] == again.json()["version"]


def test_a_rematch_against_bots_starts_at_once(make_player, client_for):
    _, token = make_player()
    client = client_for(token)
    first = create_match(client, seats=2, bots=["random"], deals=1)
    _finish(first["id"])
    rematch = client.post(f"/api/v1/matches/{first['id']}/rematch").json()
    assert rematch["status"] == "active" and rematch["open_seats"] == 0
    assert rematch["version"] == 1
    assert Deal.objects.get(match_id=rematch["id"], number=1).opener == 1
    # And its own rematch moves the dealer on again.
    _finish(rematch["id"])
    third = client.post(f"/api/v1/matches/{rematch['id']}/rematch").json()
    assert Deal.objects.get(match_id=third["id"], number=1).opener == 0
    assert third["rematch_of"] == rematch["id"]


def test_only_a_seat_of_a_finished_match_asks(make_player, client_for):
    (_, ta), (_, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    match = create_match(ana, seats=2, bots=["random"])
    refused = ana.post(f"/api/v1/matches/{match['id']}/rematch")
    assert refused.status_code == 409 and refused.json()["code"] == "match_not_finished"
    _finish(match["id"])
    refused = bob.post(f"/api/v1/matches/{match['id']}/rematch")
    assert refused.status_code == 403 and refused.json()["code"] == "not_seated"
    missing = ana.post("/api/v1/matches/00000000-0000-0000-0000-000000000000/rematch")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert not Match.objects.filter(rematch_of_id=match["id"]).exists()


def test_a_rematch_counts_towards_the_limits(make_player, client_for, settings):
    settings.MAX_BOT_MATCHES_PER_PLAYER = 1
    _, token = make_player()
    client = client_for(token)
    first = create_match(client, seats=2, bots=["random"])
    _finish(first["id"])
    create_match(client, seats=2, bots=["random"])
    refused = client.post(f"/api/v1/matches/{first['id']}/rematch")
    assert refused.status_code == 409 and refused.json()["code"] == "too_many_active_matches"
    assert Match.objects.get(id=first["id"]).next_match_id is None
    assert not Match.objects.filter(rematch_of_id=first["id"]).exists()


def test_a_rematch_written_behind_the_lock_is_the_one_answered(make_player):
    """The named unique constraint on rematch_of: a rematch row that another writer inserted
    without the row lock trips it, and the service answers with that match, the caller seated
    in it as the second to ask is."""
    ana, _ = make_player()
    from games.services import match_create

    first = match_create(player=ana, seats=2)
    Match.objects.filter(id=first.id).update(status="finished")
    behind = Match.objects.create(
        created_by=ana,
        seat_count=2,
        deals_total=1,
        rules=first.rules,
        seat_players=[None, None],
        seat_bots=["", ""],
        totals=[0, 0],
        rematch_of=first,
    )
    match, created = match_rematch(match_id=first.id, player=ana)
    assert (match.id, created) == (behind.id, False)
    assert Match.objects.filter(rematch_of=first).count() == 1
    # The insert rolled back; the caller took a seat of the match that stands.
    assert match.seat_players.count(str(ana.id)) == 1
    seats = Seat.objects.filter(match__rematch_of=first)
    assert [(s.match_id, s.player_id) for s in seats] == [(behind.id, ana.id)]


@pytest.mark.django_db(transaction=True)
def test_concurrent_rematches_make_one_match(make_player):
    from games.services import match_create, match_join

    (ana, _), (bob, _) = make_player(), make_player()
    first = match_create(player=ana, seats=2)
    match_join(match_id=first.id, player=bob)
    Match.objects.filter(id=first.id).update(status="finished")
    start, answers = threading.Barrier(4), []

    def ask(player):
        try:
            start.wait()
            match, created = match_rematch(match_id=first.id, player=player)
            answers.append((str(match.id), created))
        except ApplicationError as exc:
            answers.append((exc.code, None))
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(p,)) for p in (ana, bob, ana, bob)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ids = {match_id for match_id, _ in answers}
    assert len(ids) == 1 and sorted(c for _, c in answers) == [False, False, False, True]
    (next_id,) = ids
    assert str(Match.objects.get(id=first.id).next_match_id) == next_id
    assert Match.objects.filter(rematch_of_id=first.id).count() == 1
