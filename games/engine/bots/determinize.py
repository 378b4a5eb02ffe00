"""Determinization: a full `State` consistent with one seat's observation.

The seat knows its own hand and the face-up pile; every other card (52 − hand − pile) is
"unseen" and may lie in any other hand or in the stock. A determinization deals the unseen
cards uniformly at random to the other seats (as many as each holds) and to the stock (as many
as it holds, in random order), and keeps every public fact of the observation: phase, turn,
direction, active suit, pending sevens, draws this turn, pile and rules.

What the observation does not carry is approximated, and only matters in corner cases:
- `opened` (R-10, R-12): in the opening the seats play one club each in turn order from the
  opener, so the seats that have opened are exactly those from the opener up to (not including)
  the seat on turn; with `opener_only` that is none. After the opening only the opener has
  opened under `opener_only` and every seat under `club_round` (the engine no longer reads it).
- `actions` is set to 0 and `reshuffles` to 0: they only matter for the `max_actions` bound and
  the reshuffle message prefix of `stock_exhausted = reshuffle` (R-6, §9).
- The `seed` is fresh random bytes from `rng`: it is only used if a simulated deal reshuffles.
- Literal test positions (`deal_from_codes`) may hold fewer than 52 cards: the unseen cards
  beyond what the other hands and the stock hold are then left out of the sample.
- No inference is drawn from the play history (e.g. a seat that drew probably held no legal
  card): every arrangement of the unseen cards is equally likely.
"""

from __future__ import annotations

import random

from ..cards import PACK, Card
from ..observation import Observation
from ..state import OPENING, State


def unseen_cards(observation: Observation) -> list[Card]:
    """The cards the observing seat cannot see, in canonical order: 52 − own hand − pile."""
    seen = set(observation.hand)
    seen.update(observation.pile)
    return [card for card in PACK if card not in seen]


def opener_of(observation: Observation) -> int:
    """The opener is the seat left of the dealer (R-8)."""
    return (observation.dealer + 1) % len(observation.hand_counts)


def opened_seats(observation: Observation) -> tuple[bool, ...]:
    """Which seats have played their opening club (R-10, R-12), from public facts only."""
    seats = len(observation.hand_counts)
    opener = opener_of(observation)
    if observation.phase != OPENING or observation.turn is None:
        if observation.rules.opening == "club_round":
            return (True,) * seats
        return tuple(seat == opener for seat in range(seats))
    played = (observation.turn - opener) % seats
    return tuple((seat - opener) % seats < played for seat in range(seats))


def determinize(observation: Observation, rng: random.Random) -> State:
    """A random full state that the observing seat cannot tell apart from the real one."""
    unseen = unseen_cards(observation)
    counts = observation.hand_counts
    you = observation.you
    hidden_in_hands = sum(count for seat, count in enumerate(counts) if seat != you)
    if hidden_in_hands + observation.stock_count > len(unseen):
        raise ValueError("the observation holds more hidden cards than there are unseen cards")
    rng.shuffle(unseen)
    hands: list[tuple[Card, ...]] = []
    position = 0
    for seat, count in enumerate(counts):
        if seat == you:
            hands.append(observation.hand)
            continue
        hands.append(tuple(sorted(unseen[position : position + count])))
        position += count
    return State(
        rules=observation.rules,
        seats=len(counts),
        opener=opener_of(observation),
        seed=rng.randbytes(32),
        hands=tuple(hands),
        stock=tuple(unseen[position:]),
        pile=observation.pile,
        phase=observation.phase,
        turn=observation.turn,
        direction=observation.direction,
        active_suit=observation.active_suit,
        pending_sevens=observation.pending_sevens,
        draws_this_turn=observation.draws_this_turn,
        opened=opened_seats(observation),
    )
