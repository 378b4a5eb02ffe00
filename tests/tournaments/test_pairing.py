"""Pairing: round robin covers every pair (exactly once at 2-seat tables), Swiss groups similar
standings and avoids repeat opponents while it can."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from tournaments.pairing import (
    RoundPlan,
    _search,
    meetings,
    pairs_of,
    round_robin_schedule,
    swiss_default_rounds,
    swiss_round,
)


def everyone_once_per_round(plan: RoundPlan, players: list[int]) -> None:
    seated = [p for table in plan.tables for p in table] + list(plan.byes)
    assert sorted(seated) == sorted(players)


@pytest.mark.parametrize("n", range(2, 15))
@pytest.mark.parametrize("fill", [False, True])
def test_round_robin_two_seats_every_pair_meets_exactly_once(n, fill):
    players = list(range(n))
    plans = round_robin_schedule(players, 2, fill)
    assert len(plans) == (n - 1 if n % 2 == 0 else n)
    met = meetings(plans)
    assert set(met) == pairs_of(players) and set(met.values()) == {1}
    for plan in plans:
        everyone_once_per_round(plan, players)
        if fill:  # the odd one out plays a bot instead of sitting out
            assert not plan.byes
        else:
            assert all(len(t) == 2 for t in plan.tables) and len(plan.byes) == n % 2
    if n % 2 and not fill:  # every player sits out exactly once
        assert Counter(p for plan in plans for p in plan.byes) == Counter(players)


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("n", [4, 5, 6, 7, 8, 9, 10, 12, 13, 16])
@pytest.mark.parametrize("fill", [False, True])
def test_round_robin_bigger_tables_every_pair_meets(n, k, fill):
    if n < k:
        pytest.skip("fewer players than a table")
    players = [f"p{i}" for i in range(n)]
    plans = round_robin_schedule(players, k, fill)
    met = meetings(plans)
    assert set(met) == pairs_of(players)
    for plan in plans:
        everyone_once_per_round(plan, players)
        if not fill:
            assert all(len(t) == k for t in plan.tables) and len(plan.byes) == n % k
        else:
            assert not plan.byes and sum(len(t) < k for t in plan.tables) <= 1
    # Never worse than twice the lower bound on rounds.
    assert len(plans) <= 2 * -(-(n - 1) // (k - 1)) + 1
    assert round_robin_schedule(players, k, fill) == plans  # deterministic


@pytest.mark.parametrize(("n", "k"), [(9, 3), (16, 4)])
def test_round_robin_finds_resolvable_designs(n, k):
    """9 players in threes (and 16 in fours) can all meet once in the minimum number of rounds."""
    plans = round_robin_schedule(list(range(n)), k, False)
    assert len(plans) == (n - 1) // (k - 1)
    assert set(meetings(plans).values()) == {1}


def test_swiss_first_round_seats_neighbours_in_the_ranking():
    ranking = [f"p{i}" for i in range(12)]
    plan = swiss_round(ranking, 3, False, met={}, byes={})
    assert plan.tables == (
        ("p0", "p1", "p2"),
        ("p3", "p4", "p5"),
        ("p6", "p7", "p8"),
        ("p9", "p10", "p11"),
    )
    assert plan.byes == ()


def test_swiss_remainder_bye_goes_to_the_lowest_ranked_without_a_bye():
    ranking = list("abcdefg")
    plan = swiss_round(ranking, 2, False, met={}, byes={"g": 1})
    assert plan.byes == ("f",)
    assert plan.tables == (("a", "b"), ("c", "d"), ("e", "g"))
    # With bots filling seats nobody sits out: the last table is short (a bot joins it).
    filled = swiss_round(ranking, 2, True, met={}, byes={})
    assert filled.byes == () and filled.tables[-1] == ("g",)


def test_swiss_avoids_a_repeat_by_taking_the_next_closest():
    ranking = list("abcdef")
    met = Counter({frozenset("ab"): 1})
    plan = swiss_round(ranking, 2, False, met=met, byes={})
    assert plan.tables == (("a", "c"), ("b", "d"), ("e", "f"))


@pytest.mark.parametrize(("n", "k"), [(8, 2), (12, 2), (16, 2), (9, 3), (12, 3), (16, 4)])
def test_swiss_no_repeat_opponents_while_avoidable_and_similar_standings(n, k):
    """Random results over the default number of rounds: never a repeat pair; every table holds
    players close in the ranking."""
    rng = random.Random(n * 10 + k)
    players = [f"p{i}" for i in range(n)]
    score = dict.fromkeys(players, 0)
    met: Counter[frozenset[str]] = Counter()
    rounds = max(swiss_default_rounds(n, k), 3 if k == 2 else 2)
    repeats = 0
    for _ in range(rounds):
        ranking = sorted(players, key=lambda p: (score[p], p))
        plan = swiss_round(ranking, k, False, met=met, byes={})
        position = {p: i for i, p in enumerate(ranking)}
        repeated = any(met[pair] for table in plan.tables for pair in pairs_of(table))
        if repeated:
            # Only when no round without a repeat exists (an exhaustive search proves it).
            assert _search(list(ranking), k, met, [10**7]) is None, "avoidable repeat"
            repeats += 1
        for table in plan.tables:
            if k == 2:  # at bigger tables, round 2 must mix round 1's tables
                spread = max(position[p] for p in table) - min(position[p] for p in table)
                assert spread <= 5, (table, ranking)
        # The leader sits with the best-ranked players it has not met (in a round with a
        # repeat, the fewest repeats come first: see the test of the fewest repeats below).
        top = plan.tables[0]
        assert top[0] == ranking[0]
        unmet_by_leader = [p for p in ranking[1:] if not met[frozenset((p, ranking[0]))]]
        assert repeated or top[1] == unmet_by_leader[0]
        for table in plan.tables:
            met.update(pairs_of(table))
            for p in table:
                score[p] += rng.randint(0, 50)
    assert repeats <= 1


def test_swiss_repeats_only_when_unavoidable():
    """Four players at 2-seat tables, round four: every pair has met; the round still forms,
    with the fewest repeats."""
    ranking = list("abcd")
    met = Counter(pairs_of(ranking))
    plan = swiss_round(ranking, 2, False, met=met, byes={})
    assert sorted(p for t in plan.tables for p in t) == ranking


def _fewest_possible(players: list[str], sizes: list[int], met: Counter) -> int:
    """The fewest repeat meetings of any seating of `players` at tables of `sizes` (exhaustive)."""
    if not sizes:
        return 0
    best = None
    for table in combinations(players, sizes[0]):
        rest = [p for p in players if p not in table]
        cost = sum(met[pair] for pair in pairs_of(table)) + _fewest_possible(rest, sizes[1:], met)
        best = cost if best is None else min(best, cost)
    assert best is not None
    return best


def test_swiss_with_bots_filling_puts_a_top_player_at_the_short_table_to_avoid_repeats():
    """Eight people at three-seat tables with bots filling (3 + 3 + 2 and a bot): round three
    has a seating with no repeat, though only with a top player at the short table."""
    met = meetings(
        [
            RoundPlan((("Org", "Ana", "Bo"), ("Cem", "Deniz", "Ece"), ("Fatih", "Gul"))),
            RoundPlan((("Cem", "Fatih", "Ana"), ("Org", "Gul", "Ece"), ("Bo", "Deniz"))),
        ]
    )
    ranking = ["Cem", "Ana", "Ece", "Org", "Bo", "Deniz", "Fatih", "Gul"]
    plan = swiss_round(ranking, 3, True, met=met, byes={})
    assert sorted(len(table) for table in plan.tables) == [2, 3, 3]
    assert sorted(p for table in plan.tables for p in table) == sorted(ranking)
    assert not any(met[pair] for table in plan.tables for pair in pairs_of(table))


@pytest.mark.parametrize(
    ("n", "k", "fill"), [(8, 3, True), (7, 3, True), (7, 2, False), (9, 4, True)]
)
def test_swiss_rounds_have_the_fewest_repeats_possible(n, k, fill):
    """Random rankings over rounds past the repeat-free ones: each round repeats no more
    meetings than the best seating of its players (found exhaustively)."""
    rng = random.Random(n * 100 + k)
    players = [f"p{i}" for i in range(n)]
    for _ in range(12):
        met: Counter[frozenset[str]] = Counter()
        byes: Counter[str] = Counter()
        for _ in range(5):
            ranking = rng.sample(players, n)
            plan = swiss_round(ranking, k, fill, met=met, byes=byes)
            seated = [p for table in plan.tables for p in table]
            sizes = sorted((len(table) for table in plan.tables), reverse=True)
            repeats = sum(met[pair] for table in plan.tables for pair in pairs_of(table))
            assert repeats == _fewest_possible(seated, sizes, met), (ranking, plan, met)
            met.update(meetings([plan]))
            byes.update(plan.byes)


def test_swiss_default_rounds():
    assert swiss_default_rounds(8, 2) == 3
    assert swiss_default_rounds(9, 2) == 4
    assert swiss_default_rounds(4, 4) == 1
    assert swiss_default_rounds(5, 4) == 1
    assert swiss_default_rounds(7, 3) == 3
