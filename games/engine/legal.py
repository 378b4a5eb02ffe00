"""Legal moves of the seat on turn, in the fixed order of docs/rules.md §10:
plays by canonical card index then suit order C D H S, then draw, then pass."""

from __future__ import annotations

from functools import cache

from .cards import JACK, PACK, SEVEN, SUITS, Card
from .errors import IllegalMove
from .moves import DRAW, DRAW_MOVE, PASS_MOVE, PLAY, Move
from .state import ACE_FOLLOWUP, DEAL_OVER, OPENING, State


def can_play_on(card: Card, top: Card, active_suit: str | None) -> bool:
    """R-14 and R-16: a card's legality on a top card, sevens aside."""
    if top.rank == JACK:
        return card.rank != JACK and card.suit == active_suit
    return card.rank == JACK or card.suit == top.suit or card.rank == top.rank


@cache
def _playable_on(top: Card, active_suit: str | None) -> frozenset[Card]:
    """The cards of the pack `can_play_on` allows on `top` with `active_suit` (at most 52 × 5
    sets; a turn then tests its hand against one set instead of calling the rule per card)."""
    return frozenset(c for c in PACK if can_play_on(c, top, active_suit))


def playable_cards(state: State) -> tuple[Card, ...]:
    """Cards of the seat on turn that may be played now (Jack nominations not expanded)."""
    if state.turn is None or state.phase == DEAL_OVER:
        return ()
    hand = state.hands[state.turn]
    if state.phase == OPENING:
        return tuple(c for c in hand if c.suit == "C")
    if state.pending_sevens:
        return tuple(c for c in hand if c.rank == SEVEN)  # any 7, no Jack
    top = state.top_card
    assert top is not None
    allowed = _playable_on(top, state.active_suit)
    return tuple(c for c in hand if c in allowed)


def jack_suits(state: State) -> tuple[str, ...]:
    """Suits a Jack may nominate now (R-19, option jack_nomination)."""
    if state.rules.jack_nomination == "different_suit":
        return tuple(s for s in SUITS if s != state.active_suit)
    return SUITS


def can_draw(state: State, has_play: bool) -> bool:
    """R-17, R-18; with pending sevens a draw takes the penalty and is always open (R-22)."""
    if state.phase == ACE_FOLLOWUP:
        return False  # no draw during a follow-up
    if state.phase == OPENING:
        return not has_play  # no draw while holding a club
    if state.pending_sevens:
        return True
    policy = state.rules.draw_policy
    if policy == "one_then_pass":
        return state.draws_this_turn == 0
    if policy == "until_playable":
        return not has_play
    return True


def can_pass(state: State, has_play: bool) -> bool:
    if state.phase == ACE_FOLLOWUP:
        return True  # end the follow-up
    if state.phase == OPENING or state.pending_sevens or state.draws_this_turn == 0:
        return False  # pass only after a draw this turn
    if state.rules.draw_policy == "until_playable":
        return not has_play and not state.stock  # no pass unless the stock ran out
    return True


def legal_moves(state: State) -> tuple[Move, ...]:
    """Every legal action of the seat on turn; empty once the deal is over."""
    if state.turn is None or state.phase == DEAL_OVER:
        return ()
    playable = playable_cards(state)
    moves: list[Move] = []
    nominate = state.phase != OPENING  # the opening J♣ nominates nothing
    for card in playable:
        if card.rank == JACK and nominate:
            moves.extend(Move.play(card, suit) for suit in jack_suits(state))
        else:
            moves.append(Move.play(card))
    has_play = bool(playable)
    if can_draw(state, has_play):
        moves.append(DRAW_MOVE)
    if can_pass(state, has_play):
        moves.append(PASS_MOVE)
    return tuple(moves)


def is_legal(state: State, move: Move) -> bool:
    return move in legal_moves(state)


def refusal(state: State, move: Move, legal: tuple[Move, ...]) -> IllegalMove:
    """Why `move`, which is not in `legal` (the seat on turn's legal moves), is against the rules
    now: the error names the rule that forbids it and says what the rule asks instead."""
    turn = state.turn
    if turn is None or state.phase == DEAL_OVER:
        return IllegalMove("the deal is over", legal_moves=legal)
    opening_rule = "R-12" if state.rules.opening == "club_round" else "R-10"
    has_play = bool(playable_cards(state))
    if move.action == PLAY and move.card is not None:
        card = move.card
        if card not in state.hands[turn]:
            return IllegalMove(
                "%(card)s is not in your hand", {"card": card.code}, legal_moves=legal
            )
        if state.phase == OPENING:
            if card.suit != "C":
                return IllegalMove(
                    "the first card must be a club", legal_moves=legal, rule=opening_rule
                )
            return IllegalMove(
                "the opening Jack of clubs asks for no suit", legal_moves=legal, rule="R-11"
            )
        if state.pending_sevens:
            return IllegalMove(
                "sevens are pending: play a 7 or take the penalty (draw)",
                legal_moves=legal,
                rule="R-22",
            )
        top = state.top_card
        if top is not None and not can_play_on(card, top, state.active_suit):
            if top.rank == JACK and card.rank == JACK:
                return IllegalMove("a Jack may not go on a Jack", legal_moves=legal, rule="R-16")
            if top.rank == JACK:
                return IllegalMove(
                    "the Jack asked for %(suit)s: play a card of that suit that is not a Jack",
                    {"suit": state.active_suit},
                    legal_moves=legal,
                    rule="R-14",
                )
            return IllegalMove(
                "%(card)s has neither the suit nor the rank of %(top)s and is not a Jack",
                {"card": card.code, "top": top.code},
                legal_moves=legal,
                rule="R-14",
            )
        if card.rank == JACK and move.suit is None:
            return IllegalMove("a Jack asks for a suit: send it", legal_moves=legal, rule="R-19")
        if card.rank == JACK and move.suit not in jack_suits(state):
            return IllegalMove(
                "a Jack must ask for a suit other than %(suit)s, the one in play",
                {"suit": state.active_suit},
                legal_moves=legal,
                rule="R-19",
            )
    elif move.action == DRAW:
        if state.phase == ACE_FOLLOWUP:
            return IllegalMove(
                "no draw after an Ace: play one more card on it or pass",
                legal_moves=legal,
                rule="R-25",
            )
        if state.phase == OPENING:
            return IllegalMove("you hold a club: play it", legal_moves=legal, rule=opening_rule)
        if state.rules.draw_policy == "one_then_pass":
            return IllegalMove(
                "one draw a turn: play a card or pass", legal_moves=legal, rule="R-18"
            )
        if state.rules.draw_policy == "until_playable" and has_play:
            return IllegalMove(
                "you hold a card you can play: play it", legal_moves=legal, rule="R-18"
            )
    else:
        if state.phase == OPENING and has_play:
            return IllegalMove("you hold a club: play it", legal_moves=legal, rule=opening_rule)
        if state.phase == OPENING:
            return IllegalMove(
                "the first card must be a club: play one or draw until one comes",
                legal_moves=legal,
                rule=opening_rule,
            )
        if state.pending_sevens:
            return IllegalMove(
                "sevens are pending: play a 7 or take the penalty (draw)",
                legal_moves=legal,
                rule="R-22",
            )
        if state.draws_this_turn == 0:
            # R-17 says it of `free`; R-18's policies pass only after their draw too.
            rule = "R-17" if state.rules.draw_policy == "free" else "R-18"
            return IllegalMove(
                "a pass comes only after a draw this turn", legal_moves=legal, rule=rule
            )
        if state.rules.draw_policy == "until_playable":
            if has_play:
                return IllegalMove(
                    "you hold a card you can play: play it", legal_moves=legal, rule="R-18"
                )
            return IllegalMove(
                "draw until a card you can play comes: no pass while the stock lasts",
                legal_moves=legal,
                rule="R-18",
            )
    return IllegalMove("%(move)s is not legal now", {"move": move}, legal_moves=legal)
