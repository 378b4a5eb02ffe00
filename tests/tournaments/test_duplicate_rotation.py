"""The duplicate rotation (tournaments.pairing.duplicate_schedule): what it guarantees for 2, 3
and 4 seats, checked over every table of every round."""

from __future__ import annotations

from itertools import combinations

import pytest

from tournaments.pairing import (
    duplicate_counts,
    duplicate_fits,
    duplicate_schedule,
    meetings,
)


def _groups(k: int, players: list[str]) -> dict[str, tuple[int, int]]:
    """Entrant -> (section, group): groups are k consecutive entrants in seeding order."""
    return {p: (i // (k * k), (i % (k * k)) // k) for i, p in enumerate(players)}


@pytest.mark.parametrize(("k", "sections"), [(2, 1), (2, 3), (3, 1), (3, 2), (4, 1), (4, 2)])
def test_every_round_seats_everyone_once_and_rotates_the_hands(k, sections):
    players = [f"p{i}" for i in range(k * k * sections)]
    group = _groups(k, players)
    plans = duplicate_schedule(players, k, rounds=2 * k)
    assert len(plans) == 2 * k
    for plan in plans:
        assert plan.byes == ()
        seated = [p for table in plan.tables for p in table]
        # Everyone at exactly one table: nobody plays a deal seed of the round twice.
        assert sorted(seated) == sorted(players)
        assert all(len(table) == k for table in plan.tables)
        for section in range(sections):
            tables = plan.tables[section * k : (section + 1) * k]
            # Each table holds one entrant of each group of its section.
            for table in tables:
                assert sorted(group[p] for p in table) == [(section, g) for g in range(k)]
            for hand in range(k):
                holders = [table[hand] for table in tables]
                # Hand `hand` of every deal: k different entrants, one of each group.
                assert len(set(holders)) == k
                assert sorted(group[p][1] for p in holders) == list(range(k))
            for g in range(k):
                # Each group holds each hand of a deal exactly once over the section.
                hands = [s for table in tables for s, p in enumerate(table) if group[p][1] == g]
                assert sorted(hands) == list(range(k))


@pytest.mark.parametrize("k", [2, 3, 4])
def test_the_first_k_rounds_seat_two_entrants_of_different_groups_together_exactly_once(k):
    players = [f"p{i}" for i in range(k * k)]
    group = _groups(k, players)
    met = meetings(duplicate_schedule(players, k, rounds=k))
    for a, b in combinations(players, 2):
        expected = 0 if group[a] == group[b] else 1
        assert met[frozenset((a, b))] == expected, (a, b)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_rounds_past_k_repeat_the_cycle(k):
    players = [f"p{i}" for i in range(k * k)]
    plans = duplicate_schedule(players, k, rounds=2 * k + 1)
    assert plans[k : 2 * k] == plans[:k]
    assert plans[2 * k] == plans[0]


@pytest.mark.parametrize(
    ("n", "k", "fits"),
    [
        (4, 2, True),
        (8, 2, True),
        (6, 2, False),
        (2, 2, False),
        (9, 3, True),
        (18, 3, True),
        (12, 3, False),
        (16, 4, True),
        (8, 4, False),
        (32, 4, True),
        (25, 5, False),
    ],
)
def test_which_entrant_counts_fit(n, k, fits):
    assert duplicate_fits(n, k) is fits
    if not fits and k in (2, 3, 4):
        with pytest.raises(ValueError):
            duplicate_schedule([f"p{i}" for i in range(n)], k, 1)


def test_the_counts_that_fit_are_multiples_of_k_squared():
    assert duplicate_counts(2, 13) == [4, 8, 12]
    assert duplicate_counts(3, 30) == [9, 18, 27]
    assert duplicate_counts(4, 64) == [16, 32, 48, 64]
    assert duplicate_counts(4, 10) == []
