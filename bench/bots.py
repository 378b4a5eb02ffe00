"""Bot against bot: paired deals, win rates, mean penalties and CPU per decision; the ladder of
the bot levels; the expert's targets.

    .venv/bin/python bench/bots.py --a expert --b greedy --seeds 200 --seed 1 [--seats 4]
    .venv/bin/python bench/bots.py --a expert@iterations=1200 --paired expert --b greedy
    .venv/bin/python bench/bots.py --levels --seed 1 [--write]
    .venv/bin/python bench/bots.py --targets --seeds 200 --seeds4 150 --seed 1
    .venv/bin/python bench/bots.py --targets --parts expert,ismcts --seeds 100 --seed 1
    .venv/bin/python bench/bots.py --agreement --a expert --b greedy --seeds 90 --seed 1

Deals are paired: each seed is dealt once per seat of the table, bot `a` in that seat and bot
`b` in every other (with two seats: the same deal with the seats swapped); the opener is seat 0.
A deal is won by the seat(s) scoring 0 (R-30, R-31); a shared win counts as a share. A seed's
score is `a`'s mean win share over its deals; intervals are over seeds (the deals of one seed
are not independent), 95% normal. Each bot sees its observation and, if it reads it, the deal's
move log as its seat sees it (`history.seen_by`), as the server gives them. CPU: process time
of each `choose` call with two or more legal moves (a decision), median and 95th percentile.

A search level's settings may be varied in the bench: `expert@iterations=1000,exploration=1.0`
plays `expert` with those fields replaced in the `SearchConfig` it plays at each table size
(`level_config`: the expert's heads-up `EXPERT_CONFIG`, its flat `EXPERT_TABLE_CONFIG` at three
seats or more). `--paired c` also plays c against b on the same seeds and prints a's lead over
c, paired by seed (the same deals, the same opponent), which tells two settings apart on far
fewer seeds than two separate runs.

`--levels` climbs the ladder of `games.engine.bots.LEVELS` (weakest first): each level against
the one below, paired, in looks of 16, 32, 64 … seeds (at most `--max-seeds`), until the lower
end of its interval is above a half: the number of deals is what that takes. The interval's z
is Bonferroni-corrected for the looks (at most 7 at the default maximum), so the ladder's claim
"beats the level below with 95% confidence" holds whatever look stopped it. The deals then rate
every level by openskill's Plackett-Luce model (one two-seat game per deal, ranked by deal
score, in a fixed order); `--write` stores the ratings, the CPU per decision and each step in
games/engine/bots/levels.json with the command.

`--targets` measures the `expert` level against its targets on the same seeds: its win
rate against greedy with two seats (target ≥ 70%, interval above 65%) and with four (against
three greedy; ≥ 40%), its lead over the previous `ismcts` (paired, on the same two-seat seeds;
≥ 10 points), its CPU per decision (median ≤ 100 ms; p95 printed), and the same search given
the true deal (`perfect:expert`: every hand and the stock's order) and given the true hands
only (`hands:expert`, the stock re-dealt), each searching as the level does at that table,
with the expert's share of the gap from an even share to those ceilings: at two seats (parts
`perfect`, `hands`) and at four on the four-seat seeds (`perfect4`, `hands4`). `--parts` plays
some of those duels only (a long run in pieces, on the same seeds): each row is printed when
its duels were played.

`--agreement` plays the search level `--a` against `--b` and, at each of its decisions, asks it
again with other random numbers and asks the same search given the true hands (`hands:<a>`):
how often it chooses the same move as itself and as that search, by the kind of decision, and
what that search chooses where it differs (its kinds, most chosen first). A level that often
disagrees with itself is choosing between moves its samples cannot tell apart; where it
disagrees with the true hands' search, what it does not know is what it lacks.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import (  # noqa: E402
    Move,
    Observation,
    Rules,
    State,
    apply_legal,
    new_deal,
    observe,
)
from games.engine.bots import (  # noqa: E402
    BOTS,
    LEVEL_CONFIGS,
    LEVELS,
    LEVELS_FILE,
    Bot,
    get_bot,
    level_config,
)
from games.engine.bots.ismcts import (  # noqa: E402
    Sampler,
    SearchConfig,
    flat_search,
    make_ismcts_bot,
    tree_search,
)
from games.engine.fast import FastDeal  # noqa: E402
from games.engine.history import LoggedMove, logged_move, seen_by  # noqa: E402
from games.engine.moves import PLAY  # noqa: E402
from games.engine.state import PLAY_PHASE  # noqa: E402

Z95 = statistics.NormalDist().inv_cdf(0.975)
Result = TypeVar("Result")


# --- players --------------------------------------------------------------------------------


class Player:
    """A seat's player in the bench: a registered bot, or a search that reads the true deal."""

    name: str

    def choose(
        self, state: State, observation: Observation, rng: random.Random, log: list[LoggedMove]
    ) -> Move:
        raise NotImplementedError


class BotPlayer(Player):
    def __init__(self, name: str) -> None:
        self.name = name
        self.bot = get_bot(name)

    def bot_for(self, observation: Observation) -> Bot:
        """The bot that plays at this observation's table."""
        return self.bot

    def choose(
        self, state: State, observation: Observation, rng: random.Random, log: list[LoggedMove]
    ) -> Move:
        bot = self.bot_for(observation)
        history = seen_by(log, observation.you) if bot.reads_history else ()
        return bot.choose(observation, rng, history)


class TrueDeal(Sampler):
    """The 'samples' of a search that sees the deal: the true state, with the stock re-dealt
    unless `stock` (so the search knows every card, or every hand)."""

    def __init__(self, state: State, observation: Observation, rng: random.Random, stock: bool):
        super().__init__(observation, rng)
        self.template = FastDeal.from_state(state)
        self.keep_stock = stock

    def sample(self, rng: random.Random) -> FastDeal:
        deal = self.template.copy()
        if not self.keep_stock:
            rng.shuffle(deal.stock)
        return deal


class CeilingPlayer(Player):
    """`perfect:<level>` (every card) or `hands:<level>` (every hand): the search the level plays
    at the table (`level_config`) given the true deal instead of its samples; bench-only, it
    reads the state."""

    def __init__(self, name: str) -> None:
        self.name = name
        kind, level = name.split(":", 1)
        self.stock = kind == "perfect"
        if level not in LEVEL_CONFIGS:
            raise SystemExit(f"{level} is not a search level ({', '.join(LEVEL_CONFIGS)})")
        self.level = level

    def choose(
        self, state: State, observation: Observation, rng: random.Random, log: list[LoggedMove]
    ) -> Move:
        legal = observation.legal_moves
        if len(legal) == 1:
            return legal[0]
        sampler = TrueDeal(state, observation, rng, self.stock)
        # The config the level searches with at this table (the expert's flat one at 3+ seats).
        config = level_config(self.level, len(observation.hand_counts))
        search = tree_search if config.algorithm == "tree" else flat_search
        return search(observation, rng, config, sampler=sampler)[0]


class VariantPlayer(BotPlayer):
    """`<level>@field=value,...`: the search level with those fields of its config replaced, of
    the config it plays at the table (`level_config`: the expert's flat one at 3+ seats)."""

    def __init__(self, name: str) -> None:
        self.name = name
        level, _, changes = name.partition("@")
        if level not in LEVEL_CONFIGS:
            raise SystemExit(f"{level} is not a search level ({', '.join(LEVEL_CONFIGS)})")
        fields = [f.name for f in dataclasses.fields(SearchConfig)]
        values: dict[str, Any] = {}
        for change in filter(None, changes.split(",")):
            key, _, text = change.partition("=")
            if key not in fields:
                raise SystemExit(f"{key!r} is no field of SearchConfig ({', '.join(fields)})")
            try:
                values[key] = json.loads(text)  # a number, true, false or null
            except ValueError:
                values[key] = text  # a word, e.g. facts=play
        # level_config tells two seats from three or more.
        self.heads_up, self.table = (
            make_ismcts_bot(dataclasses.replace(level_config(level, seats), **values), name)
            for seats in (2, 3)
        )

    def bot_for(self, observation: Observation) -> Bot:
        return self.heads_up if len(observation.hand_counts) == 2 else self.table


def player(name: str) -> Player:
    if name.startswith(("perfect:", "hands:")):
        return CeilingPlayer(name)
    if "@" in name:
        return VariantPlayer(name)
    if name not in BOTS:
        raise SystemExit(f"unknown bot {name!r}; known: {', '.join(BOTS)}")
    return BotPlayer(name)


# --- paired deals ---------------------------------------------------------------------------


def deal_seed(seed: int, index: int) -> bytes:
    return hashlib.sha256(f"bench-bots:{seed}:{index}".encode()).digest()


@dataclass
class SeedResult:
    """One seed, dealt once per seat with bot a in that seat: a's and b's tallies."""

    index: int
    share: float  # a's mean win share over the seed's deals
    penalties: tuple[list[int], list[int]] = field(default_factory=lambda: ([], []))
    cpu: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    ranks: list[tuple[int, int]] = field(default_factory=list)  # (a's, b's seat's) deal scores


def play_deal(
    players: Sequence[Player], seed: bytes, rules: Rules, rng_seed: str
) -> tuple[State, list[list[float]]]:
    """One deal, players[s] in seat s; the final state and the CPU seconds of each seat's
    decisions."""
    seats = len(players)
    rngs = [random.Random(f"{rng_seed}:{seat}") for seat in range(seats)]
    cpu: list[list[float]] = [[] for _ in range(seats)]
    state = new_deal(rules, seats, 0, seed)
    log: list[LoggedMove] = []
    while state.result is None:
        seat = state.turn
        assert seat is not None
        observation = observe(state, seat)
        start = time.process_time()
        move = players[seat].choose(state, observation, rngs[seat], log)
        if len(observation.legal_moves) > 1:
            cpu[seat].append(time.process_time() - start)
        if move not in observation.legal_moves:
            raise AssertionError(f"{players[seat].name} chose the illegal move {move}")
        after = apply_legal(state, move)
        log.append(logged_move(state, move, after))
        state = after
    return state, cpu


def play_seeds(
    a: str, b: str, seats: int, seed: int, indices: Sequence[int], rules_json: str
) -> list[SeedResult]:
    rules = Rules.from_json(json.loads(rules_json))
    first, other = player(a), player(b)
    out = []
    for index in indices:
        result = SeedResult(index, 0.0)
        for seat_a in range(seats):
            players = [other] * seats
            players[seat_a] = first
            state, cpu = play_deal(
                players, deal_seed(seed, index), rules, f"{seed}:{index}:{seat_a}"
            )
            final = state.result
            assert final is not None
            if seat_a in final.winners:
                result.share += 1 / len(final.winners) / seats
            seat_b = (seat_a + 1) % seats
            result.penalties[0].append(final.penalties[seat_a])
            result.penalties[1].extend(p for s, p in enumerate(final.penalties) if s != seat_a)
            result.cpu[0].extend(cpu[seat_a])
            result.cpu[1].extend(t for s, times in enumerate(cpu) if s != seat_a for t in times)
            result.ranks.append((final.penalties[seat_a], final.penalties[seat_b]))
        out.append(result)
    return out


def over_jobs(
    work: Callable[[str, str, int, int, Sequence[int], str], list[Result]],
    a: str,
    b: str,
    seats: int,
    seed: int,
    indices: Sequence[int],
    rules_json: str,
    jobs: int,
) -> list[Result]:
    """`work` (`play_seeds`, `agree_seeds`) on the seeds `indices`, split over `jobs` processes;
    the results of every process, one after the other."""
    jobs = max(1, min(jobs, len(indices)))
    if jobs == 1:
        return work(a, b, seats, seed, indices, rules_json)
    chunks = [list(indices[start::jobs]) for start in range(jobs)]
    with ProcessPoolExecutor(jobs) as pool:
        futures = [pool.submit(work, a, b, seats, seed, c, rules_json) for c in chunks]
        return [r for future in futures for r in future.result()]


def run(
    a: str, b: str, seats: int, seed: int, indices: Sequence[int], rules_json: str, jobs: int
) -> list[SeedResult]:
    """The seeds `indices` of a against b, over `jobs` processes, in seed order."""
    results = over_jobs(play_seeds, a, b, seats, seed, indices, rules_json, jobs)
    return sorted(results, key=lambda r: r.index)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and its normal interval (z standard errors)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, -math.inf, math.inf
    error = z * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - error, mean + error


def ms(values: Sequence[float], q: float) -> float:
    """The q-quantile in milliseconds (nearest rank; the median for q = 0.5)."""
    if not values:
        return float("nan")
    if q == 0.5:
        return statistics.median(values) * 1000
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


@dataclass
class Summary:
    a: str
    b: str
    seats: int
    results: list[SeedResult]
    seconds: float

    @property
    def shares(self) -> list[float]:
        return [r.share for r in self.results]

    def cpu(self, side: int) -> list[float]:
        return [t for r in self.results for t in r.cpu[side]]

    def mean_penalty(self, side: int) -> float:
        return statistics.fmean(p for r in self.results for p in r.penalties[side])

    def line(self) -> str:
        share, low, high = mean_interval(self.shares)
        deals = len(self.results) * self.seats
        return (
            f"{self.a} vs {self.b} ({self.seats} seats): {self.a} wins {share:.1%}"
            f" [{low:.1%}, {high:.1%}] of {deals} deals ({len(self.results)} seeds);"
            f" mean penalty {self.mean_penalty(0):.2f} vs {self.mean_penalty(1):.2f};"
            f" CPU ms per decision {self.a} {ms(self.cpu(0), 0.5):.1f} (p95"
            f" {ms(self.cpu(0), 0.95):.1f}), {self.b} {ms(self.cpu(1), 0.5):.2f}"
            f" (p95 {ms(self.cpu(1), 0.95):.2f}); {self.seconds:.0f} s"
        )


def duel(args: argparse.Namespace, a: str, b: str, seats: int, seeds: int) -> Summary:
    player(a), player(b)  # an unknown name stops here, not in a worker
    started = time.perf_counter()
    results = run(a, b, seats, args.seed, range(seeds), args.rules, args.jobs)
    summary = Summary(a, b, seats, results, time.perf_counter() - started)
    print(summary.line(), flush=True)
    return summary


# --- agreement --------------------------------------------------------------------------------


class Agreement(NamedTuple):
    """One decision of `--agreement`: its kind, whether the level chose the same move when asked
    again and the true hands' search chose it too, and what that search's move is (`move_kind`)."""

    kind: str
    itself: bool
    hands: bool
    hands_kind: str


def move_kind(move: Move) -> str:
    """What `move` is: a Jack, another card, a draw or a pass."""
    if move.action != PLAY:
        return move.action
    assert move.card is not None
    return "a Jack" if move.card.is_jack else "another card"


def decision_kind(state: State, move: Move) -> str:
    """A decision's kind in `--agreement`'s table: its phase, and in the play phase what the
    level chose (`move_kind`)."""
    if state.pending_sevens:
        return "answering sevens"
    if state.phase != PLAY_PHASE:
        return state.phase.replace("_", " ")
    return f"play phase: {move_kind(move)}"


class AgreementPlayer(Player):
    """The level `name`, asked twice at each of its decisions (its first move stands), and the
    same search given the true hands; `rows` holds an `Agreement` a decision."""

    def __init__(self, name: str, seed: str) -> None:
        self.name = name
        self.level = player(name)
        self.ceiling = CeilingPlayer(f"hands:{name.partition('@')[0]}")
        self.rng = random.Random(f"agreement:{seed}")
        self.rows: list[Agreement] = []

    def choose(
        self, state: State, observation: Observation, rng: random.Random, log: list[LoggedMove]
    ) -> Move:
        move = self.level.choose(state, observation, rng, log)
        if len(observation.legal_moves) > 1:
            again = self.level.choose(state, observation, self.rng, log)
            truth = self.ceiling.choose(state, observation, self.rng, log)
            self.rows.append(
                Agreement(
                    decision_kind(state, move),
                    again == move,
                    truth == move,
                    move_kind(truth),
                )
            )
        return move


def agree_seeds(
    a: str, b: str, seats: int, seed: int, indices: Sequence[int], rules_json: str
) -> list[Agreement]:
    rules = Rules.from_json(json.loads(rules_json))
    other = player(b)
    rows = []
    for index in indices:
        for seat_a in range(seats):
            first = AgreementPlayer(a, f"{seed}:{index}:{seat_a}")
            players: list[Player] = [other] * seats
            players[seat_a] = first
            play_deal(players, deal_seed(seed, index), rules, f"{seed}:{index}:{seat_a}")
            rows += first.rows
    return rows


def agreement(args: argparse.Namespace) -> None:
    """`--agreement`: the table of the level `--a`'s agreement, by kind of decision."""
    if args.a.partition("@")[0] not in LEVEL_CONFIGS:
        raise SystemExit(f"--agreement: {args.a} is not a search level")
    player(args.a), player(args.b)  # an unknown name stops here, not in a worker
    started = time.perf_counter()
    indices = range(args.seeds)
    rows = over_jobs(
        agree_seeds, args.a, args.b, args.seats, args.seed, indices, args.rules, args.jobs
    )
    deals = args.seeds * args.seats
    print(
        f"{args.a} against {args.b} ({args.seats} seats): {len(rows)} decisions of {deals} deals"
        f" ({args.seeds} seeds, seed {args.seed}); {time.perf_counter() - started:.0f} s"
    )
    ceiling = f"hands:{args.a.partition('@')[0]}"
    print(
        f"{'decision':<26} {'count':>6} {'same as itself':>15} {'same as ' + ceiling:>22}"
        f"  {ceiling + ' where it differs'}"
    )
    kinds = sorted({row.kind for row in rows}, key=lambda k: -sum(row.kind == k for row in rows))
    for kind in [*kinds, "all"]:
        chosen = [row for row in rows if kind in ("all", row.kind)]
        itself = sum(row.itself for row in chosen) / len(chosen)
        hands = sum(row.hands for row in chosen) / len(chosen)
        differs = Counter(row.hands_kind for row in chosen if not row.hands)
        instead = ", ".join(
            f"{other} {count / differs.total():.0%}" for other, count in differs.most_common(3)
        )
        print(f"{kind:<26} {len(chosen):>6} {itself:>15.1%} {hands:>22.1%}  {instead}")


# --- the ladder of levels -------------------------------------------------------------------

FIRST_LOOK = 16


def looks(max_seeds: int) -> list[int]:
    """The seed counts at which a step of the ladder is tested: 16, 32, 64, … max_seeds."""
    out = [FIRST_LOOK]
    while out[-1] * 2 <= max_seeds:
        out.append(out[-1] * 2)
    return out


def climb(args: argparse.Namespace) -> None:
    """Each level against the one below until it beats it (see the module docstring)."""
    from openskill.models import PlackettLuce

    started = time.perf_counter()
    marks = looks(args.max_seeds)
    z = statistics.NormalDist().inv_cdf(1 - 0.025 / len(marks))
    print(
        f"ladder of {', '.join(LEVELS)}: each level against the one below, 2 seats, paired, seed"
        f" {args.seed}, looks at {', '.join(map(str, marks))} seeds, z = {z:.2f} (95% over"
        f" {len(marks)} looks, Bonferroni)",
        flush=True,
    )
    steps = []
    played: list[tuple[str, str, SeedResult]] = []
    cpu: dict[str, list[float]] = {name: [] for name in LEVELS}
    penalties: dict[str, list[int]] = {name: [] for name in LEVELS}
    for lower, upper in zip(LEVELS, LEVELS[1:], strict=False):
        results: list[SeedResult] = []
        for mark in marks:
            results += run(
                upper, lower, 2, args.seed, range(len(results), mark), args.rules, args.jobs
            )
            share, low, high = mean_interval([r.share for r in results], z)
            print(
                f"  {upper} vs {lower}: {len(results)} seeds, {share:.1%} [{low:.1%}, {high:.1%}]",
                flush=True,
            )
            if low > 0.5:
                break
        steps.append(
            {
                "lower": lower,
                "upper": upper,
                "deals": 2 * len(results),
                "win_share": round(share, 4),
                "interval": [round(low, 4), round(high, 4)],
                "z": round(z, 3),
                "separated": low > 0.5,
            }
        )
        for r in results:
            played.append((upper, lower, r))
            cpu[upper].extend(r.cpu[0])
            cpu[lower].extend(r.cpu[1])
            penalties[upper].extend(r.penalties[0])
            penalties[lower].extend(r.penalties[1])
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in LEVELS}
    for upper, lower, r in played:
        for pa, pb in r.ranks:
            [[ratings[upper]], [ratings[lower]]] = model.rate(
                [[ratings[upper]], [ratings[lower]]], ranks=[pa, pb]
            )
    elapsed = time.perf_counter() - started
    print("step             deals  win share  interval (z above)       beats the level below")
    for step in steps:
        low, high = step["interval"]
        print(
            f"{step['upper']:>8} > {step['lower']:<8} {step['deals']:>5}  {step['win_share']:>8.1%}"
            f"  [{low:.1%}, {high:.1%}]  {'yes' if step['separated'] else 'NOT SHOWN'}"
        )
    print("openskill Plackett-Luce (mu 25, sigma 25/3 at the start); ordinal = mu - 3 sigma")
    columns = ("mu", "sigma", "ordinal", "mean pen", "CPU ms/dec", "p95")
    widths = (7, 6, 8, 9, 11, 8)
    print(f"{'level':>9} " + " ".join(f"{c:>{w}}" for c, w in zip(columns, widths, strict=True)))
    levels = {}
    for name in LEVELS:
        rating = ratings[name]
        levels[name] = {
            "mu": round(rating.mu, 2),
            "sigma": round(rating.sigma, 2),
            "ordinal": round(rating.ordinal(), 2),
            "mean_penalty": round(statistics.fmean(penalties[name]), 2),
            "cpu_ms_per_decision": round(ms(cpu[name], 0.5), 2) if cpu[name] else 0.0,
            "cpu_ms_p95": round(ms(cpu[name], 0.95), 2) if cpu[name] else 0.0,
        }
        entry = levels[name]
        print(
            f"{name:>9} {entry['mu']:>7.2f} {entry['sigma']:>6.2f} {entry['ordinal']:>8.2f}"
            f" {entry['mean_penalty']:>9.2f} {entry['cpu_ms_per_decision']:>11.2f}"
            f" {entry['cpu_ms_p95']:>8.2f}"
        )
    print(f"{sum(s['deals'] for s in steps)} deals, {elapsed:.0f} s wall", flush=True)
    if args.write:
        body = {
            "command": "bench/bots.py " + " ".join(argv_of(args)),
            "model": "openskill PlackettLuce, one two-seat game per deal ranked by deal score",
            "deals": sum(s["deals"] for s in steps),
            "wall_seconds": round(elapsed),
            "levels": levels,
            "steps": steps,
        }
        LEVELS_FILE.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {LEVELS_FILE}")


def argv_of(args: argparse.Namespace) -> list[str]:
    out = ["--levels", f"--seed {args.seed}", f"--max-seeds {args.max_seeds}"]
    if args.jobs != 1:
        out.append(f"--jobs {args.jobs}")
    if args.rules != "{}":
        out.append(f"--rules '{args.rules}'")
    return out


# --- the expert's targets -------------------------------------------------------------------


PARTS = ("expert", "ismcts", "perfect", "hands", "four", "perfect4", "hands4")


def targets(args: argparse.Namespace) -> None:
    """The target rows of the duels in `--parts` (all by default; a run may take a few at a
    time, on the same seeds): a row needs its duels."""
    started = time.perf_counter()
    seeds, seeds4 = args.seeds, args.seeds4
    parts = args.parts.split(",")
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise SystemExit(f"unknown parts {', '.join(sorted(unknown))}; known: {', '.join(PARTS)}")
    print(f"the expert's targets, seed {args.seed}, rules {args.rules}", flush=True)
    expert = duel(args, "expert", "greedy", 2, seeds) if "expert" in parts else None
    previous = duel(args, "ismcts", "greedy", 2, seeds) if "ismcts" in parts else None
    perfect = duel(args, "perfect:expert", "greedy", 2, seeds) if "perfect" in parts else None
    hands = duel(args, "hands:expert", "greedy", 2, seeds) if "hands" in parts else None
    if not seeds4:
        parts = [part for part in parts if part not in ("four", "perfect4", "hands4")]
    four = duel(args, "expert", "greedy", 4, seeds4) if "four" in parts else None
    perfect4 = duel(args, "perfect:expert", "greedy", 4, seeds4) if "perfect4" in parts else None
    hands4 = duel(args, "hands:expert", "greedy", 4, seeds4) if "hands4" in parts else None

    def mark(ok: bool) -> str:
        return "met" if ok else "NOT MET"

    rows = []
    share = 0.5
    share4 = 0.25
    if expert is not None:
        share, low, high = mean_interval(expert.shares)
        median, p95 = ms(expert.cpu(0), 0.5), ms(expert.cpu(0), 0.95)
        rows.append(
            (
                "expert vs greedy, 2 seats: >= 70%, low end > 65%",
                f"{share:.1%} [{low:.1%}, {high:.1%}]",
                mark(share >= 0.7 and low > 0.65),
            )
        )
    if four is not None:
        share4, low4, high4 = mean_interval(four.shares)
        rows.append(
            (
                "expert vs 3 greedy, 4 seats: >= 40%",
                f"{share4:.1%} [{low4:.1%}, {high4:.1%}]",
                mark(share4 >= 0.4),
            )
        )
    if expert is not None and previous is not None:
        lead = [e - p for e, p in zip(expert.shares, previous.shares, strict=True)]
        gain, gain_low, gain_high = mean_interval(lead)
        rows.append(
            (
                "lead over the previous ismcts, paired: >= 10 pt",
                f"{100 * gain:+.1f} pt [{100 * gain_low:+.1f}, {100 * gain_high:+.1f}]",
                mark(gain >= 0.10),
            )
        )
    if expert is not None:
        rows.append(
            (
                "CPU per decision, 2 seats: median <= 100 ms",
                f"median {median:.1f} ms, p95 {p95:.1f} ms",
                mark(median <= 100),
            )
        )
    if four is not None:
        cpu = (expert.cpu(0) if expert else []) + four.cpu(0)
        rows.append(
            (
                "CPU per decision, 4 seats (and all)",
                f"median {ms(four.cpu(0), 0.5):.1f} ms, p95 {ms(four.cpu(0), 0.95):.1f} ms"
                f" (all: {ms(cpu, 0.5):.1f}, {ms(cpu, 0.95):.1f})",
                "",
            )
        )
    # The ceilings, and the expert's share of the gap from an even share (half the deals at two
    # seats, a quarter at four) to each.
    for ceiling, seats, even, got, played in (
        (perfect, 2, 0.5, share, expert),
        (hands, 2, 0.5, share, expert),
        (perfect4, 4, 0.25, share4, four),
        (hands4, 4, 0.25, share4, four),
    ):
        if ceiling is None:
            continue
        top, low, high = mean_interval(ceiling.shares)
        part = (got - even) / (top - even) if top > even and played else float("nan")
        rows.append(
            (
                f"ceiling {ceiling.a} vs greedy, {seats} seats",
                f"{top:.1%} [{low:.1%}, {high:.1%}]; the expert has {part:.0%} of the gap"
                f" from {even:.0%}",
                "",
            )
        )
    print(f"{'target':<52}{'measured':<44}")
    for target, measured, verdict in rows:
        print(f"{target:<52}{measured:<44}{verdict}")
    print(f"{time.perf_counter() - started:.0f} s wall", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", action="store_true", help="climb the ladder of the levels")
    parser.add_argument("--targets", action="store_true", help="the expert's targets")
    parser.add_argument(
        "--agreement",
        action="store_true",
        help="how often the search level a chooses as itself and as the true hands' search",
    )
    parser.add_argument("--write", action="store_true", help="--levels: write levels.json")
    parser.add_argument(
        "--max-seeds", type=int, default=1024, help="--levels: seeds at most a step"
    )
    parser.add_argument("--a", default="greedy", help="first bot (default greedy)")
    parser.add_argument("--b", default="random", help="second bot (default random)")
    parser.add_argument(
        "--paired", help="also play this bot against b on the same seeds: a's lead over it"
    )
    parser.add_argument("--seats", type=int, default=2, help="table size (a in each seat in turn)")
    parser.add_argument("--seeds", type=int, default=200, help="seeds (deals: seeds × seats)")
    parser.add_argument("--seeds4", type=int, default=150, help="--targets: seeds at four seats")
    parser.add_argument(
        "--parts",
        default=",".join(PARTS),
        help="--targets: the duels to play (of expert, ismcts, perfect, hands, four; all by"
        " default)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--rules", default="{}", help='rule options as JSON, e.g. \'{"ace_mode": "skip_next"}\''
    )
    args = parser.parse_args(argv)
    if args.paired and (args.levels or args.targets or args.agreement):
        parser.error("--paired goes with a duel (--a, --b), not --levels, --targets or --agreement")
    if args.agreement:
        agreement(args)
    elif args.levels:
        climb(args)
    elif args.targets:
        targets(args)
    else:
        first = duel(args, args.a, args.b, args.seats, args.seeds)
        if args.paired:
            second = duel(args, args.paired, args.b, args.seats, args.seeds)
            lead = [x - y for x, y in zip(first.shares, second.shares, strict=True)]
            gain, low, high = mean_interval(lead)
            print(
                f"{args.a} over {args.paired} against {args.b}, paired on {len(lead)} seeds:"
                f" {100 * gain:+.1f} pt [{100 * low:+.1f}, {100 * high:+.1f}]",
                flush=True,
            )


if __name__ == "__main__":
    main()
