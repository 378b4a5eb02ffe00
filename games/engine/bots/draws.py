"""The random draws of the searches' hot paths, written out on `random.Random.getrandbits`.

`random.Random.shuffle`, `randrange(n)` and `sample(items, k)` each call the Random's
`_randbelow` (Python code) once per element, and `sample` sets up a pool or a set first; a
search makes hundreds of such draws per decision (a stock shuffled for every sample, a card for
every slot of an arrangement, a random action in a rollout), and the luck analysis one shuffle
for every simulated deal. Draws made once per decision keep the Random's methods. These
functions draw the same bits in the same order by the same algorithms (CPython's
`_randbelow_with_getrandbits`: rejection on `n.bit_length()` bits), so a seeded search makes
the same choices as with the Random's methods, at about half the cost of a shuffle or a sample
and a tenth of a one-card sample (tests/engine/test_bot_draws.py holds them equal).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import ceil, log
from typing import TypeVar

Item = TypeVar("Item")


def below(rng: random.Random, n: int) -> int:
    """`rng.randrange(n)` for an int n > 0: uniform in [0, n)."""
    getrandbits = rng.getrandbits
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def shuffle(rng: random.Random, items: list[Item]) -> None:
    """`rng.shuffle(items)`: Fisher-Yates from the last index down, in place."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def sample(rng: random.Random, items: Sequence[Item], k: int) -> list[Item]:
    """`rng.sample(items, k)` (0 <= k <= len(items)): k distinct items in the order drawn, by
    the Random's own two methods (a shrinking pool for a short sequence, else redraws of
    indices already taken)."""
    n = len(items)
    if k == 1:  # both methods take one index below n (a drawn card's slot, the most common)
        return [items[below(rng, n)]]
    getrandbits = rng.getrandbits
    setsize = 21  # as random.sample picks its method
    if k > 5:
        setsize += 4 ** ceil(log(k * 3, 4))
    result = []
    if n <= setsize:
        pool = list(items)
        for i in range(k):
            m = n - i
            bits = m.bit_length()
            j = getrandbits(bits)
            while j >= m:
                j = getrandbits(bits)
            result.append(pool[j])
            pool[j] = pool[m - 1]
    else:
        taken: set[int] = set()
        bits = n.bit_length()
        for _ in range(k):
            j = getrandbits(bits)
            while j >= n or j in taken:
                j = getrandbits(bits)
            taken.add(j)
            result.append(items[j])
    return result


def pick(rng: random.Random, items: Sequence[Item]) -> Item:
    """`rng.sample(items, 1)[0]` (`rng.choice(items)` draws the same): one uniform item."""
    return items[below(rng, len(items))]
