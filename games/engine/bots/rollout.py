"""The rollout policy of the search: the `greedy` heuristic on the fast path's bitmasks.

`rollout_action(deal, legal, tables)` is the choice of `greedy.greedy_move` for the seat on turn
of a `FastDeal` (tests hold the two equal on thousands of positions); it reads only that seat's
hand, the next seat's card count and the public counters, so it also answers for a position
that is not a whole deal (`TurnView`), as the inference's opponent model asks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..cards import ACE, JACK, PACK, SEVEN
from ..fast import ACE_FOLLOWUP_CODE, DRAW_ACTION, JACK_ACTION_BASE, OPENING_CODE, PASS_ACTION
from ..rules import Rules
from ..tables import CARD_PENALTY, JACKS, RANK_MASKS, SUIT_MASKS, penalty_of
from .greedy import ACE_BONUS, AGAIN_BONUS, ATTACK_BONUS, CLOSE_TO_OUT, SUIT_FOLLOW_WEIGHT, skips


class TurnView(Protocol):
    """What the rollout policy reads of a position (a `FastDeal` has all of it)."""

    turn: int
    hands: list[int]
    phase_code: int
    pending_sevens: int
    draws_this_turn: int
    direction: int
    seats: int


# --- the rollout policy: greedy's heuristic on bitmasks ---------------------------------------

_NON_JACK_SUITS = tuple(mask & ~JACKS for mask in SUIT_MASKS)
_NO_ATTACK = (0,) * 52
_ACE_FOLLOWERS = tuple((mask | RANK_MASKS[ACE]) & ~JACKS for mask in SUIT_MASKS)


@dataclass(frozen=True, slots=True)
class RolloutTables:
    """Per-card scores of the greedy rollout policy under one rules value and table size."""

    base: tuple[int, ...]  # penalty plus the bonus of a card that lets its player move again
    attack: tuple[int, ...]  # extra when the next player is close to going out
    ace_follow: bool  # R-25 follow_up: an Ace is worth more with a card to follow it

    @classmethod
    def build(cls, rules: Rules, seats: int) -> RolloutTables:
        base = []
        attack = []
        for card in range(52):
            rank = card % 13
            skip = skips(PACK[card], seats, rules)
            bonus = AGAIN_BONUS if skip and seats == 2 else 0
            if rank == ACE and rules.ace_mode == "extra_turn":
                bonus = ACE_BONUS  # as an Ace with a follow-up
            base.append(CARD_PENALTY[card] + bonus)
            attack.append(ATTACK_BONUS if skip or rank == SEVEN else 0)
        return cls(tuple(base), tuple(attack), rules.ace_mode == "follow_up")


def rollout_action(deal: TurnView, legal: tuple[int, ...], tables: RolloutTables) -> int:
    """The greedy choice among `legal` (at least two actions) for the seat on turn."""
    seat = deal.turn
    hand = deal.hands[seat]
    if legal[0] < DRAW_ACTION and not hand & (hand - 1):
        return legal[0]  # the last card wins
    phase = deal.phase_code
    if phase == OPENING_CODE:
        # shed the dearest club, keep J♣ (no effect in the opening).
        return max(legal, key=lambda a: -1 if a % 13 == JACK else CARD_PENALTY[a])
    if deal.pending_sevens:
        if legal[0] >= JACK_ACTION_BASE:
            return DRAW_ACTION
        # answer with the 7 of the suit held most of.
        return max(
            (a for a in legal if a < JACK_ACTION_BASE),
            key=lambda a: (hand & _NON_JACK_SUITS[a // 13]).bit_count(),
        )
    threat = deal.hands[(seat + deal.direction) % deal.seats].bit_count() <= CLOSE_TO_OUT
    base = tables.base
    attack = tables.attack if threat else _NO_ATTACK
    ace_follow = tables.ace_follow
    lengths = [-1, -1, -1, -1]  # the non-Jack cards held by suit, counted when first needed
    best = -1
    best_score = -1
    jacks = False
    for a in legal:
        if a >= JACK_ACTION_BASE:
            if a < DRAW_ACTION:
                jacks = True
            continue
        suit = a // 13
        length = lengths[suit]
        if length < 0:
            length = lengths[suit] = (hand & _NON_JACK_SUITS[suit]).bit_count()
        score = base[a] + SUIT_FOLLOW_WEIGHT * length + attack[a]
        if ace_follow and a % 13 == ACE and hand & ~(1 << a) & _ACE_FOLLOWERS[suit]:
            score += ACE_BONUS
        if score > best_score:
            best_score = score
            best = a
    if best >= 0:
        return best
    jack = -1
    if jacks:
        jack_score = -1
        for a in legal:
            if JACK_ACTION_BASE <= a < DRAW_ACTION:
                # nominate the suit held most of, then the dearest such suit.
                held = hand & _NON_JACK_SUITS[(a - JACK_ACTION_BASE) & 3]
                score = 1000 * held.bit_count() + penalty_of(held)
                if score > jack_score:
                    jack_score = score
                    jack = a
    can_pass = legal[-1] == PASS_ACTION
    can_draw = DRAW_ACTION in legal
    draws = deal.draws_this_turn
    if (
        jack >= 0
        and phase != ACE_FOLLOWUP_CODE
        and (not can_draw or draws or threat or hand.bit_count() <= 2)
    ):
        return jack  # the Jack as a last resort
    if can_draw and (not draws or not can_pass):
        return DRAW_ACTION
    if can_pass:
        return PASS_ACTION
    return jack if jack >= 0 else legal[0]
