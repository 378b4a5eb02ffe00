"""Bots: engine-level players that choose a move from what their seat may know.

A bot is `bot.choose(observation, rng) -> Move`: it sees one `Observation` (its own hand, the
public counts, the face-up pile and the rules), never a `State`, and draws all its randomness
from `rng`, so a seeded `random.Random` makes its choice reproducible. Strategies:

- `random`: a uniformly random legal move.
- `greedy`: a hand-written heuristic (answer 7s, shed high penalties, hold Jacks, finish).
- `ismcts`: Monte Carlo search over determinizations of the unseen cards with greedy rollouts
  (flat with common random numbers by default; single-observer ISMCTS as an option).
"""

from __future__ import annotations

from .base import Bot, Policy
from .greedy import choose_greedy
from .ismcts import DESCRIPTION as ISMCTS_DESCRIPTION
from .ismcts import choose_ismcts
from .random_bot import choose_random

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
        Bot("ismcts", ISMCTS_DESCRIPTION, choose_ismcts),
    )
}


def get_bot(name: str) -> Bot:
    """The bot called `name`; KeyError naming the known bots otherwise."""
    try:
        return BOTS[name]
    except KeyError:
        raise KeyError(f"unknown bot {name!r}; known bots: {', '.join(BOTS)}") from None


__all__ = ["BOTS", "Bot", "Policy", "get_bot"]
