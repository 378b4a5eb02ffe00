"""The bot value: a named policy over observations."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..history import LoggedMove
from ..moves import Move
from ..observation import Observation

# A policy answers for the observing seat from its observation and the deal's move log as that
# seat sees it (`history.seen_by`); a policy that does not read the log ignores it.
Policy = Callable[[Observation, random.Random, Sequence[LoggedMove]], Move]


@dataclass(frozen=True, slots=True)
class Bot:
    """A named strategy; `choose` answers for the seat whose observation it is given.

    `reads_history`: the policy reads the deal's move log as the seat sees it (`history`); a
    caller may leave the log out for the others (it costs a replay of the deal to build)."""

    name: str
    description: str
    policy: Policy
    reads_history: bool = False

    def choose(
        self,
        observation: Observation,
        rng: random.Random,
        history: Sequence[LoggedMove] = (),
    ) -> Move:
        """A legal move for the observing seat, which must be on turn; `history` is the deal's
        move log as that seat sees it (`history.seen_by`), from the deal's first move."""
        legal = observation.legal_moves
        if observation.turn != observation.you or not legal:
            raise ValueError(f"seat {observation.you} is not on turn; there is nothing to choose")
        if len(legal) == 1:
            return legal[0]  # a forced move needs no thought
        return self.policy(observation, rng, history)
