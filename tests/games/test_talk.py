"""`POST /matches/{id}/talk`: a seat says a preset phrase (no free text), throttled per user;
what it refuses changes nothing (nothing is stored either way). The event on the match stream:
tests/live/test_talk_stream.py."""

from __future__ import annotations

import pytest
from rest_framework.throttling import SimpleRateThrottle

from games.models import Match
from tests.helpers import create_match

pytestmark = pytest.mark.django_db


def _talk(client, match_id, body):
    return client.post(f"/api/v1/matches/{match_id}/talk", body, format="json")


def _refused(response, code, status):
    assert response.status_code == status, response.content
    assert response.json()["code"] == code and response.json()["message"]
    return response.json()


@pytest.fixture
def table(make_player, client_for):
    (_, ta), (_, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    match = create_match(ana, seats=2)
    assert bob.post(f"/api/v1/matches/{match['id']}/join").status_code == 200
    return ana, bob, match["id"]


@pytest.mark.parametrize("phrase", ["good_game", "well_played", "oops", "your_turn"])
def test_a_seat_says_a_preset_phrase(table, phrase):
    ana, bob, match_id = table
    version = Match.objects.get(id=match_id).version
    response = _talk(bob, match_id, {"phrase": phrase})
    assert response.status_code == 200, response.content
    said = response.json()
    assert set(said) == {"match", "seat", "phrase", "at"}
    assert said["match"] == match_id and said["seat"] == 1 and said["phrase"] == phrase
    assert said["at"].endswith("Z")
    assert Match.objects.get(id=match_id).version == version  # nothing of the match changes


def test_no_free_text_and_no_other_field(table):
    ana, _, match_id = table
    body = _refused(_talk(ana, match_id, {"phrase": "you cheat"}), "invalid", 400)
    assert "phrase" in body["detail"]
    body = _refused(_talk(ana, match_id, {}), "invalid", 400)
    assert "phrase" in body["detail"]
    body = _refused(_talk(ana, match_id, {"phrase": "oops", "text": "hi"}), "invalid", 400)
    assert body["detail"] == {"text": ["Unknown field."]}
    _refused(_talk(ana, match_id, {"phrase": ["oops"]}), "invalid", 400)


def test_only_seats_talk_at_a_match_under_way(table, make_player, client_for, api):
    ana, _, match_id = table
    _, token = make_player()
    other = client_for(token)
    _refused(_talk(other, match_id, {"phrase": "oops"}), "not_seated", 403)
    _refused(api.post(f"/api/v1/matches/{match_id}/talk", {"phrase": "oops"}, format="json"),
             "not_authenticated", 401)  # fmt: skip
    _refused(_talk(ana, "00000000-0000-4000-8000-000000000000", {"phrase": "oops"}),
             "not_found", 404)  # fmt: skip
    waiting = create_match(other, seats=2)
    _refused(_talk(other, waiting["id"], {"phrase": "oops"}), "match_not_active", 409)
    Match.objects.filter(id=waiting["id"]).update(status="cancelled")
    _refused(_talk(other, waiting["id"], {"phrase": "oops"}), "match_not_active", 409)
    assert _talk(ana, match_id, {"phrase": "good_game"}).status_code == 200
    # After the last card (or everyone resigned) the match's stream has closed: nobody hears.
    for status in ("finished", "abandoned"):
        Match.objects.filter(id=match_id).update(status=status)
        _refused(_talk(ana, match_id, {"phrase": "good_game"}), "match_not_active", 409)


def test_talk_is_throttled_per_user(table, monkeypatch):
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "match_talk": "2/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    ana, bob, match_id = table
    for _ in range(2):
        assert _talk(ana, match_id, {"phrase": "oops"}).status_code == 200
    third = _refused(_talk(ana, match_id, {"phrase": "oops"}), "throttled", 429)
    assert third and int(_talk(ana, match_id, {"phrase": "oops"})["Retry-After"]) > 0
    assert _talk(bob, match_id, {"phrase": "oops"}).status_code == 200  # counts of his own
