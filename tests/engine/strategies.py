"""Shared helpers of the engine's property tests: the option combinations, seeded random
playouts through the reference engine, Hypothesis strategies, and direct recounts of the
scoring rules (R-28..R-32) that do not go through `games.engine.scoring` or `transitions`.

Everything is deterministic: a playout is fixed by (rules, seats, opener, seed, rng seed), so a
failure message that names those reproduces the deal.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from games.engine import Move, Rules, State, apply_legal, legal_moves, new_deal

# Option combinations the random playouts cycle through. Together they take every value of every
# choice option of docs/rules.md (test_invariants checks this against the engine's option table) and
# several values of the numeric ones. `max_actions` is kept small in most reshuffle combinations:
# random players draw freely, so a reshuffle deal usually runs to its bound (§9), and 1,000
# actions per deal would dominate the test's run time; one combination keeps the default.
OPTION_COMBINATIONS: tuple[dict[str, Any], ...] = (
    {},  # the defaults of docs/rules.md
    {
        "opening": "club_round",
        "draw_policy": "one_then_pass",
        "jack_nomination": "different_suit",
        "seven_chain_growth": "doubling",
        "seven_penalty_ends_turn": False,
        "ace_mode": "extra_turn",
        "two_player_reverse": "skip",
        "stock_exhausted": "end_when_draw_needed",
        "match_tiebreak": "extra_deal",
        "deals_per_match": 2,
    },
    {
        "draw_policy": "until_playable",
        "ace_mode": "skip_next",
        "stock_exhausted": "reshuffle",
        "max_actions": 120,
        "max_players": 7,
    },
    {
        "opening": "club_round",
        "jack_nomination": "different_suit",
        "seven_chain_growth": "doubling",
        "stock_exhausted": "reshuffle",
        "max_actions": 150,
        "hand_size": 5,
        "deals_per_match": 3,
    },
    {
        "draw_policy": "one_then_pass",
        "ace_mode": "skip_next",
        "two_player_reverse": "skip",
        "seven_penalty_ends_turn": False,
        "hand_size": 10,
        "max_players": 5,
    },
    {
        "opening": "club_round",
        "draw_policy": "until_playable",
        "ace_mode": "extra_turn",
        "stock_exhausted": "end_when_draw_needed",
        "hand_size": 3,
        "match_tiebreak": "extra_deal",
    },
    # The default max_actions of §9; one deal per match, as these deals run ~600 actions.
    {"stock_exhausted": "reshuffle", "deals_per_match": 1},
    {"hand_size": 1, "deals_per_match": 1, "max_players": 7},
    {
        "seven_chain_growth": "doubling",
        "seven_penalty_ends_turn": False,
        "two_player_reverse": "skip",
        "stock_exhausted": "reshuffle",
        "max_actions": 60,
        "match_tiebreak": "extra_deal",
    },
    {
        "jack_nomination": "different_suit",
        "draw_policy": "one_then_pass",
        "stock_exhausted": "end_when_draw_needed",
        "max_players": 3,
        "deals_per_match": 5,
    },
    {
        "opening": "club_round",
        "ace_mode": "skip_next",
        "draw_policy": "until_playable",
        "stock_exhausted": "reshuffle",
        "max_actions": 200,
        "seven_penalty_ends_turn": False,
    },
    {
        "seven_chain_growth": "doubling",
        "ace_mode": "extra_turn",
        "jack_nomination": "different_suit",
        "hand_size": 8,
        "max_players": 6,
        "match_tiebreak": "extra_deal",
        "deals_per_match": 2,
    },
)
RULE_SETS: tuple[Rules, ...] = tuple(Rules.from_json(o) for o in OPTION_COMBINATIONS)


def seat_counts(rules: Rules) -> tuple[int, ...]:
    """Table sizes to play under `rules`: 2..6, and 7 where max_players allows it (R-7)."""
    return tuple(range(2, rules.max_players + 1))


@dataclass
class Playout:
    """One deal played with uniformly random legal moves; `states[i]` is before `moves[i]`."""

    rules: Rules
    seats: int
    opener: int
    seed: bytes
    moves: list[Move] = field(default_factory=list)
    states: list[State] = field(default_factory=list)

    @property
    def final(self) -> State:
        return self.states[-1]

    def describe(self) -> str:
        """Enough to rebuild the deal in a failure message."""
        options = {k: v for k, v in self.rules.to_json().items() if v != getattr(Rules(), k)}
        return f"rules={options} seats={self.seats} opener={self.opener} seed={self.seed.hex()}"


def random_deal_states(
    rules: Rules, seats: int, opener: int, seed: bytes, rng: random.Random
) -> Iterator[tuple[State, tuple[Move, ...]]]:
    """Each state of a random playout with its legal moves, until the deal is over (the last
    state yielded is the final one, with no legal moves). Moves are chosen by `rng`."""
    state = new_deal(rules, seats, opener, seed)
    while True:
        legal = legal_moves(state)
        yield state, legal
        if not legal:
            return
        state = apply_legal(state, rng.choice(legal))


def random_playout(
    rules: Rules, seats: int, opener: int, seed: bytes, rng: random.Random, *, keep: bool = True
) -> Playout:
    """Play a whole deal with random legal moves; with keep=False only the final state is kept."""
    playout = Playout(rules, seats, opener, seed)
    state = new_deal(rules, seats, opener, seed)
    states = playout.states
    moves = playout.moves
    if keep:
        states.append(state)
    while not state.is_over:
        legal = legal_moves(state)
        if not legal:
            raise AssertionError(f"seat {state.turn} has no legal move: {playout.describe()}")
        move = rng.choice(legal)
        moves.append(move)
        state = apply_legal(state, move)
        if keep:
            states.append(state)
    if not keep:
        states.append(state)
    return playout


def seeded_deal_parameters(index: int, rng: random.Random) -> tuple[Rules, int, int, bytes]:
    """The `index`-th deal of a deterministic cycle over option combinations and seat counts."""
    rules = RULE_SETS[index % len(RULE_SETS)]
    counts = seat_counts(rules)
    seats = counts[(index // len(RULE_SETS)) % len(counts)]
    return rules, seats, rng.randrange(seats), rng.randbytes(32)


# --- direct recounts, written from docs/rules.md without the engine's tables ---------------------

_FACE = {"J": 25, "7": 20, "A": 15, "K": 10, "Q": 10}  # §1 penalty values; others face value


def penalty_of_code(code: str) -> int:
    rank = code[:-1]
    return _FACE.get(rank, int(rank) if rank.isdigit() else -1)


def hand_value(codes: Sequence[str]) -> int:
    return sum(penalty_of_code(c) for c in codes)


def expected_deal_result(
    hands: Sequence[Sequence[str]], last_card: str | None
) -> tuple[tuple[int, ...], str, tuple[int, ...]]:
    """(winners, reason, penalties) by R-28..R-31 from the final hands and the last card played.

    A seat with an empty hand won by shedding (R-28) and the others score m × their hand with
    m = 3 after a 7, 2 after a Jack, else 1 (R-31); with no empty hand the deal ended on stock
    exhaustion (R-29) and the lowest hands win with 0, the others score their hand (R-30).
    """
    values = [hand_value(h) for h in hands]
    empty = [s for s, h in enumerate(hands) if not h]
    if empty:
        assert last_card is not None
        rank = last_card[:-1]
        m = 3 if rank == "7" else 2 if rank == "J" else 1
        return (
            tuple(empty),
            "shed",
            tuple(0 if not h else m * v for h, v in zip(hands, values, strict=True)),
        )
    low = min(values)
    winners = tuple(s for s, v in enumerate(values) if v == low)
    return winners, "stock_exhausted", tuple(0 if v == low else v for v in values)


def penalty_due(rules: Rules, pending_sevens: int) -> int:
    """R-22: the cards of the penalty for `pending_sevens` (3·k, or 3·2^(k−1) when doubling)."""
    if rules.seven_chain_growth == "doubling":
        return 3 * 2 ** (pending_sevens - 1)
    return 3 * pending_sevens


def ends_on_a_short_penalty(before: State, move: Move) -> bool:
    """Whether `move` in `before` is a penalty draw (R-22) the stock cannot cover, under
    end_when_draw_needed: by R-29 that draw ends the deal."""
    return (
        before.rules.stock_exhausted == "end_when_draw_needed"
        and move.action == "draw"
        and before.pending_sevens > 0
        and 0 < len(before.stock) < penalty_due(before.rules, before.pending_sevens)
    )


def expected_places(totals: Sequence[int]) -> list[int]:
    """R-32: rank by total, lowest first; equal totals share the better place (1, 1, 3)."""
    ordered = sorted(totals)
    return [ordered.index(t) + 1 for t in totals]


# --- Hypothesis strategies ------------------------------------------------------------------

CARD_CODES: tuple[str, ...] = tuple(
    r + s
    for s in "CDHS"
    for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
)

rule_sets = st.sampled_from(RULE_SETS)
seeds = st.binary(min_size=32, max_size=32)


@st.composite
def deal_setups(draw: st.DrawFn) -> tuple[Rules, int, int, bytes]:
    """(rules, seats, opener, seed) for a fresh deal."""
    rules = draw(rule_sets)
    seats = draw(st.sampled_from(seat_counts(rules)))
    opener = draw(st.integers(0, seats - 1))
    return rules, seats, opener, draw(seeds)


def case_variants(code: str) -> st.SearchStrategy[str]:
    """The code in any mix of upper and lower case (R-1: input is case-insensitive)."""
    return st.tuples(*(st.sampled_from(sorted({ch.lower(), ch.upper()})) for ch in code)).map(
        "".join
    )
