"""Every rule option of docs/rules.md: its default, each of its values in play, and validation
(an unknown option or a bad value is a RulesError that names the option)."""

from __future__ import annotations

from typing import Any

import pytest
from positions import play

from games.engine import (
    DRAW_MOVE,
    PASS_MOVE,
    Move,
    Rules,
    RulesError,
    State,
    apply,
    deal_from_codes,
    legal_moves,
    match_is_over,
    new_deal,
)

# The options and values named in docs/rules.md, written out here rather than read from the engine.
RULES_MD_CHOICES: dict[str, tuple[str, ...]] = {
    "opening": ("opener_only", "club_round"),
    "draw_policy": ("free", "one_then_pass", "until_playable"),
    "jack_nomination": ("any_suit", "different_suit"),
    "seven_chain_growth": ("linear", "doubling"),
    "ace_mode": ("follow_up", "extra_turn", "skip_next"),
    "two_player_reverse": ("no_effect", "skip"),
    "stock_exhausted": ("end_immediately", "end_when_draw_needed", "reshuffle"),
    "match_tiebreak": ("shared", "extra_deal"),
}
RULES_MD_DEFAULTS: dict[str, Any] = {
    "opening": "opener_only",
    "draw_policy": "free",
    "jack_nomination": "any_suit",
    "seven_chain_growth": "linear",
    "seven_penalty_ends_turn": True,
    "ace_mode": "follow_up",
    "two_player_reverse": "no_effect",
    "stock_exhausted": "end_immediately",
    "max_actions": 1000,
    "match_tiebreak": "shared",
    "max_players": 6,
    "hand_size": 7,
    "deals_per_match": 4,
}
STOCK = "2D 3D 4D 5D 6D 8D 9D 10D QD KD 2S 3S 4S"


# Defaults and validation -----------------------------------------------------------------------


def test_defaults_are_the_decisions_of_rules_md() -> None:
    assert Rules().to_json() == RULES_MD_DEFAULTS
    assert Rules.from_json(None) == Rules() == Rules.from_json({})


@pytest.mark.parametrize(
    ("option", "value"),
    [(name, value) for name, values in RULES_MD_CHOICES.items() for value in values]
    + [("seven_penalty_ends_turn", True), ("seven_penalty_ends_turn", False)],
)
def test_every_documented_value_is_accepted_and_round_trips(option: str, value: Any) -> None:
    rules = Rules.from_json({option: value})
    assert getattr(rules, option) == value
    assert Rules.from_json(rules.to_json()) == rules


@pytest.mark.parametrize("option", ["speed", "Opening", "jokers", "seven_chain"])
def test_unknown_option_is_an_error_naming_it(option: str) -> None:
    with pytest.raises(RulesError) as caught:
        Rules.from_json({option: 1})
    assert caught.value.option == option
    assert option in str(caught.value)


@pytest.mark.parametrize(
    ("option", "value"),
    [(name, "bogus") for name in RULES_MD_CHOICES]
    + [
        ("opening", "OPENER_ONLY"),
        ("draw_policy", None),
        ("seven_penalty_ends_turn", "yes"),
        ("seven_penalty_ends_turn", 1),
        ("max_actions", 9),
        ("max_actions", "1000"),
        ("max_players", 1),
        ("max_players", 8),
        ("max_players", True),
        ("hand_size", 0),
        ("hand_size", 26),
        ("hand_size", 7.0),
        ("deals_per_match", 0),
        ("deals_per_match", 53),
    ],
)
def test_bad_value_is_an_error_naming_the_option(option: str, value: Any) -> None:
    with pytest.raises(RulesError) as caught:
        Rules.from_json({option: value})
    assert caught.value.option == option
    assert option in str(caught.value)
    with pytest.raises(RulesError):
        Rules(**{option: value})


def test_hand_size_must_leave_a_stock() -> None:
    with pytest.raises(RulesError) as caught:
        Rules(max_players=6, hand_size=9)  # 54 cards
    assert caught.value.option == "hand_size"
    assert Rules(max_players=6, hand_size=8).hand_size == 8  # 48 cards


def test_parsed_option_sets_are_shared_but_never_stand_in_for_a_bad_one() -> None:
    """Rules.from_json validates an option set once: asked again, it returns the same frozen
    Rules; a value that only compares equal to a good one (true for 1, 7.0 for 7) is still
    refused, and an unhashable value still gets the error naming its option."""
    good = {"hand_size": 1, "seven_penalty_ends_turn": True, "deals_per_match": 7}
    first = Rules.from_json(good)
    assert Rules.from_json(dict(good)) is first and first.hand_size == 1
    for option, lookalike in [
        ("hand_size", True),
        ("seven_penalty_ends_turn", 1),
        ("deals_per_match", 7.0),
    ]:
        with pytest.raises(RulesError) as caught:
            Rules.from_json({**good, option: lookalike})
        assert caught.value.option == option
    with pytest.raises(RulesError) as caught:
        Rules.from_json({**good, "opening": ["club_round"]})
    assert caught.value.option == "opening"


def test_rules_must_be_an_object() -> None:
    with pytest.raises(RulesError):
        Rules.from_json(["opening", "club_round"])  # type: ignore[arg-type]


# Each value in play ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "second_player_moves"),
    [
        ("opener_only", (play("4C"), play("9H"), DRAW_MOVE)),  # R-14 on the 9♣
        ("club_round", (play("4C"),)),  # only a club
    ],
)
def test_r12_option_opening(value: str, second_player_moves: tuple[Move, ...]) -> None:
    rules = Rules(opening=value)
    state = deal_from_codes(["9C 2D", "9H 4C", "3D 4S"], stock="KH QH", rules=rules)
    state = apply(state, play("9C"))
    assert legal_moves(state) == second_player_moves


@pytest.mark.parametrize(
    ("value", "first", "after_draw"),
    [
        ("free", (play("3H"), DRAW_MOVE), (play("3H"), DRAW_MOVE, PASS_MOVE)),
        ("one_then_pass", (play("3H"), DRAW_MOVE), (play("3H"), PASS_MOVE)),
        ("until_playable", (play("3H"),), None),
    ],
)
def test_r18_option_draw_policy(
    value: str, first: tuple[Move, ...], after_draw: tuple[Move, ...] | None
) -> None:
    rules = Rules(draw_policy=value)
    state = deal_from_codes(["3H 9C", "4D", "5S"], top="5H", stock="KC 2C QC", rules=rules)
    assert legal_moves(state) == first
    if after_draw is not None:
        assert legal_moves(apply(state, DRAW_MOVE)) == after_draw


@pytest.mark.parametrize(("value", "suits"), [("any_suit", "CDHS"), ("different_suit", "CDS")])
def test_r19_option_jack_nomination(value: str, suits: str) -> None:
    rules = Rules(jack_nomination=value)
    state = deal_from_codes(["JD 9C", "4C", "5C"], top="5H", stock=STOCK, rules=rules)
    assert legal_moves(state) == (*(play("JD", s) for s in suits), DRAW_MOVE)


@pytest.mark.parametrize(("value", "drawn"), [("linear", 9), ("doubling", 12)])
def test_r22_option_seven_chain_growth(value: str, drawn: int) -> None:
    rules = Rules(seven_chain_growth=value)
    state = deal_from_codes(
        ["KH", "4C", "5C"], top="7H", pending_sevens=3, stock=STOCK, rules=rules
    )
    state = apply(state, DRAW_MOVE)
    assert len(state.hands[0]) == 1 + drawn
    assert len(state.stock) == len(STOCK.split()) - drawn


@pytest.mark.parametrize(("value", "turn"), [(True, 1), (False, 0)])
def test_r23_option_seven_penalty_ends_turn(value: bool, turn: int) -> None:
    rules = Rules(seven_penalty_ends_turn=value)
    state = deal_from_codes(
        ["KH", "4C", "5C"], top="7H", pending_sevens=1, stock=STOCK, rules=rules
    )
    state = apply(state, DRAW_MOVE)
    assert state.turn == turn and state.pending_sevens == 0


@pytest.mark.parametrize(
    ("value", "phase", "turn"),
    [("follow_up", "ace_followup", 0), ("extra_turn", "play", 0), ("skip_next", "play", 2)],
)
def test_r25_option_ace_mode(value: str, phase: str, turn: int) -> None:
    rules = Rules(ace_mode=value)
    state = deal_from_codes(["AH 3H", "4C", "5C"], top="5H", stock=STOCK, rules=rules)
    state = apply(state, play("AH"))
    assert (state.phase, state.turn) == (phase, turn)
    if value != "skip_next":  # the same seat moves on: a draw only in a full new turn
        assert (DRAW_MOVE in legal_moves(state)) == (value == "extra_turn")


@pytest.mark.parametrize(("value", "turn"), [("no_effect", 1), ("skip", 0)])
def test_r26_option_two_player_reverse(value: str, turn: int) -> None:
    rules = Rules(two_player_reverse=value)
    state = deal_from_codes(["10H 3H", "4C"], top="5H", stock=STOCK, rules=rules)
    state = apply(state, play("10H"))
    assert state.turn == turn and state.direction == 1


@pytest.mark.parametrize(
    ("value", "phase", "stock_left"),
    [
        ("end_immediately", "deal_over", 0),
        ("end_when_draw_needed", "play", 0),
        ("reshuffle", "play", 2),
    ],
)
def test_r29_option_stock_exhausted(value: str, phase: str, stock_left: int) -> None:
    rules = Rules(stock_exhausted=value)
    state = deal_from_codes(["3H", "4C", "5C"], top="5H", pile="2H 4H", stock="KC", rules=rules)
    state = apply(state, DRAW_MOVE)
    assert state.phase == phase and len(state.stock) == stock_left


@pytest.mark.parametrize("max_actions", [10, 15])
def test_r29_option_max_actions(max_actions: int) -> None:
    rules = Rules(stock_exhausted="reshuffle", max_actions=max_actions)
    state = deal_from_codes(["3C", "4C", "5C"], top="9H", pile="2H 4H", stock=STOCK, rules=rules)
    played = 0
    while state.phase != "deal_over":
        state = apply(state, DRAW_MOVE if state.draws_this_turn == 0 else PASS_MOVE)
        played += 1
    assert played == max_actions == state.actions
    assert state.result is not None and state.result.reason == "stock_exhausted"


@pytest.mark.parametrize(("value", "over"), [("shared", True), ("extra_deal", False)])
def test_r32_option_match_tiebreak(value: str, over: bool) -> None:
    assert match_is_over([10, 10, 25], 4, Rules(match_tiebreak=value)) is over


@pytest.mark.parametrize("deals", [1, 4, 6])
def test_r32_option_deals_per_match(deals: int) -> None:
    rules = Rules(deals_per_match=deals)
    assert [match_is_over([3, 8], played, rules) for played in range(deals + 1)] == [
        False
    ] * deals + [True]


@pytest.mark.parametrize(
    ("max_players", "allowed"), [(2, [2]), (4, [2, 3, 4]), (7, [2, 3, 4, 5, 6, 7])]
)
def test_r7_option_max_players(max_players: int, allowed: list[int]) -> None:
    rules = Rules(max_players=max_players, hand_size=7)
    for seats in range(1, 9):
        if seats in allowed:
            assert new_deal(rules, seats, 0, bytes(32)).seats == seats
        else:
            with pytest.raises(RulesError):
                new_deal(rules, seats, 0, bytes(32))


@pytest.mark.parametrize("hand_size", [1, 3, 7, 8])
def test_r5_option_hand_size(hand_size: int) -> None:
    state = new_deal(Rules(hand_size=hand_size), 6, 2, bytes(32))
    assert [len(hand) for hand in state.hands] == [hand_size] * 6
    assert len(state.stock) == 52 - 6 * hand_size


def _state_size(state: State) -> int:
    return sum(len(h) for h in state.hands) + len(state.stock) + len(state.pile)


def test_r5_option_hand_size_one_can_win_on_the_opening_club() -> None:
    state = new_deal(Rules(hand_size=1), 2, 0, bytes(range(32)))
    # Seed 00..1f: the top of the pack, 9♣, goes to the opener, who sheds it at once.
    assert [c.code for c in state.hands[0]] == ["9C"]
    state = apply(state, play("9C"))
    assert state.phase == "deal_over" and _state_size(state) == 52
