"""Luck and move analysis of a deal: expected deal scores and luck from the start of a deal, the
luck of every chance event of a finished deal with its luck-adjusted score (`deal_luck`, and
`deal_skill`, the same score from the effect of the decisions), and the values and verdicts of
one seat's moves from its observation only.

The implementation is `games.engine.bots.analysis` (Monte Carlo over seeded `random`, which the
engine outside the bots never imports, R-3); see its docstring for the estimates, the sign of
luck and the `inaccuracy` / `mistake` / `blunder` thresholds.
"""

from __future__ import annotations

from .bots.analysis import (
    BLUNDER,
    DEFAULT_K,
    DEFAULT_LUCK_K,
    DEFAULT_SKILL_K,
    INACCURACY,
    MISTAKE,
    PRIOR_K,
    PRIOR_SEED,
    REFERENCE_BOT,
    SIGNIFICANCE_Z,
    Budget,
    BudgetExceeded,
    ChanceEvent,
    DealLuck,
    DealSkill,
    DecisionEffect,
    ExpectedScores,
    MoveAnalysis,
    classify,
    deal_luck,
    deal_move_analysis,
    deal_skill,
    expected_deal_scores,
    move_values,
    scaled_k,
    simulated_deals,
)

__all__ = [
    "BLUNDER",
    "DEFAULT_K",
    "DEFAULT_LUCK_K",
    "DEFAULT_SKILL_K",
    "INACCURACY",
    "MISTAKE",
    "PRIOR_K",
    "PRIOR_SEED",
    "REFERENCE_BOT",
    "SIGNIFICANCE_Z",
    "Budget",
    "BudgetExceeded",
    "ChanceEvent",
    "DealLuck",
    "DealSkill",
    "DecisionEffect",
    "ExpectedScores",
    "MoveAnalysis",
    "classify",
    "deal_luck",
    "deal_move_analysis",
    "deal_skill",
    "expected_deal_scores",
    "move_values",
    "scaled_k",
    "simulated_deals",
]
