"""The bot value: a named policy over observations."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ..moves import Move
from ..observation import Observation

Policy = Callable[[Observation, random.Random], Move]


@dataclass(frozen=True, slots=True)
class Bot:
    """A named strategy; `choose` answers for the seat whose observation it is given."""

    name: str
    description: str
    policy: Policy

    def choose(self, observation: Observation, rng: random.Random) -> Move:
        """A legal move for the observing seat, which must be on turn."""
        legal = observation.legal_moves
        if observation.turn != observation.you or not legal:
            raise ValueError(f"seat {observation.you} is not on turn; there is nothing to choose")
        if len(legal) == 1:
            return legal[0]  # a forced move needs no thought
        return self.policy(observation, rng)
