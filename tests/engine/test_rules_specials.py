"""R-19..R-27: Jack, Seven, Eight, Ace and Ten, with their options."""

from __future__ import annotations

import pytest
from positions import hand, jack, play

from games.engine import (
    DRAW_MOVE,
    PASS_MOVE,
    Card,
    IllegalMove,
    Rules,
    State,
    apply,
    deal_from_codes,
    legal_moves,
)

# Stock filler: the pack from the top of the canonical order down (A♠ K♠ Q♠ …), less the cards
# a position already places. Tests that look at drawn cards compute them from this list.
FILLER = [
    r + s
    for s in "SHDC"
    for r in ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
]
STOCK = "auto"


def rest(*placed: str) -> list[str]:
    used = set(" ".join(placed).split())
    return [code for code in FILLER if code not in used]


def position(
    hands: list[str], top: str, stock: str = STOCK, pile: str = "", **options: object
) -> State:
    """deal_from_codes with the unplaced cards as stock (in FILLER order) unless given."""
    cards = rest(*hands, top, pile) if stock == STOCK else stock.split()
    return deal_from_codes(hands, top=top, stock=cards, pile=pile, **options)  # type: ignore[arg-type]


# R-19 Jack -------------------------------------------------------------------------------------


def test_r19_jack_nominates_a_suit_for_the_next_player() -> None:
    state = position(["JS 4H", "3D 6H JC 9S", "KD 2H"], top="5H")
    state = apply(state, play("JS", "D"))
    assert state.active_suit == "D" and state.turn == 1
    # Seat 1: a non-Jack diamond, or draw; 6♥ (old suit) and 9♠ (the Jack's suit) are out.
    assert legal_moves(state) == (play("3D"), DRAW_MOVE)


def test_r19_nomination_lasts_until_a_card_is_played_on_the_jack() -> None:
    state = position(["JS 4H", "6H 9S", "KD 2H"], top="5H", stock="QH 8S 2C 3C")
    state = apply(state, play("JS", "D"))
    state = apply(state, DRAW_MOVE)  # Q♥: still no diamond
    state = apply(state, PASS_MOVE)
    assert state.turn == 2 and state.active_suit == "D"
    assert legal_moves(state) == (play("KD"), DRAW_MOVE)
    state = apply(state, play("KD"))
    assert state.active_suit == "D" and state.turn == 0
    assert legal_moves(state) == (DRAW_MOVE,)  # 4♥ is neither a diamond nor a king


def test_r19_any_suit_includes_the_jacks_own_and_the_current_suit() -> None:
    state = position(["JS 4C", "3D", "KD"], top="5H")
    assert legal_moves(state) == (*jack("JS"), DRAW_MOVE)
    assert apply(state, play("JS", "H")).active_suit == "H"
    assert apply(state, play("JS", "S")).active_suit == "S"


def test_r19_different_suit_excludes_the_suit_active_before_the_jack() -> None:
    rules = Rules(jack_nomination="different_suit")
    state = position(["JS 4C", "3D", "KD"], top="5H", rules=rules)
    assert legal_moves(state) == (*jack("JS", "CDS"), DRAW_MOVE)
    with pytest.raises(IllegalMove):
        apply(state, play("JS", "H"))
    assert apply(state, play("JS", "S")).active_suit == "S"  # the Jack's own suit is allowed


def test_r19_different_suit_after_a_jack_nomination_was_answered() -> None:
    # Active suit before the Jack is the top card's suit (here the spent nomination's card).
    rules = Rules(jack_nomination="different_suit")
    state = position(["JD 4S", "3D", "KD"], top="9C", pile="JS", rules=rules)
    assert legal_moves(state) == (*jack("JD", "DHS"), DRAW_MOVE)


def test_r19_different_suit_in_an_ace_follow_up_excludes_the_aces_suit() -> None:
    rules = Rules(jack_nomination="different_suit")
    state = position(["AH JD 9C", "3C", "KC"], top="5H", rules=rules)
    state = apply(state, play("AH"))
    assert legal_moves(state) == (*jack("JD", "CDS"), PASS_MOVE)


def test_r19_no_jack_while_sevens_are_pending() -> None:
    state = position(["JH JS 7C", "3D", "KD"], top="7H", pending_sevens=1)
    assert legal_moves(state) == (play("7C"), DRAW_MOVE)
    with pytest.raises(IllegalMove):
        apply(state, play("JH", "D"))


# R-20 ------------------------------------------------------------------------------------------


def test_r20_last_card_jack_ends_the_deal_and_its_nomination_has_no_effect() -> None:
    state = position(["JS", "KH 3C", "9D"], top="5H")
    state = apply(state, play("JS", "D"))
    assert state.phase == "deal_over" and state.turn is None
    assert state.result is not None
    assert state.result.winners == (0,) and state.result.reason == "shed"
    assert state.result.last_card == Card.from_code("JS")
    assert state.result.multiplier == 2
    assert state.result.penalties == (0, (10 + 3) * 2, 9 * 2)
    assert state.active_suit != "D"
    assert legal_moves(state) == ()


# R-21 Seven ------------------------------------------------------------------------------------


def test_r21_seven_adds_a_pending_seven_and_ends_the_turn() -> None:
    state = position(["7H 4H", "3D 5S", "KD 2S"], top="5H")
    state = apply(state, play("7H"))
    assert state.pending_sevens == 1 and state.turn == 1 and state.phase == "play"


def test_r21_a_seven_is_not_wild() -> None:
    state = position(["7C 4D", "3D", "KD"], top="5H")
    assert legal_moves(state) == (DRAW_MOVE,)
    with pytest.raises(IllegalMove):
        apply(state, play("7C"))
    state = position(["7C 4D", "3D", "KD"], top="9C")
    assert legal_moves(state) == (play("7C"), DRAW_MOVE)


def test_r21_a_seven_on_a_jack_needs_the_nominated_suit() -> None:
    state = position(["7C 7H 2S", "3D", "KD"], top="JS", active_suit="H")
    assert legal_moves(state) == (play("7H"), DRAW_MOVE)
    state = apply(state, play("7H"))
    assert state.pending_sevens == 1 and state.active_suit == "H"


# R-22 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("growth", "k", "count"),
    [
        ("linear", 1, 3),
        ("linear", 2, 6),
        ("linear", 3, 9),
        ("linear", 4, 12),
        ("doubling", 1, 3),
        ("doubling", 2, 6),
        ("doubling", 3, 12),
        ("doubling", 4, 24),
    ],
)
def test_r22_penalty_draw_count(growth: str, k: int, count: int) -> None:
    rules = Rules(seven_chain_growth=growth)
    state = position(["KH 3H", "4S", "5S"], top="7H", pending_sevens=k, rules=rules)
    after = apply(state, DRAW_MOVE)
    stock = rest("KH 3H 4S 5S 7H")
    assert sorted(hand(after, 0)) == sorted(["KH", "3H", *stock[:count]])
    assert [c.code for c in after.stock] == stock[count:]
    assert after.pending_sevens == 0
    assert after.actions == state.actions + 1  # the whole penalty is one action


@pytest.mark.parametrize("answer", ["7C", "7D", "7S"])
def test_r22_any_seven_answers_and_grows_the_chain(answer: str) -> None:
    state = position(["7H 4H", f"{answer} 6H", "KD 2S"], top="5H")
    state = apply(state, play("7H"))
    assert legal_moves(state) == (play(answer), DRAW_MOVE)  # not 6♥, though it matches the suit
    state = apply(state, play(answer))
    assert state.pending_sevens == 2 and state.turn == 2
    state = apply(state, DRAW_MOVE)  # 3·2 = 6 cards
    assert len(state.hands[2]) == 2 + 6
    assert state.pending_sevens == 0 and state.turn == 0


def test_r22_doubling_chain_built_by_play() -> None:
    rules = Rules(seven_chain_growth="doubling")
    state = position(["7H 4H", "7C 6H", "7D 2S", "KD 3S"], top="5H", rules=rules)
    for seven in ("7H", "7C", "7D"):
        state = apply(state, play(seven))
    assert state.pending_sevens == 3 and state.turn == 3
    state = apply(state, DRAW_MOVE)
    assert len(state.hands[3]) == 2 + 12  # 3·2^(3−1)


def test_r22_no_pass_while_sevens_are_pending() -> None:
    state = position(["KH 3H", "4S", "5S"], top="7H", pending_sevens=1, draws_this_turn=1)
    assert PASS_MOVE not in legal_moves(state)


# R-23 ------------------------------------------------------------------------------------------


def test_r23_penalty_ends_the_turn_and_the_seven_is_spent() -> None:
    state = position(["KH 3H", "7D 3S 9C", "5S"], top="7H", pending_sevens=1)
    state = apply(state, DRAW_MOVE)
    assert state.turn == 1 and state.pending_sevens == 0 and state.draws_this_turn == 0
    # Seat 1 plays on the spent 7♥ normally: a 7 by rank, nothing else matches; not forced.
    assert legal_moves(state) == (play("7D"), DRAW_MOVE)
    state = apply(state, play("7D"))
    assert state.pending_sevens == 1  # a new chain, not the old one continued
    assert state.turn == 2


def test_r23_option_penalty_does_not_end_the_turn() -> None:
    rules = Rules(seven_penalty_ends_turn=False)
    state = position(
        ["KH 3H", "7D 3S 9C", "5S"],
        top="7H",
        pending_sevens=2,
        stock="2C 3C 4C 5C 6C 8C 10C",
        rules=rules,
    )
    state = apply(state, DRAW_MOVE)  # 2♣ 3♣ 4♣ 5♣ 6♣ 8♣: none plays on the 7♥
    assert state.turn == 0 and state.pending_sevens == 0 and state.draws_this_turn == 0
    assert len(state.hands[0]) == 8
    # A normal turn on the spent 7♥: hearts or a 7; a draw; no pass before a normal draw.
    assert legal_moves(state) == (play("3H"), play("KH"), DRAW_MOVE)
    state = apply(state, play("3H"))
    assert state.turn == 1 and state.pending_sevens == 0


# R-24 Eight ------------------------------------------------------------------------------------


def test_r24_eight_skips_next_player() -> None:
    state = position(["8H 4H", "3H", "KH", "2H"], top="5H")
    state = apply(state, play("8H"))
    assert state.turn == 2 and state.phase == "play"


def test_r24_eight_skips_in_the_current_direction() -> None:
    state = position(["3H", "8H 4H", "KH", "2H"], top="5H", turn=1, direction=-1)
    state = apply(state, play("8H"))
    assert state.turn == 3  # 1 → (skip 0) → 3


def test_r24_eight_with_two_players_moves_again_for_a_full_turn() -> None:
    state = position(["8H 4H 9C", "3H"], top="5H")
    state = apply(state, play("8H"))
    assert state.turn == 0 and state.phase == "play" and state.draws_this_turn == 0
    assert legal_moves(state) == (play("4H"), DRAW_MOVE)


# R-25 Ace --------------------------------------------------------------------------------------


def test_r25_ace_follow_up_one_more_card_or_pass_no_draw() -> None:
    state = position(["AH 3H AS 9C JD 5S", "2D", "KD"], top="5H")
    state = apply(state, play("AH"))
    assert state.phase == "ace_followup" and state.turn == 0
    # Legal on A♥: hearts, another Ace, any Jack; then pass; never a draw.
    assert legal_moves(state) == (*jack("JD"), play("3H"), play("AS"), PASS_MOVE)
    with pytest.raises(IllegalMove):
        apply(state, DRAW_MOVE)
    with pytest.raises(IllegalMove):
        apply(state, play("5S"))  # 5♠ matched the 5♥ under the Ace, not the Ace
    declined = apply(state, PASS_MOVE)
    assert declined.turn == 1 and declined.phase == "play" and declined.draws_this_turn == 0
    followed = apply(state, play("3H"))
    assert followed.turn == 1 and followed.phase == "play"
    assert hand(followed, 0) == ["9C", "JD", "5S", "AS"]


def test_r25_follow_up_with_no_playable_card_is_pass_only() -> None:
    state = position(["AH 9C", "2D", "KD"], top="5H")
    state = apply(state, play("AH"))
    assert legal_moves(state) == (PASS_MOVE,)


def test_r25_chained_aces_grant_further_follow_ups() -> None:
    state = position(["AH AS AD 2D 9C", "3C", "KC"], top="5H")
    state = apply(state, play("AH"))
    state = apply(state, play("AS"))
    assert state.phase == "ace_followup" and state.turn == 0
    state = apply(state, play("AD"))
    assert state.phase == "ace_followup" and state.turn == 0
    assert legal_moves(state) == (play("2D"), PASS_MOVE)
    state = apply(state, play("2D"))
    assert state.phase == "play" and state.turn == 1 and hand(state, 0) == ["9C"]


def test_r25_jack_as_follow_up_nominates() -> None:
    state = position(["AH JD 9C", "3C 4S", "KC"], top="5H")
    state = apply(state, play("AH"))
    state = apply(state, play("JD", "S"))
    assert state.active_suit == "S" and state.turn == 1
    assert legal_moves(state) == (play("4S"), DRAW_MOVE)


def test_r25_option_extra_turn_gives_a_full_new_turn() -> None:
    rules = Rules(ace_mode="extra_turn")
    state = position(["AH 9C 3H", "3C", "KC"], top="5H", rules=rules)
    state = apply(state, play("AH"))
    assert state.phase == "play" and state.turn == 0 and state.draws_this_turn == 0
    assert legal_moves(state) == (play("3H"), DRAW_MOVE)  # a normal turn: play or draw
    state = apply(state, DRAW_MOVE)
    assert state.turn == 0 and PASS_MOVE in legal_moves(state)


@pytest.mark.parametrize(("seats", "expected_turn"), [(2, 0), (3, 2), (4, 2)])
def test_r25_option_skip_next_acts_as_an_eight(seats: int, expected_turn: int) -> None:
    rules = Rules(ace_mode="skip_next")
    hands = ["AH 9C 3H", "2S", "3S", "4S"][:seats]
    state = position(hands, top="5H", rules=rules)
    state = apply(state, play("AH"))
    assert state.phase == "play" and state.turn == expected_turn


# R-26 Ten --------------------------------------------------------------------------------------


def test_r26_ten_reverses_with_three_players() -> None:
    state = position(["10H 4H", "3H 2C", "KH 9H"], top="5H")
    state = apply(state, play("10H"))
    assert state.direction == -1 and state.turn == 2
    state = apply(state, play("KH"))
    assert state.turn == 1  # play now goes counter-clockwise


def test_r26_second_ten_reverses_back_with_four_players() -> None:
    state = position(["4H 2D", "10H 2C 9S", "10S 9H", "4S 3C"], top="5H", turn=1)
    state = apply(state, play("10H"))
    assert state.direction == -1 and state.turn == 0
    state = apply(state, play("4H"))
    assert state.turn == 3
    state = apply(state, play("4S"))
    assert state.turn == 2
    state = apply(state, play("10S"))
    assert state.direction == 1 and state.turn == 3


@pytest.mark.parametrize("option", ["no_effect", "skip"])
def test_r26_two_player_option_does_not_change_three_player_reverse(option: str) -> None:
    rules = Rules(two_player_reverse=option)
    state = position(["10H 4H", "3H", "KH"], top="5H", rules=rules)
    state = apply(state, play("10H"))
    assert state.direction == -1 and state.turn == 2


def test_r26_ten_with_two_players_has_no_effect() -> None:
    state = position(["10H 4H", "3H"], top="5H")
    state = apply(state, play("10H"))
    assert state.turn == 1 and state.direction == 1


def test_r26_option_two_player_reverse_skip_acts_as_an_eight() -> None:
    rules = Rules(two_player_reverse="skip")
    state = position(["10H 4H", "3H"], top="5H", rules=rules)
    state = apply(state, play("10H"))
    assert state.turn == 0 and state.phase == "play" and state.direction == 1
    assert legal_moves(state) == (play("4H"), DRAW_MOVE)


# R-27 ------------------------------------------------------------------------------------------


def test_r27_eight_as_follow_up_skips() -> None:
    state = position(["AH 8H 9C", "3C", "KC", "2C"], top="5H")
    state = apply(state, play("AH"))
    state = apply(state, play("8H"))
    assert state.turn == 2 and state.phase == "play"  # one skip, not two


def test_r27_seven_as_follow_up_must_be_answered() -> None:
    state = position(["AH 7H 9C", "3H 7S", "KC"], top="5H")
    state = apply(state, play("AH"))
    state = apply(state, play("7H"))
    assert state.pending_sevens == 1 and state.turn == 1 and state.phase == "play"
    assert legal_moves(state) == (play("7S"), DRAW_MOVE)
    state = apply(state, DRAW_MOVE)
    assert len(state.hands[1]) == 2 + 3 and state.turn == 2


def test_r27_ten_as_follow_up_reverses() -> None:
    state = position(["AH 10H 9C", "3C", "KC"], top="5H")
    state = apply(state, play("AH"))
    state = apply(state, play("10H"))
    assert state.direction == -1 and state.turn == 2


def test_r27_eight_then_ace_two_players_acts_once() -> None:
    # Two players: an 8 gives the same seat a full turn; an Ace in it gives a follow-up, no more.
    state = position(["8H AH 9C", "3C"], top="5H")
    state = apply(state, play("8H"))
    state = apply(state, play("AH"))
    assert state.phase == "ace_followup" and state.turn == 0
    state = apply(state, PASS_MOVE)
    assert state.turn == 1
