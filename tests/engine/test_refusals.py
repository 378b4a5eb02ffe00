"""Why a move is refused (games.engine.legal.refusal): an illegal move's error names the rule
that forbids it (R-10, R-11, R-12, R-14, R-16, R-17, R-18, R-19, R-22, R-25) and says what the
rule asks instead; over random deals under every rule option, every illegal move of the seat
on turn gets such a reason, never the bare "not legal now"."""

from __future__ import annotations

import random

import pytest
from positions import play
from strategies import random_deal_states

from games.engine import DRAW_MOVE, PASS_MOVE, IllegalMove, Move, Rules, apply, deal_from_codes
from games.engine.cards import JACK, PACK, SUITS


def refused(state, move) -> IllegalMove:
    with pytest.raises(IllegalMove) as caught:
        apply(state, move)
    return caught.value


def test_r10_r11_the_opening_asks_for_a_club_and_its_jack_for_no_suit() -> None:
    state = deal_from_codes(["AD 2C JC", "3D 4D"], stock="KH QH")
    error = refused(state, play("AD"))
    assert error.rule == "R-10" and error.message == "the first card must be a club"
    assert refused(state, DRAW_MOVE).rule == "R-10"
    # Holding a club, a pass is told to play it, as a draw is (never "draw until one comes").
    assert refused(state, PASS_MOVE).rule == "R-10"
    assert refused(state, PASS_MOVE).message == "you hold a club: play it"
    clubless = deal_from_codes(["AD 2D", "3D 4C"], stock="KH QH")
    error = refused(clubless, PASS_MOVE)
    assert error.rule == "R-10" and "draw until one comes" in error.message
    assert refused(state, play("JC", "H")).rule == "R-11"
    assert refused(state, play("5S")).message == "5S is not in your hand"


def test_r12_the_club_round_names_its_own_rule() -> None:
    state = deal_from_codes(["AD 2C", "3D 4D"], stock="KH QH", rules=Rules(opening="club_round"))
    assert refused(state, play("AD")).rule == "R-12"


def test_r14_r16_r19_what_goes_on_the_top_card_and_what_a_jack_asks() -> None:
    state = deal_from_codes(["5H 9C JD JS", "3D"], top="5D", stock="KH", phase="play")
    error = refused(state, play("9C"))
    assert error.rule == "R-14" and "neither the suit nor the rank of 5D" in error.message
    assert refused(state, play("JD")).rule == "R-19"  # no suit asked
    strict = deal_from_codes(
        ["5H JD", "3D"],
        top="5D",
        stock="KH",
        phase="play",
        rules=Rules(jack_nomination="different_suit"),
        active_suit="D",
    )
    error = refused(strict, play("JD", "D"))
    assert error.rule == "R-19" and "other than D" in error.message
    on_a_jack = deal_from_codes(
        ["5H 9S JS", "3D"], top="JD", stock="KH", phase="play", active_suit="S"
    )
    assert refused(on_a_jack, play("JS", "H")).rule == "R-16"
    asked = deal_from_codes(["5H 9S", "3D"], top="JD", stock="KH", phase="play", active_suit="S")
    error = refused(asked, play("5H"))
    assert error.rule == "R-14" and "asked for S" in error.message


def test_r17_r18_r22_r25_drawing_passing_and_the_sevens() -> None:
    free = deal_from_codes(["5D 9C", "3D"], top="5H", stock="KH", phase="play")
    assert refused(free, PASS_MOVE).rule == "R-17"
    once = deal_from_codes(
        ["5D 9C", "3D"],
        top="5H",
        stock="KH",
        phase="play",
        draws_this_turn=1,
        rules=Rules(draw_policy="one_then_pass"),
    )
    assert refused(once, DRAW_MOVE).rule == "R-18"
    # Before a draw a pass is refused by the policy in force: R-18's pass after its draw too.
    for policy in ("one_then_pass", "until_playable"):
        before = deal_from_codes(
            ["5D 9C", "3D"], top="5H", stock="KH", phase="play", rules=Rules(draw_policy=policy)
        )
        assert refused(before, PASS_MOVE).rule == "R-18", policy
    until = Rules(draw_policy="until_playable")
    holding = deal_from_codes(["5D 9C", "3D"], top="5H", stock="KH", phase="play", rules=until)
    assert refused(holding, DRAW_MOVE).rule == "R-18"
    drawn = deal_from_codes(
        ["9C 2S", "3D"], top="5H", stock="KH", phase="play", draws_this_turn=1, rules=until
    )
    error = refused(drawn, PASS_MOVE)
    assert error.rule == "R-18" and "no pass while the stock lasts" in error.message
    sevens = deal_from_codes(["5H 7C JH", "3D"], top="7H", stock="KH", phase="play",
                             pending_sevens=1)  # fmt: skip
    for move in (play("5H"), play("JH", "S"), PASS_MOVE):
        assert refused(sevens, move).rule == "R-22"
    follow = deal_from_codes(["5H 9C", "3D"], top="AH", stock="KH", phase="ace_followup")
    assert refused(follow, DRAW_MOVE).rule == "R-25"


OPTIONS = [
    {},
    {"opening": "club_round"},
    {"draw_policy": "one_then_pass"},
    {"draw_policy": "until_playable", "jack_nomination": "different_suit"},
    {"seven_chain_growth": "doubling", "seven_penalty_ends_turn": False},
    {"ace_mode": "extra_turn", "stock_exhausted": "reshuffle", "max_actions": 200},
    {"ace_mode": "skip_next", "stock_exhausted": "end_when_draw_needed"},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "default")
def test_every_illegal_move_is_told_why(options) -> None:
    rules = Rules(**options)
    rng = random.Random(7)
    told = 0
    for index in range(40):
        seats = 2 + index % 4
        seed = rng.randbytes(32)
        for state, legal in random_deal_states(rules, seats, index % seats, seed, rng):
            if not legal:
                break
            hand = state.hands[state.turn]
            others = [c for c in PACK if c not in hand][:2]
            candidates = [DRAW_MOVE, PASS_MOVE]
            for card in [*hand, *others]:
                candidates.append(Move.play(card))
                if card.rank == JACK:
                    candidates += [Move.play(card, suit) for suit in SUITS]
            for move in candidates:
                if move in legal:
                    continue
                error = refused(state, move)
                told += 1
                assert error.template != "%(move)s is not legal now", (state, move)
                if move.card is None or move.card in hand:
                    assert error.rule, (state, move, error.message)
                assert error.legal_moves == legal
    assert told > 1000
