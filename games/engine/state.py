"""The state of one deal: an immutable value with a JSON form (`to_json`, `State.from_json`;
hidden cards included, so it stays on the server; players see only `observe`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any

from .cards import PACK, SUITS, Card, codes, from_codes
from .errors import RulesError
from .rules import Rules
from .shuffle import shuffled_pack

OPENING, PLAY_PHASE, ACE_FOLLOWUP, DEAL_OVER = "opening", "play", "ace_followup", "deal_over"
PHASES = (OPENING, PLAY_PHASE, ACE_FOLLOWUP, DEAL_OVER)
SHED, STOCK_EXHAUSTED = "shed", "stock_exhausted"


@dataclass(frozen=True, slots=True)
class DealResult:
    """How a deal ended (R-28..R-31): `penalties` are the deal scores by seat."""

    winners: tuple[int, ...]
    reason: str
    last_card: Card | None
    multiplier: int
    penalties: tuple[int, ...]
    hand_penalties: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "winners": list(self.winners),
            "reason": self.reason,
            "last_card": self.last_card.code if self.last_card is not None else None,
            "multiplier": self.multiplier,
            "penalties": list(self.penalties),
            "hand_penalties": list(self.hand_penalties),
        }

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> DealResult:
        last = body["last_card"]
        return cls(
            winners=tuple(body["winners"]),
            reason=body["reason"],
            last_card=Card.from_code(last) if last is not None else None,
            multiplier=body["multiplier"],
            penalties=tuple(body["penalties"]),
            hand_penalties=tuple(body["hand_penalties"]),
        )


@dataclass(frozen=True, slots=True)
class State:
    """Everything about a deal in progress.

    `hands[s]` is seat s's hand in canonical order; `stock[0]` is the top of the stock;
    `pile[-1]` is the top card. `opened[s]` says seat s has played its opening club (R-10, R-12).
    `last_drawn` holds the cards taken by the action that produced this state (for the move log).
    """

    rules: Rules
    seats: int
    opener: int
    seed: bytes
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    pile: tuple[Card, ...]
    phase: str
    turn: int | None
    direction: int = 1
    active_suit: str | None = None
    pending_sevens: int = 0
    draws_this_turn: int = 0
    opened: tuple[bool, ...] = ()
    reshuffles: int = 0
    actions: int = 0
    last_drawn: tuple[Card, ...] = ()
    result: DealResult | None = None

    @property
    def dealer(self) -> int:
        """The seat to the opener's right (R-8)."""
        return (self.opener - 1) % self.seats

    @property
    def top_card(self) -> Card | None:
        return self.pile[-1] if self.pile else None

    @property
    def is_over(self) -> bool:
        return self.phase == DEAL_OVER

    def hand(self, seat: int) -> tuple[Card, ...]:
        return self.hands[seat]

    def to_json(self) -> dict[str, Any]:
        """The whole state, hidden cards and seed included (server side only: players see
        `observe`)."""
        return {
            "rules": self.rules.to_json(),
            "seats": self.seats,
            "opener": self.opener,
            "seed": self.seed.hex(),
            "hands": [codes(hand) for hand in self.hands],
            "stock": codes(self.stock),
            "pile": codes(self.pile),
            "phase": self.phase,
            "turn": self.turn,
            "direction": self.direction,
            "active_suit": self.active_suit,
            "pending_sevens": self.pending_sevens,
            "draws_this_turn": self.draws_this_turn,
            "opened": list(self.opened),
            "reshuffles": self.reshuffles,
            "actions": self.actions,
            "last_drawn": codes(self.last_drawn),
            "result": self.result.to_json() if self.result is not None else None,
        }

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> State:
        result = body.get("result")
        return cls(
            rules=Rules.from_json(body["rules"]),
            seats=body["seats"],
            opener=body["opener"],
            seed=bytes.fromhex(body["seed"]),
            hands=tuple(from_codes(hand) for hand in body["hands"]),
            stock=from_codes(body["stock"]),
            pile=from_codes(body["pile"]),
            phase=body["phase"],
            turn=body["turn"],
            direction=body["direction"],
            active_suit=body["active_suit"],
            pending_sevens=body["pending_sevens"],
            draws_this_turn=body["draws_this_turn"],
            opened=tuple(body["opened"]),
            reshuffles=body["reshuffles"],
            actions=body["actions"],
            last_drawn=from_codes(body["last_drawn"]),
            result=DealResult.from_json(result) if result is not None else None,
        )


_FIELDS = tuple(f.name for f in fields(State))
_FIELDS_OF = attrgetter(*_FIELDS)
_INDEX = {name: i for i, name in enumerate(_FIELDS)}


def evolve(state: State, **changes: Any) -> State:
    """`dataclasses.replace(state, **changes)` on the moves' path: the fields read by one
    attrgetter and the changes set by position, without replace's checks of every field on
    each call (a fifth off the 10,000-deal runs); a name that is no field is a KeyError."""
    values = list(_FIELDS_OF(state))
    for name, value in changes.items():
        values[_INDEX[name]] = value
    return State(*values)


def opener_for_deal(number: int, seats: int) -> int:
    """The opener of deal `number` (1-based) is seat (number − 1) mod n (R-8)."""
    return (number - 1) % seats


def dealer_for(opener: int, seats: int) -> int:
    return (opener - 1) % seats


def _check_seats(rules: Rules, seats: int) -> None:
    if not 2 <= seats <= rules.max_players:
        raise RulesError(
            "seats",
            seats,
            "a deal has 2..%(most)d seats, not %(seats)d",
            {"most": rules.max_players, "seats": seats},
        )


def new_deal(rules: Rules, seats: int, opener: int, seed: bytes) -> State:
    """Shuffle with the seed (R-4) and deal one card at a time clockwise from the opener (R-5)."""
    _check_seats(rules, seats)
    if not 0 <= opener < seats:
        raise RulesError("opener", opener, "opener must be a seat 0..%(last)d", {"last": seats - 1})
    deck = shuffled_pack(seed)
    dealt: list[list[Card]] = [[] for _ in range(seats)]
    position = 0
    for _ in range(rules.hand_size):
        for offset in range(seats):
            dealt[(opener + offset) % seats].append(deck[position])
            position += 1
    return State(
        rules=rules,
        seats=seats,
        opener=opener,
        seed=seed,
        hands=tuple(tuple(sorted(hand)) for hand in dealt),
        stock=tuple(deck[position:]),
        pile=(),
        phase=OPENING,
        turn=opener,
        opened=(False,) * seats,
    )


def _as_cards(value: Iterable[str] | str) -> tuple[Card, ...]:
    if isinstance(value, str):
        value = value.split()
    return tuple(Card.from_code(code) for code in value)


def deal_from_codes(
    hands: Sequence[Iterable[str] | str],
    top: str | None = None,
    stock: Iterable[str] | str = (),
    *,
    turn: int = 0,
    rules: Rules | None = None,
    opener: int = 0,
    active_suit: str | None = None,
    pending_sevens: int = 0,
    direction: int = 1,
    draws_this_turn: int = 0,
    phase: str | None = None,
    pile: Iterable[str] | str = (),
    seed: bytes = bytes(32),
) -> State:
    """A literal position for scenario tests: `deal_from_codes(["7H JS", "2C"], top="6C")`.

    With `top` given, the opening is over and play is on `turn`; without it the deal is in its
    opening with the opener on turn. `pile` lists cards under the top card, oldest first.
    """
    rules = rules or Rules()
    seats = len(hands)
    _check_seats(rules, seats)
    pile_cards = _as_cards(pile) + (_as_cards(top) if top else ())
    if phase is None:
        phase = PLAY_PHASE if top else OPENING
    if active_suit is None and top:
        active_suit = Card.from_code(top).suit
    state = State(
        rules=rules,
        seats=seats,
        opener=opener,
        seed=seed,
        hands=tuple(tuple(sorted(_as_cards(hand))) for hand in hands),
        stock=_as_cards(stock),
        pile=pile_cards,
        phase=phase,
        turn=turn if phase != DEAL_OVER else None,
        direction=direction,
        active_suit=active_suit,
        pending_sevens=pending_sevens,
        draws_this_turn=draws_this_turn,
        opened=(phase != OPENING,) * seats,
    )
    everything = [c for hand in state.hands for c in hand] + list(state.stock) + list(state.pile)
    if len(set(everything)) != len(everything):
        raise ValueError("a card appears twice in the position")
    return state


def all_cards(state: State) -> list[Card]:
    """Every card of the state, wherever it lies (for conservation checks)."""
    return [c for hand in state.hands for c in hand] + list(state.stock) + list(state.pile)


assert len(PACK) == 52 and len(SUITS) == 4
