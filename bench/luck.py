"""Does it measure skill? Deals needed to rank bots of known order by three scores.

    nice .venv/bin/python bench/luck.py --boards 40 --seed 1 --strong ismcts-2 --jobs 2

Bots of known order play: `--strong` (an ismcts level) > greedy > random. A board is a set of
deal seeds. With 2 seats each board has the three pairings (strong-greedy, strong-random,
greedy-random), each on its own seed; with 4 seats one line-up (strong, greedy, random, greedy:
the fourth seat is a second greedy, whose results count for greedy). Every seed is played in
all its seat rotations (bot i of the line-up in seat (i + r) mod n, opener seat 0), so each bot
holds every hand of the deal once.

Three scores of a bot on a deal:
- raw penalty: its deal score (R-30, R-31) in one rotation per seed (ordinary play: every deal a
  new shuffle), rotation `board mod n`, so each bot sits at each seat (the opener's too, R-8)
  equally often over the boards; lower is better;
- luck-adjusted: `actual − Σ luck` on the same deals (`deal_luck` of games/engine/analysis.py:
  the luck of the deal and of every draw from the stock, by rollouts of the reference bot from
  the full position with the unseen stock re-sampled, K per estimate); lower is better;
- duplicate matchpoints: over all rotations, each result compared with the others obtained with
  the same cards in the same seat (1 per beaten, ½ per tie), as a share; higher is better.

A pair's per-board difference (the better bot's edge, positive when it is ahead) compares the
two bots on the same deals: with 2 seats their own pairing (its seed, its rotations), with 4
seats the one line-up. Deals needed to rank the three bots correctly with 95% confidence (method
printed): for each adjacent pair (strong-greedy, greedy-random) the per-board difference has
mean μ and standard deviation σ; boards are independent, so after m boards the pair is ordered
correctly with one-sided confidence 97.5% when m ≥ (1.96 σ / μ)² (normal approximation;
Bonferroni over the two pairs gives 95% for the whole order). The larger m of the two, times the
deals a board costs under that score, is the answer; a bootstrap of m boards (resampled from
those played) then checks the frequency of the correct order (up to 5000 boards). A pair ordered
wrongly in the sample needs more boards than were played (printed as such). Each pair's line
shows the 95% interval of μ from the boards played: while it reaches zero, so that
(1.96 σ / μ)² is not itself decided, play more boards.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import Rules, apply_legal, new_deal, observe  # noqa: E402
from games.engine.analysis import (  # noqa: E402
    DEFAULT_K,
    DEFAULT_LUCK_K,
    REFERENCE_BOT,
    deal_luck,
    deal_move_analysis,
)
from games.engine.bots import get_bot  # noqa: E402
from games.engine.moves import Move  # noqa: E402

Z = 1.96  # one-sided 97.5% per pair, Bonferroni over two pairs: 95% for the order
BOOTSTRAP_LIMIT = 5000  # boards: a larger check costs more than the bench itself
METRICS = ("raw penalty", "luck-adjusted", "duplicate")
LOWER_IS_BETTER = {"raw penalty": True, "luck-adjusted": True, "duplicate": False}

Pair = tuple[str, str]
# One board: metric -> pair -> the better bot's edge over the worse on the board's deals.
Board = dict[str, dict[Pair, float]]


def lineups(strong: str, seats: int) -> list[tuple[str, ...]]:
    if seats == 2:
        return [(strong, "greedy"), (strong, "random"), ("greedy", "random")]
    return [(strong, "greedy", "random", "greedy")]


def board_seed(seed: int, seats: int, lineup: int, board: int) -> bytes:
    return hashlib.sha256(f"bench-luck:{seed}:{seats}:{lineup}:{board}".encode()).digest()


def play(names: tuple[str, ...], seed: bytes, rng_seed: str) -> tuple[tuple[int, ...], list[Move]]:
    """One deal, bot names[s] at seat s, opener 0: the deal scores and the move log."""
    bots = [get_bot(name) for name in names]
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


def play_board(strong: str, seats: int, seed: int, board: int, k: int) -> tuple[Board, float, int]:
    """One board: each metric's pair differences (module docstring), and the CPU seconds and
    count of the luck analyses."""
    order = [strong, "greedy", "random"]
    out: Board = {metric: {} for metric in METRICS}
    cpu = 0.0
    analyses = 0
    for index, lineup in enumerate(lineups(strong, seats)):
        deal = board_seed(seed, seats, index, board)
        # results[r][s]: the deal score of seat s in rotation r, held by lineup[(s + r) % n].
        seated = [tuple(lineup[(s + r) % seats] for s in range(seats)) for r in range(seats)]
        played = [
            play(seated[r], deal, f"{seed}:{seats}:{index}:{board}:{r}") for r in range(seats)
        ]
        results = [scores for scores, _ in played]
        ordinary = board % seats
        started = time.process_time()
        luck = deal_luck(
            new_deal(Rules(), seats, 0, deal), played[ordinary][1], k=k, seed=deal.hex()
        )
        cpu += time.process_time() - started
        analyses += 1
        points: dict[str, list[float]] = {}
        for r in range(seats):
            for s in range(seats):
                mine = results[r][s]
                others = [results[q][s] for q in range(seats) if q != r]
                won = sum(1.0 if mine < o else 0.5 if mine == o else 0.0 for o in others)
                points.setdefault(seated[r][s], []).append(won / len(others))
        scores = {
            "raw penalty": by_bot(seated[ordinary], [float(p) for p in results[ordinary]]),
            "luck-adjusted": by_bot(seated[ordinary], list(luck.adjusted)),
            "duplicate": {name: statistics.fmean(values) for name, values in points.items()},
        }
        for better, worse in zip(order, order[1:], strict=False):
            if better not in lineup or worse not in lineup:
                continue
            for metric, score in scores.items():
                edge = score[better] - score[worse]
                out[metric][(better, worse)] = -edge if LOWER_IS_BETTER[metric] else edge
    return out, cpu, analyses


def needed(units: list[dict[Pair, float]], pairs: list[Pair]) -> tuple[float, str]:
    """Boards needed for the correct order (module docstring) and a line on each pair."""
    worst = 0.0
    notes = []
    for pair in pairs:
        diffs = [u[pair] for u in units]
        mu = statistics.fmean(diffs)
        sigma = statistics.stdev(diffs)
        m = math.inf if mu <= 0 else max(1.0, (Z * sigma / mu) ** 2)
        half = Z * sigma / math.sqrt(len(diffs))  # the 95% interval of mu from these boards
        notes.append(
            f"{pair[0]}>{pair[1]}: mu {mu:+.3f} (95% {mu - half:+.3f}..{mu + half:+.3f})"
            f" sigma {sigma:.3f} boards {m:.1f}"
        )
        worst = max(worst, m)
    return worst, "; ".join(notes)


def bootstrap(
    units: list[dict[Pair, float]], pairs: list[Pair], m: int, rng: random.Random
) -> float:
    """The frequency of the correct order over 400 resamples of m boards."""
    hits = 0
    for _ in range(400):
        sample = [units[rng.randrange(len(units))] for _ in range(m)]
        hits += all(sum(u[pair] for u in sample) > 0 for pair in pairs)
    return hits / 400


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=40, help="boards per table size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--strong", default="ismcts-4", help="the strongest bot (an ismcts level)")
    parser.add_argument(
        "--k", type=int, default=DEFAULT_LUCK_K, help="rollouts per value of the luck analysis"
    )
    parser.add_argument("--move-k", type=int, default=DEFAULT_K, help="K of the move analysis")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seats", default="2,4")
    args = parser.parse_args(argv)
    order = [args.strong, "greedy", "random"]
    pairs = list(zip(order, order[1:], strict=False))
    print(
        f"bench/luck.py --boards {args.boards} --seed {args.seed} --strong {args.strong}"
        f" --k {args.k} --move-k {args.move_k} --jobs {args.jobs} --seats {args.seats}"
    )
    print(
        f"known order: {' > '.join(order)}; luck-adjusted: deal_luck, K={args.k} rollouts per"
        f" value, reference bot {REFERENCE_BOT}, seed the deal seed's hex"
    )
    print(
        "method: per-board differences of adjacent bots on the same deals, normal approximation,"
        f" boards m = max over pairs of (z sigma / mu)^2 with z = {Z} (one-sided 97.5% per pair,"
        " Bonferroni: 95% for the order); deals = m x deals per board; then a bootstrap of"
        " m boards (400 resamples) gives the frequency of the correct order"
    )
    rng = random.Random(args.seed)
    for seats in (int(s) for s in args.seats.split(",")):
        started = time.perf_counter()
        tasks = [(args.strong, seats, args.seed, board, args.k) for board in range(args.boards)]
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                boards = list(pool.map(play_board, *zip(*tasks, strict=True)))
        else:
            boards = [play_board(*task) for task in tasks]
        n_lineups = len(lineups(args.strong, seats))
        per_board = {
            "raw penalty": n_lineups,
            "luck-adjusted": n_lineups,
            "duplicate": n_lineups * seats,
        }
        cpu = sum(b[1] for b in boards) / sum(b[2] for b in boards)
        print(
            f"\n{seats} seats: {args.boards} boards, {n_lineups * seats * args.boards} deals"
            f" played, {time.perf_counter() - started:.0f} s wall"
        )
        counts = {}
        for metric in METRICS:
            units = [board[metric] for board, _, _ in boards]
            m, notes = needed(units, pairs)
            deals = m * per_board[metric]
            counts[metric] = deals
            if math.isinf(m):
                print(f"  {metric:>14}: not ranked correctly in {args.boards} boards")
                print(f"  {'':>14}  {notes}")
                continue
            if m <= BOOTSTRAP_LIMIT:
                check = f"bootstrap {bootstrap(units, pairs, math.ceil(m), rng):.1%}"
            else:
                check = f"bootstrap skipped above {BOOTSTRAP_LIMIT} boards"
            print(
                f"  {metric:>14}: {math.ceil(deals):>7} deals ({math.ceil(m)} boards x"
                f" {per_board[metric]}), {check} correct"
            )
            print(f"  {'':>14}  {notes}")
        raw = counts["raw penalty"]
        for metric in ("luck-adjusted", "duplicate"):
            if math.isinf(raw) or math.isinf(counts[metric]):
                print(f"  target {metric} <= 50% of raw: undecided (an order not reached)")
                continue
            ratio = counts[metric] / raw
            verdict = "met" if ratio <= 0.5 else "NOT met"
            print(f"  target {metric} <= 50% of raw: {ratio:.0%} of raw, {verdict}")
        print(f"  luck analysis (deal_luck, K={args.k}): {cpu:.3f} CPU s per deal")
        cost = move_analysis_cost(args.strong, seats, args.seed, 3, args.move_k)
        print(
            f"  move analysis (K={args.move_k}, every decision of every seat):"
            f" {cost:.2f} CPU s per deal"
        )


if __name__ == "__main__":
    main()
