"""A deal's move log as one seat sees it: what a bot may read besides its observation.

The log of a deal lists every move with the public position it was made in (`before`, what
anyone at the table saw: the top card, the active suit, the pending sevens, the counts) and
the cards it took from the stock. A seat sees the cards of its own draws only; of another
seat's draw it sees how many cards were taken (`drawn_count`), as the API's move log shows
(docs/api.md). `seen_by(log, seat)` is that view; it holds no card the seat could not see, so a
bot reading it reads nothing of the other hands or the stock.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from .cards import Card
from .moves import DRAW, Move
from .observation import PublicObservation, observe_public
from .rules import Rules
from .state import State, new_deal
from .transitions import apply_legal


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """One move of a deal: `seat` played `move` in the public position `before`."""

    seat: int
    move: Move
    before: PublicObservation
    drawn_count: int = 0  # the cards the move took from the stock (a draw's, R-17, R-22)
    drawn: tuple[Card, ...] = ()  # those cards, where the viewer may see them


def logged_move(before: State, move: Move, after: State) -> LoggedMove:
    """The log entry of `move` played by the seat on turn in `before`, which led to `after`."""
    assert before.turn is not None
    drawn = after.last_drawn if move.action == DRAW else ()
    return LoggedMove(before.turn, move, observe_public(before), len(drawn), drawn)


def deal_log(
    rules: Rules, seats: int, opener: int, seed: bytes, moves: Iterable[Move]
) -> tuple[LoggedMove, ...]:
    """The full log of a deal (every draw's cards) from its seed and moves, as `replay` builds
    the deal; the moves are trusted to be legal (they were checked when they were played)."""
    state = new_deal(rules, seats, opener, seed)
    log: list[LoggedMove] = []
    for move in moves:
        after = apply_legal(state, move)
        log.append(logged_move(state, move, after))
        state = after
    return tuple(log)


def seen_by(log: Sequence[LoggedMove], seat: int) -> tuple[LoggedMove, ...]:
    """The log as `seat` sees it: the cards of another seat's draws left out, their count kept."""
    return tuple(
        entry if entry.seat == seat or not entry.drawn else replace(entry, drawn=())
        for entry in log
    )
