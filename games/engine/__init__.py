"""Pis Yedili ("Dirty Seven"), the Turkish Crazy Eights: the rules engine.

Two to six players (seven by option) each get seven cards from a 52-card pack shuffled from a
committed seed. The opener must start with a club; then each player plays a card of the top
card's suit or rank, or a Jack (wild: it nominates a suit, never on another Jack), or draws.
Sevens make the next player draw three per pending seven unless they answer with a 7; an 8
skips, a 10 reverses, an Ace lets its player play once more. The first to empty their hand wins
the deal; the others score their cards' penalty values (times 3 after a winning 7, times 2 after
a Jack). Lowest match total wins. The exact rules, with ids R-1..R-32 and the options, are in
docs/rules.md; comments cite those ids.

The vocabulary follows OpenSpiel: `new_deal`, `legal_moves`, `apply`, `observe`, and the
result's `penalties`. State is an immutable value; randomness comes only from the seed.
"""

from .cards import PACK, RANKS, SUITS, Card, cards, hand_penalty
from .effects import EFFECT_KINDS, MoveEffect, move_effect
from .errors import EngineError, IllegalMove, InvalidMove, NotYourTurn, RulesError
from .legal import legal_moves
from .moves import DRAW_MOVE, PASS_MOVE, Move
from .observation import Observation, PublicObservation, observe, observe_public
from .rules import DEFAULT_RULES, Rules
from .scoring import match_is_over, match_needs_extra_deal, match_places, match_totals
from .shuffle import commitment, new_seed, shuffled_pack
from .state import (
    DealResult,
    State,
    all_cards,
    deal_from_codes,
    dealer_for,
    new_deal,
    opener_for_deal,
)
from .transitions import apply, apply_legal, replay

__all__ = [
    "DEFAULT_RULES",
    "DRAW_MOVE",
    "EFFECT_KINDS",
    "PACK",
    "PASS_MOVE",
    "RANKS",
    "SUITS",
    "Card",
    "DealResult",
    "EngineError",
    "IllegalMove",
    "InvalidMove",
    "Move",
    "MoveEffect",
    "NotYourTurn",
    "Observation",
    "PublicObservation",
    "Rules",
    "RulesError",
    "State",
    "all_cards",
    "apply",
    "apply_legal",
    "cards",
    "commitment",
    "deal_from_codes",
    "dealer_for",
    "hand_penalty",
    "legal_moves",
    "match_is_over",
    "match_needs_extra_deal",
    "match_places",
    "move_effect",
    "match_totals",
    "new_deal",
    "new_seed",
    "observe",
    "observe_public",
    "opener_for_deal",
    "replay",
    "shuffled_pack",
]
