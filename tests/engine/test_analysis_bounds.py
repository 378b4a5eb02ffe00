"""The analysis's cost is bounded whatever the deal's length (games/engine/bots/analysis.py,
"Bounded cost"): a long deal gets fewer samples per decision (`scaled_k`), the K used is
recorded and gives the same numbers as asking for it, and a budget of simulated moves stops an
estimate that would go past it."""

from __future__ import annotations

import random

import pytest

from games.engine import DRAW_MOVE, PASS_MOVE, Move, Rules, State, apply_legal, new_deal, observe
from games.engine.analysis import deal_move_analysis, deal_skill, expected_deal_scores
from games.engine.bots.analysis import Budget, BudgetExceeded, scaled_k

RESHUFFLE = Rules.from_json(
    {**Rules().to_json(), "stock_exhausted": "reshuffle", "max_actions": 100000}
)


def stalled_deal(moves: int, seed: int = 1) -> tuple[State, list[Move]]:
    """A deal two seats drag out as the attack did: each draws whenever it may (passing after)
    and plays a card only to keep its hand to 8 and the pile fed for the reshuffles, until
    `moves` moves are played; then both play what they can, which ends the deal."""
    start = new_deal(RESHUFFLE, 2, 0, random.Random(seed).randbytes(32))
    state, log = start, []
    while state.result is None:
        assert state.turn is not None
        observation = observe(state, state.turn)
        legal = observation.legal_moves
        plays = [m for m in legal if m.action == "play"]
        if len(log) >= moves or (plays and len(observation.hand) > 8):
            move = plays[0] if plays else legal[0]
        elif DRAW_MOVE in legal:
            move = DRAW_MOVE
        elif PASS_MOVE in legal:
            move = PASS_MOVE
        else:
            move = legal[0]
        state = apply_legal(state, move)
        log.append(move)
    return start, log


def test_scaled_k() -> None:
    assert scaled_k(32, None, 10_000) == 32
    assert scaled_k(32, 1000, 10) == 32
    assert scaled_k(32, 1000, 100) == 10
    assert scaled_k(32, 1000, 100_000) == 1
    assert scaled_k(32, 1000, 0) == 32


def test_a_long_deals_skill_takes_fewer_pairs_and_the_same_numbers_as_asking_for_them() -> None:
    start, log = stalled_deal(400)
    assert len(log) >= 400
    full = deal_skill(start, log, k=8, seed="s", prior_k=20)
    decisions = len(full.effects)
    assert decisions > 100  # every draw that greedy would not have made is a decision
    bounded = deal_skill(start, log, k=8, seed="s", prior_k=20, max_pairs=2 * decisions)
    assert bounded.k == 2
    assert bounded == deal_skill(start, log, k=2, seed="s", prior_k=20)
    # A short deal keeps its K.
    short_start, short_log = stalled_deal(0)
    assert deal_skill(short_start, short_log, k=8, prior_k=20, max_pairs=10_000).k == 8


def test_the_cost_stays_near_max_pairs_however_long_the_deal() -> None:
    """The play-outs of a deal's skill under max_pairs: about as many moves for a deal four
    times as long (each costs about the same: a greedy play-out from some position), while
    the full K costs the longer deal several times more. (With more decisions than max_pairs,
    one pair each is the floor, and the budget the bound.)"""
    spent = []
    for length in (200, 800):
        start, log = stalled_deal(length)
        budget = Budget(10**9)
        deal_skill(start, log, k=32, prior_k=20, max_pairs=1200, budget=budget)
        spent.append(budget.spent)
    unbounded = Budget(10**9)
    start, log = stalled_deal(800)
    deal_skill(start, log, k=32, prior_k=20, budget=unbounded)
    assert spent[1] < 2 * spent[0]
    assert unbounded.spent > 4 * spent[1]


def test_a_long_deals_move_analysis_takes_fewer_samples() -> None:
    start, log = stalled_deal(200)
    found = deal_move_analysis(start, log, seats=[0], k=16, seed="m", max_playouts=400)
    assert found and {a.k for _, a in found} == {max(1, min(16, 400 // _units(start, log)))}
    again = deal_move_analysis(start, log, seats=[0], k=found[0][1].k, seed="m")
    assert found == again


def _units(start: State, log: list[Move]) -> int:
    state, units = start, 0
    for move in log:
        legal = observe(state, state.turn).legal_moves  # type: ignore[arg-type]
        if state.turn == 0 and len(legal) > 1:
            units += len(legal)
        state = apply_legal(state, move)
    return units


def test_a_budget_stops_an_estimate_that_would_go_past_it() -> None:
    start, log = stalled_deal(300)
    with pytest.raises(BudgetExceeded, match="more than 5000 simulated moves"):
        deal_skill(start, log, k=4, prior_k=20, budget=Budget(5000))
    with pytest.raises(BudgetExceeded):
        deal_move_analysis(start, log, k=4, budget=Budget(5000))
    with pytest.raises(BudgetExceeded):
        expected_deal_scores(start, k=256, budget=Budget(5000))
    # Within it, the same numbers as without one.
    budget = Budget(10**9)
    assert expected_deal_scores(start, k=16, seed=3, budget=budget) == expected_deal_scores(
        start, k=16, seed=3
    )
    assert budget.spent > 0
