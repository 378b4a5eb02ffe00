"""Precomputed bitmask tables for the fast path (`fast.py`): a set of cards is a 52-bit int whose
bit `c` stands for card index `c = suit·13 + rank` (R-2).

The rule facts in them (legality, penalty values) are read off the reference modules once, at
import: `legal.can_play_on` and `Card.penalty`, so that the two engines cannot drift apart."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import ACE, EIGHT, JACK, PACK, SEVEN, SUITS, TEN
from .legal import can_play_on

ALL_CARDS: int = (1 << 52) - 1
SUIT_MASKS: tuple[int, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
RANK_MASKS: tuple[int, ...] = tuple(sum(1 << (13 * s + r) for s in range(4)) for r in range(13))
CLUBS: int = SUIT_MASKS[0]
JACKS: int = RANK_MASKS[JACK]
SEVENS: int = RANK_MASKS[SEVEN]
JACK_CARDS: tuple[int, ...] = tuple(13 * s + JACK for s in range(4))

# Rank kinds by the turn effect of a play (§7): 0 none (a Jack's nomination is not a turn
# effect), then 7, 8, 10, Ace.
KIND_PLAIN, KIND_SEVEN, KIND_EIGHT, KIND_TEN, KIND_ACE = 0, 1, 2, 3, 4
_KIND_BY_RANK = {SEVEN: KIND_SEVEN, EIGHT: KIND_EIGHT, TEN: KIND_TEN, ACE: KIND_ACE}
CARD_KIND: tuple[int, ...] = tuple(_KIND_BY_RANK.get(c % 13, KIND_PLAIN) for c in range(52))

# Penalty value by card (§1): J 25, 7 20, A 15, K 10, Q 10, others face value.
CARD_PENALTY: tuple[int, ...] = tuple(card.penalty for card in PACK)
_RANK_PENALTY: tuple[int, ...] = CARD_PENALTY[:13]  # the value does not depend on the suit
assert CARD_PENALTY == _RANK_PENALTY * 4  # RANKS_PENALTY and penalty_of rely on it


def _legal_on(top: int, active: int) -> int:
    """R-14, R-16: the mask of the cards playable on `top` with `active` suit (sevens aside)."""
    return sum(1 << c for c in range(52) if can_play_on(PACK[c], PACK[top], SUITS[active]))


# LEGAL_ON[top * 4 + active_suit_index]: the legality mask of a top card and active suit.
LEGAL_ON: tuple[int, ...] = tuple(_legal_on(i // 4, i % 4) for i in range(52 * 4))

BITS: tuple[int, ...] = tuple(1 << c for c in range(52))

# Lowest set bit -> card index: `BIT_INDEX[m & -m]` (faster than bit_length for single bits).
BIT_INDEX: dict[int, int] = {1 << c: c for c in range(52)}


def mask_of(cards: Iterable[int]) -> int:
    """The mask of an iterable of card indices."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def cards_of(mask: int) -> list[int]:
    """Card indices of a mask in canonical (ascending) order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(BIT_INDEX[low])
        mask ^= low
    return out


# Penalty of a set of ranks of one suit (13 bits): the penalty value does not depend on the suit.
RANKS_PENALTY: tuple[int, ...] = tuple(
    sum(_RANK_PENALTY[r] for r in range(13) if ranks >> r & 1) for ranks in range(1 << 13)
)


def penalty_of(mask: int) -> int:
    """Sum of the penalty values of the cards of a mask (R-30, R-31)."""
    return (
        RANKS_PENALTY[mask & 0x1FFF]
        + RANKS_PENALTY[mask >> 13 & 0x1FFF]
        + RANKS_PENALTY[mask >> 26 & 0x1FFF]
        + RANKS_PENALTY[mask >> 39]
    )


assert ACE == 12 and TEN == 8 and EIGHT == 6
