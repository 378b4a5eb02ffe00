"""The fast path: a mutable, bitmask-based deal with exactly the semantics of the reference
engine (`legal.py`, `transitions.py`) for every rule option, for bots' rollouts and benchmarks.

`FastDeal.from_state(state)` converts a reference `State`; `deal.legal_actions()` lists the legal
actions as ints in the order of docs/rules.md §10; `deal.apply_action(a)` plays one in place (it
trusts that `a` is legal); `deal.to_state()` converts back, equal field for field to the state
the reference engine reaches by the same moves. `tests/engine/test_fast_agrees.py` checks that.

Action encoding (70 ids), in the manner of OpenSpiel's game headers:

    0..51   play card c (c = suit·13 + rank, R-2) with no suit: any non-Jack, or a Jack in the
            opening (R-11: the opening J♣ nominates nothing)
    52..67  play a Jack nominating a suit: 52 + 4·jack_suit_index + nominated_suit_index
            (suit indices C=0 D=1 H=2 S=3; e.g. 52 = J♣ nominating clubs, 67 = J♠ → spades)
    68      draw (one card; with pending sevens, the whole penalty, R-22)
    69      pass

`action_to_move(a)` and `move_to_action(m)` convert to and from the reference `Move`.

Public API (stable): `FastDeal.new(rules, seats, opener, seed)` (deals as `state.new_deal`),
`FastDeal.from_state(state)`, `deal.to_state()`, `deal.copy()`, `deal.legal_actions()` (a shared
immutable tuple of ids: do not mutate, copy it to a list if needed), `deal.apply_action(a)`, and
the fields and properties `is_over`, `turn`, `seats`, `hands`, `stock`, `pile`, `phase_code`
(`phase` as text), `direction`, `active` (`active_suit` as text), `pending_sevens`,
`draws_this_turn`, `opened`, `actions`, `reshuffles`, `last_drawn`, `result` (a `DealResult`),
`result_penalties`, `hand_counts`, `hand_cards(seat)`, `top_card`, `stock_count`. A rollout may
overwrite `hands[s]`, `stock` and `seed` of a copy to deal unseen cards differently.

Representation: a set of cards is a 52-bit int (bit c = card c). `hands[s]` is seat s's mask;
`stock` is a list of card indices with the TOP LAST (pop() draws); `pile` lists the cards played,
top last. `phase_code` is one of OPENING_CODE, PLAY_CODE, ACE_FOLLOWUP_CODE, DEAL_OVER_CODE below
(the index of the phase in `state.PHASES`); `turn` is -1 once
the deal is over; `active` is the active suit index (-1 before the first card). `mask` caches the
cards playable by suit and rank right now: clubs in the opening (R-10), sevens with pending
sevens (R-22), else the table entry of (top card, active suit) (R-14, R-16). Legal-action tuples
are cached by (playable cards, draw, pass, nomination) and shared; `apply_action` keeps the
draw/pass/nomination part of that key (`_flags`) up to date, so that on a normal turn
`legal_actions` is one AND, one OR and one dict lookup.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import replace
from itertools import product

from .cards import PACK, SUITS
from .legal import can_draw, can_pass, jack_suits
from .moves import DRAW, DRAW_MOVE, PASS, PASS_MOVE, Move
from .rules import Rules
from .scoring import shed_result, stock_exhausted_result
from .shuffle import SHUFFLE_PREFIX, reshuffle_prefix, shuffled, shuffled_pack
from .state import ACE_FOLLOWUP, DEAL_OVER, OPENING, PHASES, PLAY_PHASE, DealResult, State, new_deal
from .tables import (
    ALL_CARDS,
    BITS,
    CARD_KIND,
    CLUBS,
    JACK_CARDS,
    KIND_ACE,
    KIND_EIGHT,
    KIND_PLAIN,
    KIND_SEVEN,
    KIND_TEN,
    LEGAL_ON,
    SEVENS,
    cards_of,
    mask_of,
    penalty_of,
)

# Phases (state.PHASES) as codes: a phase's code is its index there.
PHASE_NAMES: tuple[str, ...] = PHASES
_PHASE_CODES = {name: code for code, name in enumerate(PHASE_NAMES)}
OPENING_CODE, PLAY_CODE, ACE_FOLLOWUP_CODE, DEAL_OVER_CODE = (
    _PHASE_CODES[OPENING],
    _PHASE_CODES[PLAY_PHASE],
    _PHASE_CODES[ACE_FOLLOWUP],
    _PHASE_CODES[DEAL_OVER],
)

DRAW_ACTION, PASS_ACTION = 68, 69
NUM_ACTIONS = 70
JACK_ACTION_BASE = 52


def _option_codes(option: str) -> dict[str, int]:
    """A choice option's values as codes: a value's code is its index in `Rules`' table."""
    return {value: code for code, value in enumerate(Rules.option_choices(option))}


# ace_mode codes and stock_exhausted codes; a value renamed in rules.py fails
# here, at import. (draw_policy needs no codes: see `_draw_pass_table`.)
_ACE_MODES = _option_codes("ace_mode")
FOLLOW_UP, EXTRA_TURN, SKIP_NEXT = (
    _ACE_MODES[value] for value in ("follow_up", "extra_turn", "skip_next")
)
_STOCK_POLICIES = _option_codes("stock_exhausted")
END_IMMEDIATELY, END_WHEN_DRAW_NEEDED, RESHUFFLE = (
    _STOCK_POLICIES[value] for value in ("end_immediately", "end_when_draw_needed", "reshuffle")
)
_NO_LIMIT = 1 << 62

# Legal-action cache keys: the playable mask in bits 0..51, then these flags.
_DRAW_BIT = 1 << 52
_PASS_BIT = 1 << 53
_NOMINATE_SHIFT = 54  # 0 no nomination (opening), 1 any suit, 2 + s: any suit but s
_NOMINATE_ANY = 1 << _NOMINATE_SHIFT
_NOMINATE_NOT = tuple((2 + s) << _NOMINATE_SHIFT for s in range(4))
_ACTIONS_CACHE: dict[int, tuple[int, ...]] = {}
_SITUATIONS = tuple(product((False, True), repeat=4))  # (pending, drawn, has_play, stocked)


def _situation(phase: int, pending: bool, drawn: bool, has_play: bool, stocked: bool) -> int:
    """The index in `_draw_pass_table` of everything a draw's or a pass's legality depends on."""
    return phase << 4 | pending << 3 | drawn << 2 | has_play << 1 | stocked


def _draw_pass_table(rules: Rules) -> tuple[int, ...]:
    """The draw and pass bits of the legal-action key in every situation, read off the
    reference's `legal.can_draw` and `legal.can_pass` (R-10, R-17, R-18, R-22, R-25)."""
    table = [0] * 64
    probe = State(rules, 2, 0, b"", ((), ()), (), (), OPENING, 0, opened=(False, False))
    for phase in PHASE_NAMES:
        for pending, drawn, has_play, stocked in _SITUATIONS:
            state = replace(
                probe,
                phase=phase,
                pending_sevens=int(pending),
                draws_this_turn=int(drawn),
                stock=PACK[:1] if stocked else (),
            )
            bits = _DRAW_BIT if can_draw(state, has_play) else 0
            bits |= _PASS_BIT if can_pass(state, has_play) else 0
            table[_situation(_PHASE_CODES[phase], pending, drawn, has_play, stocked)] = bits
    return tuple(table)


def _nomination_bits(rules: Rules) -> tuple[int, ...]:
    """By active suit, the nomination bits of the legal-action key, read off the reference's
    `legal.jack_suits` (R-19, option jack_nomination)."""
    probe = State(rules, 2, 0, b"", ((), ()), (), (), PLAY_PHASE, 0)
    bits = []
    for active, suit in enumerate(SUITS):
        suits = jack_suits(replace(probe, active_suit=suit))
        if suits == SUITS:
            bits.append(_NOMINATE_ANY)
        elif suits == tuple(s for s in SUITS if s != suit):
            bits.append(_NOMINATE_NOT[active])
        else:
            raise AssertionError(f"no nomination code for the Jack suits {suits}")
    return tuple(bits)


_SINGLES: tuple[tuple[int], ...] = tuple((c,) for c in range(52))  # `last_drawn` of one draw
_NO_ACTIONS: tuple[int, ...] = ()


def _card_actions(nominate: int) -> dict[int, tuple[int, ...]]:
    """Lowest-bit -> the action ids of playing that card, under a nomination code."""
    table: dict[int, tuple[int, ...]] = {}
    for c in range(52):
        if c in JACK_CARDS and nominate:
            base = JACK_ACTION_BASE + 4 * (c // 13)
            table[1 << c] = tuple(base + s for s in range(4) if nominate == 1 or s != nominate - 2)
        else:
            table[1 << c] = (c,)
    return table


_CARD_ACTIONS = tuple(_card_actions(nominate) for nominate in range(6))
_CACHE_LIMIT = 1 << 17  # keys kept (about 20 MB at most); later keys are built each time


def _build_actions(key: int) -> tuple[int, ...]:
    """The action tuple of a cache key, in the order of docs/rules.md §10 (and cache it)."""
    playable = key & ALL_CARDS
    table = _CARD_ACTIONS[key >> _NOMINATE_SHIFT]
    actions: list[int] = []
    while playable:
        low = playable & -playable
        actions += table[low]
        playable ^= low
    if key & _DRAW_BIT:
        actions.append(DRAW_ACTION)
    if key & _PASS_BIT:
        actions.append(PASS_ACTION)
    result = tuple(actions)
    if len(_ACTIONS_CACHE) < _CACHE_LIMIT:
        _ACTIONS_CACHE[key] = result
    return result


# The shuffle of R-4 for `FastDeal.new`, the same permutation as `shuffle.shuffled_pack` (a test
# checks it over many seeds) with HMAC-SHA256 (RFC 2104) computed from precomputed pads: the
# generic `hmac` module costs more than the rest of a deal's set-up. Reshuffles are rare
# and use `shuffle.shuffled` itself.
_SHA256 = hashlib.sha256
_INNER_PAD = bytes(x ^ 0x36 for x in range(256))
_OUTER_PAD = bytes(x ^ 0x5C for x in range(256))
_UINT32_BLOCK = struct.Struct(">8I").unpack
_LIMITS = tuple(2**32 - 2**32 % (j + 1) for j in range(52))


_SHUFFLE_MESSAGES = tuple((SHUFFLE_PREFIX + str(i)).encode("ascii") for i in range(7))
_SHUFFLE_JS = tuple(range(51, 0, -1))
_SHUFFLE_BOUNDS = tuple(j + 1 for j in _SHUFFLE_JS)
# No integer below this is ever rejected (the smallest limit 2^32 - (2^32 mod bound) of R-4).
_NEVER_REJECTED = min(_LIMITS[1:])


def shuffled_pack_indices(seed: bytes) -> list[int]:
    """The card indices of the pack after the deal's shuffle (R-4), top first."""
    key = seed if len(seed) <= 64 else _SHA256(seed).digest()
    key = key.ljust(64, b"\0")
    inner = _SHA256(key.translate(_INNER_PAD))
    outer = _SHA256(key.translate(_OUTER_PAD))
    words: list[int] = []
    for message in _SHUFFLE_MESSAGES:  # 56 words: 51 are needed unless some are rejected
        h = inner.copy()
        h.update(message)
        o = outer.copy()
        o.update(h.digest())
        words += _UINT32_BLOCK(o.digest())
    if max(words[:51]) >= _NEVER_REJECTED:
        # Maybe a rejected integer, about once in 7 million deals: the reference decides.
        return [int(c) for c in shuffled_pack(seed)]
    deck = list(range(52))
    for j, x, bound in zip(_SHUFFLE_JS, words, _SHUFFLE_BOUNDS, strict=False):
        k = x % bound
        deck[j], deck[k] = deck[k], deck[j]
    return deck


def action_to_move(action: int) -> Move:
    """The reference `Move` of an action id."""
    if action < JACK_ACTION_BASE:
        return Move.play(PACK[action])
    if action < DRAW_ACTION:
        j = action - JACK_ACTION_BASE
        return Move.play(PACK[JACK_CARDS[j >> 2]], SUITS[j & 3])
    if action == DRAW_ACTION:
        return DRAW_MOVE
    if action == PASS_ACTION:
        return PASS_MOVE
    raise ValueError(f"{action!r} is not an action id 0..{NUM_ACTIONS - 1}")


def move_to_action(move: Move) -> int:
    """The action id of a reference `Move`."""
    if move.action == DRAW:
        return DRAW_ACTION
    if move.action == PASS:
        return PASS_ACTION
    assert move.card is not None
    if move.suit is None:
        return int(move.card)
    return JACK_ACTION_BASE + 4 * move.card.suit_index + SUITS.index(move.suit)


# Rules objects already compiled to FastDeal's private fields, by id (the entry keeps the Rules
# alive, so its id is not reused while the entry exists).
_CompiledRules = tuple[
    Rules,
    tuple[int, ...],
    tuple[int, ...],
    tuple[int, ...],
    tuple[int, ...],
    bool,
    int,
    int,
    int,
    bool,
    int,
]
_COMPILED_RULES: dict[int, _CompiledRules] = {}


class FastDeal:
    """One deal in progress, mutable, with the reference engine's semantics."""

    __slots__ = (
        "rules",
        "seats",
        "opener",
        "seed",
        "hands",
        "stock",
        "pile",
        "phase_code",
        "is_over",
        "turn",
        "direction",
        "active",
        "pending_sevens",
        "draws_this_turn",
        "opened",
        "reshuffles",
        "actions",
        "last_drawn",
        "result",
        "mask",
        "_flags",
        "_fresh_flags",
        "_drawn_flags",
        "_nominate",
        "_draw_pass",
        "_penalty_ends_turn",
        "_ace_mode",
        "_ten_skips",
        "_stock_policy",
        "_club_round",
        "_action_limit",
    )

    rules: Rules
    seats: int
    opener: int
    seed: bytes
    hands: list[int]
    stock: list[int]
    pile: list[int]
    phase_code: int
    is_over: bool
    turn: int
    direction: int
    active: int
    pending_sevens: int
    draws_this_turn: int
    opened: list[bool]
    reshuffles: int
    actions: int
    last_drawn: tuple[int, ...]
    result: DealResult | None
    mask: int
    # The draw, pass and nomination bits of the legal-action cache key for the state now, or -1
    # when they depend on more than the state's counters (the opening, until_playable, the end):
    # then `_legal_key` works them out in full.
    _flags: int
    _fresh_flags: tuple[int, ...]  # by active suit: a new turn in the play phase
    _drawn_flags: tuple[int, ...]  # by active suit: after a draw on a normal turn
    _nominate: tuple[int, ...]  # by active suit: the nomination bits
    _draw_pass: tuple[int, ...]  # by `_situation`: the draw and pass bits
    _penalty_ends_turn: bool
    _ace_mode: int
    _ten_skips: int
    _stock_policy: int
    _club_round: bool
    _action_limit: int

    # -- construction and conversion ---------------------------------------------------------

    @classmethod
    def new(cls, rules: Rules, seats: int, opener: int, seed: bytes) -> FastDeal:
        """A fresh deal, shuffled and dealt as `state.new_deal` does (R-4, R-5, R-9)."""
        if not (2 <= seats <= rules.max_players and 0 <= opener < seats):
            return cls.from_state(new_deal(rules, seats, opener, seed))  # raises its RulesError
        deck = shuffled_pack_indices(seed)
        hands = [0] * seats
        dealt = rules.hand_size * seats
        bit = BITS.__getitem__
        for offset in range(seats):  # one card at a time clockwise from the opener
            hands[(opener + offset) % seats] = sum(map(bit, deck[offset:dealt:seats]))
        stock = deck[dealt:]
        stock.reverse()
        deal = cls.__new__(cls)
        deal._set_rules(rules)
        deal.seats = seats
        deal.opener = opener
        deal.seed = seed
        deal.hands = hands
        deal.stock = stock
        deal.pile = []
        deal.phase_code = OPENING_CODE
        deal.is_over = False
        deal.turn = opener
        deal.direction = 1
        deal.active = -1
        deal.pending_sevens = 0
        deal.draws_this_turn = 0
        deal.opened = [False] * seats
        deal.reshuffles = 0
        deal.actions = 0
        deal.last_drawn = ()
        deal.result = None
        deal.mask = CLUBS
        deal._flags = -1
        return deal

    @classmethod
    def from_state(cls, state: State) -> FastDeal:
        deal = cls.__new__(cls)
        deal._set_rules(state.rules)
        deal.seats = state.seats
        deal.opener = state.opener
        deal.seed = state.seed
        deal.hands = [mask_of(hand) for hand in state.hands]
        deal.stock = [int(c) for c in reversed(state.stock)]
        deal.pile = [int(c) for c in state.pile]
        deal.phase_code = _PHASE_CODES[state.phase]
        deal.is_over = deal.phase_code == DEAL_OVER_CODE
        deal.turn = -1 if state.turn is None else state.turn
        deal.direction = state.direction
        deal.active = -1 if state.active_suit is None else SUITS.index(state.active_suit)
        deal.pending_sevens = state.pending_sevens
        deal.draws_this_turn = state.draws_this_turn
        deal.opened = list(state.opened)
        deal.reshuffles = state.reshuffles
        deal.actions = state.actions
        deal.last_drawn = tuple(int(c) for c in state.last_drawn)
        deal.result = state.result
        deal._update_derived()
        return deal

    def _set_rules(self, rules: Rules) -> None:
        self.rules = rules
        compiled = _COMPILED_RULES.get(id(rules))
        if compiled is None or compiled[0] is not rules:
            self._compile_rules(rules)
            compiled = (
                rules,
                self._fresh_flags,
                self._drawn_flags,
                self._nominate,
                self._draw_pass,
                self._penalty_ends_turn,
                self._ace_mode,
                self._ten_skips,
                self._stock_policy,
                self._club_round,
                self._action_limit,
            )
            if len(_COMPILED_RULES) > 1000:
                _COMPILED_RULES.clear()
            _COMPILED_RULES[id(rules)] = compiled
        (
            _,
            self._fresh_flags,
            self._drawn_flags,
            self._nominate,
            self._draw_pass,
            self._penalty_ends_turn,
            self._ace_mode,
            self._ten_skips,
            self._stock_policy,
            self._club_round,
            self._action_limit,
        ) = compiled

    def _compile_rules(self, rules: Rules) -> None:
        """The rule options as the private fields the hot paths read."""
        nominate = self._nominate = _nomination_bits(rules)
        table = self._draw_pass = _draw_pass_table(rules)
        # `apply_action` and `_update_derived` write the flags of an Ace follow-up and of pending
        # sevens without the table: they hold whatever the rules.
        assert {table[_situation(ACE_FOLLOWUP_CODE, *s)] for s in _SITUATIONS} == {_PASS_BIT}
        assert {table[_situation(PLAY_CODE, True, *s[1:])] for s in _SITUATIONS} == {_DRAW_BIT}

        def normal_turn_flags(drawn: bool) -> tuple[int, ...]:
            """By active suit, the flags of a normal turn (play phase, no pending sevens), or -1
            where they depend on the playable cards or the stock (R-18 until_playable)."""
            bits = {table[_situation(PLAY_CODE, False, drawn, *s[2:])] for s in _SITUATIONS}
            if len(bits) > 1:
                return (-1, -1, -1, -1)
            (flags,) = bits
            return tuple(flags | n for n in nominate)

        self._fresh_flags = normal_turn_flags(False)
        self._drawn_flags = normal_turn_flags(True)
        self._penalty_ends_turn = rules.seven_penalty_ends_turn
        self._ace_mode = _ACE_MODES[rules.ace_mode]
        # Turn steps of a 10 with two players: 1 = no effect, 2 = acts as an 8.
        self._ten_skips = 2 if rules.two_player_reverse == "skip" else 1
        self._stock_policy = _STOCK_POLICIES[rules.stock_exhausted]
        self._club_round = rules.opening == "club_round"
        limit = rules.action_limit  # §9: only reshuffle has one
        self._action_limit = _NO_LIMIT if limit is None else limit

    def _update_derived(self) -> None:
        """Recompute `mask` and `_flags` from the phase, counters, top card and active suit."""
        phase = self.phase_code
        active = self.active
        if phase == OPENING_CODE:
            self.mask = CLUBS
        elif self.pending_sevens:
            self.mask = SEVENS  # any 7, no Jack
        elif self.pile and active >= 0:
            self.mask = LEGAL_ON[self.pile[-1] * 4 + active]
        else:
            self.mask = 0
        if phase in (OPENING_CODE, DEAL_OVER_CODE) or active < 0:
            self._flags = -1
        elif phase == ACE_FOLLOWUP_CODE:
            self._flags = _PASS_BIT | self._nominate[active]
        elif self.pending_sevens:
            self._flags = _DRAW_BIT
        elif self.draws_this_turn:
            self._flags = self._drawn_flags[active]
        else:
            self._flags = self._fresh_flags[active]

    def to_state(self) -> State:
        """The reference `State` equal to this deal."""
        return State(
            rules=self.rules,
            seats=self.seats,
            opener=self.opener,
            seed=self.seed,
            hands=tuple(tuple(PACK[c] for c in cards_of(hand)) for hand in self.hands),
            stock=tuple(PACK[c] for c in reversed(self.stock)),
            pile=tuple(PACK[c] for c in self.pile),
            phase=PHASE_NAMES[self.phase_code],
            turn=None if self.turn < 0 else self.turn,
            direction=self.direction,
            active_suit=None if self.active < 0 else SUITS[self.active],
            pending_sevens=self.pending_sevens,
            draws_this_turn=self.draws_this_turn,
            opened=tuple(self.opened),
            reshuffles=self.reshuffles,
            actions=self.actions,
            last_drawn=tuple(PACK[c] for c in self.last_drawn),
            result=self.result,
        )

    def copy(self) -> FastDeal:
        """An independent copy (for rollouts)."""
        other = FastDeal.__new__(FastDeal)
        other.rules = self.rules
        other.seats = self.seats
        other.opener = self.opener
        other.seed = self.seed
        other.hands = self.hands[:]
        other.stock = self.stock[:]
        other.pile = self.pile[:]
        other.phase_code = self.phase_code
        other.is_over = self.is_over
        other.turn = self.turn
        other.direction = self.direction
        other.active = self.active
        other.pending_sevens = self.pending_sevens
        other.draws_this_turn = self.draws_this_turn
        other.opened = self.opened[:]
        other.reshuffles = self.reshuffles
        other.actions = self.actions
        other.last_drawn = self.last_drawn
        other.result = self.result
        other.mask = self.mask
        other._flags = self._flags
        other._fresh_flags = self._fresh_flags
        other._drawn_flags = self._drawn_flags
        other._nominate = self._nominate
        other._draw_pass = self._draw_pass
        other._penalty_ends_turn = self._penalty_ends_turn
        other._ace_mode = self._ace_mode
        other._ten_skips = self._ten_skips
        other._stock_policy = self._stock_policy
        other._club_round = self._club_round
        other._action_limit = self._action_limit
        return other

    # -- public facts --------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        return PHASE_NAMES[self.phase_code]

    @property
    def active_suit(self) -> str | None:
        return None if self.active < 0 else SUITS[self.active]

    @property
    def top_card(self) -> int:
        """The top card's index, or -1 before the first play."""
        return self.pile[-1] if self.pile else -1

    @property
    def result_penalties(self) -> tuple[int, ...] | None:
        """The deal scores by seat once the deal is over (R-30, R-31), else None."""
        return None if self.result is None else self.result.penalties

    @property
    def hand_counts(self) -> tuple[int, ...]:
        return tuple(hand.bit_count() for hand in self.hands)

    @property
    def stock_count(self) -> int:
        return len(self.stock)

    def hand_cards(self, seat: int) -> list[int]:
        """Seat's cards as indices in canonical order."""
        return cards_of(self.hands[seat])

    # -- legal actions -------------------------------------------------------------------------

    def legal_actions(self) -> tuple[int, ...]:
        """Every legal action id of the seat on turn, in the order of docs/rules.md §10 (a shared
        immutable tuple); empty once the deal is over."""
        flags = self._flags
        if flags < 0:
            if self.is_over:
                return _NO_ACTIONS
            key = self._legal_key()
        else:
            key = (self.hands[self.turn] & self.mask) | flags
        try:
            return _ACTIONS_CACHE[key]
        except KeyError:
            return _build_actions(key)

    def _legal_key(self) -> int:
        """The legal-action cache key worked out in full from the phase and the rules."""
        phase = self.phase_code
        playable = self.hands[self.turn] & self.mask
        situation = phase << 4 | 2 if playable else phase << 4  # `_situation`, inlined
        if self.pending_sevens:
            situation |= 8
        if self.draws_this_turn:
            situation |= 4
        if self.stock:
            situation |= 1
        key = playable | self._draw_pass[situation]
        if phase == OPENING_CODE:
            return key  # the opening J♣ nominates nothing
        return key | self._nominate[self.active]

    # -- applying an action --------------------------------------------------------------------

    def apply_action(self, action: int) -> None:
        """Apply a legal action in place (legality is trusted, as `apply_legal` does)."""
        # Literal constants on this path (checked against the names at the end of the module):
        # a literal costs less than a global lookup.
        actions = self.actions = self.actions + 1
        if action < 52:  # JACK_ACTION_BASE: a card without a suit
            card = action
            suit = -1
        elif action == 68:  # DRAW_ACTION
            stock = self.stock
            # Flags above the bare draw bit: a normal turn in the play phase, no pending sevens.
            if self._flags > 1 << 52 and len(stock) > 1:
                card = stock.pop()
                self.hands[self.turn] |= 1 << card
                self.last_drawn = _SINGLES[card]
                self.draws_this_turn += 1
                self._flags = self._drawn_flags[self.active]
            else:
                self._draw()  # penalties, the opening, until_playable, the stock's last card
            if actions >= self._action_limit:
                self._check_limit()
            return
        elif action == 69:  # PASS_ACTION
            self.turn = (self.turn + self.direction) % self.seats
            self.phase_code = 1  # PLAY_CODE
            self.draws_this_turn = 0
            self.last_drawn = ()
            self._flags = self._fresh_flags[self.active]
            if actions >= self._action_limit:
                self._check_limit()
            return
        else:
            j = action - 52  # JACK_ACTION_BASE
            card = 13 * (j >> 2) + 9  # JACK_CARDS
            suit = j & 3
        # A play (R-13..R-16).
        seat = self.turn
        hands = self.hands
        hand = hands[seat] ^ (1 << card)
        hands[seat] = hand
        self.pile.append(card)
        self.last_drawn = ()
        if not hand:
            self._shed_win(seat, card)  # no effect of the winning card applies
            return
        if self.phase_code == 0:  # OPENING_CODE
            self._opening_play(seat)
        else:
            active = card // 13 if suit < 0 else suit
            self.active = active
            self.draws_this_turn = 0
            kind = CARD_KIND[card]
            if kind == 0:  # KIND_PLAIN (a Jack's nomination is in `active`)
                self.mask = LEGAL_ON[card * 4 + active]
                self.turn = (seat + self.direction) % self.seats
                self.phase_code = 1  # PLAY_CODE
                self._flags = self._fresh_flags[active]
            elif kind == 1:  # KIND_SEVEN, R-21, R-22
                self.pending_sevens += 1
                self.mask = SEVENS
                self.turn = (seat + self.direction) % self.seats
                self.phase_code = 1  # PLAY_CODE
                self._flags = 1 << 52  # _DRAW_BIT: take the penalty or answer with a 7
            elif kind == 2:  # KIND_EIGHT, R-24
                self.mask = LEGAL_ON[card * 4 + active]
                self.turn = (seat + 2 * self.direction) % self.seats
                self.phase_code = 1  # PLAY_CODE
                self._flags = self._fresh_flags[active]
            elif kind == 4:  # KIND_ACE, R-25
                self.mask = LEGAL_ON[card * 4 + active]
                mode = self._ace_mode
                if mode == FOLLOW_UP:
                    self.phase_code = ACE_FOLLOWUP_CODE  # same player, one more card
                    self._flags = _PASS_BIT | self._nominate[active]
                else:
                    self.phase_code = PLAY_CODE
                    self._flags = self._fresh_flags[active]
                    if mode == SKIP_NEXT:
                        self.turn = (seat + 2 * self.direction) % self.seats  # acts as an 8
            else:  # KIND_TEN, R-26
                self.mask = LEGAL_ON[card * 4 + active]
                self.phase_code = 1  # PLAY_CODE
                self._flags = self._fresh_flags[active]
                if self.seats == 2:
                    self.turn = (seat + self._ten_skips * self.direction) % 2
                else:
                    self.direction = direction = -self.direction
                    self.turn = (seat + direction) % self.seats
        if actions >= self._action_limit:
            self._check_limit()

    def _opening_play(self, seat: int) -> None:
        """R-11: the opening club has no effect; play passes to the left. R-12: club round."""
        opened = self.opened
        opened[seat] = True
        self.active = 0  # clubs
        if not self._club_round or all(opened):
            self.phase_code = PLAY_CODE
        self.turn = (seat + 1) % self.seats
        self.direction = 1
        self.draws_this_turn = 0
        self._update_derived()

    def _draw(self) -> None:
        """A draw (R-17, R-18) or the penalty draw (R-22, R-23), with stock exhaustion (R-29)
        and reshuffles (R-6) exactly as `transitions._take_cards`."""
        seat = self.turn
        k = self.pending_sevens
        count = self.rules.seven_penalty(k) if k else 1  # the whole penalty in one draw
        stock = self.stock
        exhausted = False
        if len(stock) > count:  # the stock outlasts the draw: no question of
            taken = stock[-count:]
            del stock[-count:]
            taken.reverse()
            self.hands[seat] |= sum(map(BITS.__getitem__, taken))
            self.last_drawn = tuple(taken)
        else:
            exhausted = self._take_last_cards(seat, count)
        if exhausted:
            self._stock_exhausted()
            return
        if k:
            self.pending_sevens = 0
            self.draws_this_turn = 0
            if self._penalty_ends_turn:
                self.turn = (seat + self.direction) % self.seats
                self.phase_code = PLAY_CODE
        else:
            self.draws_this_turn += 1
        self._update_derived()

    def _take_last_cards(self, seat: int, count: int) -> bool:
        """Take `count` cards from a stock that has at most that many, exactly as
        `transitions._take_cards` (R-29, R-6); whether the deal ends for want of cards."""
        stock = self.stock
        if not stock:
            # Only under end_when_draw_needed: a draw from the empty stock ends the deal.
            self.last_drawn = ()
            return True
        policy = self._stock_policy
        taken: list[int] = []
        exhausted = False
        while len(taken) < count:
            taken.append(stock.pop())
            if stock:
                continue
            if policy == END_WHEN_DRAW_NEEDED:
                exhausted = len(taken) < count  # a penalty the stock cannot cover
                break
            pile = self.pile
            if policy == RESHUFFLE and len(pile) > 1:
                self.reshuffles += 1  # the pile but its top card becomes the stock
                new_stock = shuffled(pile[:-1], self.seed, reshuffle_prefix(self.reshuffles))
                new_stock.reverse()
                stock.extend(new_stock)
                del pile[:-1]
                continue
            exhausted = True
            break
        self.hands[seat] |= mask_of(taken)
        self.last_drawn = tuple(taken)
        return exhausted

    def _check_limit(self) -> None:
        """§9: in reshuffle mode, reaching max_actions ends the deal as a stock exhaustion."""
        if not self.is_over:
            self._stock_exhausted()

    def _shed_win(self, seat: int, card: int) -> None:
        """R-28, R-31: the others score multiplier × the penalty values in their hands."""
        self.active = card // 13
        self._over(shed_result(seat, PACK[card], tuple(penalty_of(hand) for hand in self.hands)))

    def _stock_exhausted(self) -> None:
        """R-30: the lowest hand penalty wins and scores 0; the others score their penalty."""
        self._over(stock_exhausted_result(tuple(penalty_of(hand) for hand in self.hands)))

    def _over(self, result: DealResult) -> None:
        self.phase_code = DEAL_OVER_CODE
        self.is_over = True
        self.turn = -1
        self.pending_sevens = 0
        self.draws_this_turn = 0
        self.mask = 0
        self._flags = -1
        self.result = result


# The literals of `apply_action`.
assert (JACK_ACTION_BASE, DRAW_ACTION, PASS_ACTION, OPENING_CODE, PLAY_CODE) == (52, 68, 69, 0, 1)
assert tuple(13 * s + 9 for s in range(4)) == JACK_CARDS and _DRAW_BIT == 1 << 52
assert (KIND_PLAIN, KIND_SEVEN, KIND_EIGHT, KIND_ACE, KIND_TEN) == (0, 1, 2, 4, 3)
assert all(flags > _DRAW_BIT for flags in _NOMINATE_NOT + (_NOMINATE_ANY,))
