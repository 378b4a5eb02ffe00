"""What one seat may see: `observe(state, seat)` is the only way state reaches a player or a bot;
`observe_public(state)` is what anyone at no seat (a spectator) may see.

An observation holds the seat's own hand and public facts only: never another seat's cards, the
stock's cards or order, or the seed. A public observation has no field for any hand at all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import Card
from .legal import legal_moves
from .moves import Move
from .rules import Rules
from .state import State


@dataclass(frozen=True, slots=True)
class Observation:
    you: int
    dealer: int
    phase: str
    turn: int | None
    direction: int
    hand: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    top_card: Card | None
    active_suit: str | None
    pending_sevens: int
    penalty_cards: int
    draws_this_turn: int
    stock_count: int
    legal_moves: tuple[Move, ...]
    # Public history for bots: the face-up discard pile (oldest first) and the rules in force.
    pile: tuple[Card, ...]
    rules: Rules

    def to_json(self) -> dict[str, Any]:
        """The state fields of docs/api.md for this seat."""
        return {
            "you": self.you,
            "dealer": self.dealer,
            "phase": self.phase,
            "turn": self.turn,
            "direction": self.direction,
            "hand": [c.code for c in self.hand],
            "hand_counts": list(self.hand_counts),
            "top_card": self.top_card.code if self.top_card is not None else None,
            "active_suit": self.active_suit,
            "pending_sevens": self.pending_sevens,
            "penalty_cards": self.penalty_cards,
            "draws_this_turn": self.draws_this_turn,
            "stock_count": self.stock_count,
            "legal_moves": [m.to_json() for m in self.legal_moves],
        }


def penalty_cards(state: State) -> int:
    """R-22: the cards a draw takes now while sevens are pending; 0 when none are."""
    k = state.pending_sevens
    return state.rules.seven_penalty(k) if k else 0


def observe(state: State, seat: int) -> Observation:
    if not 0 <= seat < state.seats:
        raise ValueError(f"seat {seat} is not at this table of {state.seats}")
    return Observation(
        you=seat,
        dealer=state.dealer,
        phase=state.phase,
        turn=state.turn,
        direction=state.direction,
        hand=state.hands[seat],
        hand_counts=tuple(len(h) for h in state.hands),
        top_card=state.top_card,
        active_suit=state.active_suit,
        pending_sevens=state.pending_sevens,
        penalty_cards=penalty_cards(state),
        draws_this_turn=state.draws_this_turn,
        stock_count=len(state.stock),
        legal_moves=legal_moves(state) if state.turn == seat else (),
        pile=state.pile,
        rules=state.rules,
    )


@dataclass(frozen=True, slots=True)
class PublicObservation:
    """The public facts of a deal: counts, the face-up pile and whose turn it is. It has no
    field that could hold a hand, the stock or the seed, so none can leak through it."""

    dealer: int
    phase: str
    turn: int | None
    direction: int
    hand_counts: tuple[int, ...]
    top_card: Card | None
    active_suit: str | None
    pending_sevens: int
    penalty_cards: int
    draws_this_turn: int
    stock_count: int

    def to_json(self) -> dict[str, Any]:
        """The state fields of docs/api.md for a caller at no seat: `you` null, no hand and no
        legal move."""
        return {
            "you": None,
            "dealer": self.dealer,
            "phase": self.phase,
            "turn": self.turn,
            "direction": self.direction,
            "hand": [],
            "hand_counts": list(self.hand_counts),
            "top_card": self.top_card.code if self.top_card is not None else None,
            "active_suit": self.active_suit,
            "pending_sevens": self.pending_sevens,
            "penalty_cards": self.penalty_cards,
            "draws_this_turn": self.draws_this_turn,
            "stock_count": self.stock_count,
            "legal_moves": [],
        }


def observe_public(state: State) -> PublicObservation:
    return PublicObservation(
        dealer=state.dealer,
        phase=state.phase,
        turn=state.turn,
        direction=state.direction,
        hand_counts=tuple(len(h) for h in state.hands),
        top_card=state.top_card,
        active_suit=state.active_suit,
        pending_sevens=state.pending_sevens,
        penalty_cards=penalty_cards(state),
        draws_this_turn=state.draws_this_turn,
        stock_count=len(state.stock),
    )
