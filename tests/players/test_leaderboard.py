"""Leaderboards (docs/api.md "Leaderboards"): metrics, shared ranks, keyset pages both ways,
around=me, periods, humans_only, partitions by table size and ruleset, bad queries.

Boards are filled by the real settlement service (players.services.player_standings_settle)
with scripted results, so each test states exactly which match put what on which board."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
from django.utils import timezone

from players.boards import ALL_TIME_START, period_bounds, period_start, ruleset_key
from players.models import Board, BoardEntry, Player
from players.selectors import leaderboard_page
from players.serializers import leaderboard_entry
from players.services import bot_player_get_or_create, player_standings_settle

pytestmark = pytest.mark.django_db

HOUSE = {"draw_policy": "until_playable"}


def settle(players, places, *, rules=None, at=None, deals=1, won=None, penalties=None):
    """Settle one finished match of `players` (by seat) with `places` (1 = best)."""
    match_id = uuid.uuid4()
    player_standings_settle(
        match_id=match_id,
        player_ids=[p.id for p in players],
        places=places,
        rules=rules or {},
        finished_at=at or timezone.now(),
        deals_played=deals,
        deals_won=won or [1 if place == 1 else 0 for place in places],
        penalties=penalties or [0 if place == 1 else 10 * place for place in places],
    )
    return match_id


@pytest.fixture
def people(make_player):
    """ana..fay, registered (people); returns {name: (player, token)}."""
    return {name: make_player(name) for name in ("ana", "bob", "cem", "dia", "eda", "fay")}


def names(body):
    return [e["player"]["display_name"].lower() for e in body["results"]]


def ranks(body):
    return [e["rank"] for e in body["results"]]


def get(api, query, status=200):
    response = api.get(f"/api/v1/leaderboard?{query}")
    assert response.status_code == status, response.content
    return response.json()


@pytest.fixture
def played(people):
    """ana beats bob twice, cem beats dia once; points: ana 0, bob 20, cem 0, dia 20 per deal."""
    p = {name: pair[0] for name, pair in people.items()}
    settle([p["ana"], p["bob"]], [1, 2])
    settle([p["ana"], p["bob"]], [1, 2])
    settle([p["cem"], p["dia"]], [1, 2])
    return people


def test_wins_rank_with_ties_shared(api, played):
    body = get(api, "metric=wins")
    assert names(body) == ["ana", "cem", "bob", "dia"] or names(body)[:2] == ["ana", "cem"]
    assert ranks(body) == [1, 2, 3, 3]  # bob and dia: 0 wins, shared third place
    assert set(names(body)[2:]) == {"bob", "dia"}
    first = body["results"][0]
    assert set(first) == {
        "rank",
        "player",
        "rating",
        "matches",
        "wins",
        "deals_won",
        "avg_penalty",
        "skill",
        "skill_deals",
    }
    assert (first["matches"], first["wins"], first["deals_won"]) == (2, 2, 2)


def test_points_is_mean_penalty_per_deal_lowest_first(api, played):
    body = get(api, "metric=points")
    assert ranks(body) == [1, 1, 3, 3]
    assert [e["avg_penalty"] for e in body["results"]] == [0.0, 0.0, 20.0, 20.0]
    assert set(names(body)[:2]) == {"ana", "cem"}


def test_a_player_with_no_scored_deal_is_off_the_points_board(api, played, client_for):
    """A match abandoned in its first deal scores no deal: its players have no mean penalty,
    so they are not on the points board (they were, at 0.0, above everyone) but are on the
    others, with a null `avg_penalty`; their rank is not counted on points."""
    p = {name: pair[0] for name, pair in played.items()}
    settle([p["eda"], p["fay"]], [1, 1], deals=0, won=[0, 0], penalties=[0, 0])
    points = get(api, "metric=points")
    assert set(names(points)) == {"ana", "bob", "cem", "dia"}
    assert ranks(points) == [1, 1, 3, 3]
    wins = {e["player"]["display_name"].lower(): e for e in get(api, "metric=wins")["results"]}
    assert wins["eda"]["avg_penalty"] is None and wins["eda"]["matches"] == 1
    around = client_for(played["eda"][1]).get("/api/v1/leaderboard?metric=points&around=me")
    assert around.status_code == 200 and around.json()["results"] == []
    # A scored deal later puts them on it.
    settle([p["eda"], p["ana"]], [1, 2])
    points = get(api, "metric=points")
    assert "eda" in names(points) and "fay" not in names(points)


def test_rating_is_the_boards_openskill_ordinal(api, played):
    body = get(api, "metric=rating")
    assert names(body)[0] == "ana" and names(body)[-1] == "bob"  # two wins / two losses
    entry = BoardEntry.objects.get(
        pool__board__seats=Board.ALL_SEATS,
        pool__board__ruleset="default",
        pool__period_kind="all",
        player=played["ana"][0],
    )
    assert body["results"][0]["rating"] == pytest.approx(
        entry.rating_mu - 3 * entry.rating_sigma, abs=1e-4
    )
    assert body["results"][0]["rating"] > 0 > body["results"][-1]["rating"]


def test_pages_forward_then_back_return_the_same_rows_and_ranks(api, people):
    # Six players with wins 3, 2, 2, 2, 1, 0: ties across page boundaries (limit 2).
    p = [pair[0] for pair in people.values()]
    for winner, times in ((0, 3), (1, 2), (2, 2), (3, 2), (4, 1)):
        for _ in range(times):
            settle([p[winner], p[5]], [1, 2])
    pages = [get(api, "metric=wins&limit=2")]
    assert pages[0]["previous"] is None
    while pages[-1]["next"]:
        pages.append(api.get(pages[-1]["next"]).json())
    assert [ranks(page) for page in pages] == [[1, 2], [2, 2], [5, 6]]
    assert [e["wins"] for page in pages for e in page["results"]] == [3, 2, 2, 2, 1, 0]
    ids = [e["player"]["id"] for page in pages for e in page["results"]]
    assert len(set(ids)) == 6
    for i in range(len(pages) - 1, 0, -1):
        back = api.get(pages[i]["previous"]).json()
        assert back["results"] == pages[i - 1]["results"]
        assert (back["next"] is None) == (pages[i - 1]["next"] is None)
    assert api.get(pages[1]["previous"]).json()["previous"] is None


def test_around_me_centres_the_page_on_the_caller(people, client_for, api):
    p = [pair[0] for pair in people.values()]
    for winner, times in ((0, 5), (1, 4), (2, 3), (3, 2), (4, 1)):
        for _ in range(times):
            settle([p[winner], p[5]], [1, 2])
    cem_token = people["cem"][1]
    body = client_for(cem_token).get("/api/v1/leaderboard?metric=wins&around=me&limit=3").json()
    assert names(body) == ["bob", "cem", "dia"] and ranks(body) == [2, 3, 4]
    assert body["previous"] and body["next"]
    assert "around" not in body["next"]
    assert names(api.get(body["previous"]).json()) == ["ana"]
    assert names(api.get(body["next"]).json()) == ["eda", "fay"]
    alone = client_for(cem_token).get("/api/v1/leaderboard?metric=wins&around=me&limit=1").json()
    assert names(alone) == ["cem"] and ranks(alone) == [3]
    assert names(api.get(alone["next"]).json())[:1] == ["dia"]
    assert names(api.get(alone["previous"]).json()) == ["bob"]
    # At the bottom the page fills up from above.
    fay_token = people["fay"][1]
    body = client_for(fay_token).get("/api/v1/leaderboard?metric=wins&around=me&limit=3").json()
    assert names(body) == ["dia", "eda", "fay"] and body["next"] is None


def test_a_player_with_no_games_is_absent_and_around_me_is_empty(played, make_player, client_for):
    _, token = make_player("newbie")
    body = client_for(token).get("/api/v1/leaderboard?around=me").json()
    assert body == {"results": [], "next": None, "previous": None}
    assert "newbie" not in names(client_for(token).get("/api/v1/leaderboard").json())


def test_around_me_needs_a_token(api, played):
    body = get(api, "around=me", status=401)
    assert body["code"] == "not_authenticated"


def test_humans_only_leaves_bots_out_and_ranks_among_people(api, people):
    bot = bot_player_get_or_create(strategy="greedy", ordinal=1)
    ana, bob = people["ana"][0], people["bob"][0]
    settle([bot, ana], [1, 2])
    settle([bot, bob], [1, 2])
    settle([ana, bob], [1, 2])
    everyone = get(api, "metric=wins")
    assert everyone["results"][0]["player"] == {
        "id": str(bot.id),
        "display_name": bot.display_name,
        "is_bot": True,
    }
    humans = get(api, "metric=wins&humans_only=true")
    assert names(humans) == ["ana", "bob"] and ranks(humans) == [1, 2]
    assert not any(e["player"]["is_bot"] for e in humans["results"])


def test_house_rules_and_table_sizes_are_separate_boards(api, people):
    ana, bob, cem = (people[n][0] for n in ("ana", "bob", "cem"))
    settle([ana, bob], [1, 2])
    settle([bob, cem, ana], [1, 2, 3], rules=HOUSE)
    house = ruleset_key(HOUSE)
    assert house != "default" and len(house) == 12
    assert ruleset_key({"deals_per_match": 9}) == "default"  # match length does not partition
    default = get(api, "metric=wins")
    assert names(default) == ["ana", "bob"]  # the house-rules match did not move it
    assert [e["matches"] for e in default["results"]] == [1, 1]
    assert names(get(api, f"metric=points&ruleset={house}")) == ["bob", "cem", "ana"]
    assert names(get(api, f"metric=points&ruleset={house}&seats=3")) == ["bob", "cem", "ana"]
    assert get(api, f"metric=wins&ruleset={house}&seats=2")["results"] == []
    assert names(get(api, "metric=wins&seats=2")) == ["ana", "bob"]
    assert get(api, "seats=3")["results"] == []
    boards = api.get("/api/v1/leaderboards").json()
    keys = {(b["seats"], b["ruleset"]): b for b in boards}
    assert set(keys) == {(None, "default"), (2, "default"), (None, house), (3, house)}
    assert keys[(3, house)]["players"] == 3 and keys[(2, "default")]["players"] == 2
    assert keys[(3, house)]["rules"]["draw_policy"] == "until_playable"
    assert "deals_per_match" not in keys[(3, house)]["rules"]
    periods = keys[(None, "default")]["periods"]
    assert periods["all"] == {"start": None, "end": None}
    start = datetime.fromisoformat(periods["week"]["start"].replace("Z", "+00:00"))
    assert start.weekday() == 0 and (start.hour, start.minute) == (0, 0)
    end = datetime.fromisoformat(periods["week"]["end"].replace("Z", "+00:00"))
    assert end - start == timedelta(days=7) and start <= timezone.now() < end
    assert datetime.fromisoformat(periods["month"]["start"].replace("Z", "+00:00")).day == 1


def test_period_boundaries(people):
    """Monday 2 March 2026 is a week start; Sunday 1 March a month start (UTC)."""
    ana, bob, cem, dia = (people[n][0] for n in ("ana", "bob", "cem", "dia"))
    just_before_month = datetime(2026, 2, 28, 23, 59, 59, 999999, tzinfo=UTC)
    month_start = datetime(2026, 3, 1, tzinfo=UTC)
    just_before_week = datetime(2026, 3, 1, 23, 59, 59, 999999, tzinfo=UTC)
    week_start = datetime(2026, 3, 2, tzinfo=UTC)
    settle([ana, dia], [1, 2], at=just_before_month)
    settle([bob, dia], [1, 2], at=month_start)
    settle([cem, dia], [1, 2], at=just_before_week)
    settle([dia, ana], [1, 2], at=week_start)
    now = datetime(2026, 3, 4, 12, tzinfo=UTC)

    def board(period):
        page = leaderboard_page(metric="wins", period=period, now=now)
        entries = [leaderboard_entry(rank, row) for rank, row in page.results]
        return {e["player"]["display_name"].lower(): e["wins"] for e in entries}

    assert board("all") == {"ana": 1, "bob": 1, "cem": 1, "dia": 1}
    assert board("month") == {"bob": 1, "cem": 1, "dia": 1, "ana": 0}
    assert board("week") == {"dia": 1, "ana": 0}
    feb_page = leaderboard_page(metric="wins", period="month", now=just_before_month)
    feb = [leaderboard_entry(rank, row) for rank, row in feb_page.results]
    assert {e["player"]["display_name"].lower(): e["wins"] for e in feb} == {"ana": 1, "dia": 0}
    assert period_start("month", now) == date(2026, 3, 1)
    assert period_start("week", now) == date(2026, 3, 2)
    assert period_start("all", now) == ALL_TIME_START
    assert period_bounds("month", datetime(2026, 12, 31, 23, tzinfo=UTC)) == (
        datetime(2026, 12, 1, tzinfo=UTC),
        datetime(2027, 1, 1, tzinfo=UTC),
    )


def test_settling_a_match_twice_changes_nothing(people):
    ana, bob = people["ana"][0], people["bob"][0]
    match_id = settle([ana, bob], [1, 2])
    before = list(BoardEntry.objects.order_by("id").values())
    rating = Player.objects.get(id=ana.id).rating_mu
    player_standings_settle(
        match_id=match_id,
        player_ids=[ana.id, bob.id],
        places=[1, 2],
        rules={},
        finished_at=timezone.now(),
        deals_played=1,
        deals_won=[1, 0],
        penalties=[0, 20],
    )
    assert list(BoardEntry.objects.order_by("id").values()) == before
    assert Player.objects.get(id=ana.id).rating_mu == rating
    assert Player.objects.get(id=ana.id).matches == 1


@pytest.mark.parametrize(
    "query",
    [
        "metric=luck",
        "period=year",
        "limit=0",
        "limit=201",
        "limit=x",
        "cursor=%%%",
        "cursor=bz0tMQ",
        "cursor=" + "eyJtIjoid2lucyIsInYiOjEsInAiOiJ4IiwiZCI6Im4ifQ==",  # bad player id
        "cursor="
        + "eyJtIjoicmF0aW5nIiwidiI6MSwicCI6MTIzLCJkIjoibiJ9",  # a player id that is not a string
        "around=you",
        "seats=1",
        "seats=x",
        "ruleset=DEFAULT",
        "humans_only=maybe",
    ],
)
def test_bad_leaderboard_queries_are_invalid(api, db, query):
    body = get(api, query, status=400)
    assert body["code"] == "invalid" and body["detail"]


def test_a_bad_ruleset_key_is_told_what_a_key_is(api, db):
    body = get(api, "ruleset=Classic", status=400)
    assert body["detail"]["ruleset"] == [
        "A ruleset is `default` or the 12 lowercase hex digits of a board's key"
        " (GET /leaderboards)."
    ], body
    turkish = api.get("/api/v1/leaderboard?ruleset=Classic", HTTP_ACCEPT_LANGUAGE="tr")
    assert turkish.status_code == 400
    said = turkish.json()["detail"]["ruleset"][0]
    assert said.startswith("Kural takımı `default`"), said


def test_a_cursor_of_another_metric_is_invalid(api, people):
    p = [pair[0] for pair in people.values()]
    settle(p[:2], [1, 2])
    settle(p[2:4], [1, 2])
    wins = get(api, "metric=wins&limit=1")
    cursor = wins["next"].split("cursor=")[1]
    body = get(api, f"metric=points&cursor={cursor}", status=400)
    assert body["code"] == "invalid" and "cursor" in body["detail"]
