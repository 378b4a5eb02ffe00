"""`GET /leaderboard`: metrics, periods, shared ranks, around=me, paging, bad queries."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from games.models import ScoreEntry
from players.models import Player
from players.selectors import period_start

pytestmark = pytest.mark.django_db


@pytest.fixture
def board(make_player):
    """Five players with fixed counters (all-time board) and ratings."""
    rows = [
        ("ana", 30.0, 5, 10, 100),  # username, mu, wins, deals, penalty points
        ("bob", 28.0, 5, 10, 50),
        ("cem", 28.0, 2, 10, 50),
        ("dia", 20.0, 1, 10, 300),
        ("eda", 25.0, 0, 0, 0),  # no deal yet: not on the board
    ]
    players = {}
    for name, mu, wins, deals, points in rows:
        player, token = make_player(name)
        Player.objects.filter(id=player.id).update(
            rating_mu=mu,
            rating_sigma=5.0,
            wins=wins,
            matches=deals // 2,
            deals_played=deals,
            deals_won=wins,
            penalty_points=points,
        )
        players[name] = (player, token)
    return players


def names(response):
    return [r["player"]["display_name"].lower() for r in response.json()["results"]]


def test_rating_board_ranks_by_ordinal_with_shared_ranks(api, board):
    r = api.get("/api/v1/leaderboard?metric=rating")
    assert r.status_code == 200
    assert names(r) == ["ana", "bob", "cem", "dia"]
    assert [e["rank"] for e in r.json()["results"]] == [1, 2, 2, 4]
    first = r.json()["results"][0]
    assert first["rating"] == pytest.approx(30.0 - 15.0)
    assert set(first) == {"rank", "player", "rating", "matches", "wins", "deals_won", "avg_penalty"}


def test_wins_and_points_boards(api, board):
    wins = api.get("/api/v1/leaderboard?metric=wins")
    assert names(wins) == ["ana", "bob", "cem", "dia"] and [
        e["rank"] for e in wins.json()["results"]
    ] == [1, 1, 3, 4]
    points = api.get("/api/v1/leaderboard?metric=points")  # mean penalty per deal, lower first
    assert names(points) == ["bob", "cem", "ana", "dia"]
    assert [e["avg_penalty"] for e in points.json()["results"]] == [5.0, 5.0, 10.0, 30.0]
    assert [e["rank"] for e in points.json()["results"]] == [1, 1, 3, 4]


def test_pages_forward_and_back_with_stable_ranks(api, board):
    first = api.get("/api/v1/leaderboard?limit=2").json()
    assert [e["rank"] for e in first["results"]] == [1, 2] and first["previous"] is None
    second = api.get(first["next"]).json()
    assert [e["rank"] for e in second["results"]] == [2, 4] and second["next"] is None
    back = api.get(second["previous"]).json()
    assert back["results"] == first["results"]


def test_around_me_centres_on_the_caller(board, client_for, api):
    _, token = board["dia"]
    r = client_for(token).get("/api/v1/leaderboard?around=me&limit=2")
    assert r.status_code == 200 and "dia" in names(r)
    assert api.get("/api/v1/leaderboard?around=me").status_code == 401


def test_periods_count_only_recent_deals(api, make_player, board):
    from games.models import Deal, Match

    player, _ = board["ana"]
    match = Match.objects.create(created_by=player, seat_count=2, deals_total=1, rules={})
    deal = Deal.objects.create(
        match=match, number=1, dealer=1, opener=0, seed=b"0" * 32, commitment="x", hands_at_start=[]
    )
    old = ScoreEntry.objects.create(
        deal=deal, match=match, seat=0, player=player, penalty=40, hand_penalty=40, multiplier=1
    )
    ScoreEntry.objects.filter(id=old.id).update(created_at=timezone.now() - timedelta(days=40))
    week = api.get("/api/v1/leaderboard?period=week&metric=points")
    assert names(week) == []
    ScoreEntry.objects.create(
        deal=deal,
        match=match,
        seat=1,
        player=board["bob"][0],
        penalty=12,
        hand_penalty=12,
        multiplier=1,
    )
    week = api.get("/api/v1/leaderboard?period=week&metric=points").json()["results"]
    assert [(e["player"]["display_name"].lower(), e["avg_penalty"]) for e in week] == [
        ("bob", 12.0)
    ]
    month = api.get("/api/v1/leaderboard?period=month").json()["results"]
    assert "ana" not in [e["player"]["display_name"].lower() for e in month]


def test_period_bounds_are_calendar_month_and_iso_week():
    now = datetime(2026, 11, 29, 13, 0, tzinfo=UTC)  # a Sunday
    assert period_start("month", now) == datetime(2026, 11, 1, tzinfo=UTC)
    assert period_start("week", now) == datetime(2026, 11, 23, tzinfo=UTC)
    assert period_start("all", now) is None


@pytest.mark.parametrize(
    "query",
    [
        "metric=luck",
        "period=year",
        "limit=0",
        "limit=101",
        "limit=x",
        "cursor=%%%",
        "cursor=bz0tMQ",
        "around=you",
    ],
)
def test_bad_leaderboard_queries_are_invalid(api, db, query):
    r = api.get(f"/api/v1/leaderboard?{query}")
    assert r.status_code == 400 and r.json()["code"] == "invalid"
