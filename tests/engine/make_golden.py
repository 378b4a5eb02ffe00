"""Record the golden replay file tests/engine/golden/deals.json.

Regenerate (from the repository root) after a deliberate change of the engine's behaviour:

    .venv/bin/python tests/engine/make_golden.py

then review `git diff --stat tests/engine/golden/` and commit the file with the engine change
that explains it. The output is deterministic: the same engine gives a byte-identical file.

Each deal is played with uniformly random legal moves chosen by `random.Random` seeded from the
deal's index (the deal seeds come from that RNG too: fixed test data, not production seeds,
which come from `secrets`, R-3). The deals cycle through the option combinations of
`strategies.OPTION_COMBINATIONS` and the seat counts 2..6 (and 7 where `max_players` allows
it), so every (combination, seat count) pair appears. `test_replay_golden.py` replays
every deal from (rules, seats, opener, seed, moves) and compares all that is recorded.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE)]  # the repository root, then tests/engine

from strategies import RULE_SETS, random_playout, seat_counts  # noqa: E402

from games.engine import Rules, State  # noqa: E402
from games.engine.cards import codes  # noqa: E402

GOLDEN = HERE / "golden" / "deals.json"
FORMAT = "pisyedili-golden-deals-v1"


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
    rng = random.Random(f"pisyedili-golden-v1:{index}")
    opener = rng.randrange(seats)
    seed = rng.randbytes(32)
    playout = random_playout(rules, seats, opener, seed, rng, keep=False)
    defaults = Rules().to_dict()
    return {
        "seed": seed.hex(),
        "rules": {k: v for k, v in rules.to_dict().items() if v != defaults[k]},
        "seats": seats,
        "opener": opener,
        "moves": [move.encode() for move in playout.moves],
        "final": final_record(playout.final),
    }


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
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(render(deals))
    moves = sum(len(d["moves"]) for d in deals)
    print(f"wrote {len(deals)} deals, {moves} moves, {GOLDEN.stat().st_size} bytes to {GOLDEN}")


if __name__ == "__main__":
    main()
