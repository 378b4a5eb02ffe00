"""games.engine.bots.draws draws what random.Random's own methods draw from the same seed: a
seeded search keeps its choices whichever of the two it calls."""

from __future__ import annotations

import random

import pytest

from games.engine.bots.draws import below, pick, sample, shuffle


@pytest.mark.parametrize("seed", range(20))
def test_shuffle_is_random_shuffle(seed):
    ours, theirs = random.Random(seed), random.Random(seed)
    for size in (0, 1, 2, 3, 17, 44, 52):
        items = list(range(size))
        expected = items[:]
        shuffle(ours, items)
        theirs.shuffle(expected)
        assert items == expected
    assert ours.random() == theirs.random()  # the same bits were taken


@pytest.mark.parametrize("seed", range(20))
def test_below_is_randrange_and_pick_is_a_one_card_sample(seed):
    ours, theirs = random.Random(seed), random.Random(seed)
    # Small ranges, a power of two (rejection on one more bit), and counts of arrangements far
    # beyond 64 bits, as the sampler's totals are.
    for n in (1, 2, 3, 8, 13, 52, 1 << 20, 10**30 + 7):
        assert below(ours, n) == theirs.randrange(n)
    for size in (1, 5, 21, 22, 40):  # both of random.sample's methods (pool, set)
        items = [f"c{i}" for i in range(size)]
        assert pick(ours, items) == theirs.sample(items, 1)[0]
    assert ours.random() == theirs.random()


@pytest.mark.parametrize("seed", range(20))
def test_sample_is_random_sample(seed):
    ours, theirs = random.Random(seed), random.Random(seed)
    for size in (0, 1, 2, 5, 21, 22, 30, 47, 200):  # both methods, k on both sides of 5
        items = list(range(size))
        for k in range(min(size, 14) + 1):
            assert sample(ours, items, k) == theirs.sample(items, k)
    assert ours.random() == theirs.random()


def test_below_is_uniform():
    rng = random.Random(7)
    counts = [0] * 6
    for _ in range(60_000):
        counts[below(rng, 6)] += 1
    assert all(9_500 < c < 10_500 for c in counts), counts
