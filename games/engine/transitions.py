"""Applying a move: `apply(state, move)` validates and returns the next state.

The private helpers below trust their caller: the move is legal in the state."""

from __future__ import annotations

from .cards import ACE, EIGHT, JACK, SEVEN, TEN, Card, hand_penalty
from .errors import NotYourTurn
from .legal import legal_moves, refusal
from .moves import DRAW, PASS, Move
from .rules import Rules
from .scoring import shed_result, stock_exhausted_result
from .shuffle import reshuffle_prefix, shuffled
from .state import (
    ACE_FOLLOWUP,
    DEAL_OVER,
    OPENING,
    PLAY_PHASE,
    DealResult,
    State,
    evolve,
    new_deal,
)


def apply(state: State, move: Move, seat: int | None = None) -> State:
    """The state after `move` by the seat on turn (or by `seat`, which must be on turn)."""
    if seat is not None and seat != state.turn:
        raise NotYourTurn(seat, state.turn)
    legal = legal_moves(state)
    if move not in legal:
        raise refusal(state, move, legal)
    return apply_legal(state, move)


def apply_legal(state: State, move: Move) -> State:
    """`apply` without validation: the caller guarantees `move in legal_moves(state)`."""
    if move.action == DRAW:
        after = _draw(state)
    elif move.action == PASS:
        after = _end_turn(state, _next_seat(state, state.turn))
    else:
        assert move.card is not None
        after = _play(state, move.card, move.suit)
    after = evolve(after, actions=state.actions + 1)
    if move.action != DRAW and after.last_drawn:
        after = evolve(after, last_drawn=())
    limit = state.rules.action_limit
    if limit is not None and after.actions >= limit and not after.is_over:
        after = _stock_exhausted(after)  # §9: the max_actions bound ends the deal
    return after


def replay(rules: Rules, seats: int, opener: int, seed: bytes, moves: list[Move]) -> State:
    """Rebuild a deal from its seed and move log; raises if any move is not legal."""
    state = new_deal(rules, seats, opener, seed)
    for move in moves:
        state = apply(state, move)
    return state


def _next_seat(state: State, seat: int | None, steps: int = 1, direction: int | None = None) -> int:
    assert seat is not None
    d = state.direction if direction is None else direction
    return (seat + d * steps) % state.seats


def _end_turn(state: State, turn: int, **changes: object) -> State:
    return evolve(state, turn=turn, phase=PLAY_PHASE, draws_this_turn=0, **changes)


def _take_cards(state: State, count: int) -> tuple[State, tuple[Card, ...], bool]:
    """Take up to `count` cards from the stock one at a time (R-29, R-6).

    Returns the state with the stock (and pile, after a reshuffle) updated, the cards taken and
    whether the deal ends for want of cards: the stock ran out for good, or (end_when_draw_needed)
    it could not cover the draw.
    """
    policy = state.rules.stock_exhausted
    stock = list(state.stock)
    pile = state.pile
    reshuffles = state.reshuffles
    taken: list[Card] = []
    if not stock:
        # Only reachable under end_when_draw_needed: a draw from the empty stock ends the deal.
        return state, (), True
    exhausted = False
    while len(taken) < count:
        taken.append(stock.pop(0))
        if stock:
            continue
        if policy == "end_when_draw_needed":
            # play goes on until someone must draw from the empty stock; a penalty the
            # stock cannot cover ends the deal once the player has taken what is left.
            exhausted = len(taken) < count
            break
        if policy == "reshuffle" and len(pile) > 1:
            reshuffles += 1  # the pile but its top card becomes the stock
            stock = shuffled(pile[:-1], state.seed, reshuffle_prefix(reshuffles))
            pile = pile[-1:]
            continue
        exhausted = True  # end_immediately, or nothing to reshuffle
        break
    after = evolve(state, stock=tuple(stock), pile=pile, reshuffles=reshuffles)
    return after, tuple(taken), exhausted


def _add_to_hand(state: State, seat: int, new_cards: tuple[Card, ...]) -> State:
    hands = list(state.hands)
    hands[seat] = tuple(sorted(hands[seat] + new_cards))
    return evolve(state, hands=tuple(hands), last_drawn=new_cards)


def _draw(state: State) -> State:
    seat = state.turn
    assert seat is not None
    k = state.pending_sevens
    count = state.rules.seven_penalty(k) if k else 1  # the whole penalty in one draw
    after, taken, exhausted = _take_cards(state, count)
    after = _add_to_hand(after, seat, taken)
    if exhausted:
        return _stock_exhausted(after)
    if k:
        after = evolve(after, pending_sevens=0)
        if state.rules.seven_penalty_ends_turn:
            return _end_turn(after, _next_seat(after, seat))
        return evolve(after, draws_this_turn=0)  # R-23 option: a normal turn on the spent 7
    return evolve(after, draws_this_turn=state.draws_this_turn + 1)


def _skip(state: State, seat: int) -> int:
    """R-24: the next player misses their turn; with two players the same seat moves again."""
    return _next_seat(state, seat, steps=2)


def _play(state: State, card: Card, suit: str | None) -> State:
    seat = state.turn
    assert seat is not None
    hands = list(state.hands)
    hands[seat] = tuple(c for c in hands[seat] if c != card)
    after = evolve(state, hands=tuple(hands), pile=state.pile + (card,), last_drawn=())
    if not hands[seat]:
        return _shed_win(after, seat, card)  # no effect of the winning card applies
    if state.phase == OPENING:
        return _opening_play(after, seat)
    active = suit if card.rank == JACK and suit is not None else card.suit
    after = evolve(after, active_suit=active)
    rank = card.rank
    rules = state.rules
    if rank == SEVEN:
        # one more pending seven, answered or not.
        return _end_turn(after, _next_seat(after, seat), pending_sevens=state.pending_sevens + 1)
    if rank == EIGHT:
        return _end_turn(after, _skip(after, seat))
    if rank == TEN:
        if state.seats == 2:
            if rules.two_player_reverse == "skip":
                return _end_turn(after, _skip(after, seat))  # R-26 option: acts as an 8
            return _end_turn(after, _next_seat(after, seat))  # no effect with two
        direction = -state.direction
        return _end_turn(after, _next_seat(after, seat, direction=direction), direction=direction)
    if rank == ACE:
        if rules.ace_mode == "follow_up":
            return evolve(after, phase=ACE_FOLLOWUP, draws_this_turn=0)
        if rules.ace_mode == "extra_turn":
            return _end_turn(after, seat)
        return _end_turn(after, _skip(after, seat))  # skip_next: as an 8
    return _end_turn(after, _next_seat(after, seat))


def _opening_play(state: State, seat: int) -> State:
    """R-11: the opening club has no effect; play passes to the left. R-12: club round."""
    opened = list(state.opened)
    opened[seat] = True
    phase = PLAY_PHASE if state.rules.opening == "opener_only" or all(opened) else OPENING
    return evolve(
        state,
        opened=tuple(opened),
        active_suit="C",
        phase=phase,
        turn=(seat + 1) % state.seats,
        direction=1,
        draws_this_turn=0,
    )


def _shed_win(state: State, seat: int, card: Card) -> State:
    """R-28, R-31: the others score multiplier × the penalty values in their hands."""
    result = shed_result(seat, card, tuple(hand_penalty(hand) for hand in state.hands))
    return _over(state, result, active_suit=card.suit)


def _stock_exhausted(state: State) -> State:
    """R-30: the lowest hand penalty wins and scores 0; the others score their hand penalty."""
    return _over(state, stock_exhausted_result(tuple(hand_penalty(hand) for hand in state.hands)))


def _over(state: State, result: DealResult, **changes: object) -> State:
    return evolve(
        state,
        phase=DEAL_OVER,
        turn=None,
        pending_sevens=0,
        draws_this_turn=0,
        result=result,
        **changes,
    )
