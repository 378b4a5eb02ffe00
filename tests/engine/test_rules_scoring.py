"""R-28..R-32: the end of a deal, its scores, and the match total and places."""

from __future__ import annotations

import pytest
from positions import play

from games.engine import (
    DRAW_MOVE,
    PASS_MOVE,
    Card,
    IllegalMove,
    NotYourTurn,
    Rules,
    State,
    apply,
    deal_from_codes,
    hand_penalty,
    legal_moves,
    match_is_over,
    match_needs_extra_deal,
    match_places,
    match_totals,
)

# Penalty values of docs/rules.md §1, by rank code.
PENALTY = {"J": 25, "7": 20, "A": 15, "K": 10, "Q": 10}
PENALTY.update({str(n): n for n in (2, 3, 4, 5, 6, 8, 9, 10)})


def value(codes: str) -> int:
    return sum(PENALTY[code[:-1]] for code in codes.split())


def finish(state: State) -> State:
    assert state.phase == "deal_over" and state.turn is None and state.result is not None
    assert legal_moves(state) == ()
    return state


# R-28 ------------------------------------------------------------------------------------------


def test_r28_winning_seven_gives_no_penalty_draw() -> None:
    state = deal_from_codes(["7H", "KD 3C", "9S"], top="5H", stock="2D 3D 4D")
    state = finish(apply(state, play("7H")))
    assert state.pending_sevens == 0
    assert state.result is not None and state.result.winners == (0,)
    assert [len(h) for h in state.hands] == [0, 2, 1]  # nobody drew
    assert [c.code for c in state.stock] == ["2D", "3D", "4D"]


def test_r28_winning_seven_answering_a_chain() -> None:
    state = deal_from_codes(
        ["7S", "KD 3C", "9S"], top="7H", pending_sevens=2, stock="2D 3D 4D 5D 6D 8D 9D"
    )
    state = finish(apply(state, play("7S")))
    assert state.pending_sevens == 0 and len(state.stock) == 7
    assert state.result is not None and state.result.multiplier == 3


@pytest.mark.parametrize("last", ["8H", "10H", "AH", "QH"])
def test_r28_winning_card_has_no_effect(last: str) -> None:
    state = deal_from_codes([last, "KD 3C", "9S"], top="5H", stock="2D 3D 4D")
    state = finish(apply(state, play(last)))
    assert state.direction == 1  # no reverse
    assert state.phase == "deal_over"  # no follow-up, no further turn
    assert state.result is not None
    assert state.result.reason == "shed" and state.result.winners == (0,)
    assert state.result.last_card == Card.from_code(last)


def test_r28_winning_jack_nominates_nothing() -> None:
    state = deal_from_codes(["JC", "KD 3C", "9S"], top="5H", stock="2D 3D 4D")
    state = finish(apply(state, play("JC", "S")))
    assert state.active_suit != "S"


def test_r28_follow_up_card_can_win() -> None:
    state = deal_from_codes(["AH 3H", "KD 3C", "9S"], top="5H", stock="2D 3D 4D")
    state = apply(state, play("AH"))
    state = finish(apply(state, play("3H")))
    assert state.result is not None
    assert state.result.multiplier == 1 and state.result.penalties == (0, 13, 9)


def test_r28_a_win_in_the_opening() -> None:
    state = deal_from_codes(["7C", "KD 3C", "9S"], stock="2D 3D 4D")
    state = finish(apply(state, play("7C")))
    assert state.result is not None
    assert state.result.winners == (0,) and state.result.multiplier == 3


def test_r28_no_move_after_the_deal_ends() -> None:
    state = finish(
        apply(deal_from_codes(["8H", "KD 3C", "9S"], top="5H", stock="2D 3D"), play("8H"))
    )
    for move in (DRAW_MOVE, PASS_MOVE, play("KD")):
        with pytest.raises(IllegalMove):
            apply(state, move)
    with pytest.raises(NotYourTurn):
        apply(state, play("KD"), seat=1)


# R-30 ------------------------------------------------------------------------------------------


def test_r30_lowest_hand_penalty_wins_and_others_pay_without_multiplier() -> None:
    # The last card played is a Jack: no multiplier on exhaustion anyway.
    state = deal_from_codes(["3C 2S", "5C AH", "KS 7D"], top="JH", active_suit="C", stock="4C")
    state = finish(apply(state, DRAW_MOVE))
    assert state.result is not None
    assert state.result.reason == "stock_exhausted"
    assert state.result.hand_penalties == (value("3C 2S 4C"), value("5C AH"), value("KS 7D"))
    assert state.result.winners == (0,)
    assert state.result.penalties == (0, 20, 30)
    assert state.result.multiplier == 1 and state.result.last_card is None


def test_r30_ties_at_the_lowest_all_win() -> None:
    state = deal_from_codes(["3C", "5C", "KS 7D", "2H 3H"], top="9H", stock="2D")
    state = finish(apply(state, DRAW_MOVE))  # seat 0: 3♣ 2♦ = 5
    assert state.result is not None
    assert state.result.hand_penalties == (5, 5, 30, 5)
    assert state.result.winners == (0, 1, 3)
    assert state.result.penalties == (0, 0, 30, 0)


def test_r30_tie_above_the_lowest_is_no_win() -> None:
    state = deal_from_codes(["3C", "KC", "KS", "2H"], top="9H", stock="2D")
    state = finish(apply(state, DRAW_MOVE))
    assert state.result is not None
    assert state.result.winners == (3,)
    assert state.result.penalties == (5, 10, 10, 0)


# R-31 ------------------------------------------------------------------------------------------


def test_r31_penalty_values() -> None:
    for code, expected in [("JS", 25), ("7C", 20), ("AD", 15), ("KH", 10), ("QS", 10)]:
        assert Card.from_code(code).penalty == expected
    for rank in (2, 3, 4, 5, 6, 8, 9, 10):
        assert Card.from_code(f"{rank}H").penalty == rank
    whole_pack = [r + s for s in "CDHS" for r in PENALTY]
    assert hand_penalty(Card.from_code(c) for c in whole_pack) == 4 * sum(PENALTY.values())


def test_r31_example_seven_wins_hand_of_js_7c_3h_scores_144() -> None:
    state = deal_from_codes(["7D", "JS 7C 3H", "2C 10H"], top="5D", stock="2D 3D")
    state = finish(apply(state, play("7D")))
    assert state.result is not None
    assert state.result.multiplier == 3
    assert state.result.hand_penalties == (0, 48, 12)
    assert state.result.penalties == (0, 144, 36)


@pytest.mark.parametrize(
    ("last", "multiplier"), [("JD", 2), ("5H", 1), ("AD", 1), ("8D", 1), ("KD", 1)]
)
def test_r31_multiplier_by_winning_card(last: str, multiplier: int) -> None:
    state = deal_from_codes([last, "JS 7C 3H", "2C 10H"], top="5D", stock="2D 3D")
    move = play(last, "C") if last.startswith("J") else play(last)
    state = finish(apply(state, move))
    assert state.result is not None
    assert state.result.multiplier == multiplier
    assert state.result.penalties == (0, 48 * multiplier, 12 * multiplier)


# R-32 ------------------------------------------------------------------------------------------


def test_r32_match_total_is_the_sum_of_deal_scores() -> None:
    deals = [(0, 144, 36), (12, 0, 40), (30, 30, 0), (0, 5, 9)]
    assert match_totals(deals, 3) == [42, 179, 85]
    assert match_totals([], 2) == [0, 0]


@pytest.mark.parametrize(
    ("totals", "places"),
    [
        ([42, 179, 85], [1, 3, 2]),
        ([10, 5, 5, 20], [3, 1, 1, 4]),
        ([7, 7], [1, 1]),
        ([5, 9, 9, 12], [1, 2, 2, 4]),
        ([0, 0, 0], [1, 1, 1]),
    ],
)
def test_r32_places_rank_by_total_and_ties_share(totals: list[int], places: list[int]) -> None:
    assert match_places(totals) == places


def test_r32_shared_tiebreak_ends_after_the_last_deal() -> None:
    rules = Rules(match_tiebreak="shared", deals_per_match=4)
    assert not match_needs_extra_deal([5, 5, 9], rules)
    assert not match_is_over([5, 5, 9], 3, rules)
    assert match_is_over([5, 5, 9], 4, rules)


def test_r32_extra_deal_until_the_lowest_tie_is_broken() -> None:
    rules = Rules(match_tiebreak="extra_deal", deals_per_match=4)
    assert match_needs_extra_deal([5, 5, 9], rules)
    assert not match_is_over([5, 5, 9], 4, rules)
    assert not match_is_over([12, 12, 30], 5, rules)  # still tied after an extra deal
    assert match_is_over([12, 20, 30], 5, rules)
    # A tie that is not at the lowest total needs no extra deal.
    assert not match_needs_extra_deal([3, 9, 9], rules)
    assert match_is_over([3, 9, 9], 4, rules)


@pytest.mark.parametrize("deals", [1, 2, 4, 10])
def test_r32_deals_per_match(deals: int) -> None:
    rules = Rules(deals_per_match=deals)
    assert not match_is_over([1, 2], deals - 1, rules)
    assert match_is_over([1, 2], deals, rules)
