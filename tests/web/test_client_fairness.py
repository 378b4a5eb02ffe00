"""The replay page's fairness check (web/app/fairness.js, run by Node.js here as the browser
runs it) agrees with the engine: the R-4 test vectors of docs/rules.md, the hands the engine
deals from random seeds (R-5), and a tampered seed or commitment is a mismatch."""

from __future__ import annotations

import hashlib
import json
import secrets
import subprocess

import pytest

from games.engine.cards import codes
from games.engine.rules import Rules
from games.engine.state import new_deal
from tests.web.node_tools import WEB, node

pytestmark = pytest.mark.timeout(120)

_SCRIPT = """
import { checkFairness, shuffle, hexToBytes } from "./app/fairness.js";
const cases = JSON.parse(process.argv[1]);
const out = [];
for (const c of cases) {
  let top8 = null;
  try { top8 = (await shuffle(hexToBytes(c.seed))).slice(0, 8); } catch { /* not hex */ }
  out.push({ top8, check: await checkFairness(c) });
}
console.log(JSON.stringify(out));
"""


def _run(cases: list[dict[str, object]]) -> list[dict[str, object]]:
    run = subprocess.run(
        [node(), "--input-type=module", "-e", _SCRIPT, json.dumps(cases)],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    result: list[dict[str, object]] = json.loads(run.stdout)
    return result


def _case(seed: bytes, seats: int, opener: int, hand_size: int = 7) -> dict[str, object]:
    state = new_deal(Rules(hand_size=hand_size, max_players=7), seats, opener, seed)
    return {
        "seed": seed.hex(),
        "commitment": hashlib.sha256(seed).hexdigest(),
        "seat_count": seats,
        "opener": opener,
        "hand_size": hand_size,
        "hands_at_start": [codes(hand) for hand in state.hands],
    }


def test_r4_test_vectors() -> None:
    zero, counting = bytes(32), bytes(range(32))
    first, second = _run([_case(zero, 2, 0), _case(counting, 2, 0)])
    assert first["top8"] == ["7D", "5C", "9S", "9C", "6C", "10H", "KD", "AC"]
    assert second["top8"] == ["9C", "KH", "7C", "2H", "KC", "JC", "5S", "6C"]
    assert first["check"]["computedCommitment"] == (  # type: ignore[index]
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    )


def test_the_engines_deals_are_verified() -> None:
    cases = [
        _case(secrets.token_bytes(32), seats, opener, hand)
        for seats, opener, hand in [(2, 1, 7), (3, 2, 7), (4, 0, 5), (7, 6, 7)]
    ]
    for answer in _run(cases):
        assert answer["check"]["result"] == "verified", answer  # type: ignore[index]


def test_a_tampered_seed_or_commitment_is_a_mismatch() -> None:
    good = _case(secrets.token_bytes(32), 3, 1)
    other_seed = {**good, "seed": secrets.token_bytes(32).hex()}
    other_commitment = {**good, "commitment": hashlib.sha256(b"x").hexdigest()}
    swapped = {**good, "hands_at_start": list(reversed(good["hands_at_start"]))}  # type: ignore[call-overload]
    not_hex = {**good, "seed": "zz"}
    answers = _run([other_seed, other_commitment, swapped, not_hex])
    assert [a["check"]["result"] for a in answers] == ["mismatch"] * 4  # type: ignore[index]
    assert answers[1]["check"]["handsOk"] is True  # type: ignore[index]
    assert answers[1]["check"]["commitmentOk"] is False  # type: ignore[index]
