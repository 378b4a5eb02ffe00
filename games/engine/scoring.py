"""Match scoring (R-32): totals, places and the extra-deal tie-break. Deal scores (R-28..R-31)
are computed where the deal ends, in `transitions`."""

from __future__ import annotations

from collections.abc import Sequence

from .rules import Rules


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
