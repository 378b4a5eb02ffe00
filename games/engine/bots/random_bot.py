"""The `random` bot: a uniformly random legal move (the baseline of the benchmarks)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..history import LoggedMove
from ..moves import Move
from ..observation import Observation


def choose_random(
    observation: Observation, rng: random.Random, history: Sequence[LoggedMove] = ()
) -> Move:
    del history
    return rng.choice(observation.legal_moves)
