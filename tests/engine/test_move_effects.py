"""What each move did (engine.move_effect, the move log's `effect`): the rule that applied to it,
for every kind of docs/api.md, with its options; and the cards a draw takes now
(`penalty_cards` of an observation, R-22)."""

from __future__ import annotations

from positions import play

from games.engine import (
    DRAW_MOVE,
    PASS_MOVE,
    MoveEffect,
    Rules,
    State,
    apply,
    deal_from_codes,
    move_effect,
    observe,
    observe_public,
)


def effect(state: State, move) -> MoveEffect:  # type: ignore[no-untyped-def]
    return move_effect(state, move, apply(state, move))


def test_r11_the_opening_club_has_no_effect() -> None:
    for card in ("7C", "8C", "10C", "AC", "JC"):
        state = deal_from_codes([f"{card} 4H", "3D 6H", "KD 2H"], stock="9S 9H 9D")
        assert effect(state, play(card)) == MoveEffect("opening"), card


def test_r12_every_first_club_of_a_club_round_has_no_effect() -> None:
    rules = Rules(opening="club_round")
    state = deal_from_codes(["4C 5H", "8C 6H", "KD 2C"], stock="9S 9H 9D", rules=rules)
    state = apply(state, play("4C"))
    assert effect(state, play("8C")) == MoveEffect("opening")


def test_r19_a_jack_tells_the_suit_it_asked_for() -> None:
    state = deal_from_codes(["JS 4H", "3D 6H", "KD 2H"], top="5H", stock="9S 9C 9D")
    assert effect(state, play("JS", "D")) == MoveEffect("suit", suit="D")


def test_r20_r28_the_last_card_is_a_shed_without_effect() -> None:
    state = deal_from_codes(["7H", "3D 6H", "KD 2H"], top="5H", stock="9S 9C 9D")
    assert effect(state, play("7H")) == MoveEffect("shed")
    state = deal_from_codes(["JH", "3D 6H", "KD 2H"], top="5H", stock="9S 9C 9D")
    assert effect(state, play("JH", "S")) == MoveEffect("shed")


def test_r21_r22_a_seven_tells_the_cards_the_next_player_draws() -> None:
    state = deal_from_codes(["7H 4H", "7D 6H", "KD 2H"], top="5H", stock="9S 9C 9D 3S 3C")
    assert effect(state, play("7H")) == MoveEffect("seven", cards=3)
    state = apply(state, play("7H"))
    assert effect(state, play("7D")) == MoveEffect("seven", cards=6)
    doubling = Rules(seven_chain_growth="doubling")
    state = deal_from_codes(
        ["7H 4H", "7D 6H", "KD 2H"], top="5H", stock="9S 9C", rules=doubling, pending_sevens=2
    )
    assert effect(state, play("7H")) == MoveEffect("seven", cards=12)


def test_r22_r23_a_penalty_draw_tells_its_cards_and_a_plain_draw_none() -> None:
    state = deal_from_codes(
        ["7H 4H", "3D 6H", "KD 2H"], top="7S", stock="9S 9C 9D 3S 3C 4D 4S", pending_sevens=2
    )
    assert effect(state, DRAW_MOVE) == MoveEffect("penalty", cards=6)
    state = deal_from_codes(["7H 4H", "3D 6H", "KD 2H"], top="5S", stock="9S 9C 9D")
    assert effect(state, DRAW_MOVE) == MoveEffect()
    state = apply(state, DRAW_MOVE)
    assert effect(state, PASS_MOVE) == MoveEffect()


def test_r22_penalty_cards_is_what_a_draw_takes_now() -> None:
    state = deal_from_codes(["4H", "3D 6H", "KD 2H"], top="7S", stock="9S 9C", pending_sevens=3)
    assert observe(state, 0).penalty_cards == 9
    assert observe_public(state).to_json()["penalty_cards"] == 9
    doubling = Rules(seven_chain_growth="doubling")
    state = deal_from_codes(
        ["4H", "3D 6H", "KD 2H"], top="7S", stock="9S 9C", pending_sevens=3, rules=doubling
    )
    assert observe(state, 1).to_json()["penalty_cards"] == 12
    state = deal_from_codes(["4H", "3D 6H", "KD 2H"], top="5S", stock="9S 9C")
    assert observe(state, 0).penalty_cards == 0


def test_r24_an_eight_tells_the_seat_it_skips() -> None:
    state = deal_from_codes(["8H 4H", "3D 6H", "KD 2H"], top="5H", stock="9S 9C 9D")
    assert effect(state, play("8H")) == MoveEffect("skip", seat=1)
    state = deal_from_codes(["8H 4H", "3D 6H", "KD 2H"], top="5H", stock="9S 9C", direction=-1)
    assert effect(state, play("8H")) == MoveEffect("skip", seat=2)
    state = deal_from_codes(["8H 4H", "3D 6H"], top="5H", stock="9S 9C 9D")
    assert effect(state, play("8H")) == MoveEffect("skip", seat=1)


def test_r25_an_ace_plays_again_or_skips_by_its_option() -> None:
    for mode in ("follow_up", "extra_turn"):
        state = deal_from_codes(
            ["AH 4H", "3D 6H", "KD 2H"], top="5H", stock="9S 9C", rules=Rules(ace_mode=mode)
        )
        assert effect(state, play("AH")) == MoveEffect("again"), mode
    state = deal_from_codes(
        ["AH 4H", "3D 6H", "KD 2H"], top="5H", stock="9S 9C", rules=Rules(ace_mode="skip_next")
    )
    assert effect(state, play("AH")) == MoveEffect("skip", seat=1)


def test_r26_a_ten_reverses_and_between_two_does_nothing_or_skips() -> None:
    state = deal_from_codes(["10H 4H", "3D 6H", "KD 2H"], top="5H", stock="9S 9C 9D")
    assert effect(state, play("10H")) == MoveEffect("reverse")
    state = deal_from_codes(["10H 4H", "3D 6H"], top="5H", stock="9S 9C 9D")
    assert effect(state, play("10H")) == MoveEffect()
    state = deal_from_codes(
        ["10H 4H", "3D 6H"], top="5H", stock="9S 9C", rules=Rules(two_player_reverse="skip")
    )
    assert effect(state, play("10H")) == MoveEffect("skip", seat=1)


def test_a_plain_card_has_no_effect_and_the_json_names_every_field() -> None:
    state = deal_from_codes(["9H 4H", "3D 6H", "KD 2H"], top="5H", stock="9S 9C 9D")
    assert effect(state, play("9H")).to_json() == {
        "kind": "none",
        "seat": None,
        "suit": None,
        "cards": 0,
    }
