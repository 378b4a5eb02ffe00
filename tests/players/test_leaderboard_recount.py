"""Settlement's incremental board rows equal a full recount from the games' rows.

Real matches are played over HTTP (a person and bots; 2, 3 and 4 seats; default and house rules)
so settlement runs exactly as in production. The recount below reads ScoreEntry, Seat and Match
rows only and rebuilds every board row: counters by summing, ratings by replaying openskill in
the order the matches finished, one pool per (board, period)."""

from __future__ import annotations

from collections import defaultdict

import pytest
from openskill.models import PlackettLuce

from games.models import Match, ScoreEntry, Seat
from players.boards import period_start, ruleset_key
from players.models import BoardEntry, Player, RatingHistory
from tests.helpers import create_match, post_move, state

# Deals score and matches settle on commit: in place, inside the test's transaction
# (conftest.commits_in_place).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("commits_in_place")]

GAMES = [  # seats, bots, deals, rules
    (2, ["random"], 1, {}),
    (3, ["random", "greedy"], 2, {}),
    (2, ["greedy"], 1, {}),
    (4, ["random", "random", "greedy"], 1, {}),
    (3, ["greedy", "random"], 1, {"draw_policy": "until_playable"}),
    (2, ["random"], 2, {}),
]


def recount() -> dict[tuple, dict]:
    """(seats or 0, ruleset, period kind, period start, player id) -> the row's values."""
    model = PlackettLuce()
    rows: dict[tuple, dict] = {}
    ratings: dict[tuple, tuple[float, float]] = defaultdict(lambda: (25.0, 25.0 / 3.0))
    bots = set(Player.objects.filter(is_bot=True).values_list("id", flat=True))
    for match in Match.objects.filter(status="finished").order_by("finished_at", "id"):
        seats = list(Seat.objects.filter(match=match).order_by("seat"))
        scores = list(ScoreEntry.objects.filter(match=match))
        places = [s.place for s in seats]
        key = ruleset_key(match.rules)
        for board_seats in (match.seat_count, 0):
            for kind in ("all", "month", "week"):
                pool = (board_seats, key, kind, period_start(kind, match.finished_at))
                teams = [[model.rating(*ratings[(*pool, s.player_id)])] for s in seats]
                rated = model.rate(teams, ranks=places)
                for s, team in zip(seats, rated, strict=True):
                    row_key = (*pool, s.player_id)
                    ratings[row_key] = (team[0].mu, team[0].sigma)
                    mine = [e for e in scores if e.seat == s.seat]
                    row = rows.setdefault(
                        row_key,
                        dict(matches=0, wins=0, deals_played=0, deals_won=0, penalty_points=0),
                    )
                    row["matches"] += 1
                    row["wins"] += s.place == 1
                    row["deals_played"] += len(mine)
                    row["deals_won"] += sum(e.won for e in mine)
                    row["penalty_points"] += sum(e.penalty for e in mine)
                    row["avg_penalty"] = row["penalty_points"] / row["deals_played"]
                    row["is_human"] = s.player_id not in bots
                    row["rating_mu"], row["rating_sigma"] = ratings[row_key]
    return rows


def play_against_bots(client, match_id: str) -> None:
    """Seat 0 plays its first legal move whenever it is on turn until the match is over."""
    for _ in range(3000):
        view = state(client, match_id)
        if view["status"] != "active":
            return
        if view["turn"] == view["you"] and view["legal_moves"]:
            response = post_move(client, match_id, view["legal_moves"][0], view["version"])
            assert response.status_code in (200, 409), response.content
    raise AssertionError("the match did not finish")


def test_incremental_boards_equal_a_full_recount(make_player, client_for):
    _, token = make_player("ana")
    client = client_for(token)
    for seats, bots, deals, rules in GAMES:
        match = create_match(client, seats=seats, bots=bots, deals=deals, rules=rules)
        play_against_bots(client, match["id"])
    assert Match.objects.filter(status="finished").count() == len(GAMES)

    expected = recount()
    stored = {
        (
            e.pool.board.seats,
            e.pool.board.ruleset,
            e.pool.period_kind,
            e.pool.period_start,
            e.player_id,
        ): e
        for e in BoardEntry.objects.select_related("pool__board")
    }
    assert set(stored) == set(expected)
    assert {k[1] for k in stored} == {"default", ruleset_key(GAMES[4][3])}
    for key, want in expected.items():
        got = stored[key]
        for field in ("matches", "wins", "deals_played", "deals_won", "penalty_points", "is_human"):
            assert getattr(got, field) == want[field], (key, field)
        for field in ("avg_penalty", "rating_mu", "rating_sigma"):
            assert getattr(got, field) == pytest.approx(want[field]), (key, field)
        assert got.rating_ordinal == pytest.approx(want["rating_mu"] - 3 * want["rating_sigma"])
    # One history row per seat of every match; the person's last one is her global rating.
    assert RatingHistory.objects.count() == sum(seats for seats, *_ in GAMES)
    ana = Player.objects.get(username="ana")
    last = RatingHistory.objects.filter(player=ana).order_by("-finished_at").first()
    assert (last.rating_mu, last.rating_sigma) == pytest.approx((ana.rating_mu, ana.rating_sigma))
    assert ana.matches == len(GAMES)
