"""Engine errors: malformed input (InvalidMove) is kept apart from moves the rules forbid now
(IllegalMove), as python-chess does."""

from __future__ import annotations

from typing import Any


class EngineError(Exception):
    """Base of every error the engine raises."""

    code = "engine_error"

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields


class RulesError(EngineError, ValueError):
    """An unknown rule option or a value the option does not take."""

    code = "invalid_rules"

    def __init__(self, option: str, value: Any, message: str) -> None:
        super().__init__(message, option=option, value=value)
        self.option = option
        self.value = value


class InvalidMove(EngineError, ValueError):
    """Input that is not a move at all: unknown action, bad card code, suit on a non-Jack."""

    code = "invalid_move"

    def __init__(self, message: str, field: str = "action") -> None:
        super().__init__(message, field=field)
        self.field = field


class NotYourTurn(EngineError):
    """A seat tried to act while another seat is on turn."""

    code = "not_your_turn"

    def __init__(self, seat: int, turn: int | None) -> None:
        super().__init__(f"seat {seat} is not on turn (turn: {turn})", seat=seat, turn=turn)
        self.seat = seat
        self.turn = turn


class IllegalMove(EngineError):
    """A well-formed move that the rules forbid in this position."""

    code = "illegal_move"

    def __init__(self, message: str, legal_moves: tuple[Any, ...] = ()) -> None:
        super().__init__(message, legal_moves=legal_moves)
        self.legal_moves = legal_moves
