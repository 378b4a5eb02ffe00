"""Observation: `observe(state, seat)` is all a seat may know (docs/api.md state fields).

Property tests over random positions along random playouts: the observation holds no card of
another seat's hand or of the stock, legal moves only for the seat on turn, and it does not
change when the hidden cards are dealt differently between the other hands and the stock."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import CARD_CODES, deal_setups, random_deal_states, seeded_deal_parameters

from games.engine import Rules, State, all_cards, deal_from_codes, legal_moves, observe
from tests.scale import scaled

API_STATE_KEYS = {
    "you",
    "dealer",
    "phase",
    "turn",
    "direction",
    "hand",
    "hand_counts",
    "top_card",
    "active_suit",
    "pending_sevens",
    "penalty_cards",
    "draws_this_turn",
    "stock_count",
    "legal_moves",
}


def hidden_codes(state: State, seat: int) -> set[str]:
    """Cards `seat` cannot see: the other hands and the stock."""
    others = {c.code for s, hand in enumerate(state.hands) if s != seat for c in hand}
    return others | {c.code for c in state.stock}


def strings_in(value: Any) -> Iterator[str]:
    """Every string anywhere in a JSON-like value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_in(key)
            yield from strings_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item)


def permute_hidden(state: State, seat: int, rng: random.Random) -> State:
    """The same position as `seat` sees it: the hidden cards exchanged between the other hands
    and the stock (each keeps its count), the stock reshuffled, and another seed."""
    hidden = [c for s, hand in enumerate(state.hands) if s != seat for c in hand]
    hidden += state.stock
    rng.shuffle(hidden)
    hands = list(state.hands)
    taken = 0
    for s, hand in enumerate(state.hands):
        if s != seat:
            hands[s] = tuple(sorted(hidden[taken : taken + len(hand)]))
            taken += len(hand)
    return replace(
        state,
        hands=tuple(hands),
        stock=tuple(hidden[taken:]),
        seed=rng.randbytes(32),
        last_drawn=(),
    )


def check_observation(state: State, seat: int, rng: random.Random) -> bool:
    """Assert the observation properties for one seat; True if the permutation moved a card."""
    observation = observe(state, seat)
    body = observation.to_json()
    assert set(body) == API_STATE_KEYS

    text = json.dumps(body)
    hidden = hidden_codes(state, seat)
    for code in hidden:
        assert f'"{code}"' not in text, f"seat {seat} sees {code}"
    assert state.seed.hex() not in text
    visible = {c.code for c in state.hands[seat]}
    if state.top_card is not None:
        visible.add(state.top_card.code)
    seen_cards = {s for s in strings_in(body) if s in CARD_CODES}
    assert seen_cards <= visible
    assert not hidden & {c.code for c in observation.pile}  # the bots' public history
    # Control for the scan: the seat's own cards are found by the same search.
    for code in visible:
        assert f'"{code}"' in text

    if state.turn == seat:
        assert body["legal_moves"] == [m.to_json() for m in legal_moves(state)]
    else:
        assert body["legal_moves"] == []

    permuted = permute_hidden(state, seat, rng)
    assert sorted(all_cards(permuted)) == sorted(all_cards(state))
    assert permuted.hands[seat] == state.hands[seat]
    assert [len(h) for h in permuted.hands] == [len(h) for h in state.hands]
    assert len(permuted.stock) == len(state.stock)
    assert observe(permuted, seat) == observation
    assert observe(permuted, seat).to_json() == body
    return permuted.hands != state.hands or permuted.stock != state.stock


def test_observation_has_exactly_the_api_state_fields() -> None:
    state = deal_from_codes(["7H JS 10C", "2D 3D", "4S"], top="6C", stock="9H 9D", turn=0)
    body = observe(state, 0).to_json()
    assert set(body) == API_STATE_KEYS
    assert body == {
        "you": 0,
        "dealer": 2,  # opener 0, the dealer is to its right
        "phase": "play",
        "turn": 0,
        "direction": 1,
        "hand": ["10C", "7H", "JS"],  # canonical order, R-2
        "hand_counts": [3, 2, 1],
        "top_card": "6C",
        "active_suit": "C",
        "pending_sevens": 0,
        "penalty_cards": 0,
        "draws_this_turn": 0,
        "stock_count": 2,
        # §10 order: plays by card index, a Jack once per suit, then draw.
        "legal_moves": [
            {"action": "play", "card": "10C"},
            {"action": "play", "card": "JS", "suit": "C"},
            {"action": "play", "card": "JS", "suit": "D"},
            {"action": "play", "card": "JS", "suit": "H"},
            {"action": "play", "card": "JS", "suit": "S"},
            {"action": "draw"},
        ],
    }
    assert observe(state, 1).to_json()["legal_moves"] == []
    assert observe(state, 1).to_json()["hand"] == ["2D", "3D"]


def test_observation_refuses_a_seat_not_at_the_table() -> None:
    state = deal_from_codes(["7H", "2D"], top="6C", stock="9H")
    for seat in (-1, 2):
        with pytest.raises(ValueError):
            observe(state, seat)


def test_permuting_own_hand_changes_the_observation() -> None:
    """Control for the invariance test: a change the seat can see does show."""
    state = deal_from_codes(["7H JS", "2D 3D", "4S"], top="6C", stock="9H 9D", turn=1)
    swapped = replace(state, hands=(state.hands[1], state.hands[0], state.hands[2]))
    assert observe(swapped, 0) != observe(state, 0)
    assert observe(swapped, 1).to_json()["hand"] == ["7H", "JS"]


def test_observations_along_seeded_playouts_leak_nothing() -> None:
    rng = random.Random("observation-playouts")
    positions = moved = 0
    for index in range(100):
        rules, seats, opener, seed = seeded_deal_parameters(index, rng)
        for step, (state, _legal) in enumerate(random_deal_states(rules, seats, opener, seed, rng)):
            if step % 3 and not state.is_over:
                continue
            for seat in range(seats):
                moved += check_observation(state, seat, rng)
                positions += 1
    assert positions > 3_000
    assert moved > positions // 2  # the invariance was tested on real permutations


@settings(max_examples=scaled(150), deadline=None)
@given(
    setup=deal_setups(),
    steps=st.integers(min_value=0, max_value=250),
    choices=st.randoms(use_true_random=False),
)
def test_observation_properties_at_random_positions(
    setup: tuple[Rules, int, int, bytes], steps: int, choices: random.Random
) -> None:
    rules, seats, opener, seed = setup
    state = next(
        s
        for step, (s, legal) in enumerate(random_deal_states(rules, seats, opener, seed, choices))
        if step == steps or not legal
    )
    for seat in range(seats):
        check_observation(state, seat, choices)
