"""Bot against bot: paired two-seat deals, win rates, mean penalties and time per move.

    .venv/bin/python bench/bots.py --a greedy --b random --deals 2000 --seed 1 [--jobs 2]
    .venv/bin/python bench/bots.py --levels --seeds 20 --seed 1 --jobs 2 [--write]

`--levels` plays a round robin of every bot level (`games.engine.bots.LEVELS`: random, greedy,
ismcts-1 … ismcts-4), `--seeds` paired deals per pairing, and rates each level by openskill's
Plackett-Luce model, one two-seat game per deal ranked by deal score (lower is better, R-30,
R-31), the deals taken in a fixed order so the ratings are reproducible. `--write` stores the
ratings in games/engine/bots/levels.json with the command that produced them.

Deals come in pairs with the same seed and the seats swapped (the opener is seat 0 in both),
so each bot plays both hands of every shuffle. A deal is won by the seat(s) scoring 0 (R-30,
R-31); a shared stock-exhaustion win (equal hand penalties, both score 0) counts half a win for
each bot. Times per `choose` call: wall-clock over every move (forced moves, with one legal move,
included), wall-clock over the decisions only (two or more legal moves), and the process CPU time
per move (less sensitive to other load on the shared machine, which makes wall times noisy).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import Rules, apply_legal, new_deal, observe  # noqa: E402
from games.engine.bots import LEVELS, LEVELS_FILE, get_bot  # noqa: E402


@dataclass
class Tally:
    wins: float = 0.0
    penalty: int = 0
    deals: int = 0
    times: list[tuple[float, float, bool]] = field(default_factory=list)  # wall, cpu, forced
    pair_wins: list[float] = field(default_factory=list)  # win share over each seed's two deals

    def add(self, other: Tally) -> None:
        self.wins += other.wins
        self.penalty += other.penalty
        self.deals += other.deals
        self.times.extend(other.times)
        self.pair_wins.extend(other.pair_wins)


def deal_seed(seed: int, index: int) -> bytes:
    return hashlib.sha256(f"bench-bots:{seed}:{index}".encode()).digest()


Times = list[tuple[float, float, bool]]


def play_deal(
    names: tuple[str, str], seed: bytes, rules: Rules, rng_seed: str
) -> tuple[tuple[int, int], tuple[float, float], tuple[Times, Times]]:
    """One deal, bot names[s] in seat s; penalties, win shares and choose() times by seat."""
    bots = [get_bot(name) for name in names]
    rngs = [random.Random(f"{rng_seed}:{seat}") for seat in range(2)]
    times: tuple[Times, Times] = ([], [])
    state = new_deal(rules, 2, 0, seed)
    while state.result is None:
        seat = state.turn
        assert seat is not None
        observation = observe(state, seat)
        start = time.perf_counter()
        cpu = time.process_time()
        move = bots[seat].choose(observation, rngs[seat])
        times[seat].append(
            (
                time.perf_counter() - start,
                time.process_time() - cpu,
                len(observation.legal_moves) == 1,
            )
        )
        if move not in observation.legal_moves:
            raise AssertionError(f"{names[seat]} chose the illegal move {move}")
        state = apply_legal(state, move)
    result = state.result
    share = 1.0 / len(result.winners)
    wins = tuple(share if s in result.winners else 0.0 for s in range(2))
    return (result.penalties[0], result.penalties[1]), (wins[0], wins[1]), times


def play_pairs(a: str, b: str, seed: int, indices: range, rules_json: str) -> tuple[Tally, Tally]:
    rules = Rules.from_json(json.loads(rules_json))
    tallies = (Tally(), Tally())
    for index in indices:
        deal = deal_seed(seed, index)
        before = tallies[0].wins
        for swap in (False, True):
            names = (b, a) if swap else (a, b)
            penalties, wins, times = play_deal(names, deal, rules, f"{seed}:{index}:{swap}")
            for seat in range(2):
                tally = tallies[(seat + swap) % 2]  # tallies[0] is bot a
                tally.wins += wins[seat]
                tally.penalty += penalties[seat]
                tally.deals += 1
                tally.times.extend(times[seat])
        tallies[0].pair_wins.append((tallies[0].wins - before) / 2)
    return tallies


def percentile(values: list[float], q: float) -> float:
    """The q-quantile in milliseconds (median for q = 0.5)."""
    if not values:
        return 0.0
    if q == 0.5:
        return statistics.median(values) * 1000
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))] * 1000


# One deal of the round robin: (bot a, bot b, seed index, swapped, penalties by bot, CPU
# seconds per decision by bot).
LevelDeal = tuple[str, str, int, bool, tuple[int, int], tuple[list[float], list[float]]]


def play_level_deals(
    tasks: list[tuple[str, str, int]], seed: int, rules_json: str
) -> list[LevelDeal]:
    """Both seatings of each (a, b, seed index) task."""
    rules = Rules.from_json(json.loads(rules_json))
    out: list[LevelDeal] = []
    for a, b, index in tasks:
        deal = deal_seed(seed, index)
        for swap in (False, True):
            names = (b, a) if swap else (a, b)
            penalties, _, times = play_deal(names, deal, rules, f"{seed}:{a}:{b}:{index}:{swap}")
            first, second = (1, 0) if swap else (0, 1)  # the seats of a and b
            cpu = tuple([t[1] for t in times[s] if not t[2]] for s in (first, second))
            out.append((a, b, index, swap, (penalties[first], penalties[second]), (cpu[0], cpu[1])))
    return out


def rate_levels(args: argparse.Namespace) -> None:
    """Round robin of the levels, rated by openskill (see the module docstring)."""
    from openskill.models import PlackettLuce

    pairings = [(a, b) for i, a in enumerate(LEVELS) for b in LEVELS[i + 1 :]]
    tasks = [(a, b, index) for index in range(args.seeds) for a, b in pairings]
    jobs = max(1, args.jobs)
    started = time.perf_counter()
    chunks = [tasks[start::jobs] for start in range(jobs)]
    if jobs == 1:
        deals = play_level_deals(chunks[0], args.seed, args.rules)
    else:
        with ProcessPoolExecutor(jobs) as pool:
            futures = [pool.submit(play_level_deals, c, args.seed, args.rules) for c in chunks]
            deals = [d for future in futures for d in future.result()]
    deals.sort(key=lambda d: (d[2], LEVELS.index(d[0]), LEVELS.index(d[1]), d[3]))
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in LEVELS}
    penalty = {name: 0 for name in LEVELS}
    played = {name: 0 for name in LEVELS}
    decisions: dict[str, list[float]] = {name: [] for name in LEVELS}
    wins: dict[tuple[str, str], float] = {pairing: 0.0 for pairing in pairings}
    for a, b, _, _, (pa, pb), (ca, cb) in deals:
        [[ratings[a]], [ratings[b]]] = model.rate([[ratings[a]], [ratings[b]]], ranks=[pa, pb])
        wins[(a, b)] += 1.0 if pa < pb else 0.5 if pa == pb else 0.0
        for name, p, c in ((a, pa, ca), (b, pb, cb)):
            penalty[name] += p
            played[name] += 1
            decisions[name].extend(c)
    elapsed = time.perf_counter() - started
    print(
        f"round robin of {', '.join(LEVELS)}: {len(pairings)} pairings x {args.seeds} seeds x 2"
        f" seatings = {len(deals)} two-seat deals, seed {args.seed}, {jobs} job(s),"
        f" {elapsed:.0f} s wall"
    )
    print("pair score of the row bot against the column bot (a deal: 1 lower score, ½ equal)")
    print(f"{'':>9}" + "".join(f"{b:>9}" for b in LEVELS))
    for a in LEVELS:
        row = []
        for b in LEVELS:
            if (a, b) in wins:
                row.append(f"{wins[(a, b)] / (2 * args.seeds):>9.0%}")
            elif (b, a) in wins:
                row.append(f"{1 - wins[(b, a)] / (2 * args.seeds):>9.0%}")
            else:
                row.append(f"{'':>9}")
        print(f"{a:>9}" + "".join(row))
    print("openskill Plackett-Luce (mu 25, sigma 25/3 at the start); ordinal = mu - 3 sigma")
    print(f"{'level':>9} {'mu':>7} {'sigma':>6} {'ordinal':>8} {'mean pen':>9} {'CPU ms/dec':>11}")
    levels = {}
    for name in LEVELS:
        rating = ratings[name]
        cpu_ms = statistics.median(decisions[name]) * 1000 if decisions[name] else 0.0
        levels[name] = {
            "mu": round(rating.mu, 2),
            "sigma": round(rating.sigma, 2),
            "ordinal": round(rating.ordinal(), 2),
            "mean_penalty": round(penalty[name] / played[name], 2),
            "cpu_ms_per_decision": round(cpu_ms, 2),
        }
        print(
            f"{name:>9} {rating.mu:>7.2f} {rating.sigma:>6.2f} {rating.ordinal():>8.2f}"
            f" {penalty[name] / played[name]:>9.2f} {cpu_ms:>11.2f}"
        )
    if args.write:
        body = {
            "command": "bench/bots.py " + " ".join(argv_of(args)),
            "model": "openskill PlackettLuce, one two-seat game per deal ranked by deal score",
            "deals": len(deals),
            "deals_per_pairing": 2 * args.seeds,
            "wall_seconds": round(elapsed),
            "levels": levels,
        }
        LEVELS_FILE.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {LEVELS_FILE}")


def argv_of(args: argparse.Namespace) -> list[str]:
    return ["--levels", f"--seeds {args.seeds}", f"--seed {args.seed}", f"--jobs {args.jobs}"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", action="store_true", help="round robin of the bot levels")
    parser.add_argument("--seeds", type=int, default=20, help="--levels: seeds per pairing")
    parser.add_argument("--write", action="store_true", help="--levels: write levels.json")
    parser.add_argument("--a", default="greedy", help="first bot (default greedy)")
    parser.add_argument("--b", default="random", help="second bot (default random)")
    parser.add_argument("--deals", type=int, default=2000, help="deals in all (even; 2 per seed)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--rules", default="{}", help='rule options as JSON, e.g. \'{"ace_mode": "skip_next"}\''
    )
    args = parser.parse_args(argv)
    if args.levels:
        rate_levels(args)
        return
    pairs = args.deals // 2
    jobs = max(1, args.jobs)
    chunks = [range(start, pairs, jobs) for start in range(jobs)]
    started = time.perf_counter()
    total = (Tally(), Tally())
    if jobs == 1:
        results = [play_pairs(args.a, args.b, args.seed, chunks[0], args.rules)]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            futures = [
                pool.submit(play_pairs, args.a, args.b, args.seed, chunk, args.rules)
                for chunk in chunks
            ]
            results = [future.result() for future in futures]
    for part in results:
        total[0].add(part[0])
        total[1].add(part[1])
    elapsed = time.perf_counter() - started
    deals = total[0].deals
    print(
        f"{deals} deals ({pairs} seeds x 2 seatings), 2 seats, rules {args.rules},"
        f" seed {args.seed}, {jobs} job(s), {elapsed:.1f} s"
    )
    print("shared stock-exhaustion wins count half for each bot")
    print("ms per move: wall over all moves | wall over decisions (2+ legal moves) | CPU, all")
    print(
        f"{'bot':>10} {'win rate':>9} {'wins':>8} {'mean pen':>9} {'moves':>7} {'decis.':>7}"
        f" {'med':>8} {'p95':>8} | {'med':>8} {'p95':>8} | {'med':>8} {'p95':>8}"
    )
    for name, tally in zip((args.a, args.b), total, strict=True):
        wall = [t[0] for t in tally.times]
        decisions = [t[0] for t in tally.times if not t[2]]
        cpu = [t[1] for t in tally.times]
        columns = " | ".join(
            f"{percentile(x, 0.5):>8.3f} {percentile(x, 0.95):>8.3f}"
            for x in (wall, decisions, cpu)
        )
        print(
            f"{name:>10} {tally.wins / deals:>9.1%} {tally.wins:>8.1f}"
            f" {tally.penalty / deals:>9.2f} {len(wall):>7} {len(decisions):>7} {columns}"
        )
    a, b = total
    pairs_won = a.pair_wins
    if len(pairs_won) > 1:
        # The two deals of a seed are not independent: the standard error is over seeds.
        error = 1.96 * statistics.stdev(pairs_won) / len(pairs_won) ** 0.5
        print(f"{args.a} win rate {a.wins / deals:.1%} ± {error:.1%} (95% confidence, by seed)")
    if b.penalty:
        print(f"{args.a} concedes {a.penalty / b.penalty:.1%} of {args.b}'s mean penalty")


if __name__ == "__main__":
    main()
