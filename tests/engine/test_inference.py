"""Inference from the move log (issue 31): the samples of the hidden cards agree with every fact
the observing seat saw, and draw from the exact distribution given those facts.

The facts are read here again from docs/rules.md, on the full positions of real deals (the
reference engine's states), and every sample is checked by a plain bipartite matching of the
seat's cards into the deal and its draws, written without the sampler's counting: the same check
finds contradictions at once in the uniform samples that ignore the log.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from strategies import RULE_SETS, seat_counts

from games.engine import PACK, Card, Rules, State, apply_legal, new_deal, observe
from games.engine.bots import get_bot, inference
from games.engine.bots.inference import (
    GREEDY,
    PLAY,
    RULES,
    Fact,
    HiddenCards,
    greedy_facts,
    playable_mask,
    read_facts,
)
from games.engine.bots.ismcts import Sampler
from games.engine.bots.opponent import agrees, decisions_of, hand_at
from games.engine.bots.rollout import RolloutTables
from games.engine.history import LoggedMove, deal_log, logged_move, seen_by
from games.engine.legal import can_play_on
from games.engine.moves import DRAW, PASS
from games.engine.state import ACE_FOLLOWUP, OPENING
from games.engine.tables import SUIT_MASKS
from tests.scale import SCALE, scaled

# --- deals with their logs ------------------------------------------------------------------


@dataclass(frozen=True)
class Seen:
    """A fact: `seat` held none of `cards` before the move at log index `time`."""

    time: int
    seat: int
    cards: frozenset[int]
    source: str


@dataclass
class Deal:
    """A deal played to its end: `states[i]` is the position before `log[i]`."""

    rules: Rules
    seats: int
    states: list[State] = field(default_factory=list)
    log: list[LoggedMove] = field(default_factory=list)
    facts: list[Seen] | None = None  # facts_of's, once read


def play_deal(
    rules: Rules, seats: int, seed: bytes, players: Sequence[str], rng: random.Random
) -> Deal:
    deal = Deal(rules, seats)
    state = new_deal(rules, seats, rng.randrange(seats), seed)
    while not state.is_over:
        seat = state.turn
        assert seat is not None
        move = get_bot(players[seat]).choose(observe(state, seat), rng)
        after = apply_legal(state, move)
        deal.states.append(state)
        deal.log.append(logged_move(state, move, after))
        state = after
    return deal


def deals(count: int, players: Callable[[int], Sequence[str]], seed: int) -> list[Deal]:
    """`count` deals over the option sets and table sizes of `strategies`."""
    rng = random.Random(seed)
    out = []
    for index in range(count):
        rules = RULE_SETS[index % len(RULE_SETS)]
        counts = seat_counts(rules)
        seats = counts[(index // len(RULE_SETS)) % len(counts)]
        out.append(play_deal(rules, seats, rng.randbytes(32), players(seats), rng))
    return out


# --- the facts, read again from docs/rules.md ---------------------------------------------------


def legal_cards(state: State, *, jacks: bool) -> frozenset[int]:
    """The cards the seat on turn could have played (R-10, R-14, R-16, R-22)."""
    if state.phase == OPENING:
        return frozenset(c for c in PACK if c.suit == "C")
    if state.pending_sevens:
        return frozenset(c for c in PACK if c.code[:-1] == "7")
    assert state.top_card is not None
    return _legal_on(state.top_card, state.active_suit, jacks)


@functools.cache
def _legal_on(top: Card, active_suit: str | None, jacks: bool) -> frozenset[int]:
    return frozenset(
        c for c in PACK if can_play_on(c, top, active_suit) and (jacks or c.code[0] != "J")
    )


def facts_of(deal: Deal) -> list[Seen]:
    """What each move tells of the mover's hand (inference's module docstring, from the rules)."""
    if deal.facts is None:
        deal.facts = _read_facts(deal)
    return deal.facts


def _read_facts(deal: Deal) -> list[Seen]:
    until_playable = deal.rules.draw_policy == "until_playable"
    out = []
    for time, (state, entry) in enumerate(zip(deal.states, deal.log, strict=True)):
        move = entry.move
        seat = entry.seat
        if move.action == DRAW:
            if state.phase == OPENING:
                out.append(Seen(time, seat, legal_cards(state, jacks=True), RULES))
            elif state.pending_sevens:
                out.append(Seen(time, seat, legal_cards(state, jacks=True), PLAY))
            elif until_playable:
                out.append(Seen(time, seat, legal_cards(state, jacks=True), RULES))
            else:
                out.append(Seen(time, seat, legal_cards(state, jacks=False), PLAY))
        elif move.action == PASS:
            if until_playable and state.phase != ACE_FOLLOWUP:
                out.append(Seen(time, seat, legal_cards(state, jacks=True), RULES))
            else:
                out.append(Seen(time, seat, legal_cards(state, jacks=False), PLAY))
        elif move.card is not None and move.card.code[0] == "J" and state.phase != OPENING:
            out.append(Seen(time, seat, legal_cards(state, jacks=False), PLAY))
    return out


def holds(fact: Seen, deal: Deal) -> bool:
    return not fact.cards & set(deal.states[fact.time].hands[fact.seat])


# --- the check: a bipartite matching of a seat's cards into its deal and draws --------------------


def reshuffled(deal: Deal, upto: int) -> bool:
    """Whether the stock was turned over before log index `upto` (R-6)."""
    return any(
        deal.states[t + 1].reshuffles > deal.states[t].reshuffles
        for t in range(min(upto, len(deal.states) - 1))
    )


def arrangement_exists(
    log: Sequence[LoggedMove], seat: int, hand: frozenset[int], facts: Sequence[Seen], size: int
) -> bool:
    """Whether the cards `seat` holds (`hand`) and played can be placed in its slots (the deal of
    `size` cards, then each of its draws) so that no card is in its hand at a fact naming it."""
    slots = [(-1, size)] + [
        (t, e.drawn_count) for t, e in enumerate(log) if e.seat == seat and e.move.action == DRAW
    ]
    cards = [(c, math.inf) for c in hand] + [
        (int(e.move.card), t)
        for t, e in enumerate(log)
        if e.seat == seat and e.move.card is not None
    ]
    if len(cards) != sum(n for _, n in slots):
        return False
    mine = [f for f in facts if f.seat == seat]

    def allowed(card: int, until: float, since: int) -> bool:
        return since < until and not any(since < f.time < until and card in f.cards for f in mine)

    places = [[] for _ in slots]  # the positions of each slot
    for p, i in enumerate(i for i, (_, n) in enumerate(slots) for _ in range(n)):
        places[i].append(p)
    owner: list[int | None] = [None] * sum(n for _, n in slots)
    options = [
        [p for i, (since, _) in enumerate(slots) if allowed(card, until, since) for p in places[i]]
        for card, until in cards
    ]

    def augment(card: int, seen: set[int]) -> bool:  # Kuhn's augmenting path
        for p in options[card]:
            if p in seen:
                continue
            seen.add(p)
            other = owner[p]
            if other is None or augment(other, seen):
                owner[p] = card
                return True
        return False

    return all(augment(card, set()) for card in range(len(cards)))


def contradictions(
    deal: Deal, time: int, hands: Sequence[int], facts: Sequence[Seen], observer: int
) -> list[int]:
    """The other seats whose sampled hand (mask) no arrangement of their history admits."""
    log = deal.log[:time]
    return [
        seat
        for seat in range(deal.seats)
        if seat != observer
        and not arrangement_exists(
            log,
            seat,
            frozenset(c for c in range(52) if hands[seat] >> c & 1),
            [f for f in facts if f.time < time],
            deal.rules.hand_size,
        )
    ]


def positions(deal: Deal, rng: random.Random, count: int) -> list[int]:
    """Up to `count` log indices of `deal` with a decision to make, before any reshuffle."""
    times = [
        t
        for t, state in enumerate(deal.states)
        if len(observe(state, deal.log[t].seat).legal_moves) > 1 and not reshuffled(deal, t)
    ]
    return sorted(rng.sample(times, min(count, len(times))))


def sample_hands(deal: Deal, time: int, facts: str, rng: random.Random, n: int) -> list[list[int]]:
    """`n` samples of the other hands for the seat on turn at log index `time`."""
    state = deal.states[time]
    seat = deal.log[time].seat
    observation = observe(state, seat)
    sampler = Sampler(observation, rng, seen_by(deal.log[:time], seat), facts)
    out = []
    for _ in range(n):
        sample = sampler.sample(rng)
        out.append([0 if s == seat else sample.hands[s] for s in range(deal.seats)])
    return out


GREEDY_DEALS = deals(scaled(140, 14), lambda seats: ["greedy"] * seats, seed=31)
POSITIONS = [
    (deal, time)
    for deal in GREEDY_DEALS
    for time in positions(deal, random.Random(len(deal.log)), 18)
]


# --- tests ------------------------------------------------------------------------------------


def test_the_log_as_a_seat_sees_it_hides_only_the_others_draws() -> None:
    deal = GREEDY_DEALS[0]
    first = deal.states[0]
    rebuilt = deal_log(
        first.rules, first.seats, first.opener, first.seed, [e.move for e in deal.log]
    )
    assert rebuilt == tuple(deal.log)
    view = seen_by(deal.log, 1)
    assert any(e.drawn for e in view if e.seat == 1)
    for entry, seen in zip(deal.log, view, strict=True):
        assert seen.drawn_count == entry.drawn_count and seen.before == entry.before
        assert seen.drawn == (entry.drawn if entry.seat == 1 else ())


def test_the_facts_read_are_the_rules_and_they_hold_in_real_deals() -> None:
    """read_facts states what the rules and a sensible player's play say; the rules facts hold
    in any deal, the play facts in greedy's."""
    random_deals = deals(scaled(40, 8), lambda seats: ["random"] * seats, seed=32)
    read = 0
    for deal in [*GREEDY_DEALS, *random_deals]:
        expected = facts_of(deal)
        for observer in range(deal.seats):
            got = read_facts(seen_by(deal.log, observer), deal.rules, observer)
            want = [f for f in expected if f.seat != observer]
            assert [(f.time, f.seat, f.source) for f in got] == [
                (f.time, f.seat, f.source) for f in want
            ]
            assert [frozenset(c for c in range(52) if f.cards >> c & 1) for f in got] == [
                f.cards for f in want
            ]
        read += len(expected)
        assert all(holds(f, deal) for f in expected if f.source == RULES)
        if deal in GREEDY_DEALS:
            assert all(holds(f, deal) for f in expected)
    assert read > 1000 * SCALE


def test_no_sample_contradicts_an_observed_fact() -> None:
    """Thousands of positions of greedy deals at every table size and option set: every sample
    of every other hand has an arrangement that agrees with each fact the observer saw."""
    rng = random.Random(7)
    checked = 0
    facts_seen = 0
    for deal, time in POSITIONS:
        facts = facts_of(deal)
        facts_seen += sum(1 for f in facts if f.time < time)
        observer = deal.log[time].seat
        mine = [f for f in facts if f.seat != observer]
        for hands in sample_hands(deal, time, PLAY, rng, 1):
            assert contradictions(deal, time, hands, mine, observer) == [], (time, deal.rules)
            checked += 1
    assert checked >= 2000 * SCALE and facts_seen > 10_000 * SCALE


def as_seen(facts: Sequence[Fact]) -> list[Seen]:
    return [
        Seen(f.time, f.seat, frozenset(c for c in range(52) if f.cards >> c & 1), f.source)
        for f in facts
    ]


def test_greedy_facts_hold_in_greedy_deals_and_in_every_sample() -> None:
    """What greedy's choices say whatever the rest of its hand (greedy_facts) is true of every
    greedy deal, and the samples that read them agree with them as with the others."""
    rng = random.Random(10)
    read = checked = 0
    for deal in GREEDY_DEALS:
        facts = as_seen(greedy_facts(deal.log, deal.rules, -1))
        read += len(facts)
        assert all(holds(f, deal) for f in facts)
    for deal, time in POSITIONS[::4]:
        observer = deal.log[time].seat
        facts = [f for f in facts_of(deal) + as_seen(greedy_facts(deal.log, deal.rules, -1))]
        mine = [f for f in facts if f.seat != observer]
        for hands in sample_hands(deal, time, GREEDY, rng, 1):
            assert contradictions(deal, time, hands, mine, observer) == []
            checked += 1
    assert read > 2000 * SCALE and checked > 400 * SCALE


@pytest.mark.parametrize("start_tries", [inference.GIBBS_START_TRIES, 0])
def test_the_gibbs_chain_keeps_every_fact_at_three_seats_and_more(
    start_tries: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chain that redraws one seat at a time given the others' hands (`gibbs`, the expert's
    sampler at three seats or more) keeps every fact in every state it visits; also when it
    starts from the hands its reading of the log found (0: no deal of the seats one after the
    other tried, as when they all fail), with its redraws by rejection."""
    monkeypatch.setattr(inference, "GIBBS_START_TRIES", start_tries)
    rejection = 0 if start_tries else 4
    rng = random.Random(12)
    checked = 0
    for deal, time in POSITIONS[::2]:
        if deal.seats < 3:
            continue
        observer = deal.log[time].seat
        facts = [f for f in facts_of(deal) + as_seen(greedy_facts(deal.log, deal.rules, -1))]
        seen = seen_by(deal.log[:time], observer)
        hidden = HiddenCards(
            observe(deal.states[time], observer),
            seen,
            greedy=True,
            miss=0.05,
            gibbs=1,
            rejection=rejection,
        )
        if not hidden.informed or hidden.dropped:
            continue
        mine = [f for f in facts if f.seat != observer]
        for _ in range(3):
            assert contradictions(deal, time, hidden.sample(rng), mine, observer) == []
            checked += 1
    assert checked > 300 * SCALE


def test_uniform_samples_contradict_the_facts() -> None:
    """The same check on the samples that ignore the log finds contradictions at once: the test
    above fails with the inference off."""
    rng = random.Random(7)
    contradicted = 0
    for deal, time in POSITIONS[:300]:
        observer = deal.log[time].seat
        facts = [f for f in facts_of(deal) if f.seat != observer]
        for hands in sample_hands(deal, time, "none", rng, 2):
            contradicted += bool(contradictions(deal, time, hands, facts, observer))
    assert contradicted > 100


def test_samples_keep_the_rules_facts_when_the_play_breaks_the_others() -> None:
    """Random players draw while holding playable cards: their play facts may contradict their
    plays; then the sampler drops them, and keeps every rules fact (R-10, R-18). Greedy's facts
    contradict more often, and a seat whose facts contradicted leaves the opponent model."""
    rng = random.Random(8)
    random_deals = deals(scaled(40, 9), lambda seats: ["random"] * seats, seed=33)
    dropped = left = checked = 0
    for deal in random_deals:
        facts = facts_of(deal)
        for time in positions(deal, rng, 8):
            observer = deal.log[time].seat
            seen = seen_by(deal.log[:time], observer)
            hidden = HiddenCards(observe(deal.states[time], observer), seen)
            assert hidden.informed
            dropped += len(hidden.dropped)
            kept = [
                f
                for f in facts
                if f.seat != observer and (f.source == RULES or f.seat not in hidden.dropped)
            ]
            for _ in range(2):
                hands = hidden.sample(rng)
                assert contradictions(deal, time, hands, kept, observer) == []
                checked += 1
            # With greedy's facts and the opponent model: a seat that is not greedy leaves both.
            modelled = HiddenCards(
                observe(deal.states[time], observer), seen, greedy=True, miss=0.05
            )
            for seat in modelled.dropped:
                assert modelled.decisions[seat] == []
                assert not any(f.source == GREEDY and f.seat == seat for f in modelled.facts)
            left += len(modelled.dropped)
    assert dropped > 0 and left > dropped and checked > 400 * SCALE


def test_after_a_reshuffle_the_turned_cards_are_only_drawn() -> None:
    """R-6: after a reshuffle every other unseen card was in another hand then; a seat holds a
    turned-over card only if it drew since."""
    rng = random.Random(9)
    rules = Rules(stock_exhausted="reshuffle", max_actions=400)
    found = 0
    for index in range(60):
        deal = play_deal(rules, 2 + index % 3, rng.randbytes(32), ["greedy"] * 4, rng)
        for time in range(1, len(deal.log)):
            if not reshuffled(deal, time) or rng.random() > 0.5:
                continue
            before = deal.states[time]
            observer = before.turn
            assert observer is not None
            if len(observe(before, observer).legal_moves) < 2:
                continue
            last = max(
                t for t in range(time) if deal.states[t + 1].reshuffles > deal.states[t].reshuffles
            )
            if deal.states[last + 1].reshuffles != deal.states[last].reshuffles + 1:
                continue  # turned over twice in one penalty draw
            turned = set(deal.states[last].pile[:-1])
            for hands in sample_hands(deal, time, PLAY, rng, 2):
                for seat in range(deal.seats):
                    if seat == observer:
                        continue
                    drew = any(
                        e.seat == seat and e.move.action == DRAW for e in deal.log[last:time]
                    )
                    cards = {c for c in range(52) if hands[seat] >> c & 1}
                    if not drew:
                        assert not cards & turned, (seat, time)
                    found += 1
    assert found > 50 * SCALE


# --- the sampler's distribution against the exact one -------------------------------------------


def chi_square_p(observed: Sequence[int], expected: Sequence[float]) -> float:
    """The p-value of Pearson's chi-square statistic (bins of expected count below 5 merged)."""
    bins: list[tuple[int, float]] = []
    small_o, small_e = 0, 0.0
    for o, e in zip(observed, expected, strict=True):
        if e < 5:
            small_o, small_e = small_o + o, small_e + e
        else:
            bins.append((o, e))
    if small_e:
        bins.append((small_o, small_e))
    statistic = sum((o - e) ** 2 / e for o, e in bins)
    return upper_gamma_q((len(bins) - 1) / 2, statistic / 2)


def upper_gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) (series, or Lentz's continued
    fraction for large x): the chi-square survival function at 2x with 2a degrees of freedom."""
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= x / n
            total += term
        return 1 - total * math.exp(log_front)
    b = x + 1 - a
    c = 1 / 1e-300
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = b + an / c
        c = c if abs(c) > 1e-300 else 1e-300
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def test_the_chi_square_p_value_is_right() -> None:
    assert upper_gamma_q(1, 1.0) == pytest.approx(math.exp(-1.0))  # 2 degrees of freedom
    assert upper_gamma_q(2.5, 5.5) == pytest.approx(0.0514, abs=1e-4)  # chi2(11, df 5)
    assert upper_gamma_q(10, 5.0) == pytest.approx(0.9682, abs=1e-4)  # chi2(10, df 20)


# A hand-made position: hands of three (Rules(hand_size=3)), greedy at both seats, seat 0 to
# move at log index 17 of the deal below; seat 1 then holds 5 cards after 4 plays, having shown
# 6 facts (rules and play).
SMALL_RULES = Rules(hand_size=3)


def small_position() -> tuple[Deal, int]:
    rng = random.Random(169)
    deal = play_deal(SMALL_RULES, 2, rng.randbytes(32), ["greedy", "greedy"], rng)
    return deal, 17


def exact_categories(deal: Deal, time: int, seat: int) -> dict[tuple[int, ...], float]:
    """The exact probability of each split of `seat`'s hand over the classes of unseen cards
    (cards are alike when the last fact of `seat` naming them is the same), counting every
    arrangement of its cards into the deal and its draws by brute force."""
    state = deal.states[time]
    observer = deal.log[time].seat
    log = deal.log[:time]
    facts = [f for f in facts_of(deal) if f.seat == seat and f.time < time]
    unseen = [c for c in range(52) if c not in state.hands[observer] and c not in state.pile]
    last = {c: max((f.time for f in facts if c in f.cards), default=-2) for c in unseen}
    times = sorted(set(last.values()))
    classes = [[c for c in unseen if last[c] == t] for t in times]
    held = len(state.hands[seat])
    slots = [(-1, deal.rules.hand_size)] + [
        (t, e.drawn_count) for t, e in enumerate(log) if e.seat == seat and e.move.action == DRAW
    ]
    played = [
        (int(e.move.card), t)
        for t, e in enumerate(log)
        if e.seat == seat and e.move.card is not None
    ]

    def allowed(card: int, until: float, since: int) -> bool:
        return since < until and not any(since < f.time < until and card in f.cards for f in facts)

    def arrangements(cards: list[tuple[int, float]], room: list[int]) -> int:
        if not cards:
            return 1
        (card, until), rest = cards[0], cards[1:]
        total = 0
        for i, (since, _) in enumerate(slots):
            if room[i] and allowed(card, until, since):
                room[i] -= 1
                total += arrangements(rest, room)
                room[i] += 1
        return total

    weights: dict[tuple[int, ...], float] = {}

    def split(k: int, left: int, counts: list[int]) -> None:
        if k == len(classes):
            if left == 0:
                cards = [
                    (c, math.inf) for cls, n in zip(classes, counts, strict=True) for c in cls[:n]
                ]
                ways = arrangements(cards + [(c, t) for c, t in played], [n for _, n in slots])
                multiplicity = math.prod(
                    math.comb(len(cls), n) for cls, n in zip(classes, counts, strict=True)
                )
                if ways:
                    weights[tuple(counts)] = float(ways * multiplicity)
            return
        for n in range(min(left, len(classes[k])) + 1):
            split(k + 1, left - n, [*counts, n])

    split(0, held, [])
    total = sum(weights.values())
    category = {c: i for i, cls in enumerate(classes) for c in cls}
    exact_categories.category = category  # type: ignore[attr-defined]
    return {key: w / total for key, w in weights.items()}


def category_of(hand: int, category: dict[int, int], classes: int) -> tuple[int, ...]:
    counts = [0] * classes
    for c in range(52):
        if hand >> c & 1:
            counts[category[c]] += 1
    return tuple(counts)


def test_the_sampler_draws_from_the_exact_distribution() -> None:
    """Chi-square of 10,000 samples (fixed seed) over the splits of the other hand by class,
    against the exact distribution counted by brute force; the uniform sampler fails it."""
    deal, time = small_position()
    facts = [f for f in facts_of(deal) if f.seat == 1 and f.time < time]
    assert len(facts) == 6 and {f.source for f in facts} == {RULES, PLAY}
    exact = exact_categories(deal, time, 1)
    category: dict[int, int] = exact_categories.category  # type: ignore[attr-defined]
    classes = max(category.values()) + 1
    assert len(exact) == 30 and len(deal.states[time].hands[1]) == 5
    observation = observe(deal.states[time], 0)
    hidden = HiddenCards(observation, seen_by(deal.log[:time], 0))
    rng = random.Random(2024)
    n = scaled(10_000, 2000)
    tally = Counter(category_of(hidden.sample(rng)[1], category, classes) for _ in range(n))
    assert set(tally) <= set(exact)
    keys = sorted(exact)
    p = chi_square_p([tally[k] for k in keys], [exact[k] * n for k in keys])
    assert p > 0.001, p
    uniform = HiddenCards(observation, ())
    assert not uniform.informed
    tally = Counter(category_of(uniform.sample(rng)[1], category, classes) for _ in range(n))
    inside = sum(tally[k] for k in keys)
    assert inside < n  # hands no arrangement admits
    assert chi_square_p([tally[k] for k in keys], [exact[k] * inside for k in keys]) < 1e-9


# A smaller one for the opponent model: hands of two, seat 1 holding 2 cards after 3 draws and
# 3 plays, 6 of its decisions with a choice.
MODEL_RULES = Rules(hand_size=2)


def exact_hands_with_model(deal: Deal, time: int, seat: int, miss: float) -> dict[int, float]:
    """The exact probability of each hand of `seat` under the facts (the rules', the play's and
    greedy's) and the opponent model (`miss` per decision greedy would have played otherwise),
    summing every arrangement of its cards into its deal and draws by brute force."""
    state = deal.states[time]
    observer = deal.log[time].seat
    log = deal.log[:time]
    facts = [
        f
        for f in facts_of(deal) + as_seen(greedy_facts(deal.log, deal.rules, -1))
        if f.seat == seat and f.time < time
    ]
    unseen = [c for c in range(52) if c not in state.hands[observer] and c not in state.pile]
    slots = [(-1, deal.rules.hand_size)] + [
        (t, e.drawn_count) for t, e in enumerate(log) if e.seat == seat and e.move.action == DRAW
    ]
    played = [
        (int(e.move.card), t)
        for t, e in enumerate(log)
        if e.seat == seat and e.move.card is not None
    ]
    decisions = [
        d
        for d in decisions_of(log, deal.rules, observer, -1, [playable_mask(e.before) for e in log])
        if d.seat == seat
    ]
    tables = RolloutTables.build(deal.rules, deal.seats)

    def allowed(card: int, until: float, since: int) -> bool:
        return since < until and not any(since < f.time < until and card in f.cards for f in facts)

    def weight(cards: list[tuple[int, float]], room: list[int], masks: list[int]) -> float:
        if not cards:
            arrangement = [(since, mask) for (since, _), mask in zip(slots, masks, strict=True)]
            disagreements = sum(
                not agrees(d, hand_at(arrangement, d), deal.seats, tables) for d in decisions
            )
            return float(miss**disagreements)
        (card, until), rest = cards[0], cards[1:]
        total = 0.0
        for i, (since, _) in enumerate(slots):
            if room[i] and allowed(card, until, since):
                room[i] -= 1
                masks[i] |= 1 << card
                total += weight(rest, room, masks)
                masks[i] &= ~(1 << card)
                room[i] += 1
        return total

    held = len(state.hands[seat])
    out = {}
    for hand in itertools.combinations(unseen, held):
        cards = [(c, math.inf) for c in hand] + [(c, float(t)) for c, t in played]
        w = weight(cards, [n for _, n in slots], [0] * len(slots))
        if w:
            out[sum(1 << c for c in hand)] = w
    total = sum(out.values())
    return {hand: w / total for hand, w in out.items()}


def test_the_expert_sampler_draws_from_the_exact_distribution_of_its_model() -> None:
    """The chain of the opponent model (independence Metropolis-Hastings over the exact sampler
    of greedy's facts) against the exact distribution of its target, counted by brute force:
    chi-square over the other seat's hands, every fourth state of the chain (fixed seed)."""
    rng = random.Random(9)
    deal = play_deal(MODEL_RULES, 2, rng.randbytes(32), ["greedy", "greedy"], rng)
    time = 20
    exact = exact_hands_with_model(deal, time, 1, 0.05)
    assert len(exact) > 20 and max(exact.values()) < 0.5
    observation = observe(deal.states[time], 0)
    hidden = HiddenCards(observation, seen_by(deal.log[:time], 0), greedy=True, miss=0.05)
    sample = random.Random(99)
    n = scaled(6000, 1500)
    tally: Counter[int] = Counter()
    for index in range(4 * n):
        hand = hidden.sample(sample)[1]
        if index % 4 == 3:
            tally[hand] += 1
    assert set(tally) <= set(exact)
    keys = sorted(exact)
    assert chi_square_p([tally[k] for k in keys], [exact[k] * n for k in keys]) > 0.001
    # The facts alone (no model) give another distribution, which the check tells apart.
    plain = HiddenCards(observation, seen_by(deal.log[:time], 0), greedy=True)
    tally = Counter(plain.sample(sample)[1] for _ in range(n))
    assert chi_square_p([tally[k] for k in keys], [exact[k] * n for k in keys]) < 1e-6


def suit_counts(hand: int) -> tuple[int, ...]:
    return tuple((hand & SUIT_MASKS[suit]).bit_count() for suit in range(4))


@pytest.mark.parametrize("rejection", [0, 16])
def test_the_gibbs_chain_draws_from_the_exact_distribution_of_its_model(rejection: int) -> None:
    """At three seats the two other hands are coupled (they share the unseen cards): the exact
    joint weighs each pair of disjoint hands by the product of each seat's weight under the facts
    and the opponent model (counted by brute force). Chi-square of the Gibbs chain's hands (every
    fifth state, fixed seed) over the suits of each other hand against that joint's marginals,
    each seat redrawn by Metropolis steps, or first by rejection."""
    rng = random.Random(2)
    deal = play_deal(MODEL_RULES, 3, rng.randbytes(32), ["greedy"] * 3, rng)
    time = 26
    assert deal.log[time].seat == 0
    first, second = (exact_hands_with_model(deal, time, seat, 0.05) for seat in (1, 2))
    marginals: list[Counter[tuple[int, ...]]] = [Counter(), Counter()]
    for h1, w1 in first.items():
        for h2, w2 in second.items():
            if not h1 & h2:
                marginals[0][suit_counts(h1)] += w1 * w2
                marginals[1][suit_counts(h2)] += w1 * w2
    observation = observe(deal.states[time], 0)
    hidden = HiddenCards(
        observation,
        seen_by(deal.log[:time], 0),
        greedy=True,
        miss=0.05,
        gibbs=1,
        rejection=rejection,
    )
    sample = random.Random(7)
    n = scaled(3000, 1000)
    tallies: list[Counter[tuple[int, ...]]] = [Counter(), Counter()]
    for index in range(5 * n):
        hands = hidden.sample(sample)
        if index % 5 == 4:
            tallies[0][suit_counts(hands[1])] += 1
            tallies[1][suit_counts(hands[2])] += 1
    for tally, exact in zip(tallies, marginals, strict=True):
        total = sum(exact.values())
        keys = sorted(exact)
        assert set(tally) <= set(keys)
        assert chi_square_p([tally[k] for k in keys], [exact[k] / total * n for k in keys]) > 0.001


def test_rejection_draws_independent_samples_from_the_exact_distribution_of_its_model() -> None:
    """With `rejection`, every draw (not every fourth) is from the exact target of the opponent
    model, and a draw repeats the one before it no more often than independent draws do; the
    chain alone repeats itself far more often."""
    rng = random.Random(9)
    deal = play_deal(MODEL_RULES, 2, rng.randbytes(32), ["greedy", "greedy"], rng)
    time = 20
    exact = exact_hands_with_model(deal, time, 1, 0.05)
    observation = observe(deal.states[time], 0)
    history = seen_by(deal.log[:time], 0)
    n = scaled(6000, 1500)
    keys = sorted(exact)
    independent = sum(p * p for p in exact.values())  # the chance two independent draws agree

    def draws(hidden: HiddenCards) -> tuple[Counter[int], float]:
        sample = random.Random(99)
        hands = [hidden.sample(sample)[1] for _ in range(n)]
        repeats = sum(a == b for a, b in itertools.pairwise(hands)) / (n - 1)
        return Counter(hands), repeats

    tally, repeats = draws(HiddenCards(observation, history, greedy=True, miss=0.05, rejection=64))
    assert set(tally) <= set(exact)
    assert chi_square_p([tally[k] for k in keys], [exact[k] * n for k in keys]) > 0.001
    assert repeats < independent + 0.03, (repeats, independent)
    _, chained = draws(HiddenCards(observation, history, greedy=True, miss=0.05))
    assert chained > independent + 0.1, (chained, independent)


def _counted_chain(
    seats: int, monkeypatch: pytest.MonkeyPatch
) -> Callable[[], tuple[list[list[int]], int]]:
    """A run of 400 samples of the opponent model's chain on one position of a greedy deal
    (same seed each run): the samples and how many of greedy's choices it replayed."""
    rng = random.Random(9 if seats == 2 else 2)
    deal = play_deal(MODEL_RULES, seats, rng.randbytes(32), ["greedy"] * seats, rng)
    time = 20 if seats == 2 else 32
    observation = observe(deal.states[time], 0)
    history = seen_by(deal.log[:time], 0)
    replayed = 0
    agrees_of = inference.agrees

    def counted(*args: Any) -> bool:
        nonlocal replayed
        replayed += 1
        return agrees_of(*args)

    monkeypatch.setattr(inference, "agrees", counted)

    def chain() -> tuple[list[list[int]], int]:
        nonlocal replayed
        replayed = 0
        hidden = HiddenCards(observation, history, greedy=True, miss=0.05, gibbs=1)
        sample = random.Random(5)
        return [hidden.sample(sample) for _ in range(400)], replayed

    return chain


@pytest.mark.parametrize("seats", [2, 3])
def test_the_chain_stops_weighing_a_proposal_once_it_is_refused_and_moves_as_before(
    seats: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Metropolis step weighs a proposal only until its weight falls to the acceptance
    test's floor: the chain (same seed) is the one that weighs every proposal in full, and
    fewer of the opponent model's decisions are replayed."""
    chain = _counted_chain(seats, monkeypatch)
    stopped, stopped_replays = chain()
    whole = HiddenCards._seat_likelihood
    monkeypatch.setattr(
        HiddenCards,
        "_seat_likelihood",
        lambda self, seat, slots, floor=-1.0: whole(self, seat, slots),
    )
    full, full_replays = chain()
    assert stopped == full
    assert stopped_replays < full_replays


@pytest.mark.parametrize("seats", [2, 3])
def test_the_opponent_model_answers_a_decision_and_hand_once_a_search_and_the_chain_is_the_same(
    seats: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Greedy's choice at a decision is replayed once for each hand the samples give the seat
    then: the chain (same seed) is the one that replays every time, with fewer replays."""
    chain = _counted_chain(seats, monkeypatch)
    kept, kept_replays = chain()
    monkeypatch.setattr(inference, "AGREED_KEPT", -1)  # cleared before every answer
    every, every_replays = chain()
    assert kept == every
    assert kept_replays < every_replays / 2, (kept_replays, every_replays)


def test_the_opponent_models_weight_is_miss_to_the_disagreements_of_each_decisions_hand() -> None:
    """`_seat_likelihood` (the hand at each decision taken in slot by slot) is `miss` to the
    power of the decisions where greedy, holding `hand_at` then, would have played otherwise:
    on arrangements of positions of real deals, before and after a reshuffle."""
    miss = 0.05
    checked = reshuffled = disagreed = 0
    rules = Rules(stock_exhausted="reshuffle")
    for seats, seed in itertools.product((2, 3, 4), range(8)):
        rng = random.Random(seed)
        deal = play_deal(rules, seats, rng.randbytes(32), ["greedy"] * seats, rng)
        for time in range(8, len(deal.log), 9):
            observer = deal.log[time].seat
            observation = observe(deal.states[time], observer)
            history = seen_by(deal.log[:time], observer)
            hidden = HiddenCards(observation, history, greedy=True, miss=miss)
            if hidden.samplers is None:
                continue
            tables = RolloutTables.build(deal.rules, seats)
            for seat, sampler in zip(hidden.others, hidden.samplers, strict=True):
                if not sampler.count(hidden.unseen):
                    continue
                reshuffled += len(sampler.slots.groups) > 1
                for _ in range(10):
                    slots = sampler.sample(hidden.unseen, rng)
                    disagreements = sum(
                        not agrees(d, hand_at(slots, d), seats, tables)
                        for d in hidden.decisions[seat]
                    )
                    weight = hidden._seat_likelihood(seat, slots)
                    assert weight == pytest.approx(miss**disagreements, rel=1e-9)
                    checked += 1
                    disagreed += disagreements > 0
    assert checked > 1000 and reshuffled and disagreed, (checked, reshuffled, disagreed)
