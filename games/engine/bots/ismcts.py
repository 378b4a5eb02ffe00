"""The `ismcts` bot: single-observer information-set Monte Carlo tree search (Cowling, Powley
and Whitehouse, 2012) over determinizations of the unseen cards.

Each iteration deals the cards the seat cannot see at random, consistently with its observation
(`determinize`), then walks one tree shared by all determinizations: at each node only the moves
legal in this determinization are candidates, chosen by UCB1 with availability counts (a child's
exploration term counts the iterations in which it was available, not its parent's visits).
The first untried move is expanded, the deal is played out to its end with a fast greedy policy,
and every node on the path is credited with the reward of the seat that moved into it.

Reward of a seat: its share of the deal's win minus its deal score scaled by `penalty_scale`
(R-28..R-31), so the search both races to go out and, when it cannot, keeps its hand cheap.

The search runs a fixed number of iterations, so for a given `rng` the choice is reproducible.
Simulation goes through a small adapter (`Simulation`), so the same search runs on the
reference engine or on the fast path.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..legal import legal_moves
from ..moves import Move
from ..observation import Observation
from ..state import State
from ..transitions import apply_legal
from .base import Bot, Policy
from .determinize import determinize
from .greedy import greedy_move


@dataclass(frozen=True, slots=True)
class SearchConfig:
    iterations: int = 200
    exploration: float = 0.7
    penalty_scale: float = 100.0
    win_weight: float = 1.0
    rollout_epsilon: float = 0.1  # chance of a random legal move in a rollout


class Simulation(Protocol):
    """One determinized deal being searched; mutable, `copy` forks it."""

    @property
    def turn(self) -> int | None: ...

    @property
    def is_over(self) -> bool: ...

    def legal(self) -> Sequence[Hashable]: ...

    def play(self, action: Hashable) -> None: ...

    def rollout(self, rng: random.Random, epsilon: float) -> None: ...

    def rewards(self, config: SearchConfig) -> list[float]: ...

    def to_move(self, action: Hashable) -> Move: ...


class ReferenceSimulation:
    """`Simulation` on the reference engine: immutable `State` values, `Move` actions."""

    __slots__ = ("state",)

    def __init__(self, state: State) -> None:
        self.state = state

    @property
    def turn(self) -> int | None:
        return self.state.turn

    @property
    def is_over(self) -> bool:
        return self.state.result is not None

    def legal(self) -> Sequence[Hashable]:
        return legal_moves(self.state)

    def play(self, action: Hashable) -> None:
        assert isinstance(action, Move)
        self.state = apply_legal(self.state, action)

    def rollout(self, rng: random.Random, epsilon: float) -> None:
        state = self.state
        while state.result is None:
            legal = legal_moves(state)
            if len(legal) == 1:
                move = legal[0]
            elif rng.random() < epsilon:
                move = rng.choice(legal)
            else:
                seat = state.turn
                assert seat is not None
                move = greedy_move(
                    legal,
                    state.hands[seat],
                    phase=state.phase,
                    pending_sevens=state.pending_sevens,
                    draws_this_turn=state.draws_this_turn,
                    next_count=len(state.hands[(seat + state.direction) % state.seats]),
                    seats=state.seats,
                    rules=state.rules,
                )
            state = apply_legal(state, move)
        self.state = state

    def rewards(self, config: SearchConfig) -> list[float]:
        result = self.state.result
        assert result is not None
        share = 1.0 / len(result.winners)
        return [
            (config.win_weight * share if seat in result.winners else 0.0)
            - penalty / config.penalty_scale
            for seat, penalty in enumerate(result.penalties)
        ]

    def to_move(self, action: Hashable) -> Move:
        assert isinstance(action, Move)
        return action


class _Node:
    __slots__ = ("children", "visits", "available", "total")

    def __init__(self) -> None:
        self.children: dict[Hashable, _Node] = {}
        self.visits = 0
        self.available = 1
        self.total = 0.0


def search(
    observation: Observation, rng: random.Random, config: SearchConfig
) -> tuple[Move, dict[Move, int]]:
    """The most visited root move after `config.iterations` iterations, and the root's visits."""
    you = observation.you
    root = _Node()
    root_moves: dict[Hashable, Move] = {}
    c = config.exploration
    for _ in range(config.iterations):
        sim = new_simulation(determinize(observation, rng))
        node = root
        path: list[tuple[_Node, int]] = []  # (node, seat that moved into it)
        while not sim.is_over:
            legal = sim.legal()
            seat = sim.turn
            assert seat is not None
            children = node.children
            untried = [a for a in legal if a not in children]
            if untried:
                action = untried[0] if len(untried) == 1 else rng.choice(untried)
                child = _Node()
                children[action] = child
                if node is root:
                    root_moves[action] = sim.to_move(action)
                for a in legal:
                    if a is not action and a in children:
                        children[a].available += 1
                sim.play(action)
                path.append((child, seat))
                break
            best = None
            best_value = -math.inf
            for a in legal:
                ch = children[a]
                ch.available += 1
                value = ch.total / ch.visits + c * math.sqrt(math.log(ch.available) / ch.visits)
                if value > best_value:
                    best_value = value
                    best = a
            assert best is not None
            node = children[best]
            sim.play(best)
            path.append((node, seat))
        if not sim.is_over:
            sim.rollout(rng, config.rollout_epsilon)
        rewards = sim.rewards(config)
        root.visits += 1
        for visited, seat in path:
            visited.visits += 1
            visited.total += rewards[seat]
    visits = {root_moves[a]: child.visits for a, child in root.children.items()}
    legal_order = {m: i for i, m in enumerate(observation.legal_moves)}
    best_move = max(visits, key=lambda m: (visits[m], -legal_order[m]))
    del you
    return best_move, visits


def new_simulation(state: State) -> Simulation:
    return ReferenceSimulation(state)


def ismcts_policy(config: SearchConfig) -> Policy:
    def choose(observation: Observation, rng: random.Random) -> Move:
        return search(observation, rng, config)[0]

    return choose


def make_ismcts_bot(config: SearchConfig | None = None, name: str = "ismcts") -> Bot:
    config = config or SearchConfig()
    return Bot(
        name,
        "Information-set Monte Carlo tree search: samples the unseen cards consistently with"
        " what its seat has seen and plays out each sample with fast greedy rollouts.",
        ismcts_policy(config),
    )


DEFAULT_CONFIG = SearchConfig()
choose_ismcts = ismcts_policy(DEFAULT_CONFIG)
