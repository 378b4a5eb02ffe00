"""Helpers shared by the per-rule scenario tests: moves and hands written as card codes."""

from __future__ import annotations

from games.engine import Card, Move, State


def play(code: str, suit: str | None = None) -> Move:
    return Move.play(Card.from_code(code), suit)


def jack(code: str, suits: str = "CDHS") -> tuple[Move, ...]:
    return tuple(play(code, suit) for suit in suits)


def hand(state: State, seat: int) -> list[str]:
    return [c.code for c in state.hands[seat]]


def stock(state: State) -> list[str]:
    return [c.code for c in state.stock]
