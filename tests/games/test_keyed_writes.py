"""`Idempotency-Key` on the writes other than a move (pisyedili_api.keyed, docs/api.md
"Versions, exactly-once moves and idempotency"): a write sent again with its key answers as the
first time and is not made twice; the key is bound to its route and body; a refused write
records nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import KeyedWrite, Match, QueueEntry
from games.services import idempotency_records_expire
from tests.helpers import create_match
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def keyed(client, path, key, body=None):
    return client.post(path, body or {}, format="json", HTTP_IDEMPOTENCY_KEY=key)


def test_a_match_created_twice_with_one_key_is_one_match(make_player, client_for):
    ana, token = make_player()
    client = client_for(token)
    body = {"seats": 3, "bots": ["greedy"], "deals": 2}
    first = keyed(client, "/api/v1/matches", "create-1", body)
    again = keyed(client, "/api/v1/matches", "create-1", body)
    assert first.status_code == again.status_code == 201, first.content
    assert again.content == first.content
    assert "no-store" in again["Cache-Control"]
    assert Match.objects.filter(created_by_id=ana.id).count() == 1
    # Another key is another match; no key, as ever, another too.
    assert keyed(client, "/api/v1/matches", "create-2", body).status_code == 201
    assert client.post("/api/v1/matches", body, format="json").status_code == 201
    assert Match.objects.filter(created_by_id=ana.id).count() == 3


def test_a_leave_sent_again_answers_as_the_first_not_as_not_seated(make_player, client_for):
    (_, ta), (bob, tb) = make_player(), make_player()
    match = create_match(client_for(ta), seats=3)
    joined = client_for(tb).post(f"/api/v1/matches/{match['id']}/join")
    assert joined.status_code == 200
    path = f"/api/v1/matches/{match['id']}/leave"
    first = keyed(client_for(tb), path, "leave-1")
    assert first.status_code == 200 and first.json()["version"] == joined.json()["version"] + 1
    again = keyed(client_for(tb), path, "leave-1")
    assert again.status_code == 200 and again.content == first.content
    assert Match.objects.get(id=match["id"]).version == first.json()["version"]
    # Without the key the retry is judged anew: the leave was made, the caller is not seated.
    plain = client_for(tb).post(path)
    assert plain.status_code == 403 and plain.json()["code"] == "not_seated"
    assert str(bob.id) not in [str(p) for p in Match.objects.get(id=match["id"]).seat_players]


def test_a_cancel_sent_again_answers_as_the_first(make_player, client_for):
    _, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=2)
    path = f"/api/v1/matches/{match['id']}/cancel"
    first = keyed(client, path, "cancel-1")
    again = keyed(client, path, "cancel-1")
    assert first.status_code == again.status_code == 200
    assert again.content == first.content and first.json()["status"] == "cancelled"
    assert client.post(path).json()["code"] == "match_not_waiting"
    # The match's id in upper case is the same route (ids are read in any case): the same answer.
    upper = keyed(client, f"/api/v1/matches/{match['id'].upper()}/cancel", "cancel-1")
    assert upper.status_code == 200 and upper.content == first.content


def test_one_key_on_another_route_or_body_is_a_mismatch_that_changes_nothing(
    make_player, client_for
):
    ana, token = make_player()
    client = client_for(token)
    match = keyed(client, "/api/v1/matches", "k", {"seats": 2}).json()
    other_body = keyed(client, "/api/v1/matches", "k", {"seats": 3})
    assert other_body.status_code == 422 and other_body.json()["code"] == "idempotency_mismatch"
    other_route = keyed(client, f"/api/v1/matches/{match['id']}/cancel", "k")
    assert other_route.status_code == 422 and other_route.json()["code"] == "idempotency_mismatch"
    assert Match.objects.filter(created_by_id=ana.id).count() == 1
    assert Match.objects.get(id=match["id"]).status == Match.Status.WAITING
    # A null field is as none: the same body.
    same = keyed(client, "/api/v1/matches", "k", {"seats": 2, "preset": None})
    assert same.status_code == 201 and same.json()["id"] == match["id"]


def test_keys_of_two_players_never_meet(make_player, client_for):
    (ana, ta), (bob, tb) = make_player(), make_player()
    for token in (ta, tb):
        assert keyed(client_for(token), "/api/v1/matches", "same", {"seats": 2}).status_code == 201
    assert Match.objects.filter(created_by_id__in=[ana.id, bob.id]).count() == 2


def test_a_refused_write_records_nothing_and_is_judged_again(make_player, client_for):
    (_, ta), (_, tb) = make_player(), make_player()
    match = create_match(client_for(ta), seats=2)
    path = f"/api/v1/matches/{match['id']}/leave"
    refused = keyed(client_for(tb), path, "try")
    assert refused.status_code == 403 and refused.json()["code"] == "not_seated"
    assert not KeyedWrite.objects.exists()
    joined = keyed(client_for(tb), f"/api/v1/matches/{match['id']}/join", "join")
    assert joined.status_code == 200 and joined.json()["status"] == "active"
    # The refused key is free: now it is another request (still refused: the match started).
    again = keyed(client_for(tb), path, "try")
    assert again.status_code == 409 and again.json()["code"] == "match_not_waiting"


@pytest.mark.parametrize("key", ["", "x" * 256, "tab\there"])
def test_a_key_of_another_shape_is_400_and_changes_nothing(make_player, client_for, key):
    ana, token = make_player()
    response = keyed(client_for(token), "/api/v1/matches", key, {"seats": 2})
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert "Idempotency-Key" in response.json()["detail"]
    assert not Match.objects.filter(created_by_id=ana.id).exists()


def test_the_queue_and_a_tournament_take_keys_too(make_player, client_for):
    ana, token = make_player()
    client = client_for(token)
    body = {"seats": 2, "bots_allowed": False, "wait_seconds": 60}
    joined = keyed(client, "/api/v1/queue", "q-1", body)
    assert joined.status_code in (200, 201), joined.content
    left = keyed(client, "/api/v1/queue/leave", "q-2")
    assert left.status_code == 200, left.content
    assert keyed(client, "/api/v1/queue/leave", "q-2").content == left.content
    assert QueueEntry.objects.filter(player_id=ana.id).count() == 1
    tournament = {
        "name": "Keyed cup",
        "bots": ["random"] * 3,
        "format": "round_robin",
        "table_size": 2,
        "deals": 1,
    }
    made = keyed(client, "/api/v1/tournaments", "t-1", tournament)
    assert made.status_code == 201, made.content
    assert keyed(client, "/api/v1/tournaments", "t-1", tournament).content == made.content
    assert Tournament.objects.filter(name="Keyed cup").count() == 1


def test_the_sweep_forgets_keyed_writes_past_their_window(make_player, client_for, settings):
    ana, token = make_player()
    client = client_for(token)
    first = keyed(client, "/api/v1/matches", "old", {"seats": 2})
    assert first.status_code == 201
    later = timezone.now() + timedelta(seconds=settings.IDEMPOTENCY_TTL_SECONDS + 1)
    assert idempotency_records_expire(now=later) == 1
    assert not KeyedWrite.objects.exists()
    # The same key is a new request again.
    again = keyed(client, "/api/v1/matches", "old", {"seats": 2})
    assert again.status_code == 201 and again.json()["id"] != first.json()["id"]
