"""Scoring: the result of a deal from its final hands (R-28..R-31), shared by the reference
engine (`transitions`) and the fast path (`fast`), and match scoring (R-32): totals, places and
the extra-deal tie-break."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import JACK, SEVEN, Card
from .rules import Rules
from .state import SHED, STOCK_EXHAUSTED, DealResult


def shed_multiplier(card: Card) -> int:
    """R-31: 3 after a winning 7, 2 after a winning Jack, else 1."""
    rank = card.rank
    return 3 if rank == SEVEN else 2 if rank == JACK else 1


def shed_result(seat: int, card: Card, hand_penalties: tuple[int, ...]) -> DealResult:
    """R-28, R-31: `seat` went out with `card`; the others score multiplier × their hand."""
    multiplier = shed_multiplier(card)
    penalties = tuple(0 if s == seat else multiplier * p for s, p in enumerate(hand_penalties))
    return DealResult((seat,), SHED, card, multiplier, penalties, hand_penalties)


def stock_exhausted_result(hand_penalties: tuple[int, ...]) -> DealResult:
    """R-30: the lowest hand penalty wins and scores 0; the others score their hand penalty."""
    low = min(hand_penalties)
    winners = tuple(s for s, p in enumerate(hand_penalties) if p == low)
    penalties = tuple(0 if p == low else p for p in hand_penalties)
    return DealResult(winners, STOCK_EXHAUSTED, None, 1, penalties, hand_penalties)


def match_totals(deal_penalties: Sequence[Sequence[int]], seats: int) -> list[int]:
    """A player's match total is the sum of their deal scores."""
    totals = [0] * seats
    for penalties in deal_penalties:
        for seat, points in enumerate(penalties):
            totals[seat] += points
    return totals


def match_places(totals: Sequence[int]) -> list[int]:
    """Places by total, lowest first; equal totals share a place (1, 1, 3, …)."""
    return [1 + sum(1 for other in totals if other < mine) for mine in totals]


def match_needs_extra_deal(totals: Sequence[int], rules: Rules) -> bool:
    """R-32 option extra_deal: play on while the lowest total is shared."""
    if rules.match_tiebreak != "extra_deal":
        return False
    low = min(totals)
    return sum(1 for t in totals if t == low) > 1


def match_is_over(totals: Sequence[int], deals_played: int, rules: Rules) -> bool:
    return deals_played >= rules.deals_per_match and not match_needs_extra_deal(totals, rules)
