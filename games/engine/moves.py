"""Actions of docs/rules.md §10 as small values with a JSON form (`Move.from_json`, `to_json`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import SUITS, Card
from .errors import InvalidMove

PLAY, DRAW, PASS = "play", "draw", "pass"
ACTIONS = (PLAY, DRAW, PASS)


@dataclass(frozen=True, slots=True)
class Move:
    """`play {card, suit?}`, `draw` or `pass`. `suit` is the nomination of a Jack."""

    action: str
    card: Card | None = None
    suit: str | None = None

    @classmethod
    def play(cls, card: Card, suit: str | None = None) -> Move:
        return cls(PLAY, card, suit)

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Move:
        """Parse a move object; InvalidMove when it is not a move at all (R-1, §10).

        Whether a Jack needs its suit depends on the phase (none in the opening), so that is
        a question of legality, not of form: only a suit on a non-Jack is malformed here.
        """
        if not isinstance(body, Mapping):
            raise InvalidMove("a move is an object with an action", field="action")
        action = body.get("action")
        if action not in ACTIONS:
            raise InvalidMove(
                "action must be one of play, draw, pass, not %(action)r",
                {"action": action},
                field="action",
            )
        card_code = body.get("card")
        suit = body.get("suit")
        if action != PLAY:
            if card_code is not None:
                raise InvalidMove("%(action)s takes no card", {"action": action}, field="card")
            if suit is not None:
                raise InvalidMove("%(action)s takes no suit", {"action": action}, field="suit")
            return DRAW_MOVE if action == DRAW else PASS_MOVE
        if card_code is None:
            raise InvalidMove("play needs a card", field="card")
        card = Card.from_code(card_code)
        if suit is None:
            return cls(PLAY, card)
        if not isinstance(suit, str) or suit.strip().upper() not in SUITS:
            raise InvalidMove(
                "suit must be one of C, D, H, S, not %(suit)r", {"suit": suit}, field="suit"
            )
        if not card.is_jack:
            raise InvalidMove(
                "only a Jack nominates a suit, not %(card)s", {"card": card.code}, field="suit"
            )
        return cls(PLAY, card, suit.strip().upper())

    def to_json(self) -> dict[str, str]:
        body = {"action": self.action}
        if self.card is not None:
            body["card"] = self.card.code
        if self.suit is not None:
            body["suit"] = self.suit
        return body

    def __str__(self) -> str:
        if self.action != PLAY or self.card is None:
            return self.action
        return f"play {self.card.code}" + (f" {self.suit}" if self.suit else "")


DRAW_MOVE = Move(DRAW)
PASS_MOVE = Move(PASS)
