"""Who sits with whom: round-robin schedules and Swiss rounds (pure Python, no Django).

Players are opaque hashable ids (the services pass player id strings). A round is a
`RoundPlan`: tables of entrants and the entrants who sit the round out (byes). A table may hold
fewer entrants than the table size only when empty seats are filled by bots (`fill=True`); then
the services seat bots in the empty seats. Without bots, the remainder (n mod table size) gets byes.

- Round robin, 2-seat tables: the circle method (one player fixed, the others rotate), n − 1
  rounds for even n, n rounds for odd n (one bye, or a bot table, per round); every pair meets
  exactly once.
- Round robin, 3- and 4-seat tables: a greedy schedule. Each round builds its tables one at a
  time around the player with the most opponents still to meet, adding whoever brings the most
  new meetings (then the fewest repeats); rounds go on until every pair has met at least once.
- Swiss: the ranking (best first) is cut into tables from the top so that players of similar
  standing sit together; a depth-first search over the ranking looks for a round with no pair
  that has met before, closest-ranked first (the best-ranked player left sits at a full table
  when one can be completed, else at the short table bots fill); only when none exists does
  the search allow repeats, one more at a time, for a round with the fewest (a greedy round if
  its budget of tables tried runs out). Byes go to the lowest-ranked players with the fewest
  byes so far.
- Duplicate: see `duplicate_schedule` (sections of k tables, the seats rotated across them).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TypeVar

P = TypeVar("P", bound=Hashable)

SEARCH_BUDGET = 20_000  # tables tried by the Swiss search before the greedy fallback


@dataclass(frozen=True)
class RoundPlan:
    tables: tuple[tuple[Hashable, ...], ...]
    byes: tuple[Hashable, ...] = ()


def pairs_of(table: Iterable[P]) -> set[frozenset[P]]:
    return {frozenset(pair) for pair in combinations(table, 2)}


def meetings(plans: Iterable[RoundPlan]) -> Counter[frozenset[Hashable]]:
    """How many times each pair of entrants shared a table."""
    met: Counter[frozenset[Hashable]] = Counter()
    for plan in plans:
        for table in plan.tables:
            met.update(pairs_of(table))
    return met


# ---- round robin ----


def round_robin_schedule(players: Sequence[P], table_size: int, fill: bool) -> list[RoundPlan]:
    """Every round of a round robin, so that every pair of players meets (see module doc)."""
    if table_size == 2:
        return _circle_method(players, fill)
    return _greedy_cover(players, table_size, fill)


def _circle_method(players: Sequence[P], fill: bool) -> list[RoundPlan]:
    ring: list[P | None] = list(players)
    if len(ring) % 2:
        ring.append(None)  # the one paired with None has a bye (or a bot) this round
    n = len(ring)
    plans = []
    for _ in range(n - 1):
        tables: list[tuple[Hashable, ...]] = []
        byes: list[Hashable] = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is None or b is None:
                lone = a if b is None else b
                assert lone is not None
                if fill:
                    tables.append((lone,))
                else:
                    byes.append(lone)
            else:
                tables.append((a, b))
        plans.append(RoundPlan(tuple(tables), tuple(byes)))
        ring = [ring[0], ring[-1], *ring[1:-1]]  # rotate all but the first
    return plans


def _greedy_cover(players: Sequence[P], k: int, fill: bool) -> list[RoundPlan]:
    """The best of several greedy schedules (fewest rounds, then fewest repeat meetings); tie
    breaks come from a fixed-seed generator, so the schedule depends only on the players."""
    n = len(players)
    attempts = max(3, min(24, 6000 // (n * n)))
    rng = random.Random(n * 31 + k)
    best: list[list[list[int]]] = []
    best_byes: list[list[int]] = []
    best_key: tuple[int, int] | None = None
    for attempt in range(attempts):
        tables, byes, repeats = _greedy_cover_once(n, k, fill, rng if attempt else None)
        if best_key is None or (len(tables), repeats) < best_key:
            best, best_byes, best_key = tables, byes, (len(tables), repeats)
    return [
        RoundPlan(
            tuple(tuple(players[i] for i in table) for table in round_tables),
            tuple(players[i] for i in round_byes),
        )
        for round_tables, round_byes in zip(best, best_byes, strict=True)
    ]


def _greedy_cover_once(
    n: int, k: int, fill: bool, rng: random.Random | None
) -> tuple[list[list[list[int]]], list[list[int]], int]:
    """One greedy schedule over indices 0..n-1: (tables per round, byes per round, repeats)."""
    unmet = [[i != j for j in range(n)] for i in range(n)]
    met = [[0] * n for _ in range(n)]
    left = n * (n - 1) // 2
    bye_count = [0] * n
    schedule: list[list[list[int]]] = []
    schedule_byes: list[list[int]] = []
    repeats = 0
    while left and len(schedule) < n * n:  # progress is guaranteed; the cap is a safety net
        noise = [rng.random() if rng else 0.0 for _ in range(n)]
        degree = [sum(row) for row in unmet]
        remainder = n % k
        sitting_out: list[int] = []
        if remainder and not fill:
            # Keep both ends of one unmet pair in play, so every round makes progress.
            keep = max(
                ((i, j) for i in range(n) for j in range(i + 1, n) if unmet[i][j]),
                key=lambda pair: (degree[pair[0]] + degree[pair[1]], -pair[0]),
            )
            candidates = sorted(
                (p for p in range(n) if p not in keep),
                key=lambda p: (bye_count[p], degree[p], noise[p], -p),
            )
            sitting_out = candidates[:remainder]
        playing = [p for p in range(n) if p not in sitting_out]
        tables: list[list[int]] = []
        while playing:
            head = max(playing, key=lambda p: (sum(unmet[p][q] for q in playing), noise[p], -p))
            table = [head]
            playing.remove(head)
            while len(table) < k and playing:
                best = max(
                    playing,
                    key=lambda c: (
                        sum(unmet[c][t] for t in table),
                        -sum(met[c][t] for t in table),
                        sum(unmet[c][q] for q in playing),
                        noise[c],
                        -c,
                    ),
                )
                table.append(best)
                playing.remove(best)
            tables.append(table)
        _improve_by_swaps(tables, unmet, met)
        for table in tables:
            for a, b in combinations(table, 2):
                if unmet[a][b]:
                    unmet[a][b] = unmet[b][a] = False
                    left -= 1
                else:
                    repeats += 1
                met[a][b] += 1
                met[b][a] += 1
        for p in sitting_out:
            bye_count[p] += 1
        schedule.append(tables)
        schedule_byes.append(sitting_out)
    return schedule, schedule_byes, repeats


def _improve_by_swaps(
    tables: list[list[int]], unmet: list[list[bool]], met: list[list[int]]
) -> None:
    """Hill-climb: swap two players of different tables while that meets more new pairs (then
    repeats fewer old ones)."""

    def gain(x: int, y: int, mates: list[int]) -> tuple[int, int]:
        """What `mates` (x's table without x) gain when y replaces x."""
        return (
            sum(unmet[y][m] - unmet[x][m] for m in mates),
            sum(met[x][m] - met[y][m] for m in mates),
        )

    improved = True
    while improved:
        improved = False
        for a, b in combinations(range(len(tables)), 2):
            ta, tb = tables[a], tables[b]
            for i in range(len(ta)):
                for j in range(len(tb)):
                    x, y = ta[i], tb[j]
                    ga = gain(x, y, [m for m in ta if m != x])
                    gb = gain(y, x, [m for m in tb if m != y])
                    if (ga[0] + gb[0], ga[1] + gb[1]) > (0, 0):
                        ta[i], tb[j] = y, x
                        improved = True


# ---- swiss ----


def swiss_default_rounds(players: int, table_size: int) -> int:
    """ceil(log2 n), but no more rounds than can avoid repeat opponents, and at least one."""
    repeat_free = max(1, (players - 1) // (table_size - 1))
    return max(1, min(math.ceil(math.log2(players)), repeat_free))


def swiss_round(
    ranking: Sequence[P],
    table_size: int,
    fill: bool,
    met: Mapping[frozenset[Hashable], int],
    byes: Mapping[Hashable, int],
    budget: int = SEARCH_BUDGET,
) -> RoundPlan:
    """The next Swiss round for `ranking` (best first), given who has met and who had byes."""
    remainder = len(ranking) % table_size
    sitting_out: list[P] = []
    if remainder and not fill:
        # The lowest-ranked among those with the fewest byes sit out.
        position = {p: i for i, p in enumerate(ranking)}
        sitting_out = sorted(ranking, key=lambda p: (byes.get(p, 0), -position[p]))[:remainder]
    playing = [p for p in ranking if p not in sitting_out]
    # With bots filling seats, one table is short (the bots take its empty seats).
    short = len(playing) % table_size if fill else 0
    tables = _search(playing, table_size, met, [budget], short)
    if tables is None:
        tables = _fewest_repeats(playing, table_size, met, short, [budget])
    # Byes listed best-ranked first, like the tables.
    return RoundPlan(tuple(tables), tuple(p for p in ranking if p in sitting_out))


def _repeats(table: Iterable[P], met: Mapping[frozenset[Hashable], int]) -> int:
    return sum(met.get(pair, 0) for pair in pairs_of(table))


def _search(
    remaining: list[P],
    k: int,
    met: Mapping[frozenset[Hashable], int],
    budget: list[int],
    short: int = 0,
    allowed: int = 0,
) -> list[tuple[P, ...]] | None:
    """Tables repeating at most `allowed` meetings in all (none by default), top of the ranking
    first, closest-ranked partners first; the highest-ranked player left sits at a full table
    when one can be completed, else at the `short` table (the one bots fill) if it is still to
    be seated. None when there are none, or when the `budget` of tables tried runs out."""
    if not remaining:
        return []
    head, rest = remaining[0], remaining[1:]
    sizes = [k] if len(remaining) - short >= k else []
    if short:
        sizes.append(short)
    for size in sizes:
        for partners in combinations(rest, size - 1):
            table = (head, *partners)
            cost = _repeats(table, met)
            if cost > allowed:
                continue
            budget[0] -= 1
            if budget[0] < 0:
                return None
            taken = set(partners)
            found = _search(
                [p for p in rest if p not in taken],
                k,
                met,
                budget,
                short if size == k else 0,
                allowed - cost,
            )
            if found is not None:
                return [table, *found]
            if budget[0] < 0:
                return None
    return None


def _fewest_repeats(
    ranking: list[P],
    k: int,
    met: Mapping[frozenset[Hashable], int],
    short: int,
    budget: list[int],
) -> list[tuple[P, ...]]:
    """A round with the fewest repeat meetings: a greedy pass (from the top, each seat to the
    closest-ranked player with the fewest repeats, the short table last) bounds it, then the
    search allows one repeat more at a time until it finds a round (or its budget runs out)."""
    remaining = list(ranking)
    greedy: list[tuple[P, ...]] = []
    while remaining:
        size = k if len(remaining) > short else short
        table = [remaining.pop(0)]
        while len(table) < size and remaining:
            best = min(
                range(len(remaining)),
                key=lambda i: (sum(met.get(frozenset((remaining[i], t)), 0) for t in table), i),
            )
            table.append(remaining.pop(best))
        greedy.append(tuple(table))
    bound = sum(_repeats(table, met) for table in greedy)
    for allowed in range(1, bound):
        found = _search(ranking, k, met, budget, short, allowed)
        if found is not None:
            return found
        if budget[0] < 0:
            break
    return greedy


# ---- duplicate ----

# The finite field of order k (2, 3 and 4 are prime powers): addition and multiplication tables.
# GF(2) and GF(3) are the integers mod k; GF(4) is {0, 1, x, x + 1} with x² = x + 1, its
# elements written 0..3 (bit 1 the x coefficient), so addition is XOR.
_FIELD_ADD = {
    2: [[(a + b) % 2 for b in range(2)] for a in range(2)],
    3: [[(a + b) % 3 for b in range(3)] for a in range(3)],
    4: [[a ^ b for b in range(4)] for a in range(4)],
}
_FIELD_MUL = {
    2: [[(a * b) % 2 for b in range(2)] for a in range(2)],
    3: [[(a * b) % 3 for b in range(3)] for a in range(3)],
    4: [[0, 0, 0, 0], [0, 1, 2, 3], [0, 2, 3, 1], [0, 3, 1, 2]],
}


def duplicate_fits(players: int, table_size: int) -> bool:
    """Whether `players` entrants fill whole duplicate sections of `table_size`² entrants."""
    section = table_size * table_size
    return table_size in _FIELD_ADD and players >= section and players % section == 0


def duplicate_schedule(players: Sequence[P], table_size: int, rounds: int) -> list[RoundPlan]:
    """Every round of a duplicate tournament: tables, each listed seat 0 first; no byes.

    Every table of a round plays the same deal seeds (deal n of each match is seed n of the
    round's seed source), so hand s of a deal is the cards seat s holds at every table. With
    k = `table_size` (2, 3 or 4), the entrants, in seeding order, form sections of k² (the count
    must be a multiple of k², see `duplicate_fits`); a section is k groups of k consecutive
    entrants (group 0 the top seeds) and seats k tables. In round r (from 0) the entrant of
    group i at table t of a section is the group's member t + r·i (arithmetic of the field of
    order k), in seat (i + t) mod k. That guarantees, for every deal of every round:

    - no entrant plays a deal seed twice: each sits at one table, each table plays each seed once
      (and the seeds of different rounds are independent secrets);
    - within a section, hand s is held at its k tables by k different entrants, one of each
      group, and each group holds each of the k hands exactly once (the rotation of luck.py's
      boards, a group standing for a bot); every holder of a hand faces one entrant of each
      other group, so the results compared on the same cards met the same mix of groups;
    - 2 seats: sections of 4 entrants on 2 tables; each hand is held by one entrant of each
      group, each against an entrant of the other group;
    - 3 seats: sections of 9 entrants on 3 tables; 4 seats: sections of 16 on 4 tables.

    Over rounds 1..k, two entrants of different groups of a section sit at one table exactly
    once (for i ≠ j, t + r·i = t' and t + r·j = t'' have one solution r in the field); two
    entrants of one group never sit together (they are compared instead). Rounds past k repeat
    the cycle with fresh seeds. Different sections never share a table, but every table of a
    round plays the same deals, so their results are compared too."""
    if not duplicate_fits(len(players), table_size):
        raise ValueError(f"{len(players)} entrants do not fill sections of {table_size**2}")
    k = table_size
    add, mul = _FIELD_ADD[k], _FIELD_MUL[k]
    sections = len(players) // (k * k)
    plans = []
    for number in range(rounds):
        r = number % k
        tables: list[tuple[Hashable, ...]] = []
        for section in range(sections):
            base = section * k * k
            for t in range(k):
                seats: list[Hashable] = [None] * k
                for i in range(k):
                    seats[(i + t) % k] = players[base + i * k + add[t][mul[r][i]]]
                tables.append(tuple(seats))
        plans.append(RoundPlan(tuple(tables)))
    return plans


def duplicate_counts(table_size: int, limit: int) -> list[int]:
    """The entrant counts a duplicate tournament of `table_size` seats fits, up to `limit`."""
    section = table_size * table_size
    return list(range(section, limit + 1, section))
