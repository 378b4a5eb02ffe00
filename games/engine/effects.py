"""What a move did: `move_effect(before, move, after)`, the rule that applied to it, as the move
log tells it (docs/api.md move `effect`), so that no client works a rule out for itself.

An effect names public facts only: the card played is face up, a nominated suit is announced,
and the cards a penalty draw takes are counted, never shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import ACE, EIGHT, JACK, SEVEN, TEN
from .moves import DRAW, PASS, Move
from .observation import penalty_cards
from .state import OPENING, State

# The kinds of effect, one per move (docs/api.md `effect.kind`).
EFFECT_KINDS = (
    "none",  # a plain card, a draw, a pass; a 10 between two players
    "opening",  # an opening club: no effect
    "shed",  # the player's last card: the deal is over, no effect applies
    "seven",  # a 7: the next player answers with a 7 or draws `cards`
    "skip",  # an 8, an Ace as an 8, a two-player 10 as an 8: `seat` misses a turn (R-24..R-26)
    "reverse",  # a 10: the direction flips
    "suit",  # a Jack: `suit` is asked for
    "again",  # an Ace: its player plays once more
    "penalty",  # a draw that took the sevens' penalty of `cards` cards (R-22, R-23)
)


@dataclass(frozen=True, slots=True)
class MoveEffect:
    """`kind` (EFFECT_KINDS); `seat` the seat skipped; `suit` the suit a Jack asked for;
    `cards` the cards of a seven's penalty (to draw after a 7, drawn by a penalty draw)."""

    kind: str = "none"
    seat: int | None = None
    suit: str | None = None
    cards: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "suit": self.suit, "cards": self.cards}


_NO_EFFECT = MoveEffect()


def move_effect(before: State, move: Move, after: State) -> MoveEffect:
    """The effect of `move`, played by the seat on turn in `before`, which led to `after`."""
    seat = before.turn
    assert seat is not None
    rules = before.rules
    if move.action == DRAW:
        cards = penalty_cards(before)
        return MoveEffect("penalty", cards=cards) if cards else _NO_EFFECT
    if move.action == PASS or move.card is None:
        return _NO_EFFECT
    if not after.hands[seat]:
        return MoveEffect("shed")
    if after.is_over:
        return _NO_EFFECT  # §9: the action limit ended the deal on this play
    if before.phase == OPENING:
        return MoveEffect("opening")
    rank = move.card.rank
    if rank == SEVEN:
        return MoveEffect("seven", cards=penalty_cards(after))
    if rank == JACK:
        return MoveEffect("suit", suit=after.active_suit)
    skipped = (seat + before.direction) % before.seats
    if rank == EIGHT:
        return MoveEffect("skip", seat=skipped)
    if rank == TEN:
        if before.seats > 2:
            return MoveEffect("reverse")
        if rules.two_player_reverse == "skip":
            return MoveEffect("skip", seat=skipped)  # R-26 option: as an 8
        return _NO_EFFECT  # no effect with two
    if rank == ACE:
        if rules.ace_mode == "skip_next":
            return MoveEffect("skip", seat=skipped)  # R-25 option: as an 8
        return MoveEffect("again")  # follow_up, extra_turn
    return _NO_EFFECT
