"""The opponent model of the inference: the other seats choose as the reference bot does.

Beyond the facts (`inference`), each decision of another seat says which hands would have
chosen as it did. The model takes the other seats to play as `greedy` (the search's rollouts
already do), but for a move now and then: the weight of a sampled history is `miss` to the power
of the decisions where greedy, holding that history's hand then, would have chosen otherwise.
With `miss` = 0 it is a fact of its own; with `miss` = 1 it says nothing. A seat that does not
play like greedy is still sampled (its deviations only cost weight), and once its facts
contradict (`inference`) the model leaves it; against greedy itself it reads what the choice
of each card says (a player who sheds a 3 of hearts holds no dearer heart of that suit's
length, which played a Jack nominated the suit it holds most of).

`Decision`s are read from the log once per move; `agrees(decision, hand)` replays greedy's
choice with the seat's hand at that moment (`rollout.rollout_action`, the bitmask twin of
`greedy.greedy_move`); a forced move tells nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..cards import JACK, PACK, SUITS
from ..fast import DRAW_ACTION, JACK_ACTION_BASE, PASS_ACTION, PHASE_NAMES, move_to_action
from ..history import LoggedMove
from ..legal import can_draw, can_pass, jack_suits
from ..rules import Rules
from ..state import OPENING, PLAY_PHASE, State
from ..tables import cards_of
from .rollout import RolloutTables, rollout_action


@dataclass(frozen=True, slots=True)
class Decision:
    """A move of another seat, with what its legal moves depended on besides its hand."""

    time: int  # log index
    seat: int
    action: int  # the action id it played (fast.py's encoding)
    playable: int  # the cards that were playable (Jacks included where legal)
    nominations: tuple[int, ...]  # suit indices a Jack could name (none in the opening)
    draw_pass: tuple[tuple[bool, bool], tuple[bool, bool]]  # by has_play: (can draw, can pass)
    phase_code: int
    pending_sevens: int
    draws_this_turn: int
    direction: int
    next_count: int  # the next seat's card count (greedy attacks when it is low)
    played_before: int  # the cards the seat played since `since` (of `decisions_of`) until then


class _View:
    """The position of one decision as `rollout_action` reads it (a `rollout.TurnView`)."""

    __slots__ = (
        "turn",
        "hands",
        "phase_code",
        "pending_sevens",
        "draws_this_turn",
        "direction",
        "seats",
    )

    def __init__(self, decision: Decision, hand: int, seats: int) -> None:
        self.turn = decision.seat
        self.seats = seats
        self.direction = decision.direction
        hands = [0] * seats
        hands[(decision.seat + decision.direction) % seats] = (1 << decision.next_count) - 1
        hands[decision.seat] = hand
        self.hands = hands
        self.phase_code = decision.phase_code
        self.pending_sevens = decision.pending_sevens
        self.draws_this_turn = decision.draws_this_turn


def decisions_of(
    log: Sequence[LoggedMove], rules: Rules, observer: int, since: int, playable: Sequence[int]
) -> list[Decision]:
    """The decisions of the seats other than `observer` after log index `since`; `playable[t]`
    is the mask of cards that were playable at log index t (`inference.playable_mask`)."""
    seats = len(log[0].before.hand_counts) if log else 0
    probe = State(rules, 2, 0, b"", ((), ()), (), (), PLAY_PHASE, 0)
    out = []
    played = [0] * seats
    for time in range(max(since + 1, 0), len(log)):
        entry = log[time]
        if entry.seat == observer:
            continue
        before = entry.before
        state = replace(
            probe,
            phase=before.phase,
            pending_sevens=before.pending_sevens,
            draws_this_turn=before.draws_this_turn,
            active_suit=before.active_suit,
            stock=PACK[:1] if before.stock_count else (),
        )
        nominations: tuple[int, ...] = ()
        if before.phase != OPENING:
            nominations = tuple(SUITS.index(s) for s in jack_suits(state))
        draw_pass = (
            (can_draw(state, False), can_pass(state, False)),
            (can_draw(state, True), can_pass(state, True)),
        )
        seat = entry.seat
        action = move_to_action(entry.move)
        out.append(
            Decision(
                time=time,
                seat=seat,
                action=action,
                playable=playable[time],
                nominations=nominations,
                draw_pass=draw_pass,
                phase_code=PHASE_NAMES.index(before.phase),
                pending_sevens=before.pending_sevens,
                draws_this_turn=before.draws_this_turn,
                direction=before.direction,
                next_count=before.hand_counts[(seat + before.direction) % seats],
                played_before=played[seat],
            )
        )
        if entry.move.card is not None:
            played[seat] |= 1 << int(entry.move.card)
    return out


def legal_actions(decision: Decision, hand: int) -> tuple[int, ...]:
    """The legal action ids of the decision's seat holding `hand`, in the order of docs/rules.md
    §10 (as `FastDeal.legal_actions` lists them)."""
    playable = hand & decision.playable
    actions: list[int] = []
    for card in cards_of(playable):
        if card % 13 == JACK and decision.nominations:
            base = JACK_ACTION_BASE + 4 * (card // 13)
            actions.extend(base + suit for suit in decision.nominations)
        else:
            actions.append(card)
    draw, passes = decision.draw_pass[bool(playable)]
    if draw:
        actions.append(DRAW_ACTION)
    if passes:
        actions.append(PASS_ACTION)
    return tuple(actions)


def agrees(decision: Decision, hand: int, seats: int, tables: RolloutTables) -> bool:
    """Whether greedy holding `hand` would have played the decision's move (a forced move
    always agrees)."""
    legal = legal_actions(decision, hand)
    if len(legal) < 2:
        return True
    return rollout_action(_View(decision, hand, seats), legal, tables) == decision.action


def hand_at(slots: Sequence[tuple[int, int]], decision: Decision) -> int:
    """The hand of the decision's seat just before it, in the arrangement `slots` ((time,
    cards) of each slot of that seat): the definition the inference's weight walks slot by
    slot (`HiddenCards._seat_likelihood`; tests hold the two equal)."""
    hand = 0
    time = decision.time
    for since, cards in slots:
        if since < time:
            hand |= cards
    return hand & ~decision.played_before
