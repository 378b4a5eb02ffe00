"""The `greedy` bot: a one-ply heuristic that any club player would recognise.

- Finish with the last card whenever it plays (R-28).
- In the opening play the highest-penalty club, a J♣ only if nothing else (R-10, R-11).
- With pending sevens answer with a 7 (R-22), else take the penalty.
- Otherwise shed the highest-penalty non-Jack card, preferring cards of a suit it holds more of
  (so it can follow up), Aces it can follow (R-25), 8s that give it another turn with two seats
  (R-24), and 7s and 8s when the next player is close to going out (R-21, R-24).
- Hold Jacks (R-19) for when nothing else plays; then nominate the suit it holds most of.
- Draw only when nothing good plays, and after a draw pass when still nothing plays (R-17).

The heuristic is a pure function of the seat's hand and public facts (`greedy_move`), shared
by the bot and the rollouts of `ismcts`, whose bitmask twin (`ismcts.rollout_action`) reads its
constants and `skips` from here.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..cards import ACE, EIGHT, JACK, SEVEN, SUITS, TEN, Card
from ..history import LoggedMove
from ..moves import DRAW, PASS, PLAY, Move
from ..observation import Observation
from ..rules import Rules
from ..state import ACE_FOLLOWUP, OPENING

CLOSE_TO_OUT = 2  # the next player is "close to going out" with this many cards or fewer
ATTACK_BONUS = 30  # a 7 or a skip when the next player is close to going out
SUIT_FOLLOW_WEIGHT = 2  # per other non-Jack card held of the played card's suit
AGAIN_BONUS = 6  # a card after which the same seat moves again (8 with two seats, Ace)
ACE_BONUS = AGAIN_BONUS + 2  # an Ace with a card to follow it, or a full extra turn


def skips(card: Card, seats: int, rules: Rules) -> bool:
    """Whether playing `card` makes the next player miss their turn (R-24, R-25, R-26)."""
    rank = card.rank
    if rank == EIGHT:
        return True
    if rank == TEN:
        return seats == 2 and rules.two_player_reverse == "skip"
    if rank == ACE:
        return rules.ace_mode == "skip_next"
    return False


def _play_score(
    card: Card, hand: Sequence[Card], next_count: int, seats: int, rules: Rules
) -> float:
    suit = card.suit_index
    rank = card.rank
    rest = [c for c in hand if c != card and c.rank != JACK]
    score: float = card.penalty
    score += SUIT_FOLLOW_WEIGHT * sum(1 for c in rest if c.suit_index == suit)
    threat = next_count <= CLOSE_TO_OUT
    if rank == SEVEN and threat:
        score += ATTACK_BONUS  # make them draw instead of finishing
    if skips(card, seats, rules):
        if threat:
            score += ATTACK_BONUS  # they miss their turn
        if seats == 2:
            score += AGAIN_BONUS  # R-24: with two players the 8's player moves again
    # an Ace is worth more when another card can follow it.
    if rank == ACE and (
        rules.ace_mode == "extra_turn"
        or (
            rules.ace_mode == "follow_up"
            and any(c.suit_index == suit or c.rank == ACE for c in rest)
        )
    ):
        score += ACE_BONUS
    return score


def best_suit(hand: Sequence[Card], suits: Sequence[str], jack: Card | None = None) -> str:
    """The suit (among `suits`) the hand holds most non-Jack cards of, then most penalty."""

    def weight(suit: str) -> tuple[int, int]:
        held = [c for c in hand if c != jack and c.rank != JACK and c.suit == suit]
        return len(held), sum(c.penalty for c in held)

    return max(suits, key=weight)


def greedy_move(
    legal: Sequence[Move],
    hand: Sequence[Card],
    *,
    phase: str,
    pending_sevens: int,
    draws_this_turn: int,
    next_count: int,
    seats: int,
    rules: Rules,
) -> Move:
    """The greedy choice among `legal` for the seat holding `hand`."""
    if len(legal) == 1:
        return legal[0]
    plays = [m for m in legal if m.action == PLAY]
    can_draw = any(m.action == DRAW for m in legal)
    can_pass = any(m.action == PASS for m in legal)
    if plays and len(hand) == 1:
        return plays[0]  # the last card wins the deal
    if phase == OPENING:
        if plays:
            # the opening club has no effect; shed the dearest, keep J♣ as a wild.
            return max(
                plays, key=lambda m: (m.card is not None and m.card.rank != JACK, _penalty(m))
            )
        return legal[0]
    if pending_sevens:
        if plays:
            # answer with the 7 of the suit we can best follow on.
            return max(plays, key=lambda m: _suit_count(hand, m))
        return next(m for m in legal if m.action == DRAW)
    non_jacks = [m for m in plays if m.card is not None and m.card.rank != JACK]
    if non_jacks:
        return max(
            non_jacks,
            key=lambda m: _play_score(_card(m), hand, next_count, seats, rules),
        )
    jacks = [m for m in plays if m not in non_jacks]
    # a Jack is the last resort, but better than drawing once we have drawn, when drawing
    # is not allowed, or when the race is close; in an Ace follow-up it is kept (pass).
    if (
        jacks
        and phase != ACE_FOLLOWUP
        and (not can_draw or draws_this_turn >= 1 or next_count <= CLOSE_TO_OUT or len(hand) <= 2)
    ):
        return _best_jack(jacks, hand)
    if can_draw and (draws_this_turn == 0 or not can_pass):
        return next(m for m in legal if m.action == DRAW)
    if can_pass:
        return next(m for m in legal if m.action == PASS)
    return _best_jack(jacks, hand) if jacks else legal[0]


def _card(move: Move) -> Card:
    assert move.card is not None
    return move.card


def _penalty(move: Move) -> int:
    return move.card.penalty if move.card is not None else 0


def _suit_count(hand: Sequence[Card], move: Move) -> tuple[int, int]:
    """The other non-Jack cards held of the move's suit (a Jack follows any suit), then its
    penalty."""
    card = _card(move)
    held = sum(1 for c in hand if c != card and c.rank != JACK and c.suit == card.suit)
    return held, card.penalty


def _best_jack(jacks: Sequence[Move], hand: Sequence[Card]) -> Move:
    """R-19: nominate the suit held most of; among equal Jacks, the first."""
    jack = _card(jacks[0])
    suits = [m.suit for m in jacks if m.card == jack and m.suit is not None]
    if not suits:
        return jacks[0]
    suit = best_suit(hand, [s for s in SUITS if s in suits], jack)
    return next(m for m in jacks if m.card == jack and m.suit == suit)


def next_seat_count(observation: Observation) -> int:
    seats = len(observation.hand_counts)
    return observation.hand_counts[(observation.you + observation.direction) % seats]


def choose_greedy(
    observation: Observation, rng: random.Random, history: Sequence[LoggedMove] = ()
) -> Move:
    """The greedy bot's policy; deterministic, so `rng` is not used, nor is the move log."""
    del rng, history
    return greedy_move(
        observation.legal_moves,
        observation.hand,
        phase=observation.phase,
        pending_sevens=observation.pending_sevens,
        draws_this_turn=observation.draws_this_turn,
        next_count=next_seat_count(observation),
        seats=len(observation.hand_counts),
        rules=observation.rules,
    )
