"""The `ismcts` bot: Monte Carlo search over determinizations of the unseen cards, on the fast
path (`games.engine.fast`).

A determinization deals the cards the seat cannot see (52 − own hand − pile) at random to the
other hands and the stock, consistently with its observation (`determinize`, `Sampler`): with
`facts = "none"` uniformly, else consistently with the facts the deal's move log shows as the
seat sees it (`inference`; "rules", "play" or "greedy", each reading more) and, with `miss`,
weighted by the opponent model (`opponent`). The search never sees the real hidden cards. Two
searches share the rollout policy and the reward:

- `flat_search` (the default, `algorithm="flat"`): determinized flat Monte Carlo with common
  random numbers and racing. Each candidate move is played on the same determinizations and the
  deal is played out with greedy rollouts; a move leaves the race once its paired difference to
  the leader is significantly negative. Since the rollouts model every seat by the greedy
  heuristic, this is one step of policy improvement over `greedy` at every decision.
- `tree_search` (`algorithm="tree"`): single-observer information-set MCTS (Cowling, Powley and
  Whitehouse, 2012): one tree shared by all determinizations, UCB1 with availability counts.
  Uniform samples, against greedy (400 two-seat deals, 300 iterations): it won 48% of deals
  where the flat search at 300 rollouts won 52% and at its default budget about 62% (its
  estimates are noisier without common random numbers). Fed the log's facts and the opponent
  model's samples, it is the expert level's heads-up search (`games.engine.bots`
  EXPERT_CONFIG; docs/benchmarks.md "Bot levels").

Rollouts use `rollout_action`, the heuristic of `greedy` on bitmasks. Reward of a seat:
`win_weight` × its share of the deal's win minus its deal score / `penalty_scale`
(R-28..R-31), so the search races to go out and, when it cannot, keeps its hand cheap; plus
`margin_weight` × the other seats' mean deal score / `penalty_scale` (0 by default: with 1 and
no win weight, the reward is the seat's margin over the others, the score of a duplicate).

Budgets are counts (rollouts), not times, so a seeded `rng` makes every choice reproducible;
the time per move is then a property of the machine (see bench/bots.py).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..fast import (
    DEAL_OVER_CODE,
    FastDeal,
    action_to_move,
    move_to_action,
)
from ..history import LoggedMove
from ..moves import PLAY, Move
from ..observation import Observation
from .base import Bot, Policy
from .determinize import determinize, unseen_cards
from .draws import pick, shuffle
from .inference import GREEDY, RULES, HiddenCards
from .rollout import RolloutTables, rollout_action


@dataclass(frozen=True, slots=True)
class SearchConfig:
    iterations: int = 5000  # rollouts at most with two seats (flat: × 2 / seats; tree: as is)
    exploration: float = 0.7  # tree: UCB1 constant
    penalty_scale: float = 100.0
    win_weight: float = 1.0
    margin_weight: float = 0.0  # per point of the other seats' mean deal score / penalty_scale
    rollout_epsilon: float = 0.0  # chance of a uniformly random legal action in a rollout
    algorithm: str = "flat"  # "flat": determinized flat Monte Carlo; "tree": SO-ISMCTS
    seat_scaled: bool = True  # flat: rollouts × 2 / seats (False: as many at any table size)
    facts: str = "none"  # the log's facts the samples keep: "none", "rules", "play", "greedy"
    miss: float | None = None  # the opponent model's weight of a move greedy would not play
    min_samples: int = 24  # flat: samples before a candidate may leave the race
    batch: int = 8  # flat: samples between two race checks
    race_z: float = 2.5  # flat: standard errors of the paired difference to leave the race
    race_margin: float = 0.0  # flat: a candidate leaves once surely not better by this much
    keep_margin: float = 0.0  # flat: greedy's move stays unless another's mean is this much more
    keep_z: float = 0.0  # flat: greedy's move stays unless another leads by this many std. errors
    gibbs: int = 0  # three seats or more: Gibbs sweeps over the seats (steps a seat), not one chain
    rejection: int = 0  # with `miss`: proposals a draw tries by rejection before a Metropolis step


NO_FACTS = "none"

# --- determinizations on the fast path ------------------------------------------------------


class Sampler:
    """Deals the unseen cards into copies of one template deal (see `determinize`): uniformly,
    or with `facts` ("rules" or "play") consistently with what the seat's move log `history`
    says of them (`inference.HiddenCards`)."""

    def __init__(
        self,
        observation: Observation,
        rng: random.Random,
        history: Sequence[LoggedMove] = (),
        facts: str = NO_FACTS,
        miss: float | None = None,
        gibbs: int = 0,
        rejection: int = 0,
    ) -> None:
        self.template = FastDeal.from_state(determinize(observation, rng))
        self.unseen = [int(c) for c in unseen_cards(observation)]
        self.others = [
            (seat, count)
            for seat, count in enumerate(observation.hand_counts)
            if seat != observation.you
        ]
        self.stock_count = observation.stock_count
        self.reseed = observation.rules.stock_exhausted == "reshuffle"  # R-6 uses the seed
        self.hidden: HiddenCards | None = None
        if facts != NO_FACTS:
            if facts not in (RULES, PLAY, GREEDY):
                raise ValueError(f"facts is none, rules, play or greedy, not {facts!r}")
            self.hidden = HiddenCards(
                observation,
                history,
                play_facts=facts != RULES,
                greedy=facts == GREEDY,
                miss=miss,
                gibbs=gibbs,
                rejection=rejection,
            )

    @classmethod
    def of(
        cls,
        observation: Observation,
        rng: random.Random,
        history: Sequence[LoggedMove],
        config: SearchConfig,
    ) -> Sampler:
        """The sampler of a search of `config`: its facts, opponent model and chains."""
        return cls(
            observation, rng, history, config.facts, config.miss, config.gibbs, config.rejection
        )

    def sample(self, rng: random.Random) -> FastDeal:
        deal = self.template.copy()
        hands = deal.hands
        if self.hidden is not None:
            dealt = self.hidden.sample(rng)
            rest = 0
            for seat, _ in self.others:
                hands[seat] = dealt[seat]
                rest |= dealt[seat]
            stock = [c for c in self.unseen if not rest >> c & 1]
            shuffle(rng, stock)
            deal.stock = stock[: self.stock_count]
        else:
            cards = self.unseen[:]
            shuffle(rng, cards)
            position = 0
            for seat, count in self.others:
                mask = 0
                for c in cards[position : position + count]:
                    mask |= 1 << c
                hands[seat] = mask
                position += count
            deal.stock = cards[position : position + self.stock_count]
        if self.reseed:
            deal.seed = rng.randbytes(32)
        return deal


# --- the search ---------------------------------------------------------------------------


class _Node:
    __slots__ = ("children", "visits", "available", "total")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.available = 1
        self.total = 0.0


def _rewards(deal: FastDeal, config: SearchConfig) -> list[float]:
    result = deal.result
    assert result is not None
    share = config.win_weight / len(result.winners)
    scale = config.penalty_scale
    winners = result.winners
    rewards = [
        (share if seat in winners else 0.0) - penalty / scale
        for seat, penalty in enumerate(result.penalties)
    ]
    margin = config.margin_weight
    if margin:
        penalties = result.penalties
        total = sum(penalties)
        others = len(penalties) - 1
        rewards = [
            reward + margin * (total - penalty) / others / scale
            for reward, penalty in zip(rewards, penalties, strict=True)
        ]
    return rewards


def tree_search(
    observation: Observation,
    rng: random.Random,
    config: SearchConfig,
    history: Sequence[LoggedMove] = (),
    sampler: Sampler | None = None,
) -> tuple[Move, dict[Move, int]]:
    """SO-ISMCTS: the most visited root move after `config.iterations` iterations, and the
    visits of every root move. Each iteration deals one of `sampler`'s samples (by default
    the samples of `config`, consistent with `history`)."""
    if sampler is None:
        sampler = Sampler.of(observation, rng, history, config)
    tables = RolloutTables.build(observation.rules, len(observation.hand_counts))
    epsilon = config.rollout_epsilon
    c = config.exploration
    log = math.log
    sqrt = math.sqrt
    root = _Node()
    for _ in range(config.iterations):
        deal = sampler.sample(rng)
        node = root
        path: list[tuple[_Node, int]] = []  # (node, seat that moved into it)
        # Selection and expansion.
        while deal.phase_code != DEAL_OVER_CODE:
            legal = deal.legal_actions()
            seat = deal.turn
            children = node.children
            untried = [a for a in legal if a not in children]
            if untried:
                action = untried[0] if len(untried) == 1 else pick(rng, untried)
                for a in legal:
                    if a in children:
                        children[a].available += 1
                node = children[action] = _Node()
                deal.apply_action(action)
                path.append((node, seat))
                break
            best = legal[0]
            best_value = -math.inf
            for a in legal:
                child = children[a]
                child.available += 1
                value = child.total / child.visits + c * sqrt(log(child.available) / child.visits)
                if value > best_value:
                    best_value = value
                    best = a
            node = children[best]
            deal.apply_action(best)
            path.append((node, seat))
        _rollout(deal, tables, rng if epsilon else None, epsilon)
        # Backpropagation.
        rewards = _rewards(deal, config)
        root.visits += 1
        for visited, seat in path:
            visited.visits += 1
            visited.total += rewards[seat]
    legal_moves = observation.legal_moves
    visits = {m: 0 for m in legal_moves}
    for action, child in root.children.items():
        visits[action_to_move(action)] = child.visits
    order = {m: i for i, m in enumerate(legal_moves)}
    best_move = max(legal_moves, key=lambda m: (visits[m], -order[m]))
    assert move_to_action(best_move) in root.children or not root.children
    return best_move, visits


def _rollout(
    deal: FastDeal, tables: RolloutTables, rng: random.Random | None, epsilon: float
) -> None:
    """Play the deal to its end: the greedy action, or with chance `epsilon` a random one."""
    legal_actions = deal.legal_actions
    apply_action = deal.apply_action
    while deal.phase_code != DEAL_OVER_CODE:
        legal = legal_actions()
        if len(legal) == 1:
            apply_action(legal[0])
        elif rng is not None and rng.random() < epsilon:
            apply_action(pick(rng, legal))
        else:
            apply_action(rollout_action(deal, legal, tables))


def flat_search(
    observation: Observation,
    rng: random.Random,
    config: SearchConfig,
    history: Sequence[LoggedMove] = (),
    sampler: Sampler | None = None,
) -> tuple[Move, list[float]]:
    """Determinized flat Monte Carlo with common random numbers and racing.

    Every candidate move still in the race is played out (greedy rollouts) on the same
    determinizations, so their rewards compare sample by sample. After each batch of samples,
    a candidate leaves the race when it is identical to the leader on every sample so far, or
    when its paired difference to the leader is below `race_margin` with `race_z` standard
    errors to spare (an indifference zone: near-equal moves need not be told apart). The race
    stops when one candidate is left or `config.iterations` rollouts are spent; the best total
    reward wins, ties going to the greedy heuristic's move, then to legal order. With
    `keep_margin`, greedy's move still in the race wins unless the best mean is ahead of its
    by that much (a player who departs from the plain heuristic only when sure); with `keep_z`,
    unless it leads by that many standard errors of their paired difference.
    """
    if sampler is None:
        sampler = Sampler.of(observation, rng, history, config)
    tables = RolloutTables.build(observation.rules, len(observation.hand_counts))
    legal_moves = observation.legal_moves
    actions = [move_to_action(m) for m in legal_moves]
    template = sampler.template
    preferred = rollout_action(template, template.legal_actions(), tables)
    you = observation.you
    count = len(actions)
    rewards: list[list[float]] = [[] for _ in actions]
    totals = [0.0] * count
    squares = [0.0] * count
    cross = [[0.0] * count for _ in actions]  # cross[i][j]: the sum of i's times j's rewards
    differ = [[False] * count for _ in actions]  # i and j differed on some sample
    active = list(range(count))
    epsilon = config.rollout_epsilon
    batch = config.batch
    # A rollout takes about as many actions per seat, so more seats get fewer rollouts and a
    # decision costs about the same time at any table size (unless not seat_scaled).
    budget = config.iterations
    if config.seat_scaled:
        budget = budget * 2 // len(observation.hand_counts)
    spent = 0
    z = config.race_z
    margin = config.race_margin

    def rank(i: int) -> tuple[float, bool, int]:
        return (-totals[i], actions[i] != preferred, i)

    n = 0
    while len(active) > 1 and spent < budget:
        for _ in range(batch):
            deal = sampler.sample(rng)
            seed = rng.getrandbits(64) if epsilon else 0
            sample = []
            for index in active:
                branch = deal.copy()
                branch.apply_action(actions[index])
                _rollout(branch, tables, random.Random(seed) if epsilon else None, epsilon)
                reward = _rewards(branch, config)[you]
                rewards[index].append(reward)
                totals[index] += reward
                squares[index] += reward * reward
                sample.append((index, reward))
            # The paired sums, kept as the samples come (a race check then costs no pass over
            # the samples).
            for k, (i, a) in enumerate(sample):
                row = cross[i]
                seen = differ[i]
                for j, b in sample[k + 1 :]:
                    row[j] += a * b
                    if a != b:
                        seen[j] = True
            spent += len(active)
            n += 1
        if n < config.min_samples:
            continue
        leader = min(active, key=rank)
        kept = [leader]
        for index in active:
            if index == leader:
                continue
            low, high = min(leader, index), max(leader, index)
            mean = (totals[leader] - totals[index]) / n
            spread = squares[leader] + squares[index] - 2 * cross[low][high] - n * mean * mean
            var = max(spread, 0.0) / (n - 1)
            if not differ[low][high] or mean > z * math.sqrt(var / n) - margin:
                continue  # identical so far, or (almost surely) not better by `margin`: out
            kept.append(index)
        active = sorted(kept)
    best = min(active, key=rank)
    keep = config.keep_margin
    if keep and n:
        # Greedy's move, while still in the race, unless the best is ahead by `keep_margin`.
        kept_move = next((i for i in active if actions[i] == preferred), best)
        if totals[best] - totals[kept_move] < keep * n:
            best = kept_move
    if config.keep_z and n > 1 and actions[best] != preferred and preferred in actions:
        # Greedy's move, while still in the race, unless the best leads it by `keep_z` standard
        # errors of their paired difference (the best of several means is flattered by the
        # samples that happened to favour it).
        kept_move = actions.index(preferred)
        if len(rewards[kept_move]) == n:
            gaps = [a - b for a, b in zip(rewards[best], rewards[kept_move], strict=True)]
            mean = sum(gaps) / n
            var = sum((g - mean) ** 2 for g in gaps) / (n - 1)
            if mean <= config.keep_z * math.sqrt(var / n):
                best = kept_move
    return legal_moves[best], [sum(r) / len(r) if r else -math.inf for r in rewards]


def ismcts_policy(config: SearchConfig) -> Policy:
    def choose(
        observation: Observation, rng: random.Random, history: Sequence[LoggedMove] = ()
    ) -> Move:
        if config.algorithm == "flat":
            return flat_search(observation, rng, config, history)[0]
        return tree_search(observation, rng, config, history)[0]

    return choose


DESCRIPTION = (
    "Monte Carlo search over determinizations: deals the unseen cards at random, consistently"
    " with what its seat has seen, and plays every candidate move out on the same samples with"
    " fast greedy rollouts; keeps the move with the best mean result."
)


def make_ismcts_bot(config: SearchConfig | None = None, name: str = "ismcts") -> Bot:
    config = config or SearchConfig()
    return Bot(name, DESCRIPTION, ismcts_policy(config), reads_history=config.facts != NO_FACTS)


DEFAULT_CONFIG = SearchConfig()
choose_ismcts = ismcts_policy(DEFAULT_CONFIG)


__all__ = [
    "DEFAULT_CONFIG",
    "DESCRIPTION",
    "NO_FACTS",
    "RolloutTables",
    "Sampler",
    "SearchConfig",
    "choose_ismcts",
    "flat_search",
    "ismcts_policy",
    "make_ismcts_bot",
    "rollout_action",
    "tree_search",
]
