"""Luck and move analysis (games/engine/analysis.py): reproducible from what they record, blind
to the cards a seat cannot see, and sensible: luck averages zero for the reference bot, a bad
move is flagged, a good one is not."""

from __future__ import annotations

import random
import statistics
from dataclasses import replace

import pytest

from games.engine import Card, Move, Rules, State, apply_legal, deal_from_codes, new_deal, observe
from games.engine.analysis import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    PRIOR_K,
    classify,
    deal_luck,
    deal_move_analysis,
    deal_skill,
    expected_deal_scores,
    move_values,
    simulated_deals,
)
from games.engine.bots import get_bot
from games.engine.bots.analysis import _decision_effect
from games.engine.bots.ismcts import RolloutTables, rollout_action
from games.engine.fast import FastDeal
from games.engine.state import OPENING


def dealt(seats: int, index: int, rules: Rules | None = None) -> State:
    return new_deal(rules or Rules(), seats, index % seats, random.Random(index).randbytes(32))


def decisions(count: int, seed: int) -> list[State]:
    """Positions with a decision (2+ legal moves), from random playouts of 2..4 seats."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = dealt(rng.choice((2, 3, 4)), rng.randrange(10**6))
        while state.result is None and len(found) < count:
            assert state.turn is not None
            observation = observe(state, state.turn)
            if len(observation.legal_moves) > 1 and rng.random() < 0.3:
                found.append(state)
            state = apply_legal(state, rng.choice(observation.legal_moves))
    return found


def permute_hidden(state: State, rng: random.Random, seat: int) -> State:
    """The same position for `seat` with the other hands and the stock dealt differently."""
    hidden = [c for s, hand in enumerate(state.hands) if s != seat for c in hand]
    hidden += list(state.stock)
    rng.shuffle(hidden)
    hands = []
    position = 0
    for s, hand in enumerate(state.hands):
        if s == seat:
            hands.append(hand)
            continue
        hands.append(tuple(sorted(hidden[position : position + len(hand)])))
        position += len(hand)
    return replace(
        state, hands=tuple(hands), stock=tuple(hidden[position:]), seed=rng.randbytes(32)
    )


def play_out(state: State, names: tuple[str, ...], rng: random.Random) -> State:
    bots = [get_bot(name) for name in names]
    while state.result is None:
        seat = state.turn
        assert seat is not None
        state = apply_legal(state, bots[seat].choose(observe(state, seat), rng))
    return state


# --- expected deal scores and luck --------------------------------------------------------


def test_expected_deal_scores_are_reproducible_and_record_how() -> None:
    start = dealt(3, 1)
    first = expected_deal_scores(start, k=24, seed=7)
    assert first == expected_deal_scores(start, k=24, seed=7)
    assert (first.k, first.bot, first.seed) == (24, "greedy", "7")
    assert first.to_json()["expected"] == list(first.expected)
    assert len(first.expected) == 3 and all(e >= 0 for e in first.expected)
    assert expected_deal_scores(start, k=24, seed=8) != first  # the seed drives the samples


def test_expected_deal_scores_use_the_starting_hands_not_the_real_stock_order() -> None:
    """Only the hands and the opener count: the real stock order (which the deal then played)
    is re-sampled, so reordering it changes nothing."""
    start = dealt(2, 3)
    stock = list(start.stock)
    random.Random(1).shuffle(stock)
    reordered = replace(start, stock=tuple(stock), seed=bytes(32))
    assert expected_deal_scores(start, k=16, seed=1) == expected_deal_scores(
        reordered, k=16, seed=1
    )
    other_hands = dealt(2, 4)
    assert expected_deal_scores(other_hands, k=16, seed=1) != expected_deal_scores(
        start, k=16, seed=1
    )


def test_simulated_deals_conserve_the_cards_and_keep_the_hands() -> None:
    for rules in (Rules(), Rules(stock_exhausted="reshuffle")):
        start = dealt(4, 5, rules)
        orders = set()
        for deal in simulated_deals(start, k=12, seed="x"):
            state = deal.to_state()
            assert state.hands == start.hands and state.opener == start.opener
            assert sorted(state.stock) == sorted(start.stock)
            orders.add(state.stock)
            assert (state.seed != start.seed) == (rules.stock_exhausted == "reshuffle")
            tables = RolloutTables.build(rules, 4)
            while not deal.is_over:
                legal = deal.legal_actions()
                deal.apply_action(
                    legal[0] if len(legal) == 1 else rollout_action(deal, legal, tables)
                )
            end = deal.to_state()
            everything = [c for h in end.hands for c in h] + list(end.stock) + list(end.pile)
            assert sorted(everything) == list(range(52))  # conservation of the 52 cards
        assert len(orders) == 12


def test_luck_is_expected_minus_actual() -> None:
    """Deal score is a penalty (lower is better): a seat that scores less than expected has
    positive luck-adjusted score; the winner (score 0) has luck = its expected score."""
    start = dealt(2, 9)
    expected = expected_deal_scores(start, k=16, seed=2)
    end = play_out(start, ("greedy", "greedy"), random.Random(0))
    assert end.result is not None
    luck = expected.luck(end.result.penalties)
    for seat in range(2):
        assert luck[seat] == expected.expected[seat] - end.result.penalties[seat]
    for winner in end.result.winners:
        assert luck[winner] == expected.expected[winner] >= 0
    with pytest.raises(ValueError):
        expected.luck((0, 0, 0))


def test_luck_averages_zero_for_the_reference_bot_and_is_negative_for_random() -> None:
    """Unbiased: when greedy plays every seat, the real deal is one more sample of what the
    estimate averages, so the mean luck is zero within its error. A random seat against greedy
    does worse than its cards gave."""
    greedy_luck: list[float] = []
    random_luck: list[float] = []
    for index in range(240):
        start = dealt(2, 1000 + index)
        expected = expected_deal_scores(start, k=8, seed=index)
        deal = FastDeal.from_state(start)
        tables = RolloutTables.build(start.rules, 2)
        while not deal.is_over:
            legal = deal.legal_actions()
            deal.apply_action(legal[0] if len(legal) == 1 else rollout_action(deal, legal, tables))
        assert deal.result_penalties is not None
        greedy_luck.extend(expected.luck(deal.result_penalties))
        mixed = play_out(start, ("random", "greedy"), random.Random(index))
        assert mixed.result is not None
        random_luck.append(expected.luck(mixed.result.penalties)[0])
    error = statistics.stdev(greedy_luck) / len(greedy_luck) ** 0.5
    assert abs(statistics.fmean(greedy_luck)) < 3 * error
    random_error = statistics.stdev(random_luck) / len(random_luck) ** 0.5
    assert statistics.fmean(random_luck) < -3 * random_error


def test_expected_deal_scores_with_a_search_bot_and_bad_input() -> None:
    start = dealt(2, 11)
    searched = expected_deal_scores(start, k=1, bot="ismcts-1", seed=3)
    assert searched.bot == "ismcts-1" and searched == expected_deal_scores(
        start, k=1, bot="ismcts-1", seed=3
    )
    with pytest.raises(KeyError, match="no-such-bot"):
        expected_deal_scores(start, k=4, bot="no-such-bot")
    with pytest.raises(ValueError):
        expected_deal_scores(start, k=0)
    later = apply_legal(start, observe(start, start.turn or 0).legal_moves[0])
    with pytest.raises(ValueError, match="before any play"):
        expected_deal_scores(later, k=4)
    rules = Rules(ace_mode="skip_next")
    assert expected_deal_scores(start, rules, k=8, seed=1) == expected_deal_scores(
        replace(start, rules=rules), k=8, seed=1
    )


# --- move values --------------------------------------------------------------------------


def test_move_values_are_reproducible() -> None:
    for state in decisions(6, seed=1):
        assert state.turn is not None
        observation = observe(state, state.turn)
        played = observation.legal_moves[-1]
        first = move_values(observation, played, k=12, seed=5)
        assert first == move_values(observation, played, k=12, seed=5)
        assert [m for m, _ in first.values] == list(observation.legal_moves)
        assert (first.k, first.bot, first.seed, first.seat) == (12, "greedy", "5", state.turn)


def test_move_values_do_not_read_the_hidden_cards() -> None:
    """Two states that differ only in the cards the seat cannot see (other hands, stock order,
    seed) give the same move values for the same seed."""
    rng = random.Random(4)
    differing = 0
    positions = decisions(12, seed=2)
    for state in positions:
        seat = state.turn
        assert seat is not None
        other = permute_hidden(state, rng, seat)
        differing += other.hands != state.hands
        first = move_values(observe(state, seat), k=10, seed=1)
        second = move_values(observe(other, seat), k=10, seed=1)
        assert first == second, state
    assert differing > len(positions) // 2  # the hidden cards really moved


def test_a_clearly_bad_move_is_flagged_and_the_best_is_not() -> None:
    """R-25, R-28: A♥ then 5♥ in the follow-up empties the hand, so `play AH` scores 0 on every
    sample; drawing instead gives the opponent time and is flagged."""
    state = deal_from_codes(
        ["AH 5H", "2C 3C 4C 5C 6C"], top="9H", stock="2D 3D 4D 5D 6D 8D 9D 10D QD KD"
    )
    observation = observe(state, 0)
    ace = Move.play(Card.from_code("AH"))
    best = move_values(observation, ace, k=48, seed=1)
    assert best.best == ace and dict(best.values)[ace] == 0.0
    assert best.loss == 0.0 and best.verdict is None
    drew = move_values(observation, observation.legal_moves[-1], k=48, seed=1)
    assert drew.played is not None and drew.played.action == "draw"
    assert drew.loss is not None and drew.loss >= MISTAKE
    assert drew.verdict in ("mistake", "blunder")
    assert drew.to_json()["verdict"] == drew.verdict


def test_classify_thresholds_and_significance() -> None:
    assert classify(INACCURACY - 0.1, 0.0) is None
    assert classify(INACCURACY, 0.0) == "inaccuracy"
    assert classify(MISTAKE, 0.0) == "mistake"
    assert classify(BLUNDER, 0.0) == "blunder"
    assert classify(BLUNDER, BLUNDER / 2) is None  # within two standard errors: noise
    assert INACCURACY < MISTAKE < BLUNDER


def test_move_values_refuse_what_is_not_a_decision() -> None:
    state = deal_from_codes(["AH 5H", "2C 3C"], top="9H", stock="2D 3D 4D")
    with pytest.raises(ValueError, match="decision"):
        move_values(observe(state, 1), k=4)  # not on turn
    forced = deal_from_codes(["2S 3S", "2C 3C"], top="9H", stock="2D 3D 4D", pending_sevens=0)
    observation = observe(forced, 0)
    assert len(observation.legal_moves) == 1
    with pytest.raises(ValueError, match="decision"):
        move_values(observation, k=4)
    decision = observe(state, 0)
    with pytest.raises(ValueError, match="not a legal move"):
        move_values(decision, Move.play(Card.from_code("2C")), k=4)
    with pytest.raises(ValueError, match="greedy or random"):
        move_values(decision, k=4, bot="ismcts")
    with pytest.raises(ValueError):
        move_values(decision, k=0)


def test_deal_move_analysis_covers_every_decision_and_flags_random_play_more() -> None:
    flags = {"greedy": 0, "random": 0}
    for index in range(3):
        start = dealt(2, 50 + index)
        rng = random.Random(index)
        bots = (get_bot("random"), get_bot("greedy"))
        state = start
        moves: list[Move] = []
        expected_decisions = []
        while state.result is None:
            seat = state.turn
            assert seat is not None
            observation = observe(state, seat)
            if len(observation.legal_moves) > 1:
                expected_decisions.append(len(moves))
            move = bots[seat].choose(observation, rng)
            moves.append(move)
            state = apply_legal(state, move)
        analysed = deal_move_analysis(start, moves, k=12, seed=index)
        assert [i for i, _ in analysed] == expected_decisions
        for i, analysis in analysed:
            assert analysis.played == moves[i] and analysis.seed == f"{index}:{i}"
            name = "random" if analysis.seat == 0 else "greedy"
            flags[name] += analysis.verdict is not None
        only_greedy = deal_move_analysis(start, moves, seats=[1], k=4, seed=index)
        assert {a.seat for _, a in only_greedy} <= {1}
    assert flags["random"] > 2 * flags["greedy"]
    assert start.phase == OPENING  # the start is a value: analysis never changes it


# --- luck of every chance event (deal_luck) ---------------------------------------------------


def logged(start: State, names: tuple[str, ...], seed: int) -> tuple[State, list[Move]]:
    """The deal played to its end by `names` from `start`: its end and its move log."""
    bots = [get_bot(name) for name in names]
    rng = random.Random(seed)
    state = start
    moves: list[Move] = []
    while state.result is None:
        seat = state.turn
        assert seat is not None
        move = bots[seat].choose(observe(state, seat), rng)
        moves.append(move)
        state = apply_legal(state, move)
    return state, moves


def test_deal_luck_is_reproducible_records_how_and_adds_up() -> None:
    start = dealt(2, 11)
    end, moves = logged(start, ("greedy", "random"), 1)
    first = deal_luck(start, moves, k=8, seed=3)
    assert first == deal_luck(start, moves, k=8, seed=3)
    assert (first.k, first.bot, first.seed, first.prior_k) == (8, "greedy", "3", PRIOR_K)
    assert end.result is not None and first.actual == end.result.penalties
    assert first.events[0].index is None  # the deal itself comes first
    for seat in range(2):
        total = sum(event.luck[seat] for event in first.events)
        assert first.luck[seat] == pytest.approx(total)
        assert first.adjusted[seat] == pytest.approx(first.actual[seat] - total)
        assert first.decisions[seat] == pytest.approx(first.adjusted[seat] - first.prior[seat])
    assert min(first.prior) > 5 and max(first.prior) < 40  # a seat's mean deal score
    as_json = first.to_json()
    assert as_json["adjusted"] == list(first.adjusted) and len(as_json["events"]) == len(
        first.events
    )
    assert deal_luck(start, moves, k=8, seed=4).luck != first.luck  # the seed drives the samples


def test_deal_luck_has_an_event_for_every_draw_from_the_stock_and_no_other_move() -> None:
    for rules, seats in ((Rules(), 3), (Rules(stock_exhausted="reshuffle"), 2)):
        start = dealt(seats, 12, rules)
        end, moves = logged(start, ("random",) * seats, 2)
        drawing = []
        state = start
        for index, move in enumerate(moves):
            after = apply_legal(state, move)
            if after.stock != state.stock or after.reshuffles != state.reshuffles:
                drawing.append(index)
            state = after
        analysis = deal_luck(start, moves, k=2, seed=1, prior_k=50)
        assert [event.index for event in analysis.events] == [None, *drawing]
        assert len(drawing) > 3
        decided = {i for i, m in enumerate(moves) if i not in drawing}
        assert decided  # plays and passes happened, and carry no luck


def test_deal_luck_takes_most_of_the_spread_out_of_reference_self_play() -> None:
    """With the reference bot at every seat, decisions add nothing on average, so the
    luck-adjusted difference between the seats is mostly estimation noise: far narrower than
    the raw one (about 17 against 38 points with K = 32), and centred on the priors'."""
    raw = []
    adjusted = []
    for index in range(24):
        start = new_deal(Rules(), 2, 0, random.Random(100 + index).randbytes(32))
        _, moves = logged(start, ("greedy", "greedy"), index)
        analysis = deal_luck(start, moves, k=32, seed=index)
        raw.append(analysis.actual[0] - analysis.actual[1])
        adjusted.append(analysis.adjusted[0] - analysis.adjusted[1])
    assert statistics.stdev(adjusted) < 0.7 * statistics.stdev(raw)
    prior = deal_luck(start, moves, k=1).prior
    assert abs(statistics.fmean(adjusted) - (prior[0] - prior[1])) < 12


def test_deal_luck_refuses_what_is_not_a_finished_deal_from_its_start() -> None:
    start = dealt(2, 13)
    end, moves = logged(start, ("greedy", "greedy"), 3)
    with pytest.raises(ValueError, match="as dealt"):
        deal_luck(apply_legal(start, moves[0]), moves[1:], k=2)
    with pytest.raises(ValueError, match="whole log"):
        deal_luck(start, moves[:-1], k=2)
    with pytest.raises(ValueError, match="after the end"):
        deal_luck(start, [*moves, moves[-1]], k=2)
    with pytest.raises(ValueError, match="not legal"):
        deal_luck(start, [Move.play(start.hands[(start.opener + 1) % 2][0]), *moves], k=2)
    with pytest.raises(ValueError, match="at least 1"):
        deal_luck(start, moves, k=0)
    with pytest.raises(KeyError):
        deal_luck(start, moves, k=2, bot="nobody")


# --- luck-adjusted score from the decisions' side (deal_skill) ------------------------------


def test_deal_skill_is_reproducible_records_how_and_adds_up() -> None:
    for view in ("seat", "full"):
        start = dealt(3, 21)
        end, moves = logged(start, ("greedy", "random", "greedy"), 4)
        first = deal_skill(start, moves, k=8, seed=5, view=view)
        assert first == deal_skill(start, moves, k=8, seed=5, view=view)
        assert (first.k, first.bot, first.seed, first.view) == (8, "greedy", "5", view)
        assert end.result is not None and first.actual == end.result.penalties
        assert first.prior == deal_luck(start, moves, k=1).prior  # the same constant
        # Only the random seat leaves the reference bot's moves, and each effect is by seat.
        assert first.effects and {e.seat for e in first.effects} == {1}
        assert all(len(e.effect) == 3 for e in first.effects)
        for seat in range(3):
            total = sum(e.effect[seat] for e in first.effects)
            assert first.decisions[seat] == pytest.approx(total)
            assert first.adjusted[seat] == pytest.approx(first.prior[seat] + total)
            assert first.luck[seat] == pytest.approx(first.actual[seat] - first.adjusted[seat])
        as_json = first.to_json()
        assert as_json["adjusted"] == list(first.adjusted) and as_json["view"] == view
        assert deal_skill(start, moves, k=8, seed=6, view=view).adjusted != first.adjusted


def test_deal_skill_of_the_reference_bot_is_its_prior_exactly() -> None:
    """Greedy at every seat never leaves the reference move: no effect, no noise, whatever the
    cards (the whole result is luck)."""
    for seats in (2, 4):
        start = dealt(seats, 30 + seats)
        _, moves = logged(start, ("greedy",) * seats, 7)
        analysis = deal_skill(start, moves, k=4, seed=1)
        assert analysis.effects == ()
        assert analysis.adjusted == analysis.prior


def test_deal_skill_charges_the_random_bot_and_never_reads_hidden_cards_in_seat_view() -> None:
    """Over a few deals, random's decisions cost it points against greedy; in the seat view a
    decision's effect depends only on what the deciding seat sees."""
    costs = []
    for index in range(6):
        start = new_deal(Rules(), 2, 0, random.Random(200 + index).randbytes(32))
        _, moves = logged(start, ("greedy", "random"), index)
        analysis = deal_skill(start, moves, k=16, seed=index)
        costs.append(analysis.decisions[1] - analysis.decisions[0])
    assert statistics.fmean(costs) > 10
    # Swap two hidden cards of seat 0's opponent with two stock cards: seat 0's view is the
    # same, so the effect of a decision of seat 0 is the same.
    start = dealt(2, 40)
    _, moves = logged(start, ("random", "greedy"), 8)
    one = deal_skill(start, moves, k=8, seed=2)
    seat0 = [e for e in one.effects if e.seat == 0]
    assert seat0
    index = seat0[0].index
    state = start
    for move in moves[:index]:
        state = apply_legal(state, move)
    hidden = state.hands[1]
    swapped = replace(
        state,
        hands=(state.hands[0], tuple(sorted((state.stock[0], state.stock[1], *hidden[2:])))),
        stock=(hidden[0], hidden[1], *state.stock[2:]),
    )

    def effect(position: State) -> tuple[float, ...]:
        deal = FastDeal.from_state(position)
        tables = RolloutTables.build(position.rules, 2)
        legal = deal.legal_actions()
        reference = rollout_action(deal, legal, tables)
        played = next(a for a in legal if a != reference)
        return _decision_effect(deal, played, reference, k=8, view="seat", tables=tables, seed="x")

    assert effect(swapped) == effect(state)


def test_deal_skill_refuses_what_it_cannot_value() -> None:
    start = dealt(2, 13)
    _, moves = logged(start, ("greedy", "greedy"), 3)
    with pytest.raises(ValueError, match="as dealt"):
        deal_skill(apply_legal(start, moves[0]), moves[1:], k=2)
    with pytest.raises(ValueError, match="whole log"):
        deal_skill(start, moves[:-1], k=2)
    with pytest.raises(ValueError, match="after the end"):
        deal_skill(start, [*moves, moves[-1]], k=2)
    with pytest.raises(ValueError, match="deterministic"):
        deal_skill(start, moves, k=2, bot="random")
    with pytest.raises(ValueError, match="view"):
        deal_skill(start, moves, k=2, view="god")
    with pytest.raises(ValueError, match="at least 1"):
        deal_skill(start, moves, k=0)


def test_deal_skill_counts_a_seats_own_decisions_only_against_the_table() -> None:
    """`skill`: over a seat's own decisions, the other seats' mean effect minus its own; the
    others' decisions never move it; with two seats the skills differ as the decisions' sums."""
    for seats, names in ((2, ("random", "greedy")), (3, ("greedy", "random", "random"))):
        start = dealt(seats, 50 + seats)
        _, moves = logged(start, names, 3)
        analysis = deal_skill(start, moves, k=8, seed=4)
        assert {e.seat for e in analysis.effects} == {
            i for i, n in enumerate(names) if n != "greedy"
        }
        for seat in range(seats):
            own = [e.effect for e in analysis.effects if e.seat == seat]
            gained = sum((sum(x) - x[seat]) / (seats - 1) - x[seat] for x in own)
            assert analysis.skill[seat] == pytest.approx(gained)
            if not own:  # greedy: exactly nothing, whatever its opponents did to it
                assert analysis.skill[seat] == 0.0 and analysis.decisions[seat] != 0.0
        assert analysis.to_json()["skill"] == list(analysis.skill)
    start = dealt(2, 60)
    _, moves = logged(start, ("random", "random"), 5)
    both = deal_skill(start, moves, k=8, seed=7)
    assert {e.seat for e in both.effects} == {0, 1}
    assert both.skill[0] - both.skill[1] == pytest.approx(both.decisions[1] - both.decisions[0])
