"""Record the golden replay file tests/engine/golden/deals.json.

Regenerate (from the repository root) after a deliberate change of the engine's behaviour:

    .venv/bin/python tests/engine/make_golden.py

then review `git diff --stat tests/engine/golden/` and commit the file with the engine change
that explains it. The output is deterministic: the same engine gives a byte-identical file.

Each deal is played with uniformly random legal moves chosen by `random.Random` seeded from the
deal's index (the deal seeds come from that RNG too: fixed test data, not production seeds,
which come from `secrets`, R-3). The deals cycle through the option combinations of
`strategies.OPTION_COMBINATIONS` and the seat counts 2..6 (and 7 where `max_players` allows
it), so every (combination, seat count) pair appears. After them come the rule cases of
`RULE_CASES`, which random play reaches only now and then: for each, the first playout (by
index) that shows the case, marked with a `case` field naming its rule id.
`test_replay_golden.py` replays every deal from (rules, seats, opener, seed, moves) and
compares all that is recorded.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE)]  # the repository root, then tests/engine

from strategies import (  # noqa: E402
    RULE_SETS,
    Playout,
    ends_on_a_short_penalty,
    random_playout,
    seat_counts,
)

from games.engine import Rules, State  # noqa: E402
from games.engine.cards import codes  # noqa: E402

GOLDEN = HERE / "golden" / "deals.json"
FORMAT = "pisyedili-golden-deals-v1"

# (case, rule options, seats, whether a playout shows the case).
RULE_CASES: tuple[tuple[str, dict[str, Any], int, Callable[[Playout], bool]], ...] = (
    (
        "R-29 end_when_draw_needed: a penalty draw the stock cannot cover ends the deal",
        {"stock_exhausted": "end_when_draw_needed"},
        3,
        lambda playout: ends_on_a_short_penalty(playout.states[-2], playout.moves[-1]),
    ),
)


def deal_parameters() -> list[tuple[Rules, int]]:
    """Every (rule set, seat count) pair the rule set allows, then each rule set once more at
    a table of four (or its largest, if smaller)."""
    pairs = [(rules, seats) for rules in RULE_SETS for seats in seat_counts(rules)]
    pairs += [(rules, min(4, rules.max_players)) for rules in RULE_SETS]
    return pairs


def final_record(state: State) -> dict[str, Any]:
    """What the golden test compares after the replay."""
    result = state.result
    assert result is not None
    return {
        "penalties": list(result.penalties),
        "hand_penalties": list(result.hand_penalties),
        "winners": list(result.winners),
        "reason": result.reason,
        "last_card": result.last_card.code if result.last_card is not None else None,
        "multiplier": result.multiplier,
        "hands": [codes(hand) for hand in state.hands],
        "stock": codes(state.stock),
        "pile": codes(state.pile),
        "active_suit": state.active_suit,
        "direction": state.direction,
        "reshuffles": state.reshuffles,
        "actions": state.actions,
    }


def record_deal(index: int, rules: Rules, seats: int) -> dict[str, Any]:
    return record_playout(seeded_playout(index, rules, seats, keep=False))


def seeded_playout(index: int | str, rules: Rules, seats: int, *, keep: bool) -> Playout:
    rng = random.Random(f"pisyedili-golden-v1:{index}")
    opener = rng.randrange(seats)
    seed = rng.randbytes(32)
    return random_playout(rules, seats, opener, seed, rng, keep=keep)


def record_playout(playout: Playout) -> dict[str, Any]:
    defaults = Rules().to_json()
    return {
        "seed": playout.seed.hex(),
        "rules": {k: v for k, v in playout.rules.to_json().items() if v != defaults[k]},
        "seats": playout.seats,
        "opener": playout.opener,
        "moves": [move.to_json() for move in playout.moves],
        "final": final_record(playout.final),
    }


def record_rule_case(
    case: str, options: dict[str, Any], seats: int, shows: Callable[[Playout], bool]
) -> dict[str, Any]:
    """The first playout, by index, that shows the case (a few tries at most)."""
    rules = Rules.from_json(options)
    rule_id = case.split()[0]
    for attempt in range(10_000):
        playout = seeded_playout(f"{rule_id}:{attempt}", rules, seats, keep=True)
        if shows(playout):
            return {"case": case, **record_playout(playout)}
    raise AssertionError(f"no playout shows {case!r}")


def render(deals: list[dict[str, Any]]) -> str:
    """One deal per line, so a regenerated file diffs deal by deal."""
    lines = [json.dumps(deal, separators=(",", ":")) for deal in deals]
    return (
        "{"
        + f'"format":"{FORMAT}","generator":"tests/engine/make_golden.py",'
        + '"deals":[\n'
        + ",\n".join(lines)
        + "\n]}\n"
    )


def main() -> None:
    deals = [
        record_deal(index, rules, seats) for index, (rules, seats) in enumerate(deal_parameters())
    ]
    deals += [record_rule_case(*case) for case in RULE_CASES]
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(render(deals))
    moves = sum(len(d["moves"]) for d in deals)
    print(f"wrote {len(deals)} deals, {moves} moves, {GOLDEN.stat().st_size} bytes to {GOLDEN}")


if __name__ == "__main__":
    main()
