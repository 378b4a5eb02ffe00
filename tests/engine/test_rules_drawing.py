"""R-17, R-18 (draw_policy) and R-29 (stock_exhausted, with max_actions for reshuffle)."""

from __future__ import annotations

import pytest
from positions import hand, play, stock

from games.engine import (
    DRAW_MOVE,
    PASS_MOVE,
    IllegalMove,
    Rules,
    State,
    apply,
    deal_from_codes,
    legal_moves,
)
from games.engine.fast import FastDeal, move_to_action

# R-17 free -------------------------------------------------------------------------------------


def test_r17_free_draw_while_holding_a_legal_card() -> None:
    state = deal_from_codes(["3H 9C", "4D", "5S"], top="5H", stock="KC QD 2H 8S")
    assert legal_moves(state) == (play("3H"), DRAW_MOVE)
    state = apply(state, DRAW_MOVE)
    assert hand(state, 0) == ["9C", "KC", "3H"] and stock(state) == ["QD", "2H", "8S"]
    assert state.turn == 0 and state.draws_this_turn == 1
    # After a draw: play any legal card, draw again, or pass.
    assert legal_moves(state) == (play("3H"), DRAW_MOVE, PASS_MOVE)
    state = apply(state, DRAW_MOVE)
    state = apply(state, DRAW_MOVE)  # 2♥, the drawn card is playable
    assert state.draws_this_turn == 3
    assert legal_moves(state) == (play("2H"), play("3H"), DRAW_MOVE, PASS_MOVE)
    played_drawn = apply(state, play("2H"))
    assert played_drawn.turn == 1 and played_drawn.draws_this_turn == 0
    played_other = apply(state, play("3H"))
    assert played_other.turn == 1 and "2H" in hand(played_other, 0)


def test_r17_pass_only_after_a_draw_this_turn() -> None:
    state = deal_from_codes(["3C 9C", "4D", "5S"], top="5H", stock="KC QD 2H")
    with pytest.raises(IllegalMove):
        apply(state, PASS_MOVE)
    state = apply(state, DRAW_MOVE)
    state = apply(state, PASS_MOVE)
    assert state.turn == 1 and state.draws_this_turn == 0
    with pytest.raises(IllegalMove):
        apply(state, PASS_MOVE)  # the next player has not drawn yet


# R-18 one_then_pass / until_playable -----------------------------------------------------------


def test_r18_one_then_pass_at_most_one_draw() -> None:
    rules = Rules(draw_policy="one_then_pass")
    state = deal_from_codes(["3H 9C", "4D", "5S"], top="5H", stock="KC 2H 8S", rules=rules)
    assert legal_moves(state) == (play("3H"), DRAW_MOVE)  # drawing with a legal card is allowed
    state = apply(state, DRAW_MOVE)
    assert legal_moves(state) == (play("3H"), PASS_MOVE)
    with pytest.raises(IllegalMove):
        apply(state, DRAW_MOVE)
    state = apply(state, PASS_MOVE)
    assert state.turn == 1
    assert DRAW_MOVE in legal_moves(state)  # a new turn, a new draw


def test_r18_until_playable_no_draw_while_holding_a_legal_card() -> None:
    rules = Rules(draw_policy="until_playable")
    state = deal_from_codes(["3H 9C", "4D", "5S"], top="5H", stock="KC 2H 8S", rules=rules)
    assert legal_moves(state) == (play("3H"),)
    with pytest.raises(IllegalMove):
        apply(state, DRAW_MOVE)


def test_r18_until_playable_keeps_drawing_until_one_arrives_then_must_play() -> None:
    rules = Rules(draw_policy="until_playable")
    state = deal_from_codes(["3C 9C", "4D", "5S"], top="5H", stock="KC QD 2H 8S 4S", rules=rules)
    assert legal_moves(state) == (DRAW_MOVE,)
    state = apply(state, DRAW_MOVE)  # K♣
    assert legal_moves(state) == (DRAW_MOVE,)  # no pass: the stock has not run out
    state = apply(state, DRAW_MOVE)  # Q♦
    state = apply(state, DRAW_MOVE)  # 2♥
    assert legal_moves(state) == (play("2H"),)  # neither draw nor pass once it arrives
    assert apply(state, play("2H")).turn == 1


def test_r18_until_playable_pass_when_the_stock_ran_out() -> None:
    rules = Rules(draw_policy="until_playable", stock_exhausted="end_when_draw_needed")
    state = deal_from_codes(["3C 9C", "4D", "5S"], top="5H", stock="KC", rules=rules)
    state = apply(state, DRAW_MOVE)  # the last card, not playable; the deal goes on
    assert state.phase == "play" and state.stock == ()
    assert legal_moves(state) == (DRAW_MOVE, PASS_MOVE)
    state = apply(state, PASS_MOVE)
    assert state.turn == 1 and state.phase == "play"


def test_r18_one_then_pass_with_pending_sevens_still_takes_the_penalty() -> None:
    rules = Rules(draw_policy="one_then_pass")
    state = deal_from_codes(
        ["3C 9C", "4D", "5S"], top="7H", pending_sevens=1, stock="KC QD 2H 8S", rules=rules
    )
    state = apply(state, DRAW_MOVE)
    assert len(state.hands[0]) == 5 and state.turn == 1


# R-29 end_immediately --------------------------------------------------------------------------


def test_r29_end_immediately_after_the_draw_that_empties_the_stock() -> None:
    state = deal_from_codes(["3H KS", "4D 2C", "QS"], top="5H", stock="KC 9D")
    state = apply(state, DRAW_MOVE)
    assert state.phase == "play"
    state = apply(state, DRAW_MOVE)  # 9♦: the stock is empty
    assert state.phase == "deal_over" and state.turn is None and state.result is not None
    assert state.result.reason == "stock_exhausted"
    # The drawn cards count: 3+10+10+9 = 32, 4+2 = 6, 10.
    assert state.result.hand_penalties == (32, 6, 10)
    assert state.result.winners == (1,)
    assert state.result.penalties == (32, 0, 10)


def test_r29_end_immediately_mid_penalty_takes_what_is_left() -> None:
    state = deal_from_codes(
        ["3H 7C", "4D 2C", "QS"], top="7H", pending_sevens=2, stock="KC 9D 2D 3D", turn=1
    )
    state = apply(state, DRAW_MOVE)  # 6 due, 4 left
    assert state.phase == "deal_over" and state.result is not None
    assert hand(state, 1) == ["2C", "KC", "2D", "3D", "4D", "9D"]
    assert state.result.hand_penalties == (3 + 20, 4 + 2 + 10 + 9 + 2 + 3, 10)
    assert state.result.winners == (2,)
    assert state.pending_sevens == 0


def test_r29_end_immediately_during_the_opening_search() -> None:
    state = deal_from_codes(["3H KS", "4D 2C", "QS"], stock="9D 5C")
    state = apply(state, DRAW_MOVE)
    assert state.phase == "opening"
    state = apply(state, DRAW_MOVE)  # the club arrives with the last card: too late
    assert state.phase == "deal_over" and state.result is not None
    assert state.result.reason == "stock_exhausted"
    assert state.result.hand_penalties == (3 + 10 + 9 + 5, 6, 10)
    assert state.pile == ()


def test_r29_end_when_draw_needed_during_the_opening_search() -> None:
    rules = Rules(stock_exhausted="end_when_draw_needed")
    state = deal_from_codes(["3H KS", "4D 2C", "QS"], stock="9D", rules=rules)
    state = apply(state, DRAW_MOVE)  # 9♦, the last card, no club: the search must go on
    assert state.phase == "opening" and state.stock == ()
    assert legal_moves(state) == (DRAW_MOVE,)
    state = apply(state, DRAW_MOVE)
    assert state.phase == "deal_over" and state.result is not None
    assert state.result.hand_penalties == (3 + 10 + 9, 6, 10)


def test_r29_reshuffle_during_the_opening_search_has_nothing_to_reshuffle() -> None:
    rules = Rules(stock_exhausted="reshuffle")
    state = deal_from_codes(["3H KS", "4D 2C", "QS"], stock="9D", rules=rules)
    state = apply(state, DRAW_MOVE)  # the pile is empty: the deal ends as end_immediately
    assert state.phase == "deal_over" and state.result is not None
    assert state.result.reason == "stock_exhausted" and state.reshuffles == 0


# R-29 end_when_draw_needed ---------------------------------------------------------------------


def test_r29_end_when_draw_needed_plays_on_after_the_last_card() -> None:
    rules = Rules(stock_exhausted="end_when_draw_needed")
    state = deal_from_codes(["3H KS", "4D 2C", "QS 5S"], top="5H", stock="KC", rules=rules)
    state = apply(state, DRAW_MOVE)  # K♣, the stock is empty but nobody needs it yet
    assert state.phase == "play" and state.stock == ()
    state = apply(state, play("3H"))
    assert state.turn == 1
    # Seat 1 holds 4♦ 2♣ on 3♥: nothing to play, it must draw from the empty stock.
    assert legal_moves(state) == (DRAW_MOVE,)
    state = apply(state, DRAW_MOVE)
    assert state.phase == "deal_over" and state.result is not None
    assert state.result.reason == "stock_exhausted"
    assert state.result.hand_penalties == (10 + 10, 6, 15)
    assert hand(state, 1) == ["2C", "4D"]


def test_r29_end_when_draw_needed_a_wanted_draw_also_ends_it() -> None:
    rules = Rules(stock_exhausted="end_when_draw_needed")
    state = deal_from_codes(["3H KS", "4D 2C", "QS"], top="5H", rules=rules)
    assert legal_moves(state) == (play("3H"), DRAW_MOVE)
    state = apply(state, DRAW_MOVE)
    assert state.phase == "deal_over" and state.result is not None
    assert state.result.winners == (1,)


def test_r29_end_when_draw_needed_penalty_the_stock_cannot_cover_ends_the_deal() -> None:
    rules = Rules(stock_exhausted="end_when_draw_needed")
    state = deal_from_codes(
        ["3H 7C", "4D 2C", "QS 5S"], top="7H", pending_sevens=1, stock="KC 9D", rules=rules
    )
    state = apply(state, DRAW_MOVE)  # 3 due, 2 left: take them, then the deal is over
    assert state.phase == "deal_over" and state.turn is None and state.pending_sevens == 0
    assert hand(state, 0) == ["7C", "KC", "9D", "3H"] and stock(state) == []
    assert [c.code for c in state.last_drawn] == ["KC", "9D"]
    assert state.result is not None and state.result.reason == "stock_exhausted"
    # R-30 with the cards taken: 3+20+10+9 = 42, 4+2 = 6, 10+5 = 15.
    assert state.result.hand_penalties == (42, 6, 15)
    assert state.result.winners == (1,) and state.result.penalties == (42, 0, 15)
    assert legal_moves(state) == ()


def test_r29_end_when_draw_needed_doubled_penalty_the_stock_cannot_cover_ends_the_deal() -> None:
    rules = Rules(
        stock_exhausted="end_when_draw_needed",
        seven_chain_growth="doubling",
        seven_penalty_ends_turn=False,
    )
    state = deal_from_codes(
        ["3H 7C", "4D 2C", "QS 5S"],
        top="7H",
        pending_sevens=2,
        stock="KC 9D 2D 3D 4H",
        turn=2,
        rules=rules,
    )
    state = apply(state, DRAW_MOVE)  # 3·2 = 6 due, 5 left; no normal turn on the spent 7
    assert state.phase == "deal_over" and state.result is not None
    assert hand(state, 2) == ["KC", "2D", "3D", "9D", "4H", "5S", "QS"]
    assert state.result.reason == "stock_exhausted" and state.result.winners == (1,)


def test_r29_end_when_draw_needed_penalty_the_stock_just_covers_plays_on() -> None:
    rules = Rules(stock_exhausted="end_when_draw_needed")
    state = deal_from_codes(
        ["3H 7C", "4D 2C", "QS 5S"], top="7H", pending_sevens=1, stock="KC 9D 2D", rules=rules
    )
    state = apply(state, DRAW_MOVE)  # 3 due, 3 left: covered, nobody needs the empty stock yet
    assert state.phase == "play" and state.turn == 1 and state.pending_sevens == 0
    assert hand(state, 0) == ["7C", "KC", "2D", "9D", "3H"] and stock(state) == []
    assert state.result is None


def test_r29_end_when_draw_needed_short_penalty_ends_the_fast_path_alike() -> None:
    """The bots' fast path (`fast.FastDeal`) ends the deal on the same short penalty."""
    for growth, pending, stock_codes in (("linear", 1, "KC 9D"), ("doubling", 2, "KC 9D 2D")):
        rules = Rules(stock_exhausted="end_when_draw_needed", seven_chain_growth=growth)
        state = deal_from_codes(
            ["3H 7C", "4D 2C", "QS 5S"],
            top="7H",
            pending_sevens=pending,
            stock=stock_codes,
            rules=rules,
        )
        deal = FastDeal.from_state(state)
        deal.apply_action(move_to_action(DRAW_MOVE))
        after = apply(state, DRAW_MOVE)
        assert after.is_over and deal.is_over
        assert deal.to_state() == after


def test_r29_end_when_draw_needed_penalty_from_an_empty_stock_ends() -> None:
    rules = Rules(stock_exhausted="end_when_draw_needed")
    state = deal_from_codes(["3H 7C", "4D 2C", "QS"], top="7H", pending_sevens=1, rules=rules)
    state = apply(state, DRAW_MOVE)
    assert state.phase == "deal_over" and state.result is not None
    assert state.result.hand_penalties == (23, 6, 10)


# R-29 reshuffle and §9 max_actions --------------------------------------------------------


def test_r29_reshuffle_refills_the_stock_instead_of_ending() -> None:
    rules = Rules(stock_exhausted="reshuffle")
    state = deal_from_codes(["3H KS", "4D", "QS"], top="5H", pile="2H 4H", stock="KC", rules=rules)
    state = apply(state, DRAW_MOVE)
    assert state.phase == "play" and state.reshuffles == 1
    assert sorted(stock(state)) == ["2H", "4H"] and [c.code for c in state.pile] == ["5H"]


def test_r29_reshuffle_ends_when_nothing_can_be_reshuffled() -> None:
    rules = Rules(stock_exhausted="reshuffle")
    state = deal_from_codes(["3H KS", "4D", "QS"], top="5H", stock="KC", rules=rules)
    state = apply(state, DRAW_MOVE)
    assert state.phase == "deal_over" and state.result is not None
    assert state.result.reason == "stock_exhausted" and state.reshuffles == 0
    assert state.result.winners == (1,)


def test_r29_reshuffle_mid_penalty_takes_from_the_reshuffled_stock() -> None:
    rules = Rules(stock_exhausted="reshuffle")
    state = deal_from_codes(
        ["3H 7C", "4D", "QS"],
        top="7H",
        pile="2H 4H 9H",
        pending_sevens=1,
        stock="KC",
        rules=rules,
    )
    state = apply(state, DRAW_MOVE)  # K♣, reshuffle 2♥ 4♥ 9♥, then two of them
    assert state.phase == "play" and state.turn == 1 and state.reshuffles == 1
    assert len(state.hands[0]) == 2 + 3 and "KC" in hand(state, 0)
    assert len(state.stock) == 1
    assert set(hand(state, 0)) | set(stock(state)) == {"3H", "7C", "KC", "2H", "4H", "9H"}


def test_r29_reshuffle_penalty_ends_when_the_reshuffle_runs_dry() -> None:
    rules = Rules(stock_exhausted="reshuffle")
    state = deal_from_codes(
        ["3H 7C", "4D", "QS"], top="7H", pile="2H", pending_sevens=1, stock="KC", rules=rules
    )
    state = apply(state, DRAW_MOVE)  # K♣, reshuffle 2♥, take it; nothing left under the 7♥
    assert state.phase == "deal_over" and state.result is not None
    assert hand(state, 0) == ["7C", "KC", "2H", "3H"]
    assert state.result.winners == (1,)


def draw_pass_cycle(state: State, actions: int) -> State:
    for _ in range(actions):
        state = apply(state, DRAW_MOVE if state.draws_this_turn == 0 else PASS_MOVE)
    return state


def test_r29_reshuffle_max_actions_ends_the_deal_as_stock_exhaustion() -> None:
    rules = Rules(stock_exhausted="reshuffle", max_actions=10)
    state = deal_from_codes(
        ["3C", "4D", "5S"], top="9H", stock="2C 3D 4S 5C 6D 8S 2S 3S 4C 5D 6S", rules=rules
    )
    state = draw_pass_cycle(state, 9)
    assert state.phase == "play" and state.actions == 9
    state = draw_pass_cycle(state, 1)
    assert state.phase == "deal_over" and state.actions == 10
    assert state.result is not None and state.result.reason == "stock_exhausted"
    assert state.result.multiplier == 1 and state.result.last_card is None


def test_r29_max_actions_applies_only_to_reshuffle() -> None:
    rules = Rules(stock_exhausted="end_immediately", max_actions=10)
    state = deal_from_codes(
        ["3C", "4D", "5S"], top="9H", stock="2C 3D 4S 5C 6D 8S 2S 3S 4C 5D 6S", rules=rules
    )
    state = draw_pass_cycle(state, 12)
    assert state.phase == "play" and state.actions == 12
