"""R-13..R-16 and the action vocabulary of docs/rules.md §10: legal plays, their order, and the
errors for moves that are malformed, not allowed now, or not the seat's turn."""

from __future__ import annotations

import copy

import pytest
from positions import hand, jack, play

from games.engine import (
    DRAW_MOVE,
    PASS_MOVE,
    Card,
    IllegalMove,
    InvalidMove,
    Move,
    NotYourTurn,
    apply,
    deal_from_codes,
    legal_moves,
)

# R-13 ------------------------------------------------------------------------------------------


def test_r13_normal_turn_is_play_one_card_or_draw() -> None:
    state = deal_from_codes(["3H KS", "4D 5D", "6S 7S"], top="9H", stock="2C 3C")
    assert legal_moves(state) == (play("3H"), DRAW_MOVE)  # no pass before a draw
    played = apply(state, play("3H"))
    assert hand(played, 0) == ["KS"] and played.turn == 1
    assert [c.code for c in played.pile] == ["9H", "3H"]
    drew = apply(state, DRAW_MOVE)
    assert hand(drew, 0) == ["2C", "3H", "KS"] and drew.turn == 0
    assert [c.code for c in drew.stock] == ["3C"]


# R-14 ------------------------------------------------------------------------------------------


def test_r14_legal_by_suit_by_rank_or_a_jack() -> None:
    state = deal_from_codes(["9C 2H JD KS 3D", "4D", "5S"], top="9H", stock="2C")
    # 9♣ by rank, J♦ wild (one entry per suit), 2♥ by suit; K♠ and 3♦ match nothing.
    assert legal_moves(state) == (play("9C"), *jack("JD"), play("2H"), DRAW_MOVE)
    for move in (play("KS"), play("3D")):
        with pytest.raises(IllegalMove):
            apply(state, move)


def test_r14_jack_on_top_requires_the_active_suit_and_no_jack() -> None:
    # J♥ nominated spades: the J♥'s own suit does not count, only the active suit.
    state = deal_from_codes(["5H 2S JC 9S QD", "4D", "5S"], top="JH", active_suit="S", stock="2C")
    assert legal_moves(state) == (play("2S"), play("9S"), DRAW_MOVE)
    for move in (play("5H"), play("JC", "S"), play("QD")):
        with pytest.raises(IllegalMove):
            apply(state, move)


def test_r14_jack_on_top_a_rank_match_is_not_enough() -> None:
    state = deal_from_codes(["JS 3H", "4D", "5S"], top="JD", active_suit="C", stock="2C")
    assert legal_moves(state) == (DRAW_MOVE,)


def test_r14_while_sevens_are_pending_only_sevens() -> None:
    state = deal_from_codes(
        ["7C 5H JS 9H", "4D", "5S"], top="7H", pending_sevens=1, stock="2C 3C 4C 5C"
    )
    assert legal_moves(state) == (play("7C"), DRAW_MOVE)


def test_r14_a_card_played_on_a_jack_ends_the_nomination() -> None:
    state = deal_from_codes(["2S 4D", "5S 6D", "3H"], top="JH", active_suit="S", stock="2C")
    state = apply(state, play("2S"))
    assert state.active_suit == "S" and state.top_card == Card.from_code("2S")
    assert legal_moves(state) == (play("5S"), DRAW_MOVE)  # 2♠ on top: spades or a 2


# R-15 ------------------------------------------------------------------------------------------


def test_r15_a_play_ends_the_turn_and_resets_draws() -> None:
    state = deal_from_codes(["3C 4C", "4D 5D", "5S"], top="4H", stock="KH QS")
    state = apply(state, DRAW_MOVE)  # K♥
    assert state.draws_this_turn == 1 and state.turn == 0
    state = apply(state, play("KH"))
    assert state.turn == 1 and state.draws_this_turn == 0 and state.phase == "play"


def test_r15_except_an_ace() -> None:
    state = deal_from_codes(["AH 4C", "4D 5D", "5S"], top="4H", stock="KH QS")
    state = apply(state, play("AH"))
    assert state.turn == 0 and state.phase == "ace_followup"


# R-16 ------------------------------------------------------------------------------------------


def test_r16_a_jack_is_never_legal_on_a_jack() -> None:
    # Even a Jack of the nominated suit.
    state = deal_from_codes(["JS JD 4H", "4D", "5S"], top="JH", active_suit="H", stock="2C")
    assert legal_moves(state) == (play("4H"), DRAW_MOVE)
    state = deal_from_codes(["JS JD 4H", "4D", "5S"], top="JH", active_suit="S", stock="2C")
    assert legal_moves(state) == (DRAW_MOVE,)
    with pytest.raises(IllegalMove):
        apply(state, play("JS", "S"))


# §10: order and the three kinds of refusal ------------------------------------------------------


def test_r14_legal_move_order_is_canonical_then_draw_then_pass() -> None:
    # After a draw: plays by canonical index (clubs, diamonds, hearts, spades), each Jack
    # once per suit C D H S, then draw, then pass.
    state = deal_from_codes(
        ["AS 2D JS 5D JC 9S", "4H", "3H"], top="5S", stock="KD QH 10S", draws_this_turn=1
    )
    # 2♦ matches neither the suit nor the rank of 5♠.
    assert legal_moves(state) == (
        *jack("JC"),
        play("5D"),
        play("9S"),
        *jack("JS"),
        play("AS"),
        DRAW_MOVE,
        PASS_MOVE,
    )


def test_r13_illegal_move_leaves_the_state_unchanged() -> None:
    state = deal_from_codes(["3C 4C JS", "4D 5D", "5S"], top="4H", stock="KH QS")
    before = copy.deepcopy(state)
    before_json = state.to_json()
    # Off-suit card, pass before a draw, Jack without a suit, a card of another seat's hand.
    for move in (play("3C"), PASS_MOVE, play("JS"), play("4D")):
        assert move not in legal_moves(state)
        with pytest.raises(IllegalMove) as caught:
            apply(state, move)
        assert caught.value.legal_moves == legal_moves(state)
        assert state == before
        assert state.to_json() == before_json


def test_r13_not_your_turn() -> None:
    state = deal_from_codes(["3C 4H", "4D 5H", "5S"], top="4S", stock="KH QS")
    before = copy.deepcopy(state)
    with pytest.raises(NotYourTurn) as caught:
        apply(state, play("5H"), seat=1)
    assert caught.value.seat == 1 and caught.value.turn == 0
    assert state == before
    assert apply(state, play("4H"), seat=0).turn == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"action": "fold"}, "action"),
        ({"action": None}, "action"),
        ({}, "action"),
        ({"action": "play"}, "card"),
        ({"action": "play", "card": "1H"}, "card"),
        ({"action": "play", "card": "ZZ"}, "card"),
        ({"action": "play", "card": 34}, "card"),
        ({"action": "play", "card": "5H", "suit": "C"}, "suit"),
        ({"action": "play", "card": "JH", "suit": "X"}, "suit"),
        ({"action": "draw", "card": "5H"}, "card"),
        ({"action": "pass", "suit": "H"}, "suit"),
    ],
)
def test_r1_decode_refuses_malformed_moves(body: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidMove) as caught:
        Move.from_json(body)
    assert caught.value.field == field


def test_r1_from_json_accepts_any_case_and_writes_upper_case() -> None:
    move = Move.from_json({"action": "play", "card": "jh", "suit": "d"})
    assert move == play("JH", "D")
    assert move.to_json() == {"action": "play", "card": "JH", "suit": "D"}
    assert Move.from_json({"action": "play", "card": "10h"}) == play("10H")
    assert Move.from_json({"action": "draw"}) == DRAW_MOVE
    assert Move.from_json({"action": "pass"}) == PASS_MOVE
    for move in (play("10H"), play("JS", "C"), DRAW_MOVE, PASS_MOVE):
        assert Move.from_json(move.to_json()) == move


def test_r19_jack_without_suit_is_illegal_outside_the_opening() -> None:
    state = deal_from_codes(["JS 4C", "4D", "5S"], top="4H", stock="KH")
    with pytest.raises(IllegalMove):
        apply(state, play("JS"))
    assert apply(state, play("JS", "D")).active_suit == "D"
