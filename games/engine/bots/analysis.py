"""Luck and move analysis of a deal: Monte Carlo estimates on the fast path (`fast.py`).

Both estimates are seeded and record what they need to be recomputed (K, the bot, the seed).
Like the bots, they draw their samples from seeded `random.Random` generators, which never touch
the shuffle of a real deal (R-3, R-4): so the module lives with the bots, and
`games.engine.analysis` is its public name.

**Expected deal score and luck** (`expected_deal_scores`). From the start of a deal (the dealt
hands, the opener, nothing played yet), K deals are simulated with the same hands and opener,
the stock order re-sampled each time (sample i shuffles the stock's cards, sorted, with
`random.Random(f"{seed}:{i}")`; under `stock_exhausted = reshuffle` it also draws the seed of
the R-6 reshuffles), and every seat played by the reference bot (`greedy` by default). A seat's
expected deal score is its mean deal score over the K deals (R-30, R-31).

A deal score is a penalty: lower is better. So `luck = expected − actual` (`ExpectedScores.luck`)
is positive when a seat scored less than the reference bot would have with its cards on average,
i.e. it did better than the cards gave; negative when it did worse. Over deals played by the
reference bot itself at every seat it averages to zero. Summed over deals it is the
luck-adjusted score (higher is better): the hand's quality is taken out of the raw penalty.

**Luck of every chance event** (`deal_luck`). The standard decomposition of backgammon
analysis, on a finished deal's log: `actual = prior + Σ luck + Σ decisions` by seat, where
V(position) is a seat's expected deal score by the reference bot at every seat from the full
position with the unseen stock order re-sampled, and the luck of a chance event (the deal
itself, every draw from the stock with any R-6 reshuffle it causes) is V(after) − E[V] over its
outcomes. Luck here is in penalty points, positive when chance raised the seat's penalty (the
opposite sign of `ExpectedScores.luck`); the luck-adjusted score `actual − Σ luck` keeps only
the prior and the decisions' effect, lower is better.

**Luck-adjusted score from the decisions** (`deal_skill`). The same identity read from the
other side: `actual − Σ luck = prior + Σ decisions`, and a decision that plays the reference
bot's move (greedy is deterministic) has no effect at all, so only the decisions that leave it
are valued, each by paired play-outs of the move played and the reference move, from the
deciding seat's observation (`view="seat"`, the default: the unseen cards re-dealt as for
`move_values`, so the effect of a decision is what the seat could know of it, and what the
hidden cards made of it counts as luck) or from the full position (`view="full"`, the stock
re-sampled, as `deal_luck`'s V). Far less noisy than summing one estimate per draw. The full
view is exact in expectation; the seat view deals the unseen cards uniformly, ignoring what the
others' play tells about them, so it is exact only as far as that sampler is (the `ismcts`
search ranks its moves with the same sampler, so the seat view may flatter its decisions).

**Move values** (`move_values`). For a decision of one seat with more than one legal move, each
legal move's value is the seat's expected deal score after playing it, estimated from the seat's
`Observation` alone (its hand, the public counts and the face-up pile): K determinizations of the
unseen cards (`determinize`, the same sampler as the `ismcts` bot, so the real hidden cards
are never read), every move played on the same K samples (common random numbers) and the deal
played out by the reference bot at every seat. This is the estimate the `ismcts` search itself
ranks moves by (its flat search plays greedy rollouts). The best move has the lowest value; the
loss of the move played is its value minus the best's, in expected penalty points. It is
classified as

- `blunder` at `BLUNDER` = 20 points or more: the value of a 7 (20) or a Jack (25) in hand, about
  a whole deal's mean score (in greedy self-play a seat's mean deal score is about 16 with two
  seats and 28 with four, with a standard deviation of 25..32);
- `mistake` at `MISTAKE` = 8 points or more: a picture card's or a 10's value (8..10), a card
  shed for nothing;
- `inaccuracy` at `INACCURACY` = 3 points or more: a low card's value (2..5), small but real;

and only when the loss is also more than `SIGNIFICANCE_Z` = 2 standard errors of the paired
differences (played − best over the K samples), so Monte Carlo noise is never flagged. A smaller
or insignificant loss has no classification (`None`).

**Bounded cost.** A deal's length is up to the players (under `stock_exhausted = reshuffle`, up
to `max_actions` moves), and the estimates that read its log cost K play-outs per decision.
Two bounds keep every estimate's cost within a constant whatever the deal's length:

- fewer samples for long deals: `deal_skill(…, max_pairs=P)` values each decision with
  `min(k, max(1, P // decisions))` paired play-outs, and `deal_move_analysis(…,
  max_playouts=P)` each with `min(k, max(1, P // Σ legal moves))` samples, so a deal's
  play-outs stay near P (the K used is recorded: samples are a prefix of the full K's, and the
  same arguments give the same numbers);
- a budget of simulated moves (`Budget`): every play-out's moves are counted, and an estimate
  that would go past it stops with `BudgetExceeded` (at most one play-out, so at most
  `max_actions` moves, past it). A deal too long even for one sample per decision fails so.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..fast import FastDeal, action_to_move, move_to_action
from ..moves import Move
from ..observation import Observation, observe
from ..rules import Rules
from ..state import OPENING, State
from ..transitions import apply
from . import get_bot
from .draws import pick, shuffle
from .ismcts import RolloutTables, Sampler, rollout_action

INACCURACY = 3.0
MISTAKE = 8.0
BLUNDER = 20.0
SIGNIFICANCE_Z = 2.0
DEFAULT_K = 64  # simulated deals per estimate (bench/luck.py measures the cost)
REFERENCE_BOT = "greedy"
# Bots simulated on the fast path; any other registered bot plays through its observations.
_FAST_BOTS = ("greedy", "random")


@dataclass(frozen=True, slots=True)
class ExpectedScores:
    """Each seat's expected deal score from the start of a deal, and how it was estimated."""

    expected: tuple[float, ...]  # mean deal score by seat over the K simulated deals
    stderr: tuple[float, ...]  # standard error of each mean
    k: int
    bot: str
    seed: str

    def luck(self, actual: Sequence[int]) -> tuple[float, ...]:
        """`expected − actual` by seat: positive when the seat did better than its cards gave."""
        if len(actual) != len(self.expected):
            raise ValueError(f"{len(actual)} deal scores for {len(self.expected)} seats")
        return tuple(e - a for e, a in zip(self.expected, actual, strict=True))

    def to_json(self) -> dict[str, Any]:
        return {
            "expected": list(self.expected),
            "stderr": list(self.stderr),
            "k": self.k,
            "bot": self.bot,
            "seed": self.seed,
        }


@dataclass(frozen=True, slots=True)
class MoveAnalysis:
    """The values of one decision's legal moves (expected deal score: lower is better)."""

    seat: int
    values: tuple[tuple[Move, float], ...]  # in legal order
    best: Move
    played: Move | None
    loss: float | None  # value(played) − value(best), ≥ 0
    loss_stderr: float | None  # standard error of the paired differences behind `loss`
    verdict: str | None  # "inaccuracy", "mistake", "blunder" or None
    k: int
    bot: str
    seed: str

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "values": [{"move": m.to_json(), "value": v} for m, v in self.values],
            "best": self.best.to_json(),
            "played": self.played.to_json() if self.played is not None else None,
            "loss": self.loss,
            "loss_stderr": self.loss_stderr,
            "verdict": self.verdict,
            "k": self.k,
            "bot": self.bot,
            "seed": self.seed,
        }


def classify(loss: float, stderr: float) -> str | None:
    """The verdict of a loss in expected penalty points (see the module docstring)."""
    if loss < INACCURACY or loss <= SIGNIFICANCE_Z * stderr:
        return None
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    return "inaccuracy"


def _mean_and_stderr(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


class BudgetExceeded(Exception):
    """An estimate's play-outs went past their `Budget` of simulated moves."""


class Budget:
    """At most `actions` simulated moves (actions applied in play-outs) for one estimate or
    more; `charge` raises BudgetExceeded once they are spent."""

    __slots__ = ("actions", "spent")

    def __init__(self, actions: int) -> None:
        self.actions = actions
        self.spent = 0

    def charge(self, actions: int) -> None:
        self.spent += actions
        if self.spent > self.actions:
            raise BudgetExceeded(f"more than {self.actions} simulated moves")


def scaled_k(k: int, most: int | None, units: int) -> int:
    """The samples per unit (a decision, or one of its legal moves) that keep `units` × k near
    `most` play-outs: `k`, or fewer for many units, never fewer than 1 (`most` None: `k`)."""
    if most is None or units <= 0:
        return k
    return max(1, min(k, most // units))


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")


def _play_out(
    deal: FastDeal,
    bot: str,
    tables: RolloutTables,
    rng: random.Random,
    budget: Budget | None = None,
) -> None:
    """Play `deal` to its end with `bot` at every seat, charging its moves to `budget`."""
    first = deal.actions
    _play_to_the_end(deal, bot, tables, rng)
    if budget is not None:
        budget.charge(deal.actions - first)


def _play_to_the_end(deal: FastDeal, bot: str, tables: RolloutTables, rng: random.Random) -> None:
    legal_actions = deal.legal_actions
    apply_action = deal.apply_action
    if bot == "greedy":
        while not deal.is_over:
            legal = legal_actions()
            apply_action(legal[0] if len(legal) == 1 else rollout_action(deal, legal, tables))
    elif bot == "random":
        while not deal.is_over:
            legal = legal_actions()
            apply_action(legal[0] if len(legal) == 1 else pick(rng, legal))
    else:
        player = get_bot(bot)
        while not deal.is_over:
            legal = legal_actions()
            if len(legal) == 1:
                apply_action(legal[0])
                continue
            observation = observe(deal.to_state(), deal.turn)
            apply_action(move_to_action(player.choose(observation, rng)))


def simulated_deals(start: State, *, k: int, seed: str) -> Iterator[FastDeal]:
    """The K deals of `expected_deal_scores` before any play: the start's hands and opener, the
    stock's cards in a re-sampled order (the real order is never used)."""
    _check_k(k)
    template = FastDeal.from_state(start)
    stock = sorted(template.stock)
    reseed = start.rules.stock_exhausted == "reshuffle"  # R-6 reshuffles use the seed
    for i in range(k):
        rng = random.Random(f"{seed}:{i}")
        deal = template.copy()
        deal.stock = stock[:]
        shuffle(rng, deal.stock)
        if reseed:
            deal.seed = rng.randbytes(32)
        yield deal


def expected_deal_scores(
    start: State,
    rules: Rules | None = None,
    *,
    k: int = DEFAULT_K,
    bot: str = REFERENCE_BOT,
    seed: str | int = 0,
    budget: Budget | None = None,
) -> ExpectedScores:
    """Each seat's expected deal score from the start of a deal (see the module docstring).

    `start` is the deal as dealt (`new_deal`): phase opening, nothing played. `rules`, when
    given, replace the state's. `bot` is a registered bot name (greedy and random run on the
    fast path). The same (start, k, bot, seed) always gives the same numbers. BudgetExceeded
    once the play-outs go past `budget`.
    """
    if rules is not None:
        start = replace(start, rules=rules)
    if start.phase != OPENING or start.pile or start.actions:
        raise ValueError("expected deal scores start from a deal as dealt, before any play")
    get_bot(bot)  # KeyError naming the known bots
    seed_text = str(seed)
    tables = RolloutTables.build(start.rules, start.seats)
    scores: list[list[int]] = [[] for _ in range(start.seats)]
    for i, deal in enumerate(simulated_deals(start, k=k, seed=seed_text)):
        _play_out(deal, bot, tables, random.Random(f"{seed_text}:{i}:play"), budget)
        penalties = deal.result_penalties
        assert penalties is not None
        for seat, penalty in enumerate(penalties):
            scores[seat].append(penalty)
    stats = [_mean_and_stderr(seat_scores) for seat_scores in scores]
    return ExpectedScores(
        expected=tuple(mean for mean, _ in stats),
        stderr=tuple(error for _, error in stats),
        k=k,
        bot=bot,
        seed=seed_text,
    )


def move_values(
    observation: Observation,
    played: Move | None = None,
    *,
    k: int = DEFAULT_K,
    bot: str = REFERENCE_BOT,
    seed: str | int = 0,
    budget: Budget | None = None,
) -> MoveAnalysis:
    """The value of each legal move of the observing seat, from its observation only (see the
    module docstring), and the verdict on `played` when given. `bot` plays every seat after the
    move: greedy (the default, as the `ismcts` rollouts) or random. Play-outs are charged to
    `budget`."""
    _check_k(k)
    legal = observation.legal_moves
    if observation.turn != observation.you or len(legal) < 2:
        raise ValueError("move values need a decision: the seat on turn with 2+ legal moves")
    if played is not None and played not in legal:
        raise ValueError(f"{played} is not a legal move of this decision")
    if bot not in _FAST_BOTS:
        raise ValueError(f"move values play out with {' or '.join(_FAST_BOTS)}, not {bot!r}")
    seed_text = str(seed)
    rng = random.Random(f"{seed_text}:moves")
    sampler = Sampler(observation, rng)
    tables = RolloutTables.build(observation.rules, len(observation.hand_counts))
    actions = [move_to_action(m) for m in legal]
    you = observation.you
    scores: list[list[int]] = [[] for _ in actions]
    for i in range(k):
        deal = sampler.sample(rng)
        for index, action in enumerate(actions):
            branch = deal.copy()
            branch.apply_action(action)
            # The same play-out rng for every move: the moves compare sample by sample.
            _play_out(branch, bot, tables, random.Random(f"{seed_text}:{i}:play"), budget)
            penalties = branch.result_penalties
            assert penalties is not None
            scores[index].append(penalties[you])
    means = [sum(s) / k for s in scores]
    best_index = min(range(len(actions)), key=lambda i: (means[i], i))
    loss: float | None = None
    loss_stderr: float | None = None
    verdict: str | None = None
    if played is not None:
        index = legal.index(played)
        diffs = [a - b for a, b in zip(scores[index], scores[best_index], strict=True)]
        loss, loss_stderr = _mean_and_stderr(diffs)
        verdict = classify(loss, loss_stderr)
    assert action_to_move(actions[best_index]) == legal[best_index]
    return MoveAnalysis(
        seat=you,
        values=tuple(zip(legal, means, strict=True)),
        best=legal[best_index],
        played=played,
        loss=loss,
        loss_stderr=loss_stderr,
        verdict=verdict,
        k=k,
        bot=bot,
        seed=seed_text,
    )


def deal_move_analysis(
    start: State,
    moves: Sequence[Move],
    *,
    seats: Sequence[int] | None = None,
    k: int = DEFAULT_K,
    bot: str = REFERENCE_BOT,
    seed: str | int = 0,
    max_playouts: int | None = None,
    budget: Budget | None = None,
) -> list[tuple[int, MoveAnalysis]]:
    """Replay a deal's move log from its start and analyse every decision (2+ legal moves) of
    `seats` (all by default): (index of the move in the log, its analysis). Decision i is
    estimated with seed f"{seed}:{i}", each from the deciding seat's observation only, with
    `scaled_k(k, max_playouts, Σ legal moves of the decisions)` samples; its play-outs are
    charged to `budget` (see the module docstring, Bounded cost)."""
    chosen = set(range(start.seats) if seats is None else seats)
    # A first pass on the fast path counts the legal moves of the decisions to value.
    units = 0
    deal = FastDeal.from_state(start)
    for move in moves:
        if deal.is_over:
            break  # the second pass says which move is one too many
        legal = deal.legal_actions()
        if deal.turn in chosen and len(legal) > 1:
            units += len(legal)
        deal.apply_action(move_to_action(move))
    k = scaled_k(k, max_playouts, units)
    state = start
    out: list[tuple[int, MoveAnalysis]] = []
    for index, move in enumerate(moves):
        seat = state.turn
        if seat is None:
            raise ValueError(f"move {index} comes after the end of the deal")
        observation = observe(state, seat)
        if seat in chosen and len(observation.legal_moves) > 1:
            seed_i = f"{seed}:{index}"
            out.append(
                (index, move_values(observation, move, k=k, bot=bot, seed=seed_i, budget=budget))
            )
        state = apply(state, move)
    return out


# -- Luck of every chance event (deal_luck) ---------------------------------------------------

DEFAULT_LUCK_K = 32  # rollouts per value estimate of `deal_luck`
PRIOR_K = 4000  # random deals behind the prior of `deal_luck`
PRIOR_SEED = "prior"


@dataclass(frozen=True, slots=True)
class ChanceEvent:
    """One chance event of a deal and its luck by seat, in penalty points."""

    index: int | None  # the move (index in the log) that drew from the stock; None: the deal
    luck: tuple[float, ...]  # V(after) − E[V] by seat: positive when chance raised the penalty

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "luck": list(self.luck)}


@dataclass(frozen=True, slots=True)
class DealLuck:
    """A deal's result split as `actual = prior + luck + decisions` by seat (penalty points;
    lower is better), and how it was estimated (see `deal_luck`)."""

    actual: tuple[int, ...]
    prior: tuple[float, ...]  # a seat's mean deal score over random deals with this opener
    events: tuple[ChanceEvent, ...]  # the deal itself first, then every draw from the stock
    k: int
    prior_k: int
    bot: str
    seed: str

    @property
    def luck(self) -> tuple[float, ...]:
        """Σ luck of the chance events by seat: positive when chance raised the seat's penalty."""
        return tuple(sum(seat) for seat in zip(*(e.luck for e in self.events), strict=True))

    @property
    def adjusted(self) -> tuple[float, ...]:
        """The luck-adjusted deal score `actual − luck` by seat (lower is better)."""
        return tuple(a - luck for a, luck in zip(self.actual, self.luck, strict=True))

    @property
    def decisions(self) -> tuple[float, ...]:
        """Σ effect of the decisions by seat: `adjusted − prior` (negative: better play)."""
        return tuple(a - p for a, p in zip(self.adjusted, self.prior, strict=True))

    def to_json(self) -> dict[str, Any]:
        return {
            "actual": list(self.actual),
            "prior": list(self.prior),
            "luck": list(self.luck),
            "adjusted": list(self.adjusted),
            "events": [e.to_json() for e in self.events],
            "k": self.k,
            "prior_k": self.prior_k,
            "bot": self.bot,
            "seed": self.seed,
        }


def _mean_by_seat(rows: Sequence[Sequence[int]]) -> list[float]:
    return [sum(column) / len(rows) for column in zip(*rows, strict=True)]


def _finish(
    deal: FastDeal,
    bot: str,
    tables: RolloutTables,
    rng: random.Random,
    budget: Budget | None = None,
) -> tuple[int, ...]:
    _play_out(deal, bot, tables, rng, budget)
    penalties = deal.result_penalties
    assert penalties is not None
    return penalties


@functools.cache
def _prior(rules: Rules, seats: int, opener: int, bot: str, k: int, seed: str) -> tuple[float, ...]:
    """Each seat's mean deal score over k random deals with this opener, by `bot` at every seat."""
    tables = RolloutTables.build(rules, seats)
    rows = []
    for i in range(k):
        rng = random.Random(f"{seed}:{seats}:{opener}:{i}")
        rows.append(
            _finish(FastDeal.new(rules, seats, opener, rng.randbytes(32)), bot, tables, rng)
        )
    return tuple(_mean_by_seat(rows))


def _draw_luck(
    before: FastDeal,
    action: int,
    after: FastDeal,
    *,
    k: int,
    bot: str,
    tables: RolloutTables,
    seed: str,
) -> tuple[float, ...]:
    """V(after) − E[V] of the draw `action` from `before`, by seat, on common random numbers.

    Sample j shuffles the n stock cards before the draw (sorted, `random.Random(f"{seed}:{j}")`)
    and puts the card of rank j mod n on top, so the first card drawn runs over the whole stock
    evenly: E[V] plays `action` on that stock. V(after) plays out the same sample with the
    cards really drawn swapped for the sample's: each real card's place in the stock left
    goes to one the sample drew instead, so the two play-outs differ only by the cards drawn.
    When the draw brought cards back by an R-6 reshuffle, V(after) keeps the sample's order of
    the cards left and shuffles the returned ones below them. Both play out with the same
    reshuffle seed and play-out generator."""
    pool = sorted(before.stock)
    if not pool:
        return (0.0,) * before.seats
    left = set(after.stock)
    really_drawn = set(pool).difference(left)
    reshuffled = not left.issubset(pool)
    count = len(pool) - len(left)
    expected_rows = []
    after_rows = []
    for j in range(k):
        rng = random.Random(f"{seed}:{j}")
        order = pool[:]
        shuffle(rng, order)
        top = order.index(pool[j % len(pool)])
        order[top], order[-1] = order[-1], order[top]
        returned = sorted(left.difference(pool))
        shuffle(rng, returned)
        reshuffle_seed = rng.randbytes(32)
        play_seed = f"{seed}:{j}:play"

        drawn = before.copy()
        drawn.stock = order[:]
        drawn.seed = reshuffle_seed
        drawn.apply_action(action)
        expected_rows.append(_finish(drawn, bot, tables, random.Random(play_seed)))

        if reshuffled:
            stock = returned + [c for c in order if c in left]
        else:
            spare = iter([c for c in order[len(order) - count :] if c not in really_drawn])
            stock = [next(spare) if c in really_drawn else c for c in order[: len(order) - count]]
        actual = after.copy()
        actual.stock = stock
        actual.seed = reshuffle_seed
        after_rows.append(_finish(actual, bot, tables, random.Random(play_seed)))
    expected = _mean_by_seat(expected_rows)
    return tuple(v - e for v, e in zip(_mean_by_seat(after_rows), expected, strict=True))


def deal_luck(
    start: State,
    moves: Sequence[Move],
    *,
    k: int = DEFAULT_LUCK_K,
    bot: str = REFERENCE_BOT,
    seed: str | int = 0,
    prior_k: int = PRIOR_K,
) -> DealLuck:
    """The luck of every chance event of a finished deal, and its luck-adjusted score.

    The standard decomposition of backgammon analysis: the deal's result is
    `prior + Σ luck of the chance events + Σ effect of the decisions`, where V(position) is a
    seat's expected deal score by `bot` at every seat from the full position (every hand seen)
    with the unseen stock order re-sampled, and the luck of a chance event is V(after) − E[V]
    over its outcomes:

    - the deal itself: V(start) (K re-sampled stocks, as `expected_deal_scores` with seed
      f"{seed}:deal") minus the prior, the mean over `prior_k` random deals with the same opener
      (seeded `PRIOR_SEED`, so it is the same constant for every deal of a table size);
    - every move that takes cards from the stock (a draw, a penalty draw, with any R-6
      reshuffle it causes): see `_draw_luck`, seeded f"{seed}:{index}" for move `index`.

    Decisions (plays, nominations, passes, the choice to draw) add no luck. The luck-adjusted
    score `actual − Σ luck` (`DealLuck.adjusted`) keeps the prior and the decisions' effect.
    `start` is the deal as dealt and `moves` its whole log; the same arguments always give the
    same numbers.
    """
    _check_k(k)
    _check_k(prior_k)
    if start.phase != OPENING or start.pile or start.actions:
        raise ValueError("deal luck starts from a deal as dealt, before any play")
    get_bot(bot)  # KeyError naming the known bots
    seed_text = str(seed)
    tables = RolloutTables.build(start.rules, start.seats)
    prior = _prior(start.rules, start.seats, start.opener, bot, prior_k, PRIOR_SEED)
    rows = [
        _finish(deal, bot, tables, random.Random(f"{seed_text}:deal:{i}:play"))
        for i, deal in enumerate(simulated_deals(start, k=k, seed=f"{seed_text}:deal"))
    ]
    events = [
        ChanceEvent(None, tuple(v - p for v, p in zip(_mean_by_seat(rows), prior, strict=True)))
    ]
    deal = FastDeal.from_state(start)
    for index, move in enumerate(moves):
        if deal.is_over:
            raise ValueError(f"move {index} comes after the end of the deal")
        action = move_to_action(move)
        if action not in deal.legal_actions():
            raise ValueError(f"move {index} ({move}) is not legal")
        before = deal.copy()
        deal.apply_action(action)
        if deal.stock != before.stock or deal.reshuffles != before.reshuffles:
            luck = _draw_luck(
                before, action, deal, k=k, bot=bot, tables=tables, seed=f"{seed_text}:{index}"
            )
            events.append(ChanceEvent(index, luck))
    actual = deal.result_penalties
    if actual is None:
        raise ValueError("deal luck needs the whole log of a finished deal")
    return DealLuck(
        actual=actual,
        prior=prior,
        events=tuple(events),
        k=k,
        prior_k=prior_k,
        bot=bot,
        seed=seed_text,
    )


# -- Luck as what the decisions leave (deal_skill) --------------------------------------------

DEFAULT_SKILL_K = 32  # rollout pairs per decision that leaves the reference bot's move
VIEWS = ("seat", "full")  # what a decision's effect is valued from (`deal_skill`)


@dataclass(frozen=True, slots=True)
class DecisionEffect:
    """One decision that left the reference bot's move, and its effect on every seat."""

    index: int  # the move in the log
    seat: int  # the seat that decided
    effect: tuple[float, ...]  # V(after the move played) − V(after the reference move), by seat

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "seat": self.seat, "effect": list(self.effect)}


@dataclass(frozen=True, slots=True)
class DealSkill:
    """The decomposition of `deal_luck` (`actual = prior + luck + decisions` by seat, penalty
    points, lower is better), estimated from the decisions' side (see `deal_skill`)."""

    actual: tuple[int, ...]
    prior: tuple[float, ...]  # as `DealLuck.prior`
    effects: tuple[DecisionEffect, ...]  # the decisions that left the reference bot's move
    k: int
    prior_k: int
    bot: str
    seed: str
    view: str

    @property
    def decisions(self) -> tuple[float, ...]:
        """Σ effect of the decisions by seat (negative: better play than the reference bot)."""
        total = [0.0] * len(self.actual)
        for effect in self.effects:
            for seat, value in enumerate(effect.effect):
                total[seat] += value
        return tuple(total)

    @property
    def adjusted(self) -> tuple[float, ...]:
        """The luck-adjusted deal score `prior + decisions` by seat (lower is better)."""
        return tuple(p + d for p, d in zip(self.prior, self.decisions, strict=True))

    @property
    def skill(self) -> tuple[float, ...]:
        """By seat, what its own decisions gained it against the table, the reference bot's
        choices the baseline: Σ over the seat's decisions that left the reference bot's move of
        (the other seats' mean effect − its own effect), in penalty points (positive: better
        than the reference bot). The other seats' decisions count for nothing here, so a seat's
        skill does not fall because its opponents play well. With two seats the difference of
        the two skills is that of `decisions` (of the luck-adjusted scores less the priors)."""
        seats = len(self.actual)
        total = [0.0] * seats
        for decision in self.effects:
            own = decision.effect[decision.seat]
            others = (sum(decision.effect) - own) / (seats - 1)
            total[decision.seat] += others - own
        return tuple(total)

    @property
    def luck(self) -> tuple[float, ...]:
        """`actual − adjusted` by seat: positive when chance raised the seat's penalty."""
        return tuple(a - adj for a, adj in zip(self.actual, self.adjusted, strict=True))

    def to_json(self) -> dict[str, Any]:
        return {
            "actual": list(self.actual),
            "prior": list(self.prior),
            "decisions": list(self.decisions),
            "adjusted": list(self.adjusted),
            "skill": list(self.skill),
            "luck": list(self.luck),
            "effects": [e.to_json() for e in self.effects],
            "k": self.k,
            "prior_k": self.prior_k,
            "bot": self.bot,
            "seed": self.seed,
            "view": self.view,
        }


def _decision_effect(
    before: FastDeal,
    played: int,
    reference: int,
    *,
    k: int,
    view: str,
    tables: RolloutTables,
    seed: str,
    budget: Budget | None = None,
) -> tuple[float, ...]:
    """V(after `played`) − V(after `reference`) by seat, on `k` paired samples played out by the
    greedy bot at every seat. Sample j (`random.Random(f"{seed}:{j}")`) is, with `view` "seat",
    a determinization of the deciding seat's observation (the unseen cards dealt at random to
    the other hands and the stock, as `move_values`); with `view` "full", the full position with
    the stock order re-sampled (and the R-6 reshuffle seed under `reshuffle`)."""
    reseed = before.rules.stock_exhausted == "reshuffle"
    sampler = None
    if view == "seat":
        state = before.to_state()
        assert state.turn is not None
        sampler = Sampler(observe(state, state.turn), random.Random(f"{seed}:template"))
    stock = sorted(before.stock)
    total = [0.0] * before.seats
    for j in range(k):
        rng = random.Random(f"{seed}:{j}")
        if sampler is not None:
            sample = sampler.sample(rng)
        else:
            sample = before.copy()
            sample.stock = stock[:]
            shuffle(rng, sample.stock)
            if reseed:
                sample.seed = rng.randbytes(32)
        play_seed = rng.getrandbits(64)
        outcome = []
        for action in (played, reference):
            branch = sample.copy()
            branch.apply_action(action)
            outcome.append(_finish(branch, "greedy", tables, random.Random(play_seed), budget))
        for seat in range(before.seats):
            total[seat] += outcome[0][seat] - outcome[1][seat]
    return tuple(t / k for t in total)


def _left_the_reference(
    start: State, moves: Sequence[Move], tables: RolloutTables
) -> Iterator[tuple[int, FastDeal, int, int]]:
    """Each decision of a finished deal's log that left the reference bot's move: (its index,
    the position before it, the action played, the reference action). The position is the
    replay's own, valid until the next item is asked for. ValueError for a log that is not a
    finished deal's."""
    deal = FastDeal.from_state(start)
    for index, move in enumerate(moves):
        if deal.is_over:
            raise ValueError(f"move {index} comes after the end of the deal")
        action = move_to_action(move)
        legal = deal.legal_actions()
        if action not in legal:
            raise ValueError(f"move {index} ({move}) is not legal")
        if len(legal) > 1:
            reference = rollout_action(deal, legal, tables)
            if action != reference:
                yield index, deal, action, reference
        deal.apply_action(action)
    if deal.result_penalties is None:
        raise ValueError("deal skill needs the whole log of a finished deal")


def deal_skill(
    start: State,
    moves: Sequence[Move],
    *,
    k: int = DEFAULT_SKILL_K,
    bot: str = REFERENCE_BOT,
    seed: str | int = 0,
    prior_k: int = PRIOR_K,
    view: str = "seat",
    max_pairs: int | None = None,
    budget: Budget | None = None,
) -> DealSkill:
    """The luck-adjusted score of a finished deal, from the effect of its decisions.

    The identity of `deal_luck`, `actual = prior + Σ luck + Σ decisions` (V: a seat's expected
    deal score by the reference bot at every seat from the full position, the unseen stock order
    re-sampled), read from the other side: the luck-adjusted score `actual − Σ luck` equals
    `prior + Σ decisions`, and a decision's effect is V(after the move played) − V(before).
    The reference bot (greedy, deterministic) plays the same move in every sample, so V(before)
    is V(after the reference move): a decision that plays it has no effect, exactly and without
    noise, and one that leaves it is estimated by `k` paired play-outs of the two moves on the
    same re-sampled stocks (`_decision_effect`, seeded f"{seed}:{index}" for move `index`).

    Both readings estimate the same numbers; this one sums a few paired differences where
    `deal_luck` sums one independent estimate per draw from the stock, whose noise adds up, so
    its luck-adjusted score is far less noisy (bench/luck.py measures both spreads). `luck`
    (`actual − adjusted`) has the sign of `DealLuck.luck`: positive when chance raised the
    penalty. The same arguments always give the same numbers.

    Each decision gets `scaled_k(k, max_pairs, decisions)` pairs (`DealSkill.k`), and the
    play-outs are charged to `budget` (see the module docstring, Bounded cost).
    """
    _check_k(k)
    _check_k(prior_k)
    if start.phase != OPENING or start.pile or start.actions:
        raise ValueError("deal skill starts from a deal as dealt, before any play")
    if bot != "greedy":
        raise ValueError(f"deal skill needs a deterministic reference bot (greedy), not {bot!r}")
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}, not {view!r}")
    seed_text = str(seed)
    tables = RolloutTables.build(start.rules, start.seats)
    prior = _prior(start.rules, start.seats, start.opener, bot, prior_k, PRIOR_SEED)
    # Two passes over the log: the first counts the decisions that left the reference bot's
    # move (and checks the log), the second values them with the pairs that count allows.
    k = scaled_k(k, max_pairs, len(list(_left_the_reference(start, moves, tables))))
    effects = [
        DecisionEffect(
            index,
            before.turn,
            _decision_effect(
                before,
                action,
                reference,
                k=k,
                view=view,
                tables=tables,
                seed=f"{seed_text}:{index}",
                budget=budget,
            ),
        )
        for index, before, action, reference in _left_the_reference(start, moves, tables)
    ]
    actual = FastDeal.from_state(start)
    for move in moves:
        actual.apply_action(move_to_action(move))
    assert actual.result_penalties is not None
    return DealSkill(
        actual=actual.result_penalties,
        prior=prior,
        effects=tuple(effects),
        k=k,
        prior_k=prior_k,
        bot=bot,
        seed=seed_text,
        view=view,
    )
