"""Migration 0011 on a database of before it: a board entry with no scored deal (a match
abandoned in its first deal) loses the 0.0 mean penalty that put it first on the points board;
one with scored deals keeps its mean."""

from __future__ import annotations

import pytest

BEFORE = [("players", "0010_apitoken_device")]
AFTER = [("players", "0011_board_entry_avg_penalty_null")]


@pytest.mark.django_db(transaction=True)
def test_an_entry_with_no_scored_deal_has_no_mean_penalty(migrations):
    old = migrations.to(BEFORE)
    Player, Board = old.get_model("players", "Player"), old.get_model("players", "Board")
    BoardPeriod, BoardEntry = (old.get_model("players", m) for m in ("BoardPeriod", "BoardEntry"))
    board = Board.objects.create(seats=0, ruleset="default", rules={})
    pool = BoardPeriod.objects.create(board=board, period_kind="all", period_start="1970-01-01")
    quit_, played = (
        Player.objects.create(username=name, display_name=name) for name in ("quit", "played")
    )
    common = {"pool": pool, "is_human": True, "matches": 1}
    BoardEntry.objects.create(player=quit_, deals_played=0, avg_penalty=0.0, **common)
    BoardEntry.objects.create(
        player=played, deals_played=2, penalty_points=30, avg_penalty=15.0, **common
    )

    new = migrations.to(AFTER)
    means = dict(
        new.get_model("players", "BoardEntry").objects.values_list(
            "player__username", "avg_penalty"
        )
    )
    assert means == {"quit": None, "played": 15.0}
