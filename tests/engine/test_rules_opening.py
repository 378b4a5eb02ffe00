"""R-10..R-12: the opening club, its lack of effect, and the club round option."""

from __future__ import annotations

import pytest
from positions import hand, play

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

# R-10 ------------------------------------------------------------------------------------------


def test_r10_opener_must_play_a_club_and_may_not_draw() -> None:
    state = deal_from_codes(["AD 2C 5H JC 9C", "3D 4D", "5S 6S"], stock="KH QH")
    assert state.phase == "opening" and state.turn == 0
    # Every club, J♣ included (without a suit: it nominates nothing), by canonical index.
    assert legal_moves(state) == (play("2C"), play("9C"), play("JC"))
    for move in (DRAW_MOVE, PASS_MOVE, play("5H"), play("AD"), play("JC", "H")):
        with pytest.raises(IllegalMove):
            apply(state, move)


def test_r10_opener_without_a_club_draws_until_one_arrives_then_must_play_it() -> None:
    state = deal_from_codes(["AD 5H", "3D 4D", "5S 6S"], stock="KH 9D QC 2C")
    assert legal_moves(state) == (DRAW_MOVE,)
    state = apply(state, DRAW_MOVE)  # KH
    assert hand(state, 0) == ["AD", "5H", "KH"]
    assert state.turn == 0 and legal_moves(state) == (DRAW_MOVE,)  # no pass after a draw either
    state = apply(state, DRAW_MOVE)  # 9D
    assert legal_moves(state) == (DRAW_MOVE,)
    state = apply(state, DRAW_MOVE)  # QC: now holding a club, the only legal move is to play it
    assert state.turn == 0 and state.phase == "opening"
    assert legal_moves(state) == (play("QC"),)
    assert [c.code for c in state.stock] == ["2C"]
    state = apply(state, play("QC"))
    assert state.phase == "play" and state.turn == 1
    assert [c.code for c in state.pile] == ["QC"]


def test_r10_opening_draws_ignore_one_then_pass() -> None:
    # The engine's reading: the opening search is not a normal turn, so draw_policy does not apply.
    rules = Rules(draw_policy="one_then_pass")
    state = deal_from_codes(["AD", "3D", "5S"], stock="KH 9D 4C 2H", rules=rules)
    state = apply(state, DRAW_MOVE)
    state = apply(state, DRAW_MOVE)
    state = apply(state, DRAW_MOVE)
    assert legal_moves(state) == (play("4C"),)


def test_r10_opener_need_not_be_seat_zero() -> None:
    state = deal_from_codes(["3C", "4D", "5C 6H"], stock="KH", opener=2, turn=2)
    assert legal_moves(state) == (play("5C"),)
    state = apply(state, play("5C"), seat=2)
    assert state.turn == 0  # play passes to the opener's left


# R-11 ------------------------------------------------------------------------------------------


def opening(first: str) -> State:
    return deal_from_codes([f"{first} 5H 9D", "JD 5C 9H 2S", "6H 6S 3D"], stock="KH QH KS")


def test_r11_opening_seven_starts_no_chain() -> None:
    state = apply(opening("7C"), play("7C"))
    assert state.pending_sevens == 0 and state.turn == 1 and state.phase == "play"
    # A normal turn on a club, not an answer to a seven: J♦ is wild, a draw is one card.
    jacks = tuple(play("JD", suit) for suit in "CDHS")
    assert legal_moves(state) == (play("5C"), *jacks, DRAW_MOVE)
    after = apply(state, DRAW_MOVE)
    assert len(after.hands[1]) == 5 and after.turn == 1


def test_r11_opening_eight_skips_nobody() -> None:
    state = apply(opening("8C"), play("8C"))
    assert state.turn == 1


def test_r11_opening_ten_does_not_reverse() -> None:
    state = apply(opening("10C"), play("10C"))
    assert state.turn == 1 and state.direction == 1


def test_r11_opening_ace_gives_no_follow_up() -> None:
    state = apply(opening("AC"), play("AC"))
    assert state.phase == "play" and state.turn == 1


def test_r11_opening_jack_nominates_nothing_but_forbids_a_jack() -> None:
    state = apply(opening("JC"), play("JC"))
    assert state.active_suit == "C" and state.turn == 1
    # Seat 1 holds J♦ 5♣ 9♥ 2♠: only the club, or a draw (R-16: no Jack on the J♣).
    assert legal_moves(state) == (play("5C"), DRAW_MOVE)
    with pytest.raises(IllegalMove):
        apply(state, play("JD", "H"))


def test_r11_opening_card_of_a_later_opener_passes_left() -> None:
    state = deal_from_codes(["3H", "4D 8C", "5S"], stock="KH", opener=1, turn=1)
    state = apply(state, play("8C"))
    assert state.turn == 2 and state.phase == "play"


# R-12 ------------------------------------------------------------------------------------------


def test_r12_club_round_every_first_card_is_a_club_without_effect() -> None:
    rules = Rules(opening="club_round")
    state = deal_from_codes(["7C 10H 8H", "8C 5H 7H", "3D 4S"], stock="3H 10C KD QD", rules=rules)
    state = apply(state, play("7C"))
    assert state.phase == "opening" and state.turn == 1 and state.pending_sevens == 0
    # Seat 1 must play its club too: not the 7♥ on the 7♣, not a heart.
    assert legal_moves(state) == (play("8C"),)
    state = apply(state, play("8C"))
    assert state.turn == 2 and state.phase == "opening"  # the 8♣ skipped nobody
    # Seat 2 has no club: it draws until one arrives (3♥, then 10♣).
    assert legal_moves(state) == (DRAW_MOVE,)
    state = apply(state, DRAW_MOVE)
    assert legal_moves(state) == (DRAW_MOVE,)
    state = apply(state, DRAW_MOVE)
    assert legal_moves(state) == (play("10C"),)
    state = apply(state, play("10C"))
    # Every player has opened: the round is over, the 10♣ did not reverse.
    assert state.phase == "play" and state.turn == 0 and state.direction == 1
    # From now on R-14 decides (10♥ matches the rank, 8♥ nothing) and effects apply.
    assert legal_moves(state) == (play("10H"), DRAW_MOVE)
    state = apply(state, play("10H"))
    assert state.direction == -1 and state.turn == 2


def test_r12_opener_only_lets_the_second_player_play_normally() -> None:
    state = deal_from_codes(["7C 10H 8H", "7H 5H", "3D 4S"], stock="3H 10C KD QD")
    state = apply(state, play("7C"))
    # opener_only: seat 1 may answer with any legal card (7♥ by rank), no club needed.
    assert legal_moves(state) == (play("7H"), DRAW_MOVE)


def test_r12_club_round_later_player_may_not_play_a_non_club_matching_rank() -> None:
    rules = Rules(opening="club_round")
    state = deal_from_codes(["9C 2D", "9H 4C", "3D 4S"], stock="KD", rules=rules)
    state = apply(state, play("9C"))
    assert legal_moves(state) == (play("4C"),)
    with pytest.raises(IllegalMove):
        apply(state, play("9H"))
