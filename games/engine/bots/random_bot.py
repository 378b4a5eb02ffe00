"""The `random` bot: a uniformly random legal move (the baseline of the benchmarks)."""

from __future__ import annotations

import random

from ..moves import Move
from ..observation import Observation


def choose_random(observation: Observation, rng: random.Random) -> Move:
    return rng.choice(observation.legal_moves)
