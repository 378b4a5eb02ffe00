"""Engine speed: uniformly random legal moves through complete 4-seat deals, ours against
OpenSpiel's `crazy_eights`, in one run.

    .venv/bin/python bench/engine.py --seconds 10 --seats 4 --seed 1

Loops with the same shape: build a deal, then until it is over ask for the legal actions
from Python, pick one with `random.choice` and apply it. Each engine gets `--seconds` of
wall-clock time in total, in rounds of `--round` seconds taken in turn (fast, reference,
openspiel, fast, ...), so that load from other processes on the shared machine falls on all
three alike; a round ends after the deal in progress when its time is up.

- fast: `games.engine.fast.FastDeal` (the bitmask path the bots use), default rules.
- reference: the immutable public functions (`new_deal`, `legal_moves`, `apply_legal`).
- openspiel: `pyspiel.load_game("crazy_eights", {"players": N})`; chance nodes (the dealer
  choice, every dealt card and every drawn card) are sampled from Python with their
  `chance_outcomes()` probabilities. Only player decisions are counted as decisions, not
  chance nodes, but the time spent on chance nodes is in the measured time (as our shuffle and
  deal are in ours).
- openspiel-u: the same with the cheapest fair chance sampling, `random.choice` over the chance
  node's legal actions (all of crazy_eights' chance nodes are uniform; the bench checks it
  first), so that the chance sampling cannot be what makes OpenSpiel look slow.

decisions/s = player decisions / elapsed seconds; deals/s = complete deals / elapsed seconds.
The deal building (our HMAC shuffle of R-4, OpenSpiel's chance nodes) is inside the timed loop.
The machine is shared, so figures vary by a few percent from run to run.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import Rules, apply_legal, legal_moves, new_deal  # noqa: E402
from games.engine.fast import FastDeal  # noqa: E402

Result = tuple[int, int, float]  # decisions, deals, seconds


def bench_fast(seconds: float, seats: int, rng: random.Random) -> Result:
    choice = rng.choice
    rules = Rules()
    decisions = deals = 0
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        deal = FastDeal.new(rules, seats, deals % seats, rng.randbytes(32))
        legal_actions = deal.legal_actions
        apply_action = deal.apply_action
        while not deal.is_over:
            apply_action(choice(legal_actions()))
            decisions += 1
        deals += 1
    return decisions, deals, time.perf_counter() - start


def bench_reference(seconds: float, seats: int, rng: random.Random) -> Result:
    choice = rng.choice
    rules = Rules()
    decisions = deals = 0
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        state = new_deal(rules, seats, deals % seats, rng.randbytes(32))
        while not state.is_over:
            state = apply_legal(state, choice(legal_moves(state)))
            decisions += 1
        deals += 1
    return decisions, deals, time.perf_counter() - start


def bench_openspiel(seconds: float, seats: int, rng: random.Random) -> Result:
    """Chance nodes sampled with their `chance_outcomes()` probabilities (`random.choices`)."""
    import pyspiel  # type: ignore[import-not-found]

    choice = rng.choice
    choices = rng.choices
    game = pyspiel.load_game("crazy_eights", {"players": seats})
    decisions = deals = 0
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        state = game.new_initial_state()
        legal_actions = state.legal_actions
        apply_action = state.apply_action
        is_chance_node = state.is_chance_node
        chance_outcomes = state.chance_outcomes
        while not state.is_terminal():
            if is_chance_node():
                actions, probabilities = zip(*chance_outcomes(), strict=True)
                apply_action(choices(actions, probabilities)[0])
            else:
                apply_action(choice(legal_actions()))
                decisions += 1
        deals += 1
    return decisions, deals, time.perf_counter() - start


def bench_openspiel_uniform(seconds: float, seats: int, rng: random.Random) -> Result:
    """The cheapest fair sampling: every chance node of crazy_eights is uniform (checked by
    `openspiel_chance_is_uniform`), so `random.choice` over its legal actions samples it."""
    import pyspiel

    choice = rng.choice
    game = pyspiel.load_game("crazy_eights", {"players": seats})
    decisions = deals = 0
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        state = game.new_initial_state()
        legal_actions = state.legal_actions
        apply_action = state.apply_action
        is_chance_node = state.is_chance_node
        while not state.is_terminal():
            if is_chance_node():
                apply_action(choice(legal_actions()))
            else:
                apply_action(choice(legal_actions()))
                decisions += 1
        deals += 1
    return decisions, deals, time.perf_counter() - start


def openspiel_chance_is_uniform(seats: int, deals: int = 50) -> bool:
    """Whether every chance node met in `deals` random deals has equal outcome probabilities
    and outcomes equal to its legal actions."""
    import pyspiel

    rng = random.Random(0)
    game = pyspiel.load_game("crazy_eights", {"players": seats})
    for _ in range(deals):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                probabilities = {p for _, p in outcomes}
                if max(probabilities) - min(probabilities) > 1e-12:
                    return False
                if sorted(a for a, _ in outcomes) != sorted(state.legal_actions()):
                    return False
                state.apply_action(rng.choice(outcomes)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    return True


Runner = Callable[[float, int, random.Random], Result]


def report(name: str, result: Result, cpu: float) -> float:
    decisions, deals, elapsed = result
    rate = decisions / elapsed
    print(
        f"{name:<12} {rate:>10,.0f} decisions/s {deals / elapsed:>8,.0f} deals/s"
        f" | {decisions / cpu:>10,.0f} decisions/CPU-s | {decisions:,} decisions,"
        f" {deals:,} deals, {decisions / max(deals, 1):.1f} decisions/deal"
    )
    return rate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time budget per engine")
    parser.add_argument("--round", type=float, default=1.0, help="seconds per round")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1, help="seeds the move choices and deals")
    parser.add_argument("--skip-reference", action="store_true", help="skip the immutable path")
    args = parser.parse_args(argv)
    print(
        f"bench/engine.py --seconds {args.seconds:g} --round {args.round:g} --seats {args.seats}"
        f" --seed {args.seed}{' --skip-reference' if args.skip_reference else ''}"
        f"  (Python {platform.python_version()}, {platform.machine()})"
    )
    print("uniformly random legal moves chosen from Python (random.choice), complete deals;")
    print(
        f"{args.seconds:g} s of wall-clock time per engine, in rounds of {args.round:g} s in turn"
    )
    engines: dict[str, Runner] = {"fast": bench_fast}
    if not args.skip_reference:
        engines["reference"] = bench_reference
    missing: ImportError | None = None
    try:
        import pyspiel  # noqa: F401
    except ImportError as error:
        missing = error
    else:
        engines["openspiel"] = bench_openspiel
        if openspiel_chance_is_uniform(args.seats):
            engines["openspiel-u"] = bench_openspiel_uniform
    totals = {name: (0, 0, 0.0) for name in engines}
    cpu = dict.fromkeys(engines, 0.0)
    rngs = {name: random.Random(f"{args.seed}:{name}") for name in engines}
    rounds = max(1, round(args.seconds / args.round))
    for _ in range(rounds):
        for name, runner in engines.items():
            cpu_start = time.process_time()
            decisions, deals, elapsed = runner(args.seconds / rounds, args.seats, rngs[name])
            cpu[name] += time.process_time() - cpu_start
            d, n, e = totals[name]
            totals[name] = (d + decisions, n + deals, e + elapsed)
    rates = {name: report(name, totals[name], cpu[name]) for name in engines}
    if missing is not None:
        print(f"openspiel    NOT MEASURED: pyspiel does not import ({missing});")
        print("             install it with `.venv/bin/pip install -e .[bench]` to compare")
        return 0
    print(f"openspiel:   crazy_eights, players={args.seats}, default parameters; decisions are")
    print("             player decisions only: chance nodes (dealing, each drawn card) are not")
    print("             counted, but their time is in the measured time (as our shuffle is)")
    print("             chance sampled with chance_outcomes() probabilities (random.choices)")
    print(f"ratio fast/openspiel decisions/s:   {rates['fast'] / rates['openspiel']:.2f}x")
    if "openspiel-u" in rates:
        print("openspiel-u: the same, chance sampled by random.choice over the chance node's")
        print("             legal actions (crazy_eights' chance nodes are uniform: checked)")
        print(f"ratio fast/openspiel-u decisions/s: {rates['fast'] / rates['openspiel-u']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
