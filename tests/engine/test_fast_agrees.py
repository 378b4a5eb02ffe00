"""The fast path (`games.engine.fast.FastDeal`) agrees with the reference engine move for move:
same legal actions in the same order (docs/rules.md §10), the same state after each action, the same
results, for every rule option, 2–7 seats, and deals that reach the rare paths (reshuffles, the
max_actions bound, draws from an empty stock, shed wins in the opening)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import Rules, State, apply_legal, deal_from_codes, legal_moves, new_deal
from games.engine.fast import (
    DRAW_ACTION,
    NUM_ACTIONS,
    PASS_ACTION,
    FastDeal,
    action_to_move,
    move_to_action,
    shuffled_pack_indices,
)
from games.engine.shuffle import shuffled_pack
from tests.scale import scaled

CHOICES: dict[str, tuple[Any, ...]] = {
    "opening": ("opener_only", "club_round"),
    "draw_policy": ("free", "one_then_pass", "until_playable"),
    "jack_nomination": ("any_suit", "different_suit"),
    "seven_chain_growth": ("linear", "doubling"),
    "seven_penalty_ends_turn": (True, False),
    "ace_mode": ("follow_up", "extra_turn", "skip_next"),
    "two_player_reverse": ("no_effect", "skip"),
    "stock_exhausted": ("end_immediately", "end_when_draw_needed", "reshuffle"),
}


def random_rules(rng: random.Random) -> Rules:
    options: dict[str, Any] = {name: rng.choice(values) for name, values in CHOICES.items()}
    options["max_players"] = 7
    options["hand_size"] = rng.choice((1, 2, 3, 5, 7, 7, 7))
    options["max_actions"] = rng.choice((10, 40, 150, 1000))
    return Rules.from_json(options)


def check_same(fast: FastDeal, state: State) -> None:
    assert fast.to_state() == state
    assert fast.is_over == state.is_over
    assert fast.turn == (-1 if state.turn is None else state.turn)
    expected = state.result.penalties if state.result is not None else None
    assert fast.result_penalties == expected
    assert fast.hand_counts == tuple(len(hand) for hand in state.hands)
    assert (fast.phase, fast.active_suit, fast.stock_count) == (
        state.phase,
        state.active_suit,
        len(state.stock),
    )
    assert fast.top_card == (-1 if state.top_card is None else state.top_card)
    if state.turn is not None:
        assert fast.hand_cards(state.turn) == list(state.hands[state.turn])


def play_both(state: State, rng: random.Random, seen: dict[str, int]) -> None:
    """Play random legal actions through the reference and the fast path side by side."""
    fast = FastDeal.from_state(state)
    check_same(fast, state)
    while True:
        if rng.random() < 0.05:  # from_state must pick up a deal mid-way, in any phase
            fast = FastDeal.from_state(state)
        moves = legal_moves(state)
        actions = fast.legal_actions()
        assert [action_to_move(a) for a in actions] == list(moves), state
        assert [move_to_action(m) for m in moves] == list(actions)
        if not moves:
            break
        index = rng.randrange(len(moves))
        if rng.random() < 0.02:  # a copy must play on independently of its original
            twin = fast.copy()
            twin.apply_action(actions[(index + 1) % len(actions)])
            check_same(fast, state)
        state = apply_legal(state, moves[index])
        fast.apply_action(actions[index])
        check_same(fast, state)
        seen[moves[index].action] = seen.get(moves[index].action, 0) + 1
        if state.reshuffles:
            seen["reshuffle"] = seen.get("reshuffle", 0) + 1
    assert state.result is not None
    seen[state.result.reason] = seen.get(state.result.reason, 0) + 1
    if state.phase == "deal_over" and state.actions >= state.rules.max_actions:
        seen["max_actions"] = seen.get("max_actions", 0) + 1


def test_fast_path_agrees_with_reference_over_seeded_random_playouts() -> None:
    rng = random.Random(20261129)
    seen: dict[str, int] = {}
    for number in range(scaled(2000, least=200)):
        rules = random_rules(rng)
        seats = 2 + number % 6  # 2..7
        opener = rng.randrange(seats)
        seed = rng.randbytes(32)
        state = new_deal(rules, seats, opener, seed)
        assert FastDeal.new(rules, seats, opener, seed).to_state() == state
        play_both(state, rng, seen)
    # The playouts reached every kind of action and ending, including the rare paths.
    for what in ("play", "draw", "pass", "shed", "stock_exhausted", "reshuffle", "max_actions"):
        assert seen.get(what, 0) > 0, (what, seen)


def test_fast_path_agrees_from_literal_positions() -> None:
    """Positions the deal rarely reaches by chance: pending sevens on a short stock, a Jack on
    top with a nominated suit, an empty stock under end_when_draw_needed."""
    rng = random.Random(7)
    positions = [
        deal_from_codes(["7H 2C", "7S 3D", "KH"], top="7D", stock="4C 5C", pending_sevens=2),
        deal_from_codes(
            ["JS 3H 4D", "JD 5H"],
            top="JC",
            active_suit="H",
            stock="9C",
            rules=Rules(jack_nomination="different_suit"),
        ),
        deal_from_codes(
            ["2H 3H", "4S 5S"],
            top="KD",
            stock=(),
            rules=Rules(stock_exhausted="end_when_draw_needed"),
        ),
        deal_from_codes(
            ["7H 2C", "7S 3D"],
            top="7D",
            stock="4C",
            pile="2D 3C 9S",
            pending_sevens=1,
            rules=Rules(stock_exhausted="reshuffle", seven_chain_growth="doubling"),
        ),
    ]
    seen: dict[str, int] = {}
    for state in positions:
        for _ in range(30):
            play_both(state, rng, seen)
    assert seen.get("reshuffle", 0) > 0


def test_fast_shuffle_and_deal_equal_the_reference() -> None:
    """`FastDeal.new` shuffles (R-4) and deals (R-5) without `shuffle.py`: same cards, same order,
    for seeds of any length (HMAC hashes keys longer than 64 bytes)."""
    rng = random.Random(4)
    seeds = [bytes(32), bytes(range(32)), b"", b"k" * 64, b"long" * 40]
    seeds += [rng.randbytes(32) for _ in range(scaled(300))]
    for seed in seeds:
        assert shuffled_pack_indices(seed) == [int(c) for c in shuffled_pack(seed)]
    # R-4's first test vector, top first.
    assert shuffled_pack_indices(bytes(32))[:3] == [18, 3, 46]  # 7D 5C 9S
    for seats in range(2, 7):
        for opener in range(seats):
            seed = rng.randbytes(32)
            fast = FastDeal.new(Rules(hand_size=seats + 1), seats, opener, seed)
            assert fast.to_state() == new_deal(Rules(hand_size=seats + 1), seats, opener, seed)


def test_fast_shuffle_hands_possible_rejections_to_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R-4's rejection sampling is left to `shuffle.py` when an integer might be rejected."""
    import games.engine.fast as fast

    monkeypatch.setattr(fast, "_NEVER_REJECTED", 0)  # every deal takes the careful path
    for seed in (bytes(32), bytes(range(32)), b"x" * 32):
        assert shuffled_pack_indices(seed) == [int(c) for c in shuffled_pack(seed)]


def test_action_ids_round_trip_through_moves() -> None:
    ids = list(range(NUM_ACTIONS))
    assert [move_to_action(action_to_move(a)) for a in ids] == ids
    assert action_to_move(DRAW_ACTION).action == "draw"
    assert action_to_move(PASS_ACTION).action == "pass"
    jack = action_to_move(52 + 4 * 3 + 1)  # J♠ nominating diamonds
    assert jack.card is not None and jack.card.code == "JS" and jack.suit == "D"


@st.composite
def deals(draw: st.DrawFn) -> State:
    options = {name: draw(st.sampled_from(values)) for name, values in CHOICES.items()}
    options["max_players"] = 7
    options["hand_size"] = draw(st.integers(1, 7))
    options["max_actions"] = draw(st.integers(10, 300))
    seats = draw(st.integers(2, 7))
    opener = draw(st.integers(0, seats - 1))
    seed = draw(st.binary(min_size=32, max_size=32))
    return new_deal(Rules.from_json(options), seats, opener, seed)


@settings(max_examples=scaled(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=deals(), data=st.data())
def test_fast_path_agrees_under_hypothesis(state: State, data: st.DataObject) -> None:
    fast = FastDeal.from_state(state)
    for _ in range(400):
        moves = legal_moves(state)
        actions = fast.legal_actions()
        assert [action_to_move(a) for a in actions] == list(moves)
        if not moves:
            break
        index = data.draw(st.integers(0, len(moves) - 1))
        state = apply_legal(state, moves[index])
        fast.apply_action(actions[index])
        assert fast.to_state() == state
    assert FastDeal.from_state(state).to_state() == state
