"""Public observation: `observe_public(state)` is all a spectator may know (docs/api.md state
fields with `you` null).

It holds no card of any hand nor of the stock (only the face-up top card), and it does not
change when every hidden card is dealt differently between the hands and the stock."""

from __future__ import annotations

import json
import random
from dataclasses import fields, replace

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import CARD_CODES, deal_setups, random_deal_states, seeded_deal_parameters
from test_observation import API_STATE_KEYS, strings_in

from games.engine import (
    PublicObservation,
    Rules,
    State,
    all_cards,
    deal_from_codes,
    observe,
    observe_public,
)
from tests.scale import scaled


def permute_every_hand(state: State, rng: random.Random) -> State:
    """The same position as a spectator sees it: every hand's and the stock's cards exchanged
    (each keeps its count), and another seed."""
    hidden = [c for hand in state.hands for c in hand] + list(state.stock)
    rng.shuffle(hidden)
    hands = []
    taken = 0
    for hand in state.hands:
        hands.append(tuple(sorted(hidden[taken : taken + len(hand)])))
        taken += len(hand)
    return replace(
        state,
        hands=tuple(hands),
        stock=tuple(hidden[taken:]),
        seed=rng.randbytes(32),
        last_drawn=(),
    )


def check_public(state: State, rng: random.Random) -> bool:
    """Assert the public observation's properties; True if the permutation moved a card."""
    observation = observe_public(state)
    body = observation.to_json()
    assert set(body) == API_STATE_KEYS
    assert body["you"] is None and body["hand"] == [] and body["legal_moves"] == []
    text = json.dumps(body)
    hidden = {c.code for hand in state.hands for c in hand} | {c.code for c in state.stock}
    for code in hidden:
        assert f'"{code}"' not in text, f"a spectator sees {code}"
    assert state.seed.hex() not in text
    seen = {s for s in strings_in(body) if s in CARD_CODES}
    assert seen == ({state.top_card.code} if state.top_card is not None else set())
    # Every public fact is the seats' own: a seat's observation agrees on each of them.
    for seat in range(state.seats):
        seat_body = observe(state, seat).to_json()
        for key in API_STATE_KEYS - {"you", "hand", "legal_moves"}:
            assert body[key] == seat_body[key], key
    permuted = permute_every_hand(state, rng)
    assert sorted(all_cards(permuted)) == sorted(all_cards(state))
    assert observe_public(permuted) == observation
    return permuted.hands != state.hands or permuted.stock != state.stock


def test_public_observation_has_no_field_for_hidden_cards() -> None:
    names = {f.name for f in fields(PublicObservation)}
    assert not names & {"hand", "hands", "stock", "seed", "pile", "legal_moves", "last_drawn"}


def test_public_observation_is_the_api_state_without_a_seat() -> None:
    state = deal_from_codes(
        ["7H JS 10C", "2D 3D", "4S"], top="6C", stock="9H 9D", turn=1, pending_sevens=0
    )
    assert observe_public(state).to_json() == {
        "you": None,
        "dealer": 2,
        "phase": "play",
        "turn": 1,
        "direction": 1,
        "hand": [],
        "hand_counts": [3, 2, 1],
        "top_card": "6C",
        "active_suit": "C",
        "pending_sevens": 0,
        "penalty_cards": 0,
        "draws_this_turn": 0,
        "stock_count": 2,
        "legal_moves": [],
    }


def test_a_visible_change_shows_in_the_public_observation() -> None:
    """Control for the invariance: a change in a count or in the top card does show."""
    state = deal_from_codes(["7H JS", "2D 3D", "4S"], top="6C", stock="9H 9D", turn=1)
    fewer = deal_from_codes(["7H JS", "2D", "4S"], top="6C", stock="3D 9H 9D", turn=1)
    other_top = deal_from_codes(["7H JS", "2D 3D", "4S"], top="6H", stock="9H 9D", turn=1)
    assert observe_public(fewer) != observe_public(state)
    assert observe_public(other_top) != observe_public(state)


def test_public_observations_along_seeded_playouts_leak_nothing() -> None:
    rng = random.Random("public-observation-playouts")
    positions = moved = 0
    for index in range(60):
        rules, seats, opener, seed = seeded_deal_parameters(index, rng)
        for step, (state, _legal) in enumerate(random_deal_states(rules, seats, opener, seed, rng)):
            if step % 3 and not state.is_over:
                continue
            moved += check_public(state, rng)
            positions += 1
    assert positions > 500
    assert moved > positions // 2  # the invariance was tested on real permutations


@settings(max_examples=scaled(100), deadline=None)
@given(
    setup=deal_setups(),
    steps=st.integers(min_value=0, max_value=250),
    choices=st.randoms(use_true_random=False),
)
def test_public_observation_properties_at_random_positions(
    setup: tuple[Rules, int, int, bytes], steps: int, choices: random.Random
) -> None:
    rules, seats, opener, seed = setup
    state = next(
        s
        for step, (s, legal) in enumerate(random_deal_states(rules, seats, opener, seed, choices))
        if step == steps or not legal
    )
    check_public(state, choices)
