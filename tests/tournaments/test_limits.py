"""What one organizer and one tournament may create is bounded (settings): tournaments in
draft or running per organizer (429), entrants and total deals (400); a refused create changes
nothing."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from players.models import Player
from tournaments.models import Tournament
from tournaments.services import tournament_cancel, tournament_create

pytestmark = pytest.mark.django_db


def error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code and body["message"], body
    return body


def bots_body(count: int, **overrides) -> dict:
    return {
        "name": "Bots",
        "bots": ["random"] * count,
        "format": "round_robin",
        "table_size": 2,
        "deals": 1,
        **overrides,
    }


def test_active_tournaments_per_organizer(make_player, client_for, settings):
    settings.MAX_ACTIVE_TOURNAMENTS_PER_PLAYER = 2
    organizer, token = make_player()
    client = client_for(token)
    made = [client.post("/api/v1/tournaments", bots_body(2), format="json") for _ in range(2)]
    assert [r.status_code for r in made] == [201, 201]
    refused = client.post("/api/v1/tournaments", bots_body(2), format="json")
    body = error(refused, 409, "too_many_tournaments")
    assert "Retry-After" not in refused  # not a rate: waiting alone does not lift it
    assert body["detail"] == {"active": 2, "limit": 2}
    assert "MAX_ACTIVE_TOURNAMENTS_PER_PLAYER" in body["message"]
    assert Tournament.objects.count() == 2
    # Another organizer has their own allowance; a cancelled tournament frees a place.
    _, other_token = make_player()
    other = client_for(other_token).post("/api/v1/tournaments", bots_body(2), format="json")
    assert other.status_code == 201
    tournament_cancel(tournament_id=made[0].json()["id"], player=organizer)
    assert client.post("/api/v1/tournaments", bots_body(2), format="json").status_code == 201


@pytest.mark.django_db(transaction=True)
def test_two_creates_at_once_cannot_both_pass_the_limit(make_player, settings):
    settings.MAX_ACTIVE_TOURNAMENTS_PER_PLAYER = 1
    organizer, _ = make_player()
    people = [make_player()[0].id for _ in range(2)]
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def create() -> None:
        barrier.wait()
        try:
            tournament_create(
                organizer=organizer,
                name="Race",
                format="round_robin",
                table_size=2,
                players=people,
            )
            outcomes.append("created")
        except Exception as exc:
            outcomes.append(getattr(exc, "code", repr(exc)))
        finally:
            connection.close()

    threads = [threading.Thread(target=create) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["created"] + ["too_many_tournaments"] * 3
    assert Tournament.objects.filter(organizer=organizer).count() == 1


def test_total_deals_are_capped(make_player, client_for, settings):
    _, token = make_player()
    client = client_for(token)
    bots_before = Player.objects.filter(is_bot=True).count()
    # The case: 64 entrants at tables of two, 52 deals a match = 2,016 × 52 deals; a
    # match's deals are capped first (MAX_DEALS_PER_MATCH), and at that cap the total still is.
    refused = client.post("/api/v1/tournaments", bots_body(64, deals=52), format="json")
    assert "deals" in error(refused, 400, "invalid")["detail"]
    refused = client.post("/api/v1/tournaments", bots_body(64, deals=20), format="json")
    body = error(refused, 400, "invalid")
    assert "40320 deals" in body["detail"]["deals"][0] and "2000" in body["detail"]["deals"][0]
    assert not Tournament.objects.exists()
    assert Player.objects.filter(is_bot=True).count() == bots_before  # no bot rows left behind

    settings.TOURNAMENT_MAX_DEALS = 40
    # Swiss, 8 entrants at tables of 2, 5 rounds: 4 × 5 = 20 matches.
    swiss = bots_body(8, format="swiss", rounds=5, deals=2)
    assert client.post("/api/v1/tournaments", swiss, format="json").status_code == 201
    refused = client.post("/api/v1/tournaments", {**swiss, "deals": 3}, format="json")
    assert "60 deals" in error(refused, 400, "invalid")["detail"]["deals"][0]
    # With filler bots the remainder makes one more table a round: 7 entrants → 4 tables, 40
    # deals in 5 rounds (at the cap), 48 in 6; without them 3 tables and a bye.
    filled = {**swiss, "bots": ["random"] * 7, "fill_bots": "greedy"}
    assert client.post("/api/v1/tournaments", filled, format="json").status_code == 201
    refused = client.post("/api/v1/tournaments", {**filled, "rounds": 6}, format="json")
    assert "48 deals" in error(refused, 400, "invalid")["detail"]["deals"][0]
    unfilled = {**swiss, "bots": ["random"] * 7, "rounds": 6}
    assert client.post("/api/v1/tournaments", unfilled, format="json").status_code == 201
    assert Tournament.objects.count() == 3


def test_entrants_are_capped(make_player, client_for, settings):
    settings.TOURNAMENT_MAX_ENTRANTS = 4
    _, token = make_player()
    client = client_for(token)
    refused = client.post("/api/v1/tournaments", bots_body(5), format="json")
    assert "at most 4 entrants" in error(refused, 400, "invalid")["detail"]["players"][0]
    assert client.post("/api/v1/tournaments", bots_body(4), format="json").status_code == 201
