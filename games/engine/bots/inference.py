"""Inference: what a seat can tell about the cards it cannot see from the deal's move log, and a
sampler of the hidden cards that agrees with all of it.

**Facts.** A move of another seat tells something about the hand it held just before it. A fact
`Fact(time, seat, cards, source)` says: `seat` held none of `cards` just before the move at log
index `time`. Three sources, each read on top of the ones before:

- the rules (`RULES`): a seat that draws in the opening holds no club (R-10, R-12); under
  `draw_policy = until_playable` a seat that draws or passes holds no legal card (R-18);
- the play of any sensible player (`PLAY`), which `greedy` and the search's rollouts follow:
  a seat that draws with no sevens pending, passes after drawing, or declines an Ace follow-up
  held no legal card but perhaps a Jack (R-14, R-17, R-25); a seat that takes the penalty held
  no 7 (R-22); a seat that plays a Jack held no other legal card (R-19: a Jack is the last
  resort);
- the play of `greedy` itself (`GREEDY`, `greedy_facts`), where its choice says something
  whatever the rest of the hand: the card it shed was its dearest of that suit, it drew with no
  Jack when the race was close. (`opponent` weighs what its other choices say.)

**Where each card came from.** Every card a seat holds or has played came to it in the deal or
by one of its draws: its *slots*, in time order (the deal, then each draw, with as many cards
as it took). A card in a slot is in the hand from that slot until it is played, so a fact at
time t forbids its cards in every slot before t that they stay in until t. A card the seat holds
now may lie in any slot after the last fact that names it (a suffix of its slots); a card it
played at time t in a slot before t and after the last earlier fact that names it (an interval).
The cards the observing seat drew, holds or saw played are known; the others ("unseen") are in
the other hands or the stock, and the stock keeps no fact.

**The sampler.** The deck was shuffled uniformly (R-4), so given the facts every arrangement of
the unseen cards into the other seats' slots and the stock that breaks none of them is equally
likely. For one seat the arrangements are counted exactly by a small dynamic programme over its
slots (`GroupTable`): the held cards allowed in slot i grow with i (nested suffixes), so only
their number matters; the played cards allowed from the first slot (prefixes) are counted
backwards, so only how many of them are placed matters; the few played cards allowed only from a
later slot are tracked one by one. Sampling goes forwards through the slots with the counts as
weights, then picks the held cards of each slot uniformly among those allowed: an exact draw
from the uniform distribution over the consistent arrangements. With one other seat (two at the
table) every sample is exact and independent. With more, the seats are dealt one after the
other from what the earlier ones left, and an independence Metropolis-Hastings chain weights
that proposal back to the uniform distribution (the weight of a sample is the product of the
later seats' counts); the opponent model (`miss`) multiplies that weight by its likelihood.
At four seats that chain accepts about a fifth of its proposals and visits few distinct deals.
With `gibbs` = k the chain instead redraws one seat at a time given the others' hands: the
seat's cards then come from what the others leave, and the exact sampler of that one seat draws
from the facts' conditional, so only the opponent model's weight of that seat decides (k
Metropolis steps a seat, a sweep over the seats a sample; the first sample after
`GIBBS_BURN_IN` sweeps). Its samples are more diverse and better calibrated against the real
hands, and it reaches the exact joint distribution where the single chain mixes too slowly.
With `rejection` = r a draw first tries up to r proposals, each kept with the chance of its
opponent-model weight (at most 1): with one other seat an exact draw independent of the ones
before (the chain's draws repeat the one before a fifth of the time or more), in a Gibbs sweep
an exact draw from the seat's conditional; only when all r are refused does a Metropolis step
move the chain instead.

If a seat's facts contradict each other or its plays (a player who draws while holding a
playable card, as the rules allow under `free`), that seat reads one source less (greedy's,
then the play's) and leaves the opponent model: it does not play as they have it. The rules
facts alone never contradict (the real deal satisfies them). Against a player that is not
greedy, greedy's facts soon contradict (against the search that reads the play's facts: in a
third of the positions after a deal's tenth move, two thirds after its twentieth, all after
its fortieth).

**Reshuffles** (`stock_exhausted = reshuffle`, R-6): after one, the stock holds exactly the
pile's cards that were turned over, and every other unseen card was then in another hand. The
sampler keeps that (the hand at the last reshuffle as the first slot, the draws since from the
reshuffled cards) and reads the facts since the last reshuffle only.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import ACE, JACK, SUITS
from ..history import LoggedMove
from ..moves import DRAW, PASS, PLAY
from ..observation import Observation, PublicObservation
from ..rules import Rules
from ..state import ACE_FOLLOWUP, OPENING
from ..tables import ALL_CARDS, CARD_PENALTY, CLUBS, JACKS, LEGAL_ON, SEVENS, SUIT_MASKS, cards_of
from .determinize import unseen_cards
from .draws import below, sample, shuffle
from .greedy import ACE_BONUS, CLOSE_TO_OUT
from .opponent import Decision, agrees, decisions_of
from .rollout import RolloutTables

# PLAY (the moves module's "play") names the facts of any sensible player's play.
RULES, GREEDY = "rules", "greedy"
NO_TIME = -(1 << 30)  # before anything: the time of "no fact names this card"
INNER_LIMIT = (
    12  # played cards tracked one by one at a slot of a seat's table; more: its play facts go
)
JOINT_TRIES = 200  # proposals of all the other hands before the play facts are given up
GIBBS_BURN_IN = 10  # `gibbs`: sweeps over the seats before a chain's first sample
GIBBS_START_TRIES = JOINT_TRIES  # `gibbs`: deals of all the other hands tried for its first state
# The search-long memos, each cleared once it holds more than this many entries:
AGREED_KEPT = 1 << 15  # opponent-model answers, by (decision, hand)
CARD_LISTS_KEPT = 1024  # a group table's card lists, by mask
SEAT_TABLES_KEPT = 256  # a seat's group tables, by the sizes of its slots' pools (and by pool)


@dataclass(frozen=True, slots=True)
class Fact:
    """`seat` held none of `cards` (a mask) just before the move at log index `time`."""

    time: int
    seat: int
    cards: int
    source: str  # RULES or PLAY


def playable_mask(before: PublicObservation) -> int:
    """The cards that would have been legal for the seat on turn in `before` (Jack nominations
    aside): clubs in the opening (R-10), 7s with pending sevens (R-22), else R-14 and R-16."""
    if before.phase == OPENING:
        return CLUBS
    if before.pending_sevens:
        return SEVENS
    assert before.top_card is not None and before.active_suit is not None
    return LEGAL_ON[int(before.top_card) * 4 + SUITS.index(before.active_suit)]


def read_facts(log: Sequence[LoggedMove], rules: Rules, observer: int) -> list[Fact]:
    """The facts the moves of the other seats state, in log order (see the module docstring)."""
    facts: list[Fact] = []
    until_playable = rules.draw_policy == "until_playable"
    for time, entry in enumerate(log):
        seat = entry.seat
        if seat == observer:
            continue
        before = entry.before
        action = entry.move.action
        if action == DRAW:
            if before.phase == OPENING:
                facts.append(Fact(time, seat, CLUBS, RULES))
            elif before.pending_sevens:
                facts.append(Fact(time, seat, SEVENS, PLAY))  # a 7 would have answered
            elif until_playable:
                facts.append(Fact(time, seat, playable_mask(before), RULES))
            else:
                facts.append(Fact(time, seat, playable_mask(before) & ~JACKS, PLAY))
        elif action == PASS:
            if until_playable and before.phase != ACE_FOLLOWUP:
                facts.append(Fact(time, seat, playable_mask(before), RULES))
            else:
                facts.append(Fact(time, seat, playable_mask(before) & ~JACKS, PLAY))
        else:
            card = entry.move.card
            assert card is not None
            if card.rank == JACK and before.phase != OPENING:
                facts.append(Fact(time, seat, playable_mask(before) & ~JACKS, PLAY))
    return facts


def greedy_facts(log: Sequence[LoggedMove], rules: Rules, observer: int) -> list[Fact]:
    """What the other seats' moves say of their hands if they play as `greedy` does, where that
    does not depend on the rest of the hand (`GREEDY`; `opponent` weighs the rest):

    - a non-Jack card played on a normal turn or a follow-up: no legal card of its suit that
      greedy scores higher (the same suit's other cards add the same to both scores), nor one
      that scores the same and comes first;
    - an opening club: no dearer non-Jack club (R-11), nor an equal one that comes first;
    - a draw when the race is close (the next seat or the drawer at two cards or fewer) or
      after a draw: no legal Jack either (R-19: greedy's last resort);
    - a pass after drawing: no legal card at all."""
    seats = len(log[0].before.hand_counts) if log else 2
    tables = RolloutTables.build(rules, seats)
    facts: list[Fact] = []
    for time, entry in enumerate(log):
        seat = entry.seat
        before = entry.before
        if seat == observer or before.pending_sevens or before.hand_counts[seat] < 2:
            continue
        action = entry.move.action
        legal = playable_mask(before)
        if action == DRAW:
            if before.phase == OPENING:
                continue
            close = before.hand_counts[(seat + before.direction) % seats] <= CLOSE_TO_OUT
            if close or before.draws_this_turn or before.hand_counts[seat] <= 2:
                facts.append(Fact(time, seat, legal & JACKS, GREEDY))
            continue
        if action == PASS:
            if before.phase != ACE_FOLLOWUP:
                facts.append(Fact(time, seat, legal, GREEDY))
            continue
        card = entry.move.card
        assert card is not None
        x = int(card)
        if x % 13 == JACK:
            continue
        if before.phase == OPENING:
            # greedy sheds the dearest club and keeps J♣.
            beaten = [
                y
                for y in cards_of(CLUBS & ~JACKS)
                if CARD_PENALTY[y] > CARD_PENALTY[x]
                or (CARD_PENALTY[y] == CARD_PENALTY[x] and y < x)
            ]
        else:
            close = before.hand_counts[(seat + before.direction) % seats] <= CLOSE_TO_OUT
            played = _greedy_score(x, close, tables)
            suit = SUIT_MASKS[x // 13] & ~JACKS & legal & ~(1 << x)
            beaten = [
                y
                for y in cards_of(suit)
                if _greedy_score(y, close, tables) > played
                or (_greedy_score(y, close, tables) == played and y < x)
            ]
        mask = 0
        for y in beaten:
            mask |= 1 << y
        if mask:
            facts.append(Fact(time, seat, mask, GREEDY))
    return facts


def _greedy_score(card: int, close: bool, tables: RolloutTables) -> int:
    """Greedy's score of playing `card` but for its suit's length (`rollout.rollout_action`),
    with another card of its suit in hand (an Ace then has a follower, R-25)."""
    bonus = tables.attack[card] if close else 0
    if tables.ace_follow and card % 13 == ACE:
        bonus += ACE_BONUS
    return tables.base[card] + bonus


# --- one seat's slots -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SlotGroup:
    """Slots of one seat whose held cards nest: `eligible[i]` (the cards that may lie in slot i
    and stay in the hand until now) grows with i. `played` are the windows (lo, hi) of slot
    indices of the cards the seat played from these slots."""

    times: tuple[int, ...]  # the log index of each slot's draw (the deal: -1 or a reshuffle's)
    sizes: tuple[int, ...]
    eligible: tuple[int, ...]
    played: tuple[tuple[int, int], ...]
    played_cards: tuple[int, ...]  # the card of each window of `played`

    @property
    def held(self) -> int:
        """How many of the seat's cards now came from these slots."""
        return sum(self.sizes) - len(self.played)


@dataclass(frozen=True, slots=True)
class SeatSlots:
    """One other seat: its slot groups (one; two after a reshuffle) and what it may hold."""

    seat: int
    groups: tuple[SlotGroup, ...]

    @property
    def held(self) -> int:
        return sum(group.held for group in self.groups)


class Infeasible(Exception):
    """No arrangement of the unseen cards agrees with the facts read."""


def _group(
    times: Sequence[int],
    sizes: Sequence[int],
    allowed: int,
    played: Sequence[tuple[int, int]],
    facts: Sequence[Fact],
) -> SlotGroup:
    """The slot group of slots at `times` with `sizes` holding cards of `allowed`, the cards
    `played` (card, time) from them and the facts of the seat (see the module docstring)."""
    last = dict.fromkeys(cards_of(allowed), NO_TIME)  # card -> time of the last fact naming it
    for fact in facts:
        for card in cards_of(fact.cards & allowed):
            last[card] = max(last[card], fact.time)
    eligible = []
    for time in times:
        mask = 0
        for card, named in last.items():
            if named <= time:
                mask |= 1 << card
        eligible.append(mask)
    windows = []
    for card, played_at in played:
        named = max(
            (f.time for f in facts if f.time < played_at and f.cards >> card & 1), default=NO_TIME
        )
        slots = [i for i, time in enumerate(times) if named <= time < played_at]
        if not slots:
            raise Infeasible(card)
        windows.append((slots[0], slots[-1]))
    cards = tuple(card for card, _ in played)
    return SlotGroup(tuple(times), tuple(sizes), tuple(eligible), tuple(windows), cards)


@dataclass(frozen=True, slots=True)
class Epoch:
    """Where the log's reading starts: the whole deal, or the last reshuffle (R-6)."""

    time: int  # log index of the draw that reshuffled; -1 for the deal
    taken_before: int  # cards that draw took before the reshuffle
    turned: int  # the reshuffled cards (the stock right after it)
    in_hands: int  # the cards then in the other seats' hands


def find_epoch(log: Sequence[LoggedMove], rules: Rules, observer: int, hand: int) -> Epoch:
    """The last reshuffle of the log (R-6), replayed from the public counts and the pile."""
    if rules.stock_exhausted != "reshuffle":
        return Epoch(-1, 0, 0, 0)
    pile: list[int] = []
    epoch = Epoch(-1, 0, 0, 0)
    for time, entry in enumerate(log):
        if entry.move.action != DRAW:
            if entry.move.card is not None:
                pile.append(int(entry.move.card))
            continue
        stock = entry.before.stock_count
        for taken in range(1, entry.drawn_count + 1):
            stock -= 1
            if stock == 0 and len(pile) > 1:
                turned = 0
                for card in pile[:-1]:
                    turned |= 1 << card
                stock = len(pile) - 1
                del pile[:-1]
                epoch = Epoch(time, taken, turned, 1 << pile[0])  # the top card, for now
    if epoch.time < 0:
        return epoch
    # The observer's hand at that moment: its hand now, less what it drew since, plus what it
    # played since.
    for time in range(epoch.time, len(log)):
        entry = log[time]
        if entry.seat != observer:
            continue
        if entry.move.action == DRAW:
            since = entry.drawn[epoch.taken_before :] if time == epoch.time else entry.drawn
            for card in since:
                hand &= ~(1 << card)
        elif time > epoch.time and entry.move.card is not None:
            hand |= 1 << int(entry.move.card)
    in_hands = ALL_CARDS & ~epoch.turned & ~epoch.in_hands & ~hand
    return Epoch(epoch.time, epoch.taken_before, epoch.turned, in_hands)


def seat_slots(
    observation: Observation,
    log: Sequence[LoggedMove],
    facts: Sequence[Fact],
    epoch: Epoch,
    seat: int,
) -> SeatSlots:
    """The slots of `seat` since the epoch, with the facts given (of that seat, after it)."""
    start = epoch.time
    draws: list[tuple[int, int]] = []  # (time, size)
    played: list[tuple[int, int]] = []  # (card, time)
    for time in range(max(start, 0), len(log)):
        entry = log[time]
        if entry.seat != seat:
            continue
        if entry.move.action == DRAW:
            size = entry.drawn_count - (epoch.taken_before if time == start else 0)
            if size > 0:
                draws.append((time, size))
        elif time > start and entry.move.card is not None:
            played.append((int(entry.move.card), time))
    held = observation.hand_counts[seat]
    first = held + len(played) - sum(size for _, size in draws)
    if first < 0:
        raise Infeasible(seat)
    mine = [f for f in facts if f.seat == seat and f.time > start]
    if start < 0:
        times = [start, *(time for time, _ in draws)]
        sizes = [first, *(size for _, size in draws)]
        return SeatSlots(seat, (_group(times, sizes, ALL_CARDS, played, mine),))
    # After a reshuffle: the hand then held only cards that were in the hands (not the pile's);
    # every draw since took reshuffled cards.
    then = epoch.in_hands
    early = [(c, t) for c, t in played if then >> c & 1]
    late = [(c, t) for c, t in played if epoch.turned >> c & 1]
    if len(early) + len(late) != len(played):
        raise Infeasible(seat)
    groups = [_group([start], [first], then, early, mine)]
    if draws:
        times = [time for time, _ in draws]
        sizes = [size for _, size in draws]
        groups.append(_group(times, sizes, epoch.turned, late, mine))
    elif late:
        raise Infeasible(seat)
    return SeatSlots(seat, tuple(groups))


# --- counting and sampling one seat's arrangements ----------------------------------------------

Node = tuple[int, int, int]  # (slot, prefix cards placed, inner cards placed: a mask)
Transition = tuple[int, Node, int, int, int]  # ways, next state, held, prefix, inner (mask)


def _overlap(group: SlotGroup) -> int:
    """The most played cards with a window starting after the first slot that one slot can hold
    (`GroupTable` tracks them one by one)."""
    inner = [(lo, hi) for lo, hi in group.played if lo > 0]
    return max(
        (sum(1 for lo, hi in inner if lo <= i <= hi) for i in range(len(group.sizes))), default=0
    )


class GroupTable:
    """The arrangements of one slot group with the held cards taken from a pool, counted by
    slot (see the module docstring), and a sampler of how many held cards each slot has."""

    def __init__(self, group: SlotGroup, pool: int) -> None:
        self.sizes = group.sizes
        self.eligible = group.eligible
        self.available = tuple((mask & pool).bit_count() for mask in group.eligible)
        played = list(zip(group.played, group.played_cards, strict=True))
        prefix = [(hi, card) for (lo, hi), card in played if lo == 0]
        self.prefix = tuple(prefix)
        self.prefix_total = len(prefix)
        # prefix_from[i]: the played cards allowed from the first slot up to slot i or later.
        self.prefix_from = tuple(
            sum(1 for hi, _ in prefix if hi >= i) for i in range(len(self.sizes))
        )
        self.inner = tuple(window for window, _ in played if window[0] > 0)
        self.inner_cards = tuple(card for (lo, _), card in played if lo > 0)
        self.memo: dict[Node, int] = {}
        self.moves: dict[Node, list[Transition]] = {}
        # By state: the running totals of its transitions' weights, and the transitions.
        self.picks: dict[Node, tuple[list[int], list[Transition]]] = {}
        self.cards: dict[int, list[int]] = {}  # cards_of, by mask (the same pools recur)
        self.total = self._count(0, 0, 0)

    def _transitions(self, i: int, placed_prefix: int, placed_inner: int) -> list[Transition]:
        """(ways, next state, held cards, prefix cards, inner cards) of every way to fill slot i."""
        key = (i, placed_prefix, placed_inner)
        found = self.moves.get(key)
        if found is not None:
            return found
        size = self.sizes[i]
        inner = self.inner
        forced = 0
        optional: list[int] = []
        for j, (lo, hi) in enumerate(inner):
            if placed_inner >> j & 1 or lo > i:
                continue
            if hi < i:
                self.moves[key] = []
                return []
            if hi == i:
                forced |= 1 << j
            else:
                optional.append(j)
        placed_total = placed_prefix + placed_inner.bit_count()
        used = sum(self.sizes[:i]) - placed_total  # held cards in the earlier slots
        available = self.available[i] - used
        left = self.prefix_total - placed_prefix
        out: list[Transition] = []
        for subset in range(1 << len(optional)):
            chosen = forced
            for bit, j in enumerate(optional):
                if subset >> bit & 1:
                    chosen |= 1 << j
            inner_count = chosen.bit_count()
            if inner_count > size:
                continue
            for p in range(min(size - inner_count, left) + 1):
                # Backwards, slot i takes p of the prefix cards allowed this late that the later
                # slots left: prefix_from[i] − (left − p) of them.
                allowed = self.prefix_from[i] - (left - p)
                if allowed < p:
                    break  # more prefix cards here than allowed this late (more p: worse)
                prefix_ways = math.comb(allowed, p)
                held = size - inner_count - p
                held_ways = math.comb(available, held) if 0 <= held <= available else 0
                if prefix_ways and held_ways:
                    after = (i + 1, placed_prefix + p, placed_inner | chosen)
                    out.append((prefix_ways * held_ways, after, held, p, chosen))
        self.moves[key] = out
        return out

    def _count(self, i: int, placed_prefix: int, placed_inner: int) -> int:
        if i == len(self.sizes):
            done = placed_prefix == self.prefix_total and placed_inner.bit_count() == len(
                self.inner
            )
            return 1 if done else 0
        key = (i, placed_prefix, placed_inner)
        found = self.memo.get(key)
        if found is not None:
            return found
        total = 0
        for ways, after, *_ in self._transitions(i, placed_prefix, placed_inner):
            total += ways * self._count(*after)
        self.memo[key] = total
        return total

    def _picks(self, state: Node) -> tuple[list[int], list[Transition]]:
        """The transitions of `state` that lead anywhere and the running totals of their
        weights (the last: the state's count)."""
        totals: list[int] = []
        transitions: list[Transition] = []
        total = 0
        for step in self._transitions(*state):
            weight = step[0] * self._count(*step[1])
            if weight:
                total += weight
                totals.append(total)
                transitions.append(step)
        return totals, transitions

    def fill(self, pool: int, rng: random.Random) -> list[int]:
        """The cards of each slot (held now or played since), drawn uniformly among the
        arrangements (total > 0): the counts by slot with the exact weights, then the held
        cards of each slot among those allowed, the prefix cards backwards."""
        state: Node = (0, 0, 0)
        steps: list[Transition] = []
        picks = self.picks
        while state[0] < len(self.sizes):
            found = picks.get(state)
            if found is None:
                found = picks[state] = self._picks(state)
            totals, transitions = found
            step = transitions[bisect.bisect_right(totals, below(rng, totals[-1]))]
            steps.append(step)
            state = step[1]
        slots = [0] * len(self.sizes)
        taken = 0
        known = self.cards
        for i, (_, _, held, _, chosen) in enumerate(steps):
            if held:
                mask = self.eligible[i] & pool & ~taken
                cards = known.get(mask)
                if cards is None:
                    if len(known) > CARD_LISTS_KEPT:
                        known.clear()
                    cards = known[mask] = cards_of(mask)
                for card in sample(rng, cards, held):
                    taken |= 1 << card
                    slots[i] |= 1 << card
            for j, card in enumerate(self.inner_cards):
                if chosen >> j & 1:
                    slots[i] |= 1 << card
        left = list(self.prefix)
        for i in range(len(steps) - 1, -1, -1):
            count = steps[i][3]
            if count:
                allowed = [k for k, (hi, _) in enumerate(left) if hi >= i]
                for k in sorted(sample(rng, allowed, count), reverse=True):
                    slots[i] |= 1 << left.pop(k)[1]
        return slots


class SeatSampler:
    """Exact uniform draws of one seat's held cards from a pool of unseen cards."""

    def __init__(self, slots: SeatSlots) -> None:
        self.slots = slots
        self.tables: dict[tuple[int, ...], list[GroupTable]] = {}
        # By pool as well (one other seat asks the same pool every draw, a Gibbs sweep a few):
        # a lookup without the counts of the key.
        self.by_pool: dict[int, list[GroupTable]] = {}

    def tables_for(self, pool: int) -> list[GroupTable]:
        found = self.by_pool.get(pool)
        if found is not None:
            return found
        key = tuple(
            (mask & pool).bit_count() for group in self.slots.groups for mask in group.eligible
        )
        found = self.tables.get(key)
        if found is None:
            found = [GroupTable(group, pool) for group in self.slots.groups]
            if len(self.tables) > SEAT_TABLES_KEPT:
                self.tables.clear()
            self.tables[key] = found
        if len(self.by_pool) > SEAT_TABLES_KEPT:
            self.by_pool.clear()
        self.by_pool[pool] = found
        return found

    def count(self, pool: int) -> int:
        """The arrangements of this seat with its held cards from `pool`."""
        return math.prod(table.total for table in self.tables_for(pool))

    def sample(self, pool: int, rng: random.Random) -> list[tuple[int, int]]:
        """A uniformly drawn arrangement among those counted (count(pool) > 0): (time, cards)
        of each slot, in time order."""
        out: list[tuple[int, int]] = []
        for group, table in zip(self.slots.groups, self.tables_for(pool), strict=True):
            out.extend(zip(group.times, table.fill(pool, rng), strict=True))
        return out


def held_now(slots: Sequence[tuple[int, int]], played: int) -> int:
    """The cards of an arrangement the seat holds now (`played`: every card it played)."""
    hand = 0
    for _, cards in slots:
        hand |= cards
    return hand & ~played


# --- the hidden cards of every other seat -----------------------------------------------------


class HiddenCards:
    """Draws the other seats' hands (masks by seat; 0 for the observer) consistently with the
    facts of the log, as the module docstring describes; with `miss` (a number in [0, 1]) the
    samples are weighted by the opponent model as well (`opponent`)."""

    def __init__(
        self,
        observation: Observation,
        log: Sequence[LoggedMove],
        *,
        play_facts: bool = True,
        greedy: bool = False,
        miss: float | None = None,
        gibbs: int = 0,
        rejection: int = 0,
    ) -> None:
        you = observation.you
        self.seats = len(observation.hand_counts)
        self.gibbs = gibbs
        self.rejection = rejection
        self.likelihood: list[float] = []  # gibbs: each other seat's opponent-model weight
        self.you = you
        self.unseen = sum(1 << int(c) for c in unseen_cards(observation))
        self.others = [s for s in range(self.seats) if s != you]
        self.counts = observation.hand_counts
        self.facts: list[Fact] = []  # the facts every sample agrees with
        self.dropped: set[int] = set()  # seats whose play facts contradict (see above)
        self.samplers: list[SeatSampler] | None = None  # None: the log is not read
        self.played: list[int] = [0] * self.seats  # by seat: the cards played since the epoch
        self.miss = miss
        self.decisions: list[list[Decision]] = [[] for _ in range(self.seats)]
        self.tables = RolloutTables.build(observation.rules, self.seats)
        # (log index of a decision, hand then) -> whether greedy agrees: the samples of one
        # search share many hands (the model's weight is what makes them alike).
        self.agreed: dict[tuple[int, int], bool] = {}
        self.current: list[int] | None = None
        # Two other seats or more: hands that agree with the facts (and their weight), from _read.
        self.witness: tuple[list[int], float] | None = None
        self.weight = 0.0
        self.proposed = self.accepted = 0
        if not self._log_matches(observation, log):
            return
        # The sources read, most first: a seat whose facts contradict falls back a stage.
        stages = [(RULES, PLAY, GREEDY), (RULES, PLAY), (RULES,)]
        if not greedy:
            stages = stages[1:]
        if not play_facts:
            stages = stages[-1:]
        self._read(observation, log, stages)

    def _read(
        self,
        observation: Observation,
        log: Sequence[LoggedMove],
        stages: Sequence[tuple[str, ...]],
    ) -> None:
        """A sampler per other seat from the facts of the log, each at the first stage of
        sources whose facts agree."""
        hand = sum(1 << int(c) for c in observation.hand)
        rules = observation.rules
        facts = read_facts(log, rules, self.you)
        if GREEDY in stages[0]:
            facts += greedy_facts(log, rules, self.you)
        epoch = find_epoch(log, rules, self.you, hand)
        samplers: list[SeatSampler] = []
        kept: list[Fact] = []
        for seat in self.others:
            mine = [f for f in facts if f.seat == seat and f.time > epoch.time]
            for stage in stages:
                read = [f for f in mine if f.source in stage]
                sampler = self._seat_sampler(observation, log, read, epoch, seat)
                if sampler is not None:
                    break
                self.dropped.add(seat)
            if sampler is None:
                return  # the rules facts always agree with the deal: not this deal's log
            kept.extend(read)
            samplers.append(sampler)
            self.played[seat] = sum(
                1 << card for group in sampler.slots.groups for card in group.played_cards
            )
        self.facts = sorted(kept, key=lambda f: (f.time, f.seat))
        self.samplers = samplers
        if len(samplers) > 1:
            first = self._first_joint(random.Random(0))
            if first is None:
                # The seats' facts cannot all hold at once: read one stage less for every seat.
                self.samplers = None
                self.facts = []
                if len(stages) > 1:
                    self.dropped.update(self.others)
                    self._read(observation, log, stages[1:])
                return
            self.witness = first
        if self.miss is not None:
            # A seat whose facts contradicted does not play as the model has it: no weights.
            playable = [playable_mask(entry.before) for entry in log]
            for decision in decisions_of(log, rules, self.you, epoch.time, playable):
                if decision.seat not in self.dropped:
                    self.decisions[decision.seat].append(decision)

    def _first_joint(self, rng: random.Random) -> tuple[list[int], float] | None:
        for _ in range(JOINT_TRIES):
            proposal = self._propose(rng)
            if proposal is not None:
                return proposal
        return None

    def _seat_sampler(
        self,
        observation: Observation,
        log: Sequence[LoggedMove],
        facts: Sequence[Fact],
        epoch: Epoch,
        seat: int,
    ) -> SeatSampler | None:
        try:
            slots = seat_slots(observation, log, facts, epoch, seat)
        except Infeasible:
            return None
        if max(_overlap(g) for g in slots.groups) > INNER_LIMIT:
            return None
        sampler = SeatSampler(slots)
        return sampler if sampler.count(self.unseen) else None

    @staticmethod
    def _log_matches(observation: Observation, log: Sequence[LoggedMove]) -> bool:
        """Whether the log is the whole deal so far: it starts with the deal and ends where the
        observation stands (else no fact is read and the unseen cards are dealt uniformly)."""
        if not log:
            return not observation.pile and observation.phase == OPENING
        first = log[0].before
        hand_size = observation.rules.hand_size
        if first.top_card is not None or any(c != hand_size for c in first.hand_counts):
            return False
        counts = list(first.hand_counts)
        if len(counts) != len(observation.hand_counts):
            return False
        for entry in log:
            if entry.move.action == DRAW:
                counts[entry.seat] += entry.drawn_count
            elif entry.move.action != PASS:
                counts[entry.seat] -= 1
        return tuple(counts) == observation.hand_counts

    def _propose(self, rng: random.Random) -> tuple[list[int], float] | None:
        """The other seats dealt one after the other, each uniformly among its arrangements with
        what the earlier ones left; the hands and their weight towards the target: the product
        of the later seats' counts, times the opponent model's likelihood."""
        assert self.samplers is not None
        pool = self.unseen
        hands = [0] * self.seats
        weight = 1.0
        for index, (seat, sampler) in enumerate(zip(self.others, self.samplers, strict=True)):
            if index:
                count = sampler.count(pool)
                if not count:
                    return None
                weight *= count
            slots = sampler.sample(pool, rng)
            hand = held_now(slots, self.played[seat])
            weight *= self._seat_likelihood(seat, slots)
            hands[seat] = hand
            pool &= ~hand
        return hands, weight

    def _seat_likelihood(
        self, seat: int, slots: Sequence[tuple[int, int]], floor: float = -1.0
    ) -> float:
        """The opponent model's weight of `seat`'s arrangement `slots` (in time order, as
        `SeatSampler.sample` gives them; 1 without the model); 0 as soon as it is at `floor` or
        below (a rejection test stops at the disagreement that settles it)."""
        miss = self.miss
        weight = 1.0
        if miss is not None:
            agreed = self.agreed
            # `opponent.hand_at` of each decision, the slots (in time order) taken in as the
            # decisions (in time order) pass their times.
            held = 0
            taken = 0
            count = len(slots)
            for decision in self.decisions[seat]:
                time = decision.time
                while taken < count and slots[taken][0] < time:
                    held |= slots[taken][1]
                    taken += 1
                key = (time, held & ~decision.played_before)
                same = agreed.get(key)
                if same is None:
                    if len(agreed) > AGREED_KEPT:
                        agreed.clear()
                    same = agreed[key] = agrees(decision, key[1], self.seats, self.tables)
                if not same:
                    weight *= miss
                    if weight <= floor:
                        return 0.0
        return weight

    def _sweep(self, rng: random.Random) -> None:
        """One Gibbs sweep: each other seat's arrangement redrawn given the others' hands
        (uniformly among its arrangements from the cards they leave: the exact conditional of
        the facts), `gibbs` Metropolis steps a seat for the opponent model's weight."""
        assert self.samplers is not None and self.current is not None
        hands = self.current
        for index, (seat, sampler) in enumerate(zip(self.others, self.samplers, strict=True)):
            pool = self.unseen
            for other in self.others:
                if other != seat:
                    pool &= ~hands[other]
            drawn = self._by_rejection(seat, sampler, pool, rng)
            if drawn is not None:
                hands[seat], self.likelihood[index] = drawn
                continue
            for _ in range(self.gibbs):
                slots = sampler.sample(pool, rng)
                # Accepted when its weight is above `floor`: the weight's product stops at
                # the first disagreement that settles it (the same draws, the same chain).
                floor = rng.random() * self.likelihood[index]
                weight = self._seat_likelihood(seat, slots, floor)
                self.proposed += 1
                if floor < weight:
                    self.likelihood[index] = weight
                    hands[seat] = held_now(slots, self.played[seat])
                    self.accepted += 1

    def _by_rejection(
        self, seat: int, sampler: SeatSampler, pool: int, rng: random.Random
    ) -> tuple[int, float] | None:
        """`rejection`: up to that many arrangements of `seat` from `pool`, each kept with the
        chance of its opponent-model weight (at most 1); the hand and weight of the first kept,
        an exact draw from the seat's target given `pool`, or None if none was (the chain then
        moves by a Metropolis step)."""
        for _ in range(self.rejection):
            slots = sampler.sample(pool, rng)
            self.proposed += 1
            floor = rng.random()
            weight = self._seat_likelihood(seat, slots, floor)
            if weight > floor:
                self.accepted += 1
                return held_now(slots, self.played[seat]), weight
        return None

    def _start_gibbs(self, rng: random.Random) -> None:
        """The chain's first state: the seats dealt one after the other (as a proposal), or,
        where that keeps failing, the hands `_read` found, each seat's weight taken as the
        highest until its first move; then GIBBS_BURN_IN sweeps."""
        assert self.samplers is not None
        for _ in range(GIBBS_START_TRIES):
            pool = self.unseen
            hands = [0] * self.seats
            arrangement = []
            for seat, sampler in zip(self.others, self.samplers, strict=True):
                if not sampler.count(pool):
                    break
                slots = sampler.sample(pool, rng)
                arrangement.append(slots)
                hands[seat] = held_now(slots, self.played[seat])
                pool &= ~hands[seat]
            else:
                self.current = hands
                self.likelihood = [
                    self._seat_likelihood(seat, slots)
                    for seat, slots in zip(self.others, arrangement, strict=True)
                ]
                break
        else:
            assert self.witness is not None  # _read found one
            self.current = self.witness[0][:]
            self.likelihood = [1.0] * len(self.others)
        for _ in range(GIBBS_BURN_IN):
            self._sweep(rng)

    def sample(self, rng: random.Random) -> list[int]:
        """The other seats' hands (masks by seat; 0 for the observer)."""
        if self.samplers is None:
            return self._uniform(rng)
        if len(self.samplers) == 1 and self.miss is None:
            proposal = self._propose(rng)
            assert proposal is not None
            return proposal[0]
        if self.gibbs and len(self.samplers) > 1:
            if self.current is None:
                self._start_gibbs(rng)
            else:
                self._sweep(rng)
            assert self.current is not None
            return self.current[:]
        if len(self.samplers) == 1:
            # One other seat (its weight is the opponent model's alone, at most 1): rejection
            # draws exact, independent samples; the chain below moves only when `rejection`
            # proposals in a row were all refused.
            seat = self.others[0]
            drawn = self._by_rejection(seat, self.samplers[0], self.unseen, rng)
            if drawn is not None:
                hands = [0] * self.seats
                hands[seat], self.weight = drawn
                self.current = hands
                return hands[:]
            if self.current is not None:
                # The independence step below, the proposal weighed only as far as the
                # acceptance test needs: the same draws, the same chain.
                slots = self.samplers[0].sample(self.unseen, rng)
                floor = rng.random() * self.weight
                weight = self._seat_likelihood(seat, slots, floor)
                self.proposed += 1
                if floor < weight:
                    hands = [0] * self.seats
                    hands[seat] = held_now(slots, self.played[seat])
                    self.current, self.weight = hands, weight
                    self.accepted += 1
                return self.current[:]
        for _ in range(JOINT_TRIES):
            proposal = self._propose(rng)
            if proposal is None:
                continue
            hands, weight = proposal
            self.proposed += 1
            # Independence Metropolis-Hastings towards the target: the proposal draws a sample
            # with probability 1 / weight (up to a constant), so accept with weight / current.
            if self.current is None or rng.random() * self.weight < weight:
                self.current = hands
                self.weight = weight
                self.accepted += 1
            break
        if self.current is None:
            first = self._first_joint(rng) or self.witness
            assert first is not None  # _read found one
            self.current, self.weight = first[0][:], first[1]
        return self.current[:]

    def _uniform(self, rng: random.Random) -> list[int]:
        cards = cards_of(self.unseen)
        shuffle(rng, cards)
        hands = [0] * self.seats
        position = 0
        for seat in self.others:
            count = self.counts[seat]
            for card in cards[position : position + count]:
                hands[seat] |= 1 << card
            position += count
        return hands

    @property
    def informed(self) -> bool:
        """Whether the samples read the log (else they deal the unseen cards uniformly)."""
        return self.samplers is not None
