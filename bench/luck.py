"""Does it measure skill? Deals needed to rank bots of known order by four scores.

    nice -n 15 .venv/bin/python bench/luck.py --boards 300 --seed 1 --strong search-400-w0

Bots of known order play: `--strong` > greedy > random. `--strong` is a bot level
(`ismcts-1` … `ismcts-4`) or `search-<rollouts>-w<win weight>`, the same flat search with its
own budget and reward weight (`SearchConfig.iterations`, `win_weight`; `w0`: the reward is the
seat's own deal score alone, the score every metric here measures). A board is a set of deal
seeds. With 2 seats each board has the three pairings (strong-greedy, strong-random,
greedy-random), each on its own seed; with 4 seats one line-up (strong, greedy, random, greedy:
the fourth seat is a second greedy, whose results count for greedy). Every seed is played in
all its seat rotations (bot i of the line-up in seat (i + r) mod n, opener seat 0), so each bot
holds every hand of the deal once.

Four scores of a bot on a deal, all on the same boards:
- raw penalty: its deal score (R-30, R-31) in one rotation per seed (ordinary play: every deal a
  new shuffle), rotation `board mod n`, so each bot sits at each seat (the opener's too, R-8)
  equally often over the boards; lower is better;
- luck-adj start: `actual − expected` on the same deals, `expected` from the deal's start alone
  (`expected_deal_scores`, issue 16 item 2: K re-sampled stocks, the reference bot at every
  seat), what the product stores as `luck` (games.deal_luck); lower is better;
- luck-adj dec/seat and dec/full: the luck of every chance event taken out, on the same deals
  (`deal_skill`: each decision that leaves the reference bot's move valued by paired play-outs,
  from the deciding seat's observation (`seat`: the unseen cards re-dealt) or from the full
  position (`full`: the stock re-sampled)), scored as `prior − skill`, `skill` being what the
  bot's own decisions gained it against the table (`DealSkill.skill`); lower is better; the
  product stores dec/seat's `skill`, which the boards rank by;
- duplicate matchpoints: over all rotations, each result compared with the others obtained with
  the same cards in the same seat (1 per beaten, ½ per tie), as a share; higher is better.

What any duplicate score can take out: the line "duplicate bound" is measured on the same
boards for a score linear in the deal scores of all rotations of a seed (each bot's mean deal
score over every rotation; against each seat's mean, bridge's total points). A pair's raw edge
e_r in rotation r of a seed has the mean μ over the rotations that raw penalty's edge has (raw
penalty plays rotation `board mod n`), and the board mean of e_r over the n rotations costs n
deals, so that score needs n · Var(mean of e_r) / Var(e_r) = 1 + (n − 1) ρ of the deals raw
penalty needs for the pair, Var(e_r) taken over every rotation of every board and ρ being the
mean correlation of e_r between two rotations of a seed (minus the share of a deal's result
that the seat's cards decide). It is at most 50% only if ρ ≤ −0.5 / (n − 1). The ratio of
variances does not depend on the estimate of μ, so it is far less noisy than a ratio of deals
needed; the line gives its 95% bootstrap interval.

A pair's per-board difference (the better bot's edge, positive when it is ahead) compares the
two bots on the same deals: with 2 seats their own pairing (its seed, its rotations), with 4
seats the one line-up. Deals needed to rank the three bots correctly with 95% confidence (method
printed): for each adjacent pair (strong-greedy, greedy-random) the per-board difference has
mean μ and standard deviation σ; boards are independent, so after m boards the pair is ordered
correctly with one-sided confidence 97.5% when m ≥ (1.96 σ / μ)² (normal approximation;
Bonferroni over the two pairs gives 95% for the whole order). The larger m of the two, times the
deals a board costs under that score, is the answer. It is a measurement only when μ is known
to be positive: each pair's line shows the 95% interval of μ from the boards played, and a pair
whose interval reaches zero makes the score's count "undecided". A bootstrap of m boards
(resampled from those played) checks the frequency of the correct order (up to 5000 boards),
and a bootstrap of the boards played (the same resample for every score) gives the 95%
interval of each ratio of deals needed to raw penalty's.

Bias check of each luck-adjusted score against raw penalty: taking the luck out should leave the
expected edge between two bots as it is, only less noisy. Per board, the score's strong-greedy
edge minus raw penalty's on the same deals; the line "bias vs raw" gives its mean over the
boards (points per deal, positive when the score puts the strong bot further ahead than raw
penalty does) with the 95% percentile interval of a bootstrap of the boards played.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import math
import random
import re
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import Rules, apply_legal, new_deal, observe  # noqa: E402
from games.engine.analysis import (  # noqa: E402
    DEFAULT_K,
    DEFAULT_SKILL_K,
    REFERENCE_BOT,
    deal_move_analysis,
    deal_skill,
    expected_deal_scores,
)
from games.engine.bots import Bot, get_bot  # noqa: E402
from games.engine.bots.ismcts import DEFAULT_CONFIG, make_ismcts_bot  # noqa: E402
from games.engine.moves import Move  # noqa: E402

Z = 1.96  # one-sided 97.5% per pair, Bonferroni over two pairs: 95% for the order
BOOTSTRAP_LIMIT = 5000  # boards: a larger check costs more than the bench itself
RATIO_RESAMPLES = 2000
START = "luck-adj start"
DECISIONS = {"seat": "luck-adj dec/seat", "full": "luck-adj dec/full"}
METRICS = ("raw penalty", START, *DECISIONS.values(), "duplicate")
LOWER_IS_BETTER = {metric: metric != "duplicate" for metric in METRICS}
PRODUCT_K = 256  # ANALYSIS_LUCK_SAMPLES, the product's K of the start-only estimate
PRODUCT_SKILL_K = 32  # ANALYSIS_SKILL_SAMPLES, the product's K of deal_skill (seat view)
SEARCH_SPEC = re.compile(r"search-(\d+)-w(\d+(?:\.\d+)?)(?:-m(\d+(?:\.\d+)?))?")

Pair = tuple[str, str]
# One board: metric -> pair -> the better bot's edge over the worse on the board's deals.
Board = dict[str, dict[Pair, float]]
# One board: pair -> the better bot's edge in raw penalty in each rotation of its seed.
Rotations = dict[Pair, list[float]]
# CPU seconds and count of each analysis on a board.
Costs = dict[str, tuple[float, int]]


@functools.cache
def bot_named(name: str) -> Bot:
    """A registered bot, or the flat search `search-<rollouts>-w<win weight>[-m<margin weight>]`."""
    spec = SEARCH_SPEC.fullmatch(name)
    if spec is None:
        return get_bot(name)
    config = replace(
        DEFAULT_CONFIG,
        iterations=int(spec.group(1)),
        win_weight=float(spec.group(2)),
        margin_weight=float(spec.group(3) or 0),
    )
    return make_ismcts_bot(config, name)


def lineups(strong: str, seats: int) -> list[tuple[str, ...]]:
    if seats == 2:
        return [(strong, "greedy"), (strong, "random"), ("greedy", "random")]
    return [(strong, "greedy", "random", "greedy")]


def board_seed(seed: int, seats: int, lineup: int, board: int) -> bytes:
    return hashlib.sha256(f"bench-luck:{seed}:{seats}:{lineup}:{board}".encode()).digest()


def play(names: tuple[str, ...], seed: bytes, rng_seed: str) -> tuple[tuple[int, ...], list[Move]]:
    """One deal, bot names[s] at seat s, opener 0: the deal scores and the move log."""
    bots = [bot_named(name) for name in names]
    rngs = [random.Random(f"{rng_seed}:{s}") for s in range(len(names))]
    state = new_deal(Rules(), len(names), 0, seed)
    moves: list[Move] = []
    while state.result is None:
        seat = state.turn
        assert seat is not None
        move = bots[seat].choose(observe(state, seat), rngs[seat])
        moves.append(move)
        state = apply_legal(state, move)
    return state.result.penalties, moves


def by_bot(names: tuple[str, ...], scores: list[float]) -> dict[str, float]:
    """The mean score of each bot over the seats it holds."""
    held: dict[str, list[float]] = {}
    for name, score in zip(names, scores, strict=True):
        held.setdefault(name, []).append(score)
    return {name: statistics.fmean(values) for name, values in held.items()}


def timed(costs: Costs, name: str, started: float) -> None:
    spent, count = costs.get(name, (0.0, 0))
    costs[name] = (spent + time.process_time() - started, count + 1)


def play_board(
    strong: str, seats: int, seed: int, board: int, k: int, skill_k: int
) -> tuple[Board, Rotations, Costs]:
    """One board: each metric's pair differences, each pair's raw edge in every rotation
    (module docstring), and the CPU seconds of the analyses."""
    order = [strong, "greedy", "random"]
    out: Board = {metric: {} for metric in METRICS}
    rotations: Rotations = {}
    costs: Costs = {}
    for index, lineup in enumerate(lineups(strong, seats)):
        deal = board_seed(seed, seats, index, board)
        # results[r][s]: the deal score of seat s in rotation r, held by lineup[(s + r) % n].
        seated = [tuple(lineup[(s + r) % seats] for s in range(seats)) for r in range(seats)]
        played = [
            play(seated[r], deal, f"{seed}:{seats}:{index}:{board}:{r}") for r in range(seats)
        ]
        results = [scores for scores, _ in played]
        ordinary = board % seats
        actual = [float(p) for p in results[ordinary]]
        raw_by_rotation = [by_bot(seated[r], [float(p) for p in results[r]]) for r in range(seats)]
        start = new_deal(Rules(), seats, 0, deal)
        started = time.process_time()
        expected = expected_deal_scores(start, k=k, seed=deal.hex()).expected
        timed(costs, START, started)
        adjusted = {}
        for view, metric in DECISIONS.items():
            started = time.process_time()
            skill = deal_skill(start, played[ordinary][1], k=skill_k, seed=deal.hex(), view=view)
            timed(costs, metric, started)
            # What the product ranks by, as a deal score: prior − skill (lower is better).
            own = [p - g for p, g in zip(skill.prior, skill.skill, strict=True)]
            adjusted[metric] = by_bot(seated[ordinary], own)
        points: dict[str, list[float]] = {}
        for r in range(seats):
            for s in range(seats):
                mine = results[r][s]
                others = [results[q][s] for q in range(seats) if q != r]
                won = sum(1.0 if mine < o else 0.5 if mine == o else 0.0 for o in others)
                points.setdefault(seated[r][s], []).append(won / len(others))
        scores = {
            "raw penalty": raw_by_rotation[ordinary],
            START: by_bot(seated[ordinary], [a - e for a, e in zip(actual, expected, strict=True)]),
            **adjusted,
            "duplicate": {name: statistics.fmean(values) for name, values in points.items()},
        }
        for better, worse in zip(order, order[1:], strict=False):
            if better not in lineup or worse not in lineup:
                continue
            for metric, score in scores.items():
                edge = score[better] - score[worse]
                out[metric][(better, worse)] = -edge if LOWER_IS_BETTER[metric] else edge
            rotations[(better, worse)] = [raw[worse] - raw[better] for raw in raw_by_rotation]
    return out, rotations, costs


def boards_needed(units: list[dict[Pair, float]], pairs: list[Pair]) -> float:
    """Boards needed for the correct order (module docstring); inf when a pair is wrong."""
    worst = 0.0
    for pair in pairs:
        diffs = [u[pair] for u in units]
        mu = statistics.fmean(diffs)
        if mu <= 0:
            return math.inf
        worst = max(worst, (Z * statistics.stdev(diffs) / mu) ** 2)
    return max(1.0, worst)


def pair_notes(units: list[dict[Pair, float]], pairs: list[Pair]) -> tuple[list[str], bool]:
    """A line on each pair, and whether every pair's 95% interval of mu excludes zero."""
    notes = []
    decided = True
    for pair in pairs:
        diffs = [u[pair] for u in units]
        mu = statistics.fmean(diffs)
        sigma = statistics.stdev(diffs)
        m = math.inf if mu <= 0 else max(1.0, (Z * sigma / mu) ** 2)
        half = Z * sigma / math.sqrt(len(diffs))  # the 95% interval of mu from these boards
        decided = decided and mu - half > 0
        notes.append(
            f"{pair[0]}>{pair[1]}: mu {mu:+.3f} (95% {mu - half:+.3f}..{mu + half:+.3f})"
            f" sigma {sigma:.3f} boards {m:.1f}"
        )
    return notes, decided


def bootstrap(
    units: list[dict[Pair, float]], pairs: list[Pair], m: int, rng: random.Random
) -> float:
    """The frequency of the correct order over 400 resamples of m boards."""
    hits = 0
    for _ in range(400):
        sample = [units[rng.randrange(len(units))] for _ in range(m)]
        hits += all(sum(u[pair] for u in sample) > 0 for pair in pairs)
    return hits / 400


def interval_95(resampled: list[float]) -> tuple[float, float]:
    """The 95% percentile interval of a statistic over its bootstrap resamples."""
    ordered = sorted(resampled)
    return ordered[int(0.025 * len(ordered))], ordered[int(0.975 * len(ordered)) - 1]


def ratio_interval(
    boards: list[Board],
    pairs: list[Pair],
    per_board: dict[str, int],
    metric: str,
    rng: random.Random,
) -> tuple[float, float]:
    """The 95% percentile interval of deals(metric) / deals(raw penalty) over bootstrap
    resamples of the boards played (one resample for both scores): 0 when the resample does
    not order raw penalty, inf when it does not order `metric`."""
    ratios = []
    n = len(boards)
    for _ in range(RATIO_RESAMPLES):
        sample = [boards[rng.randrange(n)] for _ in range(n)]
        raw = boards_needed([b["raw penalty"] for b in sample], pairs) * per_board["raw penalty"]
        mine = boards_needed([b[metric] for b in sample], pairs) * per_board[metric]
        ratios.append(math.inf if math.isinf(mine) else 0.0 if math.isinf(raw) else mine / raw)
    return interval_95(ratios)


def bias_vs_raw(
    boards: list[Board], metric: str, pair: Pair, rng: random.Random
) -> tuple[float, float, float]:
    """The mean over the boards of `metric`'s edge on `pair` minus raw penalty's, and the 95%
    percentile interval of that mean over bootstrap resamples of the boards."""
    diffs = [board[metric][pair] - board["raw penalty"][pair] for board in boards]
    n = len(diffs)
    means = [
        statistics.fmean(diffs[rng.randrange(n)] for _ in range(n)) for _ in range(RATIO_RESAMPLES)
    ]
    return (statistics.fmean(diffs), *interval_95(means))


def linear_duplicate_share(rows: list[list[float]]) -> float:
    """n · Var(board mean of the rotations' edges) / Var(one rotation's edge) over boards
    (module docstring: the share of raw penalty's deals a linear duplicate score needs)."""
    n = len(rows[0])
    one = statistics.variance([edge for row in rows for edge in row])
    return n * statistics.variance([statistics.fmean(row) for row in rows]) / one


def duplicate_bound(
    rows: list[list[float]], rng: random.Random
) -> tuple[float, float, float, float]:
    """The linear duplicate score's share of raw penalty's deals for one pair, its 95%
    percentile interval over bootstrap resamples of the boards, and the mean correlation ρ of
    the edges of two rotations of a seed that the share implies."""
    share = linear_duplicate_share(rows)
    n = len(rows)
    shares = [
        linear_duplicate_share([rows[rng.randrange(n)] for _ in range(n)])
        for _ in range(RATIO_RESAMPLES)
    ]
    rho = (share - 1) / (len(rows[0]) - 1)
    return (share, *interval_95(shares), rho)


def move_analysis_cost(strong: str, seats: int, seed: int, deals: int, k: int) -> float:
    """CPU seconds per deal of analysing every decision of every seat of a few deals."""
    total = 0.0
    for index in range(deals):
        deal = board_seed(seed, seats, 99, index)
        names = lineups(strong, seats)[0]
        _, moves = play(names, deal, f"cost:{index}")
        started = time.process_time()
        deal_move_analysis(new_deal(Rules(), seats, 0, deal), moves, k=k, seed=index)
        total += time.process_time() - started
    return total / deals


def product_luck_cost(seats: int, seed: int, deals: int) -> float:
    """CPU seconds per deal of the product's luck task estimates: the start-only luck (K =
    PRODUCT_K) and the skill (deal_skill, K = PRODUCT_SKILL_K, seat view), on deals of greedy
    and random seats in turn (random leaves the reference bot's move at most decisions)."""
    names = tuple("greedy" if s % 2 == 0 else "random" for s in range(seats))
    spent = 0.0
    for index in range(deals):
        deal = board_seed(seed, seats, 98, index)
        _, moves = play(names, deal, f"cost:{index}")
        start = new_deal(Rules(), seats, 0, deal)
        started = time.process_time()
        expected_deal_scores(start, k=PRODUCT_K, seed=index)
        deal_skill(start, moves, k=PRODUCT_SKILL_K, seed=index, view="seat")
        spent += time.process_time() - started
    return spent / deals


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=40, help="boards per table size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--strong",
        default="search-400-w0",
        help="the strongest bot: a level, or search-<rollouts>-w<win weight>",
    )
    parser.add_argument(
        "--k", type=int, default=PRODUCT_K, help="simulated deals of the start-only estimate"
    )
    parser.add_argument(
        "--skill-k",
        type=int,
        default=DEFAULT_SKILL_K,
        help="paired play-outs per decision of deal_skill",
    )
    parser.add_argument("--move-k", type=int, default=DEFAULT_K, help="K of the move analysis")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seats", default="2,4")
    args = parser.parse_args(argv)
    bot_named(args.strong)  # an unknown name fails here
    order = [args.strong, "greedy", "random"]
    pairs = list(zip(order, order[1:], strict=False))
    print(
        f"bench/luck.py --boards {args.boards} --seed {args.seed} --strong {args.strong}"
        f" --k {args.k} --skill-k {args.skill_k} --move-k {args.move_k} --jobs {args.jobs}"
        f" --seats {args.seats}"
    )
    print(
        f"known order: {' > '.join(order)}; reference bot {REFERENCE_BOT}; seeds: each deal"
        f" seed's hex; {START}: expected_deal_scores K={args.k} (the product's `luck`,"
        f" issue 16 item 2); {', '.join(DECISIONS.values())}: deal_skill K={args.skill_k} per"
        " decision, the effect valued from the deciding seat's observation (the product's"
        " `skill`) / the full position"
    )
    print(
        "method: per-board differences of adjacent bots on the same deals, normal approximation,"
        f" boards m = max over pairs of (z sigma / mu)^2 with z = {Z} (one-sided 97.5% per pair,"
        " Bonferroni: 95% for the order); deals = m x deals per board; a count is a measurement"
        " only when every pair's 95% interval of mu excludes 0; a bootstrap of m boards (400"
        f" resamples) gives the frequency of the correct order; a bootstrap of the boards played"
        f" ({RATIO_RESAMPLES} resamples, the same for both scores) the 95% interval of each ratio"
    )
    rng = random.Random(args.seed)
    for seats in (int(s) for s in args.seats.split(",")):
        started = time.perf_counter()
        tasks = [
            (args.strong, seats, args.seed, board, args.k, args.skill_k)
            for board in range(args.boards)
        ]
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                played = list(pool.map(play_board, *zip(*tasks, strict=True)))
        else:
            played = []
            for task in tasks:
                played.append(play_board(*task))
                if len(played) % 50 == 0:  # progress, off the printed tables
                    print(f"{seats} seats: {len(played)} boards", file=sys.stderr, flush=True)
        boards = [board for board, _, _ in played]
        n_lineups = len(lineups(args.strong, seats))
        per_board = {metric: n_lineups for metric in METRICS}
        per_board["duplicate"] = n_lineups * seats
        print(
            f"\n{seats} seats: {args.boards} boards, {n_lineups * seats * args.boards} deals"
            f" played, {time.perf_counter() - started:.0f} s wall"
        )
        counts = {}
        decided = {}
        for metric in METRICS:
            units = [board[metric] for board in boards]
            m = boards_needed(units, pairs)
            notes, decided[metric] = pair_notes(units, pairs)
            deals = m * per_board[metric]
            counts[metric] = deals
            if math.isinf(m):
                line = f"not ranked correctly in {args.boards} boards"
            else:
                if m <= BOOTSTRAP_LIMIT:
                    check = f"bootstrap {bootstrap(units, pairs, math.ceil(m), rng):.1%}"
                else:
                    check = f"bootstrap skipped above {BOOTSTRAP_LIMIT} boards"
                line = (
                    f"{math.ceil(deals):>7} deals ({math.ceil(m)} boards x"
                    f" {per_board[metric]}), {check} correct"
                )
                if not decided[metric]:
                    line += "; undecided: a pair's interval of mu reaches 0"
            print(f"  {metric:>18}: {line}")
            for note in notes:
                print(f"  {'':>18}  {note}")
        raw = counts["raw penalty"]
        for metric in METRICS[1:]:
            if math.isinf(raw) or math.isinf(counts[metric]):
                print(f"  target {metric} <= 50% of raw: undecided (an order not reached)")
                continue
            ratio = counts[metric] / raw
            low, high = ratio_interval(boards, pairs, per_board, metric, rng)
            if not (decided["raw penalty"] and decided[metric]):
                verdict = "undecided (a pair's interval of mu reaches 0)"
            elif high <= 0.5:
                verdict = "met (the whole 95% interval is <= 50%)"
            elif ratio <= 0.5:
                verdict = "met by the estimate, not by its whole 95% interval"
            else:
                verdict = "NOT met"
            print(
                f"  target {metric} <= 50% of raw: {ratio:.0%} of raw"
                f" (95% {low:.0%}..{high:.0%}), {verdict}"
            )
        # Its own generator: the figures above stay those of the same seed without this check.
        bias_rng = random.Random(f"bias:{args.seed}:{seats}")
        for metric in (START, *DECISIONS.values()):
            bias, low, high = bias_vs_raw(boards, metric, pairs[0], bias_rng)
            print(
                f"  {metric:>18}: bias vs raw: {bias:+.3f} ({low:+.3f}..{high:+.3f}), the"
                f" {pairs[0][0]}>{pairs[0][1]} edge minus raw penalty's, points per deal, 95%"
                " bootstrap interval"
            )
        bound_rng = random.Random(f"bound:{args.seed}:{seats}")
        for pair in pairs:
            share, low, high, rho = duplicate_bound(
                [rows[pair] for _, rows, _ in played], bound_rng
            )
            print(
                f"  duplicate bound, {pair[0]}>{pair[1]}: a score linear in the deal scores of"
                f" all {seats} rotations needs {share:.0%} (95% {low:.0%}..{high:.0%}) of raw"
                f" penalty's deals; rotations' edge correlation {rho:+.3f}, <= 50% needs"
                f" <= {-0.5 / (seats - 1):+.3f}"
            )
        cost: dict[str, tuple[float, int]] = {}
        for _, _, board_costs in played:
            for name, (spent, count) in board_costs.items():
                total, n = cost.get(name, (0.0, 0))
                cost[name] = (total + spent, n + count)
        per_deal = {name: total / n for name, (total, n) in cost.items()}
        print(
            f"  analysis CPU s per deal: {START} (expected_deal_scores K={args.k})"
            f" {per_deal[START]:.3f}; "
            + "; ".join(
                f"{metric} (deal_skill K={args.skill_k}) {per_deal[metric]:.3f}"
                for metric in DECISIONS.values()
            )
            + f"; the luck task (games.deal_luck, K={PRODUCT_K}, skill K={PRODUCT_SKILL_K})"
            f" {product_luck_cost(seats, args.seed, 10):.3f}"
        )
        move_cost = move_analysis_cost(args.strong, seats, args.seed, 3, args.move_k)
        print(
            f"  move analysis (games.deal_analyse, K={args.move_k}, every decision of every"
            f" seat): {move_cost:.2f} CPU s per deal"
        )


if __name__ == "__main__":
    main()
