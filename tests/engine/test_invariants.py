"""Invariants of the engine over seeded random playouts (issue 2, item 5).

`test_ten_thousand_random_deals_keep_the_invariants` plays 10,000 deals (in four runs of a quarter,
so that parallel workers share them) with uniformly random
legal moves (reference `legal_moves`/`apply_legal`), grouped into matches, cycling through the
option combinations of `strategies.OPTION_COMBINATIONS` and every table size they allow. On all
of them it checks the cheap invariants: 52 cards conserved after every action, the seat on turn
always has a legal move until the deal ends, the deal ends within the bound of docs/rules.md §9,
state ↔ JSON round-trips, and the deal and match scores equal a direct recount of R-28..R-32.

The expensive checks (every one of the 70 well-formed moves tried against `apply`) run on a
sample of 300 deals. Hypothesis tests cover the Card and Move codecs.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import fields, replace
from itertools import chain

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import (
    CARD_CODES,
    OPTION_COMBINATIONS,
    RULE_SETS,
    case_variants,
    expected_deal_result,
    expected_places,
    seat_counts,
    seeded_deal_parameters,
)

from games.engine import (
    DRAW_MOVE,
    PACK,
    PASS_MOVE,
    Card,
    IllegalMove,
    InvalidMove,
    Move,
    NotYourTurn,
    Rules,
    State,
    apply,
    apply_legal,
    legal_moves,
    match_is_over,
    match_needs_extra_deal,
    match_places,
    match_totals,
    new_deal,
    opener_for_deal,
)
from games.engine.cards import ACE, SEVEN
from games.engine.rules import _BOOLEANS, _CHOICES
from games.engine.state import evolve
from tests.scale import scaled

DEALS = scaled(10_000, least=500)
EXPENSIVE_DEALS = scaled(300, least=30)
ALL_CARDS = list(range(52))

# Every well-formed move (one that Move.from_json accepts): each card without a suit (a Jack
# without a suit is the opening J♣'s form, R-11), each Jack with each suit, draw and pass.
WELL_FORMED_MOVES: tuple[Move, ...] = (
    tuple(Move.play(card) for card in PACK)
    + tuple(Move.play(card, suit) for card in PACK if card.is_jack for suit in "CDHS")
    + (DRAW_MOVE, PASS_MOVE)
)


def action_bound(rules: Rules, seats: int) -> int:
    """The most actions a deal can take (docs/rules.md §9).

    With `reshuffle` the deal is ended by the engine at `max_actions` actions. Otherwise, with
    S = 52 − seats·hand_size cards in the stock at the start:
    - a play moves a card from a hand to the pile and no card leaves the pile, so there are at
      most as many plays as cards ever held: dealt + drawn ≤ 52;
    - a draw takes at least one card from the stock (one card, or a penalty of 3·k or what is
      left, R-22, R-29), and no card returns to the stock; only under end_when_draw_needed may
      one more draw find the stock empty, and it ends the deal: draws ≤ S + 1;
    - a pass needs a draw earlier in the same turn (R-17; the turn's draw count restarts with
      each turn and after a penalty) or ends an Ace follow-up (R-25), and it ends the turn:
      passes ≤ draws + Aces played ≤ S + 1 + 4.
    Hence actions ≤ 52 + 2·(S + 1) + 4 = 58 + 2·S.
    """
    if rules.stock_exhausted == "reshuffle":
        return rules.max_actions
    return 58 + 2 * (52 - seats * rules.hand_size)


def assert_cards_conserved(state: State) -> None:
    held = sorted(chain(chain.from_iterable(state.hands), state.stock, state.pile))
    assert held == ALL_CARDS


def assert_live_state_consistent(state: State) -> None:
    """Facts of a deal in progress that follow from the rules whatever was played."""
    rules = state.rules
    assert state.turn is not None and 0 <= state.turn < state.seats
    assert state.direction in (1, -1)
    assert all(state.hands)  # an empty hand would have ended the deal
    if rules.stock_exhausted != "end_when_draw_needed":
        assert state.stock  # the deal ends when the stock runs out (or R-6 refills it)
    top = state.top_card
    if top is None:
        assert state.phase == "opening" and state.active_suit is None
        return
    if not top.is_jack:
        assert state.active_suit == top.suit  # only a Jack nominates
    if state.pending_sevens:
        assert top.rank == SEVEN and state.phase == "play"
    if state.phase == "ace_followup":
        assert top.rank == ACE and rules.ace_mode == "follow_up"
    if state.phase == "opening":
        assert rules.opening == "club_round" and all(c.suit == "C" for c in state.pile)


def assert_deal_scored_by_the_rules(state: State) -> None:
    """R-28..R-31 recounted from the final hands and the last card played."""
    result = state.result
    assert result is not None
    hands = [[c.code for c in hand] for hand in state.hands]
    last = state.pile[-1].code if state.pile else None
    winners, reason, penalties = expected_deal_result(hands, last)
    assert result.reason == reason
    assert result.winners == winners
    assert result.penalties == penalties
    if reason == "shed":
        assert len(winners) == 1  # the deal ends the moment one hand is empty
        assert result.last_card is not None and result.last_card.code == last
        assert result.multiplier == {"7": 3, "J": 2}.get(last[:-1] if last else "", 1)
    else:
        assert result.last_card is None and result.multiplier == 1


def play_checked_deal(
    rules: Rules, seats: int, opener: int, seed: bytes, rng: random.Random
) -> State:
    """One random deal with the cheap checks after every action and at its end."""
    state = new_deal(rules, seats, opener, seed)
    assert_cards_conserved(state)
    kinds: Counter[str] = Counter()
    last_move = PASS_MOVE
    bound = action_bound(rules, seats)
    while not state.is_over:
        legal = legal_moves(state)
        assert legal, f"seat {state.turn} is stuck in {state.phase}"  # liveness
        move = last_move = rng.choice(legal)
        kinds[move.action] += 1
        state = apply_legal(state, move)
        assert_cards_conserved(state)
        assert state.actions <= bound, "the deal outran the §9 bound"
        if not state.is_over:
            assert_live_state_consistent(state)
    assert legal_moves(state) == () and state.turn is None
    assert state.actions == sum(kinds.values())
    if rules.stock_exhausted != "reshuffle":
        stock_at_start = 52 - seats * rules.hand_size
        assert kinds["play"] <= 52 and kinds["draw"] <= stock_at_start + 1
        assert kinds["pass"] <= kinds["draw"] + 4
    assert State.from_json(json.loads(json.dumps(state.to_json()))) == state
    assert_deal_scored_by_the_rules(state)
    assert state.result is not None
    if state.result.reason == "stock_exhausted":
        # R-29: only an empty stock ends a deal early, or §9's max_actions under reshuffle.
        assert not state.stock or (
            rules.stock_exhausted == "reshuffle" and state.actions == rules.max_actions
        )
        if rules.stock_exhausted == "end_when_draw_needed":
            assert kinds["draw"] > 0 and last_move.action == "draw"
    return state


def assert_match_scored_by_the_rules(
    rules: Rules, seats: int, deals: list[tuple[int, ...]]
) -> None:
    """R-32: totals are sums of deal scores, places rank them with shared ties, and the match
    ends after deals_per_match deals unless extra_deal has a shared lowest total to break."""
    totals = [sum(deal[seat] for deal in deals) for seat in range(seats)]
    assert match_totals(deals, seats) == totals
    assert match_places(totals) == expected_places(totals)
    shared_low = totals.count(min(totals)) > 1
    assert match_needs_extra_deal(totals, rules) == (
        rules.match_tiebreak == "extra_deal" and shared_low
    )
    for played in range(1, len(deals) + 1):
        partial = [sum(deal[seat] for deal in deals[:played]) for seat in range(seats)]
        low_shared = partial.count(min(partial)) > 1
        over = played >= rules.deals_per_match and not (
            rules.match_tiebreak == "extra_deal" and low_shared
        )
        assert match_is_over(partial, played, rules) == over
        assert over == (played == len(deals))  # the match ran exactly as long as R-32 says


def test_option_combinations_take_every_value_of_every_option() -> None:
    for name, values in _CHOICES.items():
        used = {getattr(rules, name) for rules in RULE_SETS}
        assert used == set(values), name
    for name in _BOOLEANS:
        assert {getattr(rules, name) for rules in RULE_SETS} == {True, False}, name
    for name in ("max_actions", "max_players", "hand_size", "deals_per_match"):
        assert len({getattr(rules, name) for rules in RULE_SETS}) >= 3, name
    assert len(OPTION_COMBINATIONS) == len(RULE_SETS)


# The 10,000 deals in four runs of a quarter each, with seeds of their own, so that the
# suite's parallel workers share them; each run makes every check on its own quarter. A
# smaller scale keeps one run: a quarter of it would not reach every table size.
RUNS = 4 if DEALS >= 4_000 else 1


@pytest.mark.parametrize("run", range(RUNS))
def test_ten_thousand_random_deals_keep_the_invariants(run: int) -> None:
    rng = random.Random(f"invariants-10k-{run}")
    share = DEALS // RUNS + (run < DEALS % RUNS)
    deals_played = matches = 0
    endings: Counter[str] = Counter()
    tables: Counter[int] = Counter()
    while deals_played < share:
        rules = RULE_SETS[matches % len(RULE_SETS)]
        counts = seat_counts(rules)
        seats = counts[(matches // len(RULE_SETS)) % len(counts)]
        matches += 1
        scores: list[tuple[int, ...]] = []
        while not scores or not match_is_over(match_totals(scores, seats), len(scores), rules):
            assert len(scores) < rules.deals_per_match + 100, "the tie-break never ends"
            opener = opener_for_deal(len(scores) + 1, seats)
            assert opener == len(scores) % seats
            seed = rng.randbytes(32)
            try:
                final = play_checked_deal(rules, seats, opener, seed, rng)
            except AssertionError as failure:
                raise AssertionError(
                    f"{failure}; rules={rules} seats={seats} opener={opener} seed={seed.hex()}"
                ) from failure
            assert final.result is not None
            scores.append(final.result.penalties)
            endings[final.result.reason] += 1
            tables[seats] += 1
            deals_played += 1
        assert_match_scored_by_the_rules(rules, seats, scores)
    assert set(tables) == {2, 3, 4, 5, 6, 7}
    # Each ending in over a tenth of the deals (250 of a full run's 2,500).
    assert endings["shed"] > share // 10 and endings["stock_exhausted"] > share // 10


def section_10_order(move: Move) -> tuple[int, int, int]:
    """§10: plays by canonical card index then suit order C D H S, then draw, then pass."""
    if move.action == "play":
        assert move.card is not None
        return (0, int(move.card), "CDHS".index(move.suit) if move.suit else -1)
    return (1 if move.action == "draw" else 2, 0, 0)


def assert_only_legal_moves_apply(state: State) -> None:
    """Every legal move applies (as apply_legal does); every other well-formed move raises
    IllegalMove and leaves the state as it was; another seat gets NotYourTurn."""
    legal = legal_moves(state)
    assert len(set(legal)) == len(legal)
    assert list(legal) == sorted(legal, key=section_10_order)
    before = state.to_json()
    for move in legal:
        assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move
        after = apply(state, move, seat=state.turn)
        assert after == apply_legal(state, move)
        assert after.actions == state.actions + 1
    for move in WELL_FORMED_MOVES:
        if move in legal:
            continue
        with pytest.raises(IllegalMove) as refused:
            apply(state, move)
        assert refused.value.legal_moves == legal
    if state.turn is not None:
        for seat in range(state.seats):
            if seat != state.turn:
                with pytest.raises(NotYourTurn):
                    apply(state, legal[0], seat=seat)
    assert state.to_json() == before


def test_every_legal_move_applies_and_every_other_move_is_refused() -> None:
    rng = random.Random("invariants-expensive")
    checked = 0
    for index in range(EXPENSIVE_DEALS):
        rules, seats, opener, seed = seeded_deal_parameters(index, rng)
        state = new_deal(rules, seats, opener, seed)
        step = 0
        while True:
            # Every 4th position, every 40th past the 120th (long reshuffle deals), the last.
            if step % (4 if step < 120 else 40) == 0 or state.is_over:
                assert_only_legal_moves_apply(state)
                checked += 1
            if state.is_over:
                break
            state = apply_legal(state, rng.choice(legal_moves(state)))
            step += 1
    assert checked > 4_000 * EXPENSIVE_DEALS // 300  # over 4,000 at full size


def test_well_formed_moves_are_exactly_what_from_json_accepts() -> None:
    """The refusal test above covers every move a client can send (§10)."""
    for move in WELL_FORMED_MOVES:
        assert Move.from_json(move.to_json()) == move
    for card in PACK:
        if not card.is_jack:
            with pytest.raises(InvalidMove):
                Move.from_json({"action": "play", "card": card.code, "suit": "H"})
    assert len(WELL_FORMED_MOVES) == 52 + 16 + 2


# --- Card and Move codecs ---------------------------------------------------------------------


@given(st.integers(min_value=0, max_value=51))
def test_card_code_round_trips(index: int) -> None:
    card = PACK[index]
    assert Card.from_code(card.code) == card == index
    assert card.code == CARD_CODES[index]  # index = suit·13 + rank
    assert card.suit == "CDHS"[index // 13]


@given(st.integers(min_value=0, max_value=51).flatmap(lambda i: case_variants(CARD_CODES[i])))
def test_card_codes_are_read_case_insensitively(code: str) -> None:
    assert Card.from_code(code).code == code.upper()


@given(st.text(max_size=5))
def test_anything_but_a_card_code_is_invalid(text: str) -> None:
    assume(text.strip().upper() not in CARD_CODES)
    with pytest.raises(InvalidMove):
        Card.from_code(text)


@given(st.sampled_from(WELL_FORMED_MOVES))
def test_move_json_round_trips(move: Move) -> None:
    body = move.to_json()
    assert Move.from_json(json.loads(json.dumps(body))) == move
    assert Move.from_json(body).to_json() == body


_FIELD_VALUES = st.one_of(
    st.none(),
    st.sampled_from(["play", "draw", "pass", "C", "D", "H", "S", "h", " s ", "X", ""]),
    st.sampled_from(CARD_CODES),
    st.text(max_size=4),
    st.integers(),
    st.lists(st.integers(), max_size=2),
)


@given(
    st.one_of(
        st.dictionaries(st.sampled_from(["action", "card", "suit", "other"]), _FIELD_VALUES),
        _FIELD_VALUES,
    )
)
def test_from_json_accepts_a_move_or_raises_invalid_move(body: object) -> None:
    try:
        move = Move.from_json(body)  # type: ignore[arg-type]
    except InvalidMove as error:
        assert error.field in {"action", "card", "suit"}
        return
    assert isinstance(body, dict)
    assert move in WELL_FORMED_MOVES
    assert Move.from_json(move.to_json()) == move
    assert move.action == body["action"]


def test_evolve_is_dataclasses_replace() -> None:
    """The moves' path copies a state with `state.evolve`: the same state as
    dataclasses.replace for any fields changed, none changed included; an unknown name fails."""
    rng = random.Random(7)
    state = new_deal(Rules(), 3, 1, bytes(32))
    names = [f.name for f in fields(State)]
    others = new_deal(Rules(hand_size=5), 4, 2, bytes(range(32)))
    for _ in range(200):
        chosen = rng.sample(names, rng.randint(0, len(names)))
        changes = {name: getattr(others, name) for name in chosen}
        assert evolve(state, **changes) == replace(state, **changes)
    assert evolve(state) == state and evolve(state) is not state
    with pytest.raises(KeyError):
        evolve(state, no_such_field=1)
