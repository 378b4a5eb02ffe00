"""Bots: engine-level players that choose a move from what their seat may know.

A bot is `bot.choose(observation, rng, history) -> Move`: it sees one `Observation` (its own
hand, the public counts, the face-up pile and the rules) and the deal's move log as its seat
sees it (`history.seen_by`: the cards of its own draws, the count of the others'), never a
`State`, and draws all its randomness from `rng`, so a seeded `random.Random` makes its choice
reproducible. `bot.reads_history` says whether it reads the log (a caller may leave the log out
for the others). Strategies:

- `random`: a uniformly random legal move.
- `greedy`: a hand-written heuristic (answer 7s, shed high penalties, hold Jacks, finish).
- `ismcts`: Monte Carlo search over determinizations of the unseen cards with greedy rollouts
  (flat with common random numbers by default; single-observer ISMCTS as an option), the
  unseen cards dealt uniformly; `ismcts-1` … `ismcts-4` the same at four budgets.
- the search reading the move log (`inference`): its samples agree with every fact the play
  showed, and weigh each other seat's choices as greedy's (`opponent`).

Levels players choose from (weakest first, `LEVELS`), each measured against the one below in
paired deals (bench/bots.py --levels; levels.json says which steps the deals showed):
`random`; `beginner`, greedy that plays a random legal move a third of the time; `casual`,
greedy itself (`greedy` plays it too); `strong`, a small search with the facts of the log and
the opponent model that keeps greedy's move unless another is surely better; `expert`, the same
reading, heads-up under a search tree over the whole deal (single-observer ISMCTS, which plans
its own later moves where the flat search plays them greedily), at larger tables a larger flat
search that leaves greedy's move when another leads it by two standard errors, with a sampler
that redraws one hand at a time. Each level's rating and CPU per decision, measured by
bench/bots.py --levels, are in `levels.json` (`level_ratings()`); `LEVEL_OF` names the level
each strategy plays.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..history import LoggedMove
from ..moves import Move
from ..observation import Observation
from .base import Bot, Policy
from .greedy import choose_greedy
from .inference import GREEDY
from .ismcts import DEFAULT_CONFIG, SearchConfig, choose_ismcts, ismcts_policy
from .ismcts import DESCRIPTION as ISMCTS_DESCRIPTION
from .random_bot import choose_random

# Rollouts per decision (two seats) of each named budget of the uninformed search: about 4×
# apart, so each costs about 3-4× the time of the one below (bench/bots.py prints the time).
ISMCTS_LEVELS: dict[str, int] = {
    "ismcts-1": 100,
    "ismcts-2": 400,
    "ismcts-3": 1500,
    "ismcts-4": DEFAULT_CONFIG.iterations,
}
ISMCTS_ALIAS = "ismcts-4"  # what the name `ismcts` plays

BEGINNER_SLIPS = 1 / 3  # the beginner's chance of a uniformly random legal move
# The search levels' settings (bench/bots.py measured them; see levels.json): strong plays
# greedy's move unless another's mean is ahead by three tenths of a win (keep_margin: at a tenth
# it left greedy's move as often as the flat expert and played as well); a race stops on
# candidates within a penalty point or two (race_margin), and a point of deal score counts
# 1/200 of a deal's win (penalty_scale), as in the search's reward. The expert, at two seats,
# searches a tree over its samples (algorithm "tree": each iteration deals a sample, walks the
# moves tried so far by UCB1, each seat's by its own reward, then plays greedy to the end), which
# plans its own later moves where the flat search plays them as greedy. At three seats or more
# it searches flat (the tree took three times the CPU there and won no more), keeps its rollouts
# at any table size (most races end well before the budget), keeps greedy's move unless another
# leads it by two standard errors of their paired difference (keep_z), and samples the hidden
# hands by a Gibbs chain over the seats (two steps a seat a sample), which mixes where the one
# chain over all hands does not.
STRONG_CONFIG = SearchConfig(
    iterations=200,
    facts=GREEDY,
    miss=0.05,
    race_margin=0.02,
    penalty_scale=200,
    keep_margin=0.3,
)
EXPERT_CONFIG = SearchConfig(  # two seats
    iterations=700,
    algorithm="tree",
    facts=GREEDY,
    miss=0.05,
    penalty_scale=200,
    gibbs=2,
)
EXPERT_TABLE_CONFIG = SearchConfig(  # three seats or more
    iterations=600,
    seat_scaled=False,
    facts=GREEDY,
    miss=0.05,
    race_margin=0.02,
    penalty_scale=200,
    keep_z=2.0,
    gibbs=2,
)

LEVELS: tuple[str, ...] = ("random", "beginner", "casual", "strong", "expert")
# The search levels' configs (the expert's heads-up one; EXPERT_TABLE_CONFIG at larger tables).
LEVEL_CONFIGS: dict[str, SearchConfig] = {"strong": STRONG_CONFIG, "expert": EXPERT_CONFIG}
# The level each strategy plays (a level plays itself; greedy plays casual; the uninformed
# searches `ismcts`, `ismcts-1` … `ismcts-4` are no level).
LEVEL_OF: dict[str, str] = {**{name: name for name in LEVELS}, "greedy": "casual"}
LEVELS_FILE = Path(__file__).with_name("levels.json")


def choose_beginner(
    observation: Observation, rng: random.Random, history: Sequence[LoggedMove] = ()
) -> Move:
    """Greedy, but a uniformly random legal move with chance BEGINNER_SLIPS."""
    if rng.random() < BEGINNER_SLIPS:
        return choose_random(observation, rng, history)
    return choose_greedy(observation, rng, history)


def level_config(level: str, seats: int) -> SearchConfig:
    """The search config the search `level` plays at a table of `seats`: its LEVEL_CONFIGS
    one, but the expert's EXPERT_TABLE_CONFIG at three seats or more."""
    if level == "expert" and seats > 2:
        return EXPERT_TABLE_CONFIG
    return LEVEL_CONFIGS[level]


_expert_heads_up = ismcts_policy(level_config("expert", 2))
_expert_table = ismcts_policy(level_config("expert", 3))


def choose_expert(
    observation: Observation, rng: random.Random, history: Sequence[LoggedMove] = ()
) -> Move:
    """The expert level: the search of `level_config("expert", seats)`, the tree of
    EXPERT_CONFIG at two seats, the flat search of EXPERT_TABLE_CONFIG at three or more."""
    heads_up = len(observation.hand_counts) == 2
    return (_expert_heads_up if heads_up else _expert_table)(observation, rng, history)


def _level_bot(name: str, iterations: int) -> Bot:
    config = replace(DEFAULT_CONFIG, iterations=iterations)
    policy = choose_ismcts if config == DEFAULT_CONFIG else ismcts_policy(config)
    return Bot(name, f"{ISMCTS_DESCRIPTION} Budget: {iterations} rollouts per decision.", policy)


GREEDY_DESCRIPTION = (
    "Answers sevens, sheds high-penalty cards first, holds Jacks for when nothing else plays,"
    " attacks with 7s and 8s when the next player is close to going out."
)
INFERENCE_DESCRIPTION = (
    "Monte Carlo search over the unseen cards, dealt consistently with every fact the play so"
    " far showed: a player who drew, passed or took the penalty held nothing that plays (a"
    " Jack aside), one who played a Jack nothing else; every candidate move is played out on"
    " the same samples with fast greedy rollouts."
)

BOTS: dict[str, Bot] = {
    bot.name: bot
    for bot in (
        Bot("random", "Plays a uniformly random legal move.", choose_random),
        Bot(
            "beginner",
            f"Plays as casual, but a random legal move a third of the time. {GREEDY_DESCRIPTION}",
            choose_beginner,
        ),
        Bot("casual", f"{GREEDY_DESCRIPTION} Same as greedy.", choose_greedy),
        Bot(
            "strong",
            f"{INFERENCE_DESCRIPTION} It weighs each player's choices as a careful player makes"
            " them, and leaves the plain heuristic's move only when another is clearly better."
            f" Budget: {STRONG_CONFIG.iterations} rollouts per decision.",
            ismcts_policy(STRONG_CONFIG),
            reads_history=True,
        ),
        Bot(
            "expert",
            f"{INFERENCE_DESCRIPTION} It also weighs each player's choices as a careful player"
            " makes them (one who sheds a low heart holds no dearer one). Heads-up it grows a"
            " tree of the moves to come over its samples, so it plans its own next moves instead"
            " of playing them out by the heuristic; at larger tables it leaves the heuristic's"
            " move when another is ahead by more than the noise of its samples. Budget:"
            f" {EXPERT_CONFIG.iterations} samples per decision heads-up,"
            f" {EXPERT_TABLE_CONFIG.iterations} rollouts at larger tables.",
            choose_expert,
            reads_history=True,
        ),
        Bot("greedy", GREEDY_DESCRIPTION, choose_greedy),
        Bot("ismcts", f"{ISMCTS_DESCRIPTION} Same as {ISMCTS_ALIAS}.", choose_ismcts),
        *(_level_bot(name, iterations) for name, iterations in ISMCTS_LEVELS.items()),
    )
}


def get_bot(name: str) -> Bot:
    """The bot called `name`; KeyError naming the known bots otherwise."""
    try:
        return BOTS[name]
    except KeyError:
        raise KeyError(f"unknown bot {name!r}; known bots: {', '.join(BOTS)}") from None


def level_ratings() -> dict[str, Any]:
    """The ratings of `LEVELS` as measured by bench/bots.py --levels (`levels.json`)."""
    body: dict[str, Any] = json.loads(LEVELS_FILE.read_text(encoding="utf-8"))
    return body


__all__ = [
    "BOTS",
    "EXPERT_CONFIG",
    "EXPERT_TABLE_CONFIG",
    "ISMCTS_LEVELS",
    "LEVELS",
    "LEVEL_CONFIGS",
    "LEVEL_OF",
    "STRONG_CONFIG",
    "Bot",
    "Policy",
    "get_bot",
    "level_config",
    "level_ratings",
]
