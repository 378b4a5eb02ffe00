"""`GET /players/{id}/history`: the player's ratings after each settled match, newest first."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from players.models import Player
from players.services import player_standings_settle

pytestmark = pytest.mark.django_db


def settle(players, places, at, rules=None):
    match_id = uuid.uuid4()
    player_standings_settle(
        match_id=match_id,
        player_ids=[p.id for p in players],
        places=places,
        rules=rules or {},
        finished_at=at,
        deals_played=2,
        deals_won=[2 if place == 1 else 0 for place in places],
        penalties=[0 if place == 1 else 30 for place in places],
    )
    return match_id


def test_history_after_two_matches(api, make_player):
    (ana, _), (bob, _), (cem, _) = make_player("ana"), make_player("bob"), make_player("cem")
    now = timezone.now()
    first = settle([ana, bob], [1, 2], now - timedelta(minutes=5))
    after_first = Player.objects.get(id=ana.id)
    second = settle([cem, ana, bob], [1, 2, 3], now, rules={"ace_mode": "skip_next"})
    after_second = Player.objects.get(id=ana.id)

    body = api.get(f"/api/v1/players/{ana.id}/history").json()
    assert [e["match"] for e in body["results"]] == [str(second), str(first)]
    assert [e["place"] for e in body["results"]] == [2, 1]
    assert [e["seats"] for e in body["results"]] == [3, 2]
    newest, oldest = body["results"]
    assert oldest["rating"] == {
        "mu": pytest.approx(after_first.rating_mu),
        "sigma": pytest.approx(after_first.rating_sigma),
        "ordinal": pytest.approx(after_first.rating_ordinal),
    }
    assert newest["rating"]["mu"] == pytest.approx(after_second.rating_mu)
    assert oldest["rating"]["mu"] > 25.0  # ana won her first match
    assert oldest["ruleset"] == "default" and newest["ruleset"] != "default"
    # The first match is ana's first on the default boards: board rating = global rating.
    assert {(b["seats"], b["ruleset"]) for b in oldest["boards"]} == {
        (2, "default"),
        (None, "default"),
    }
    assert all(b["mu"] == pytest.approx(after_first.rating_mu) for b in oldest["boards"])
    # The second (house rules) match is her first on its boards: a fresh rating there.
    assert all(b["mu"] != pytest.approx(after_second.rating_mu) for b in newest["boards"])
    profile = api.get(f"/api/v1/players/{ana.id}").json()
    assert profile["rating"]["mu"] == pytest.approx(newest["rating"]["mu"])
    # What each match moved: from the starting ordinal (0), then from the match before.
    assert oldest["change"] == pytest.approx(after_first.rating_ordinal - 0.0, abs=1e-3)
    assert oldest["change"] > 0
    assert newest["change"] == pytest.approx(
        after_second.rating_ordinal - after_first.rating_ordinal, abs=1e-3
    )


def test_history_pages_both_ways(api, make_player):
    (ana, _), (bob, _) = make_player("ana"), make_player("bob")
    now = timezone.now()
    matches = [settle([ana, bob], [1, 2], now - timedelta(minutes=10 - i)) for i in range(5)]
    page = api.get(f"/api/v1/players/{bob.id}/history?limit=2").json()
    seen = [page]
    while page["next"]:
        page = api.get(page["next"]).json()
        seen.append(page)
    got = [e["match"] for p in seen for e in p["results"]]
    assert got == [str(m) for m in reversed(matches)]
    back = api.get(seen[-1]["previous"]).json()
    assert back["results"] == seen[-2]["results"]
    assert seen[0]["previous"] is None


def test_history_of_a_player_without_matches_is_empty(api, make_player):
    ana, _ = make_player("ana")
    assert api.get(f"/api/v1/players/{ana.id}/history").json() == {
        "results": [],
        "next": None,
        "previous": None,
    }


@pytest.mark.parametrize("query", ["limit=0", "limit=201", "cursor=nope"])
def test_bad_history_queries(api, make_player, query):
    ana, _ = make_player("ana")
    response = api.get(f"/api/v1/players/{ana.id}/history?{query}")
    assert response.status_code == 400 and response.json()["code"] == "invalid"


def test_history_of_an_unknown_player_is_404(api, db):
    response = api.get(f"/api/v1/players/{uuid.uuid4()}/history")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_a_match_settled_after_a_later_one_shows_what_it_moved(api, make_player):
    """A duplicate table settles once its round's other tables are done: a match that finished
    earlier may settle after one that finished later. Each entry's `change` is what its own
    settlement moved, and the ratings the entries show chain in the order they settled."""
    (ana, _), (bob, _), (cem, _) = make_player("ana"), make_player("bob"), make_player("cem")
    now = timezone.now()
    start = Player.objects.get(id=ana.id).rating_ordinal
    later = settle([ana, bob], [2, 1], now)  # finished last, settled first: ana loses
    after_later = Player.objects.get(id=ana.id).rating_ordinal
    earlier = settle([ana, cem], [1, 2], now - timedelta(minutes=1))  # then ana's win settles
    after_earlier = Player.objects.get(id=ana.id).rating_ordinal
    assert after_later < start and after_earlier > after_later

    body = api.get(f"/api/v1/players/{ana.id}/history").json()
    newest, oldest = body["results"]
    assert (newest["match"], oldest["match"]) == (str(later), str(earlier))
    assert newest["change"] == pytest.approx(after_later - start, abs=1e-3)
    assert newest["change"] < 0
    assert oldest["change"] == pytest.approx(after_earlier - after_later, abs=1e-3)
    assert oldest["change"] > 0
    # The rating the profile shows is the one after the last settlement.
    profile = api.get(f"/api/v1/players/{ana.id}").json()
    assert profile["rating"]["ordinal"] == pytest.approx(oldest["rating"]["ordinal"])
