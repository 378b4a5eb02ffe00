"""Engine errors: malformed input (InvalidMove) is kept apart from moves the rules forbid now
(IllegalMove), as python-chess does.

Each error carries its English message as a template with named slots (`template`, `params`;
`message` is the two joined), so that the API can say it in the caller's language
(pisyedili_api.errors.engine_message) while the engine knows nothing of translations."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

# The longest a value sent by a client is shown in a message (a 10,000-character card code
# is not sent back whole, twice).
SHOWN_MAX = 40


class _Shown:
    """A value a client sent, as a message shows it (`%(name)r`): a string in single quotes
    (`'XX'`: the message is itself a JSON string), anything else as its JSON text (`null`,
    `true`, `["play"]`, `{"a": 1}`); cut to SHOWN_MAX characters."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        if isinstance(self.value, str):
            return shown_cut(repr(self.value))
        return shown_text(self.value)


def shown_cut(text: str) -> str:
    """`text` as a message shows what a client sent: at most SHOWN_MAX characters, the last an
    ellipsis where it was cut."""
    return text if len(text) <= SHOWN_MAX else text[: SHOWN_MAX - 1] + "…"


def shown_text(value: Any) -> str:
    """A value a client sent, for a message that quotes it itself: a string as it is, anything
    else as its JSON text (`true`, `["a"]`), cut as shown_cut cuts it."""
    if isinstance(value, str):
        return shown_cut(value)
    return shown_cut(json.dumps(value, ensure_ascii=False, default=repr))


@functools.cache
def _shown_in(template: str) -> frozenset[str]:
    """The parameters `template` shows as `%(name)r`."""
    return frozenset(re.findall(r"%\((\w+)\)r", template))


class EngineError(Exception):
    """Base of every error the engine raises."""

    code = "engine_error"

    def __init__(
        self, template: str, params: Mapping[str, Any] | None = None, **fields: Any
    ) -> None:
        self.template = template
        shown = _shown_in(template)
        self.params = {
            name: _Shown(value) if name in shown else value
            for name, value in (params or {}).items()
        }
        self.message = template % self.params if self.params else template
        super().__init__(self.message)
        self.fields = fields


class RulesError(EngineError, ValueError):
    """An unknown rule option or a value the option does not take."""

    code = "invalid_rules"

    def __init__(
        self, option: str, value: Any, template: str, params: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(template, params, option=option, value=value)
        self.option = option
        self.value = value


class InvalidMove(EngineError, ValueError):
    """Input that is not a move at all: unknown action, bad card code, suit on a non-Jack."""

    code = "invalid_move"

    def __init__(
        self, template: str, params: Mapping[str, Any] | None = None, *, field: str = "action"
    ) -> None:
        super().__init__(template, params, field=field)
        self.field = field


class NotYourTurn(EngineError):
    """A seat tried to act while another seat is on turn."""

    code = "not_your_turn"

    def __init__(self, seat: int, turn: int | None) -> None:
        super().__init__(
            "seat %(seat)s is not on turn (turn: %(turn)s)",
            {"seat": seat, "turn": turn},
            seat=seat,
            turn=turn,
        )
        self.seat = seat
        self.turn = turn


class IllegalMove(EngineError):
    """A well-formed move that the rules forbid in this position."""

    code = "illegal_move"

    def __init__(
        self,
        template: str,
        params: Mapping[str, Any] | None = None,
        *,
        legal_moves: tuple[Any, ...] = (),
        rule: str | None = None,
    ) -> None:
        super().__init__(template, params, legal_moves=legal_moves, rule=rule)
        self.legal_moves = legal_moves
        # The rule of docs/rules.md that forbids the move (R-10 …), where one rule says why.
        self.rule = rule
