"""Replays: a deal rebuilds from (rules, seat count, opener, seed, move list) to the identical
state, and the golden file of recorded deals (tests/engine/golden/deals.json, written by
tests/engine/make_golden.py) replays to exactly what was recorded."""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from strategies import (
    OPTION_COMBINATIONS,
    ends_on_a_short_penalty,
    random_playout,
    seeded_deal_parameters,
)

from games.engine import (
    IllegalMove,
    Move,
    Rules,
    State,
    apply,
    legal_moves,
    replay,
)
from games.engine.moves import PLAY
from games.engine.state import STOCK_EXHAUSTED

GOLDEN = Path(__file__).parent / "golden" / "deals.json"
RECORDED = {
    "penalties",
    "hand_penalties",
    "winners",
    "reason",
    "last_card",
    "multiplier",
    "hands",
    "stock",
    "pile",
    "active_suit",
    "direction",
    "reshuffles",
    "actions",
}


@cache
def golden_deals() -> list[dict[str, Any]]:
    body = json.loads(GOLDEN.read_text())
    assert body["format"] == "pisyedili-golden-deals-v1"
    deals: list[dict[str, Any]] = body["deals"]
    return deals


def test_golden_file_covers_seats_options_and_both_endings() -> None:
    deals = golden_deals()
    assert len(deals) >= 60
    assert {d["seats"] for d in deals} >= {2, 3, 4, 5, 6}
    assert len({json.dumps(d["rules"], sort_keys=True) for d in deals}) >= 8
    assert {d["final"]["reason"] for d in deals} == {"shed", STOCK_EXHAUSTED}
    assert any(d["final"]["reshuffles"] > 0 for d in deals)  # R-6 replays too
    assert len({d["seed"] for d in deals}) == len(deals)
    recorded = {Rules.from_json(d["rules"]) for d in deals}
    for options in OPTION_COMBINATIONS:  # every combination the playouts use is pinned
        assert Rules.from_json(options) in recorded


@pytest.mark.parametrize("index", range(len(golden_deals())))
def test_golden_deal_replays_identically(index: int) -> None:
    deal = golden_deals()[index]
    rules = Rules.from_json(deal["rules"])
    moves = [Move.from_json(body) for body in deal["moves"]]
    assert [m.to_json() for m in moves] == deal["moves"]

    state = replay(rules, deal["seats"], deal["opener"], bytes.fromhex(deal["seed"]), moves)

    final = deal["final"]
    assert set(final) == RECORDED  # everything recorded is compared below
    result = state.result
    assert state.is_over and result is not None
    assert state.turn is None and legal_moves(state) == ()
    assert list(result.penalties) == final["penalties"]
    assert list(result.hand_penalties) == final["hand_penalties"]
    assert list(result.winners) == final["winners"]
    assert result.reason == final["reason"]
    assert (result.last_card.code if result.last_card is not None else None) == final["last_card"]
    assert result.multiplier == final["multiplier"]
    assert [[c.code for c in hand] for hand in state.hands] == final["hands"]
    assert [c.code for c in state.stock] == final["stock"]
    assert [c.code for c in state.pile] == final["pile"]
    assert state.active_suit == final["active_suit"]
    assert state.direction == final["direction"]
    assert state.reshuffles == final["reshuffles"]
    assert state.actions == final["actions"] == len(moves)
    assert (state.rules, state.seats, state.opener) == (rules, deal["seats"], deal["opener"])


def test_r29_golden_deal_ends_on_a_penalty_the_stock_cannot_cover() -> None:
    """The pinned R-29 case (and any cycle deal that reaches it): under end_when_draw_needed the
    player takes what is left of a penalty the stock cannot cover, and the deal is over."""
    short = []
    for deal in golden_deals():
        rules = Rules.from_json(deal["rules"])
        moves = [Move.from_json(body) for body in deal["moves"]]
        seed = bytes.fromhex(deal["seed"])
        before = replay(rules, deal["seats"], deal["opener"], seed, moves[:-1])
        if not ends_on_a_short_penalty(before, moves[-1]):
            continue
        after = apply(before, moves[-1])
        assert after.is_over and after.result is not None
        assert after.result.reason == STOCK_EXHAUSTED and after.stock == ()
        assert after.last_drawn == before.stock  # what was left, and nothing else
        assert before.turn is not None
        assert len(after.hands[before.turn]) == len(before.hands[before.turn]) + len(before.stock)
        short.append(deal)
    assert any(d.get("case", "").startswith("R-29 ") for d in short)


def test_replay_rebuilds_every_intermediate_state_of_random_deals() -> None:
    """replay(prefix of the move log) is the state the live deal had at that point."""
    rng = random.Random("replay-prefixes")
    for index in range(120):
        rules, seats, opener, seed = seeded_deal_parameters(index, rng)
        playout = random_playout(rules, seats, opener, seed, rng)
        cuts = {0, len(playout.moves)} | {rng.randrange(len(playout.moves) + 1) for _ in range(3)}
        for cut in sorted(cuts):
            rebuilt = replay(rules, seats, opener, seed, playout.moves[:cut])
            assert rebuilt == playout.states[cut], f"move {cut}: {playout.describe()}"
        # The final state also survives its JSON form, so a stored deal replays to it.
        assert State.from_json(json.loads(json.dumps(playout.final.to_json()))) == playout.final


def test_replay_depends_on_the_seed() -> None:
    """The same moves from another seed do not rebuild the deal (the seed is not ignored)."""
    deal = golden_deals()[0]
    rules = Rules.from_json(deal["rules"])
    seed = bytearray.fromhex(deal["seed"])
    seed[0] ^= 1
    moves = [Move.from_json(body) for body in deal["moves"]]
    try:
        other = replay(rules, deal["seats"], deal["opener"], bytes(seed), moves)
    except IllegalMove:
        return  # the log does not even fit the other shuffle
    assert [[c.code for c in h] for h in other.hands] != deal["final"]["hands"] or [
        c.code for c in other.stock
    ] != deal["final"]["stock"]


def test_replay_refuses_a_log_with_an_illegal_move() -> None:
    deal = next(d for d in golden_deals() if len(d["moves"]) > 10)
    rules = Rules.from_json(deal["rules"])
    seed = bytes.fromhex(deal["seed"])
    moves = [Move.from_json(body) for body in deal["moves"]]
    before = replay(rules, deal["seats"], deal["opener"], seed, moves[:5])
    illegal = next(
        Move.play(card)
        for hand in before.hands
        for card in hand
        if Move.play(card) not in legal_moves(before) and not card.is_jack
    )
    assert illegal.action == PLAY
    with pytest.raises(IllegalMove):
        replay(rules, deal["seats"], deal["opener"], seed, moves[:5] + [illegal] + moves[5:])
