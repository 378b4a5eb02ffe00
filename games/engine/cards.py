"""Cards (R-1, R-2): a card is an int 0..51, index = suit·13 + rank, with its code as text."""

from __future__ import annotations

from collections.abc import Iterable

from .errors import InvalidMove

RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")

SEVEN, EIGHT, TEN, JACK, ACE = 5, 6, 8, 9, 12  # rank indices of the special cards
_PENALTY_BY_RANK: tuple[int, ...] = (2, 3, 4, 5, 6, 20, 8, 9, 10, 25, 10, 10, 15)


class Card(int):
    """One card of the 52-card pack; `Card.from_code("10H")` and `card.code` are paired codecs."""

    __slots__ = ()

    @classmethod
    def from_code(cls, code: str) -> Card:
        """Parse a card code case-insensitively (R-1); raise InvalidMove for anything else."""
        if not isinstance(code, str):
            raise InvalidMove(
                "card code must be a string, not %(code)r", {"code": code}, field="card"
            )
        card = _BY_CODE.get(code.strip().upper())
        if card is None:
            raise InvalidMove(
                "%(code)r is not a card code (e.g. 10H, JS, AC, 7D)", {"code": code}, field="card"
            )
        return card

    @property
    def rank(self) -> int:
        return int(self) % 13

    @property
    def suit_index(self) -> int:
        return int(self) // 13

    @property
    def suit(self) -> str:
        return SUITS[int(self) // 13]

    @property
    def code(self) -> str:
        return RANKS[int(self) % 13] + SUITS[int(self) // 13]

    @property
    def penalty(self) -> int:
        """Penalty value: J 25, 7 20, A 15, K 10, Q 10, others face value."""
        return _PENALTY_BY_RANK[int(self) % 13]

    @property
    def is_jack(self) -> bool:
        return int(self) % 13 == JACK

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __str__(self) -> str:
        return self.code


PACK: tuple[Card, ...] = tuple(Card(i) for i in range(52))  # canonical order, R-2
_BY_CODE: dict[str, Card] = {card.code: card for card in PACK}
_CODES: tuple[str, ...] = tuple(card.code for card in PACK)


def card(index_or_code: int | str) -> Card:
    """The interned Card for an index or a code."""
    if isinstance(index_or_code, str):
        return Card.from_code(index_or_code)
    return PACK[index_or_code]


def cards(codes: Iterable[str] | str) -> tuple[Card, ...]:
    """Cards from codes: `cards("7H JS 10C")` or `cards(["7H", "JS"])`."""
    if isinstance(codes, str):
        codes = codes.split()
    return tuple(Card.from_code(code) for code in codes)


def codes(hand: Iterable[int]) -> list[str]:
    return [_CODES[c] for c in hand]


def from_codes(stored: Iterable[str]) -> tuple[Card, ...]:
    """Cards from canonical codes, as `codes` writes them (stored states); KeyError otherwise."""
    return tuple(map(_BY_CODE.__getitem__, stored))


def suit_index(suit: str) -> int:
    return SUITS.index(suit)


def hand_penalty(hand: Iterable[int]) -> int:
    """Sum of the penalty values of a hand (R-30, R-31)."""
    return sum(_PENALTY_BY_RANK[c % 13] for c in hand)
