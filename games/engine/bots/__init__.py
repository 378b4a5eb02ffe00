"""Bots: engine-level players that choose a move from what their seat may know.

A bot is `bot.choose(observation, rng) -> Move`: it sees one `Observation` (its own hand, the
public counts, the face-up pile and the rules), never a `State`, and draws all its randomness
from `rng`, so a seeded `random.Random` makes its choice reproducible. Strategies:

- `random`: a uniformly random legal move.
- `greedy`: a hand-written heuristic (answer 7s, shed high penalties, hold Jacks, finish).
- `ismcts`: Monte Carlo search over determinizations of the unseen cards with greedy rollouts
  (flat with common random numbers by default; single-observer ISMCTS as an option).

Levels players can choose (weakest first, `LEVELS`): `random`, `greedy`, then the search at
four named budgets `ismcts-1` … `ismcts-4` (rollouts per decision with two seats, see
`SearchConfig.iterations`; more budget, stronger and slower). `ismcts` is kept as an alias of
`ismcts-4`, the default budget, so existing matches and tests keep their bot. Each level's
rating, measured by self-play with bench/bots.py, is in `levels.json` (`level_ratings()`).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from .base import Bot, Policy
from .greedy import choose_greedy
from .ismcts import DEFAULT_CONFIG, choose_ismcts, ismcts_policy
from .ismcts import DESCRIPTION as ISMCTS_DESCRIPTION
from .random_bot import choose_random

# Rollouts per decision (two seats) of each named search level: about 4× apart, so each level
# costs about 3-4× the time of the one below (bench/bots.py prints the time per move).
ISMCTS_LEVELS: dict[str, int] = {
    "ismcts-1": 100,
    "ismcts-2": 400,
    "ismcts-3": 1500,
    "ismcts-4": DEFAULT_CONFIG.iterations,
}
ISMCTS_ALIAS = "ismcts-4"  # what the name `ismcts` plays
LEVELS: tuple[str, ...] = ("random", "greedy", *ISMCTS_LEVELS)
LEVELS_FILE = Path(__file__).with_name("levels.json")


def _level_bot(name: str, iterations: int) -> Bot:
    config = replace(DEFAULT_CONFIG, iterations=iterations)
    policy = choose_ismcts if config == DEFAULT_CONFIG else ismcts_policy(config)
    return Bot(name, f"{ISMCTS_DESCRIPTION} Budget: {iterations} rollouts per decision.", policy)


BOTS: dict[str, Bot] = {
    bot.name: bot
    for bot in (
        Bot("random", "Plays a uniformly random legal move.", choose_random),
        Bot(
            "greedy",
            "Answers sevens, sheds high-penalty cards first, holds Jacks for when nothing else"
            " plays, attacks with 7s and 8s when the next player is close to going out.",
            choose_greedy,
        ),
        *(_level_bot(name, iterations) for name, iterations in ISMCTS_LEVELS.items()),
        Bot("ismcts", f"{ISMCTS_DESCRIPTION} Same as {ISMCTS_ALIAS}.", choose_ismcts),
    )
}


def get_bot(name: str) -> Bot:
    """The bot called `name`; KeyError naming the known bots otherwise."""
    try:
        return BOTS[name]
    except KeyError:
        raise KeyError(f"unknown bot {name!r}; known bots: {', '.join(BOTS)}") from None


def level_ratings() -> dict[str, Any]:
    """The self-play ratings of `LEVELS` as measured by bench/bots.py (`levels.json`)."""
    body: dict[str, Any] = json.loads(LEVELS_FILE.read_text(encoding="utf-8"))
    return body


__all__ = ["BOTS", "ISMCTS_LEVELS", "LEVELS", "Bot", "Policy", "get_bot", "level_ratings"]
