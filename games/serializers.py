"""Response shapes of the match routes (docs/api.md): the serializer classes that validate
bodies and document every shape in the schema, and the functions that build each response from
the rows the selectors read (HackSoft's OutputSerializer, written as plain functions where a
DRF serializer would cost the hot routes its per-field overhead).

A per-seat view is built from `engine.observe` only, a spectator's public view from
`engine.observe_public` only; the public objects (`match_summary`,
`deal_reveal`, the move log's `move_entry`) hold no card but the seat's own or a finished
deal's (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema_serializer
from rest_framework import serializers
from rest_framework.settings import api_settings

from games import engine
from pisyedili_api.serializers import body_fields_check

from .models import Deal, Invitation, Match, Move
from .selectors import shared_deals_pending

CARD_PATTERN = r"^(?:[2-9]|10|[JQKAjqka])[CDHScdhs]$"


# ---- shapes (validation and the schema) ----


class SeatPlayerSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    display_name = serializers.CharField()
    is_bot = serializers.BooleanField()


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player = SeatPlayerSerializer(allow_null=True)
    total = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True)
    resigned = serializers.BooleanField(
        help_text="Its person resigned: the reference bot plays the seat, placed last."
    )
    absent = serializers.BooleanField(
        help_text="Resigned by the turn clock: it played `TURN_CLOCK_RESIGN_AFTER` of the"
        " person's turns in a row (docs/rules.md, Server policies)."
    )


DEAL_STATUS_HELP = (
    "`active` while it is played; `over` once it has ended by the rules; `abandoned`, for good,"
    " when its match stopped while it was played (no result, never scored)."
)


class DealSummarySerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Deal.Status.values, help_text=DEAL_STATUS_HELP)
    winners = serializers.ListField(child=serializers.IntegerField())
    reason = serializers.ChoiceField(choices=["shed", "stock_exhausted"], allow_null=True)
    penalties = serializers.ListField(child=serializers.IntegerField())


class InvitedPlayerSerializer(serializers.Serializer):
    class Meta:
        ref_name = "InvitedPlayer"

    id = serializers.UUIDField()
    username = serializers.CharField()
    display_name = serializers.CharField()


class InvitationSerializer(serializers.Serializer):
    class Meta:
        ref_name = "MatchInvitation"

    player = InvitedPlayerSerializer()
    status = serializers.ChoiceField(
        choices=Invitation.Status.values,
        help_text="`pending` until accepted, declined, or expired (past `expires_at`, or the"
        " match no longer waiting for players).",
    )
    expires_at = serializers.DateTimeField()
    answered_at = serializers.DateTimeField(allow_null=True)


class MatchSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=Match.Status.values)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    deals_total = serializers.IntegerField()
    current_deal = serializers.IntegerField(allow_null=True)
    version = serializers.IntegerField()
    rules = serializers.DictField()
    seats = SeatSerializer(many=True)
    deals = DealSummarySerializer(many=True)
    turn_seconds = serializers.IntegerField(allow_null=True)
    turn_deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the person on turn must have moved (turn clock)."
    )
    spectators = serializers.ChoiceField(
        choices=Match.Spectators.values,
        help_text="Who may watch: `public`, anyone (the public view); `none`, seats only.",
    )
    open_seats = serializers.IntegerField(help_text="Seats without a player.")
    creator = serializers.UUIDField(
        help_text="The player who may cancel it while it waits: who created it, or whom they"
        " handed it to by leaving (the person in the lowest seat)."
    )
    cancel_reason = serializers.ChoiceField(
        choices=["cancelled", "expired"],
        allow_null=True,
        help_text="Why a cancelled match never started: its creator cancelled it, or nobody"
        " joined within MATCH_WAITING_TTL. Null otherwise.",
    )
    rematch_of = serializers.UUIDField(
        allow_null=True, help_text="The finished match this one is the rematch of."
    )
    next_match = serializers.UUIDField(
        allow_null=True, help_text="This match's rematch, once someone has asked for it."
    )
    private = serializers.BooleanField(
        help_text="A private table: shown only to its seats, its creator and its invitees."
    )
    join_code = serializers.CharField(
        allow_null=True,
        help_text="A private match's join code (`…/join` with `code`): shown to its creator"
        " only; null for anyone else and on a public match.",
    )
    invitations = InvitationSerializer(
        many=True, help_text="A private match's invitations, oldest first; empty on a public one."
    )


class MoveBodySerializer(serializers.Serializer):
    """A move (docs/rules.md §10): an `action`; a play names its `card`, and a Jack may
    nominate a `suit`."""

    # The fields document the move; validating it is reading it with `engine.Move.from_json`,
    # whose InvalidMove is 400 `invalid_move` naming the field (pisyedili_api.errors).
    # Validated data: `move` (engine.Move) and `move_body` (the action, card and suit as sent,
    # which an Idempotency-Key's hash covers). A subclass checks its own fields of the body in
    # `validate_body` first.

    action = serializers.ChoiceField(choices=["play", "draw", "pass"])
    card = serializers.RegexField(CARD_PATTERN, required=False, allow_null=True)
    suit = serializers.ChoiceField(choices=["C", "D", "H", "S"], required=False, allow_null=True)

    MOVE_FIELDS = ("action", "card", "suit")
    # Every field of the body; any other is 400 `invalid` naming it (pisyedili_api.serializers).
    BODY_FIELDS: tuple[str, ...] = MOVE_FIELDS

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        # By hand rather than by the fields: the move POST is the hottest route, and the
        # engine's decoding is the one authority on what a move is.
        if not isinstance(data, dict):
            # Filed as every route files a refusal of the whole body (docs/api.md "Errors").
            raise serializers.ValidationError(
                {api_settings.NON_FIELD_ERRORS_KEY: [_("The body must be a JSON object.")]}
            )
        body_fields_check(data, self.BODY_FIELDS)
        validated = self.validate_body(data)
        move_body = {name: data[name] for name in self.MOVE_FIELDS if name in data}
        validated["move"] = engine.Move.from_json(move_body)
        validated["move_body"] = move_body
        return validated

    def validate_body(self, data: dict[str, Any]) -> dict[str, Any]:
        """The validated values of a subclass's own fields of the body `data`."""
        return {}

    def run_validators(self, value: Any) -> None:
        """None to run: DRF's would build the fields (a deep copy each) to find none."""


class MovePostSerializer(MoveBodySerializer):
    """The body of `POST …/moves`: a move and the match `version` it was chosen at."""

    class Meta:
        ref_name = "MovePost"

    version = serializers.IntegerField(min_value=0)

    BODY_FIELDS = (*MoveBodySerializer.MOVE_FIELDS, "version")

    def validate_body(self, data: dict[str, Any]) -> dict[str, Any]:
        version = data.get("version")
        if version is None:
            raise serializers.ValidationError({"version": [_("This field is required.")]})
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            # Strict: DRF's IntegerField would take "1".
            raise serializers.ValidationError(
                {"version": [_("A valid non-negative integer is required.")]}
            )
        return {"version": version}


class DealResultSerializer(serializers.Serializer):
    winners = serializers.ListField(child=serializers.IntegerField())
    reason = serializers.ChoiceField(choices=["shed", "stock_exhausted"])
    last_card = serializers.CharField(allow_null=True)
    multiplier = serializers.IntegerField()
    penalties = serializers.ListField(child=serializers.IntegerField())
    hand_penalties = serializers.ListField(child=serializers.IntegerField())


PENALTY_CARDS_HELP = (
    "The cards a draw takes now while sevens are pending (R-22: 3·k, or 3·2^(k−1) under"
    " `seven_chain_growth` doubling); 0 when none are."
)


class StateSerializer(serializers.Serializer):
    match = serializers.UUIDField()
    version = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Match.Status.values)
    deal = serializers.IntegerField(allow_null=True)
    deals_total = serializers.IntegerField()
    phase = serializers.ChoiceField(
        choices=["opening", "play", "ace_followup", "deal_over", "match_over"], allow_null=True
    )
    you = serializers.IntegerField(
        allow_null=True, help_text="The caller's seat; null in a spectator's public view."
    )
    turn = serializers.IntegerField(allow_null=True)
    dealer = serializers.IntegerField(allow_null=True)
    direction = serializers.ChoiceField(choices=[1, -1])
    hand = serializers.ListField(child=serializers.CharField())
    hand_counts = serializers.ListField(child=serializers.IntegerField())
    top_card = serializers.CharField(allow_null=True)
    active_suit = serializers.ChoiceField(choices=["C", "D", "H", "S"], allow_null=True)
    pending_sevens = serializers.IntegerField()
    penalty_cards = serializers.IntegerField(help_text=PENALTY_CARDS_HELP)
    draws_this_turn = serializers.IntegerField()
    stock_count = serializers.IntegerField()
    totals = serializers.ListField(child=serializers.IntegerField())
    commitment = serializers.CharField(allow_null=True)
    legal_moves = MoveBodySerializer(many=True)
    turn_deadline = serializers.DateTimeField(
        allow_null=True, required=False, help_text="When the person on turn must have moved."
    )
    resigned = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The seats whose person resigned, in the order they did: the reference bot"
        " plays them.",
    )
    result = DealResultSerializer(
        allow_null=True,
        required=False,
        help_text="The deal's result once it is over (phase deal_over or match_over).",
    )


class MoveReplySerializer(StateSerializer):
    pending_bot_turns = serializers.BooleanField(
        help_text="A bot is on turn in this view and has not moved yet: a worker plays its"
        " turn right after this reply (watch the version move on)."
    )


class CardLeftSerializer(serializers.Serializer):
    card = serializers.CharField()
    points = serializers.IntegerField(help_text="The card's penalty (R-29).")


class MoveAfterSerializer(serializers.Serializer):
    dealer = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=["opening", "play", "ace_followup", "deal_over"])
    turn = serializers.IntegerField(allow_null=True)
    direction = serializers.ChoiceField(choices=[1, -1])
    hand_counts = serializers.ListField(child=serializers.IntegerField())
    top_card = serializers.CharField(allow_null=True)
    active_suit = serializers.ChoiceField(choices=["C", "D", "H", "S"], allow_null=True)
    pending_sevens = serializers.IntegerField()
    penalty_cards = serializers.IntegerField(
        required=False, help_text=PENALTY_CARDS_HELP + " Absent from older moves."
    )
    draws_this_turn = serializers.IntegerField()
    stock_count = serializers.IntegerField()


class MoveEffectSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=list(engine.EFFECT_KINDS),
        help_text="What the move did by the rules: `none`; `opening`, an opening club (no"
        " effect, R-11, R-12); `shed`, the player's last card (the deal is over, no effect,"
        " R-28); `seven`, the next player answers with a 7 or draws `cards` (R-21, R-22);"
        " `skip`, `seat` misses a turn (R-24, the options of R-25 and R-26); `reverse`, the"
        " direction flips (R-26); `suit`, a Jack asked for `suit` (R-19); `again`, an Ace's"
        " player plays once more (R-25); `penalty`, a draw that took the sevens' penalty of"
        " `cards` cards (R-22, R-23).",
    )
    seat = serializers.IntegerField(allow_null=True, help_text="`skip`: the seat skipped.")
    suit = serializers.ChoiceField(
        choices=["C", "D", "H", "S"], allow_null=True, help_text="`suit`: the suit asked for."
    )
    cards = serializers.IntegerField(
        help_text="`seven`: the cards the next player draws unless they answer with a 7;"
        " `penalty`: the penalty's cards (the stock may have held fewer: `drawn_count`); 0"
        " otherwise."
    )


class MoveEntrySerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    deal = serializers.IntegerField()
    seat = serializers.IntegerField()
    action = serializers.ChoiceField(choices=["play", "draw", "pass"])
    card = serializers.CharField(allow_null=True)
    suit = serializers.CharField(allow_null=True)
    drawn = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="Cards the draw took: shown to the drawer, to others once the deal is over.",
    )
    drawn_count = serializers.IntegerField()
    by_bot = serializers.BooleanField()
    at = serializers.DateTimeField()
    version = serializers.IntegerField(
        allow_null=True, help_text="The match's version once the move was applied."
    )
    after = MoveAfterSerializer(
        allow_null=True,
        help_text="The table's public facts once the move was applied (no card of a hand or"
        " of the stock): what a client shows for `version`.",
    )
    effect = MoveEffectSerializer(
        allow_null=True, help_text="What the move did by the rules (null for older moves)."
    )


class SeatLuckSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    penalty = serializers.IntegerField(help_text="The seat's deal score (R-30, R-31).")
    expected = serializers.FloatField(
        help_text="Mean deal score of the reference bot with these cards over `samples` deals."
    )
    stderr = serializers.FloatField(help_text="Standard error of `expected`.")
    luck = serializers.FloatField(
        help_text="expected − penalty: positive when the seat did better than its cards gave"
        " (start-only: the luck of the draws stays in)."
    )
    adjusted = serializers.FloatField(
        allow_null=True,
        help_text="Luck-adjusted deal score from the decisions (lower is better): the seat's"
        " prior plus the effect on it of every decision that left the reference bot's move.",
    )
    skill = serializers.FloatField(
        allow_null=True,
        help_text="What the seat's own decisions gained it against the table, in penalty"
        " points, the reference bot's choices the baseline: over each decision that left the"
        " reference bot's move, the other seats' mean effect minus its own (positive is good;"
        " the other seats' decisions count for nothing; the boards' `skill`). 0 for a seat when"
        " every decision was the reference bot's.",
    )


class DealLuckSerializer(serializers.Serializer):
    samples = serializers.IntegerField(help_text="K: simulated deals, stock re-sampled.")
    bot = serializers.CharField(help_text="The reference bot that played every seat.")
    seed = serializers.CharField(help_text="Seed of the samples: the estimate is reproducible.")
    skill_samples = serializers.IntegerField(
        allow_null=True, help_text="K of the skill: paired play-outs per decision valued."
    )
    skill_view = serializers.ChoiceField(
        choices=["seat", "full"],
        allow_null=True,
        help_text="What a decision is valued from: `seat`, the deciding seat's observation.",
    )
    skill_seed = serializers.CharField(
        allow_null=True, help_text="Seed of the skill's play-outs: it is reproducible."
    )
    seats = SeatLuckSerializer(many=True)


@extend_schema_serializer(
    examples=[
        OpenApiExample(
            "luck and skill estimated",
            description="The move log is cut short here; a real one ends the deal.",
            value={
                "number": 1,
                "dealer": 1,
                "opener": 0,
                "status": "over",
                "commitment": "5c1e…",
                "result": {
                    "winners": [0],
                    "reason": "shed",
                    "last_card": "9S",
                    "multiplier": 1,
                    "penalties": [0, 43],
                    "hand_penalties": [0, 43],
                },
                "seed": "9f04…",
                "hands_at_start": [
                    ["2C", "JC", "7D", "5H", "QH", "9S", "KS"],
                    ["8C", "3D", "JD", "10H", "AH", "4S", "AS"],
                ],
                "moves": [
                    {
                        "seq": 1,
                        "deal": 1,
                        "seat": 0,
                        "action": "play",
                        "card": "KS",
                        "suit": None,
                        "drawn": None,
                        "drawn_count": 0,
                        "by_bot": False,
                        "at": "2026-12-01T18:02:11Z",
                        "version": 3,
                        "after": {
                            "dealer": 1,
                            "phase": "play",
                            "turn": 1,
                            "direction": 1,
                            "hand_counts": [6, 7],
                            "top_card": "KS",
                            "active_suit": "S",
                            "pending_sevens": 0,
                            "penalty_cards": 0,
                            "draws_this_turn": 0,
                            "stock_count": 37,
                        },
                        "effect": {"kind": "none", "seat": None, "suit": None, "cards": 0},
                    }
                ],
                "cards_left": [
                    [],
                    [{"card": "JD", "points": 25}, {"card": "8C", "points": 8}],
                ],
                "luck": {
                    "samples": 256,
                    "bot": "greedy",
                    "seed": "luck:5c1e…",
                    "skill_samples": 32,
                    "skill_view": "seat",
                    "skill_seed": "skill:5c1e…",
                    "seats": [
                        {
                            "seat": 0,
                            "penalty": 0,
                            "expected": 14.2,
                            "stderr": 1.6,
                            "luck": 14.2,
                            "adjusted": 9.8,
                            "skill": 6.1,
                        },
                        {
                            "seat": 1,
                            "penalty": 43,
                            "expected": 17.5,
                            "stderr": 1.9,
                            "luck": -25.5,
                            "adjusted": 22.8,
                            "skill": -6.4,
                        },
                    ],
                },
            },
            response_only=True,
        )
    ]
)
class DealRevealSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    dealer = serializers.IntegerField()
    opener = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Deal.Status.values, help_text=DEAL_STATUS_HELP)
    commitment = serializers.CharField()
    result = DealResultSerializer(allow_null=True)
    seed = serializers.CharField(allow_null=True)
    hands_at_start = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        allow_null=True,
        help_text="Each seat's hand as dealt (R-5), listed in pack order (R-2).",
    )
    moves = MoveEntrySerializer(many=True, allow_null=True)
    cards_left = serializers.ListField(
        child=serializers.ListField(child=CardLeftSerializer()),
        allow_null=True,
        help_text="Each seat's cards at the deal's end with each card's penalty (R-29), once"
        " the deal may be shown: `result.hand_penalties` card by card.",
    )
    luck = DealLuckSerializer(
        allow_null=True, help_text="Each seat's luck, once the deal is shown and analysed."
    )


class PaginatedMatchSerializer(serializers.Serializer):
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = MatchSerializer(many=True)


# ---- response bodies ----


def match_summary(match: Match, viewer_id: Any = None) -> dict[str, Any]:
    """The public `<match>` object of docs/api.md (no card, no seed). A deal another table of
    a duplicate round still plays shows no result, and the totals count only the deals shown
    (selectors.shared_deals_pending). A private match's join code is shown to its creator
    only (`viewer_id`: the caller's player id), its invitations to its guests (the only
    callers shown a private match)."""
    seats = {row.seat: row for row in match.seat_rows}  # type: ignore[attr-defined]
    deals = sorted(match.deal_rows, key=lambda d: d.number)  # type: ignore[attr-defined]
    pending = shared_deals_pending(match)
    totals = list(match.totals)
    if match.seed_key is not None:
        # Shared deals (R-32: a total is the sum of the deal scores) of the deals shown only.
        totals = [0] * match.seat_count
        for deal in deals:
            if deal.number not in pending and deal.result:
                for seat, penalty in enumerate(deal.result.get("penalties", [])):
                    totals[seat] += penalty
    results = {d.number: (d.result or {}) if d.number not in pending else {} for d in deals}
    return {
        "id": str(match.id),
        "status": match.status,
        "created_at": match.created_at,
        "finished_at": match.finished_at,
        "deals_total": match.deals_total,
        "current_deal": match.current_deal or None,
        "version": match.version,
        "rules": match.rules,
        "seats": [
            {
                "seat": seat,
                "player": (
                    {
                        "id": str(seats[seat].player.id),
                        "display_name": seats[seat].player.display_name,
                        "is_bot": seats[seat].player.is_bot,
                    }
                    if seat in seats
                    else None
                ),
                "total": totals[seat],
                "place": seats[seat].place if seat in seats and not pending else None,
                "resigned": seat in match.resigned,
                "absent": seat in seats and seats[seat].absent,
            }
            for seat in range(match.seat_count)
        ],
        "deals": [
            {
                "number": deal.number,
                "status": deal.status,
                "winners": results[deal.number].get("winners", []),
                "reason": results[deal.number].get("reason"),
                "penalties": results[deal.number].get("penalties", []),
            }
            for deal in deals
        ],
        "turn_seconds": match.turn_seconds,
        "turn_deadline": match.turn_deadline,
        "spectators": match.spectators,
        "open_seats": match.seat_players.count(None),
        "creator": str(match.created_by_id),
        "cancel_reason": match.cancel_reason,
        "rematch_of": None if match.rematch_of_id is None else str(match.rematch_of_id),
        "next_match": None if match.next_match_id is None else str(match.next_match_id),
        "private": match.private,
        "join_code": (
            match.join_code
            if match.private
            and viewer_id is not None
            and str(viewer_id) == str(match.created_by_id)
            else None
        ),
        "invitations": invitations_summary(match) if match.private else [],
    }


def invitations_attach(matches: Iterable[Match]) -> None:
    """Read the invitations of the private ones of `matches` in one query, for match_summary
    (`invitation_rows`); public matches have none."""
    private = {m.id: m for m in matches if m.private and not hasattr(m, "invitation_rows")}
    if not private:
        return
    for match in private.values():
        match.invitation_rows = []  # type: ignore[attr-defined]
    rows = Invitation.objects.filter(match_id__in=private).select_related("player")
    for row in rows.order_by("created_at", "id"):
        private[row.match_id].invitation_rows.append(row)  # type: ignore[attr-defined]


def invitations_summary(match: Match) -> list[dict[str, Any]]:
    """`<match>.invitations`: each invitee with their invitation's status as read now (a
    pending one past its expiry is expired: games.services.invitations.invitation_status)."""
    from .services.invitations import invitation_status

    invitations_attach([match])
    now = timezone.now()
    return [
        {
            "player": {
                "id": str(row.player.id),
                "username": row.player.username,
                "display_name": row.player.display_name,
            },
            "status": invitation_status(row, match, now),
            "expires_at": row.expires_at,
            "answered_at": row.answered_at,
        }
        for row in match.invitation_rows  # type: ignore[attr-defined]
    ]


def state_view(match: Match, seat: int, state: engine.State | None = None) -> dict[str, Any]:
    """The caller's view (docs/api.md `…/state`): an observation of the live deal plus match facts.

    `state` is the live deal's state when the caller already holds it (saves a parse)."""
    return _view(match, seat, state)


def move_reply(match: Match, seat: int, state: engine.State) -> dict[str, Any]:
    """The answer to a move (docs/api.md `POST …/moves`): the mover's view of the live deal's
    `state` right after it, and whether a bot moves next (games.services.match_apply_move)."""
    view = state_view(match, seat, state=state)
    # A bot is on turn and its move is not in this view: a worker plays it after this commit.
    view["pending_bot_turns"] = bool(
        state.turn is not None and not state.is_over and match.seat_bots[state.turn]
    )
    return view


def move_reply_state(reply: Mapping[str, Any]) -> dict[str, Any]:
    """The mover's `state_view` inside a `move_reply` answer (every field but
    `pending_bot_turns`): the `state` event of the mover's seat at that version."""
    return {name: value for name, value in reply.items() if name != "pending_bot_turns"}


def public_view(match: Match, state: engine.State | None = None) -> dict[str, Any]:
    """A spectator's view (docs/api.md `…/state` at no seat): the keys of `state_view` with
    `you` null, no hand and no legal move; the live deal's facts come from
    `engine.observe_public`, which holds no card of any hand nor of the stock."""
    return _view(match, None, state)


def _view(match: Match, seat: int | None, state: engine.State | None) -> dict[str, Any]:
    """Match facts plus the live deal as `seat` observes it (`engine.observe`), or as nobody
    seated does (`engine.observe_public`) when `seat` is None."""
    view: dict[str, Any] = {
        "match": str(match.id),
        "version": match.version,
        "status": match.status,
        "deal": match.current_deal or None,
        "deals_total": match.deals_total,
        "phase": None,
        "you": seat,
        "turn": None,
        "dealer": None,
        "direction": 1,
        "hand": [],
        "hand_counts": [],
        "top_card": None,
        "active_suit": None,
        "pending_sevens": 0,
        "penalty_cards": 0,
        "draws_this_turn": 0,
        "stock_count": 0,
        "totals": list(match.totals),
        "commitment": None,
        "legal_moves": [],
        "turn_deadline": match.turn_deadline,
        "result": None,
        "resigned": list(match.resigned),
    }
    if not match.state:
        return view  # waiting for players: no deal yet
    if state is None:
        state = engine.State.from_json(match.state)
    observed = engine.observe_public(state) if seat is None else engine.observe(state, seat)
    view.update(observed.to_json())
    view["commitment"] = engine.commitment(state.seed)
    if state.result is not None:
        # Deal over: its result is public (games.score_deal scores it and deals on).
        view["result"] = state.result.to_json()
    if match.status in Match.OVER:
        view["phase"] = "match_over"
        view["turn"] = None
        view["legal_moves"] = []
    elif seat is not None and seat in match.resigned:
        view["legal_moves"] = []  # the reference bot plays the seat now
    return view


def _deal_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """A finished deal's stored result as the deal reveal and the replay show it."""
    return {
        "winners": result.get("winners", []),
        "reason": result.get("reason"),
        "last_card": result.get("last_card"),
        "multiplier": result.get("multiplier"),
        "penalties": result.get("penalties", []),
        "hand_penalties": result.get("hand_penalties", []),
    }


def match_view(match: Match, seat: int | None, state: engine.State | None = None) -> dict[str, Any]:
    """The view of the caller at `seat`, or the public view when they hold none."""
    return public_view(match, state) if seat is None else state_view(match, seat, state)


def move_entry(move: Move, *, reveal_drawn: bool) -> dict[str, Any]:
    """One move-log entry; `drawn` only for the drawer or once the deal is over (docs/api.md)."""
    return {
        "seq": move.seq,
        "deal": move.deal_number,
        "seat": move.seat,
        "action": move.action,
        "card": move.card,
        "suit": move.suit,
        "drawn": list(move.drawn) if reveal_drawn else None,
        "drawn_count": len(move.drawn),
        "by_bot": move.by_bot,
        "at": move.at,
        "version": move.version,
        "after": move.after,
        "effect": move.effect,
    }


def deal_reveal(deal: Deal, moves: Sequence[Move] | None) -> dict[str, Any]:
    """`GET …/deals/{n}`: public; seed, hands at start and full moves only once the deal may be
    shown: `moves` from selectors.deal_get, None before (a deal not over, or one another table
    of a duplicate round still plays)."""
    body: dict[str, Any] = {
        "number": deal.number,
        "dealer": deal.dealer,
        "opener": deal.opener,
        "status": deal.status,
        "commitment": deal.commitment,
        "result": None,
        "seed": None,
        "hands_at_start": None,
        "moves": None,
        "cards_left": None,
    }
    if moves is not None:
        # None for a deal abandoned as its match stopped: it has no result.
        body["result"] = None if deal.result is None else _deal_result(deal.result)
        body["seed"] = bytes(deal.seed).hex()
        body["hands_at_start"] = deal.hands_at_start
        body["moves"] = [move_entry(m, reveal_drawn=True) for m in moves]
        if deal.final_state:
            hands = engine.State.from_json(deal.final_state).hands
            body["cards_left"] = [[{"card": c.code, "points": c.penalty} for c in h] for h in hands]
    return body


# ---- the replay of a finished deal ----


class ReplayStateSerializer(serializers.Serializer):
    class Meta:
        ref_name = "ReplayPositionState"

    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Every seat's hand, by seat, open.",
    )
    turn = serializers.IntegerField(allow_null=True)
    direction = serializers.ChoiceField(choices=[1, -1])
    top_card = serializers.CharField(allow_null=True)
    active_suit = serializers.ChoiceField(choices=["C", "D", "H", "S"], allow_null=True)
    pending_sevens = serializers.IntegerField()
    stock_count = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=["opening", "play", "ace_followup", "deal_over"])
    discard_count = serializers.IntegerField(help_text="Cards on the pile, the top included.")


class ReplayMoveSerializer(serializers.Serializer):
    class Meta:
        ref_name = "ReplayMove"

    seq = serializers.IntegerField()
    seat = serializers.IntegerField()
    action = serializers.ChoiceField(choices=["play", "draw", "pass"])
    card = serializers.CharField(allow_null=True)
    suit = serializers.CharField(allow_null=True)
    drawn = serializers.ListField(child=serializers.CharField())
    effect = MoveEffectSerializer(help_text="What the move did by the rules.")


class ReplayPositionSerializer(serializers.Serializer):
    class Meta:
        ref_name = "ReplayPosition"

    index = serializers.IntegerField(help_text="0: the deal as dealt; i: after move i.")
    move = ReplayMoveSerializer(allow_null=True, help_text="The move that led here; null at 0.")
    seat = serializers.IntegerField(allow_null=True, help_text="The seat that moved; null at 0.")
    state = ReplayStateSerializer()


class DealReplaySerializer(serializers.Serializer):
    class Meta:
        ref_name = "DealReplay"

    match = serializers.UUIDField()
    number = serializers.IntegerField()
    dealer = serializers.IntegerField()
    opener = serializers.IntegerField()
    commitment = serializers.CharField()
    seed = serializers.CharField(help_text="The deal's seed (64 hex digits).")
    rules = serializers.DictField()
    seat_count = serializers.IntegerField()
    hands_at_start = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Each seat's hand as dealt (R-5), listed in pack order (R-2).",
    )
    positions = ReplayPositionSerializer(many=True)
    result = DealResultSerializer(
        allow_null=True, help_text="Null for a deal abandoned as its match stopped."
    )


def open_position(state: engine.State) -> dict[str, Any]:
    """A position of a revealable deal with every hand open (docs/api.md replay `state`)."""
    return {
        "hands": [[c.code for c in hand] for hand in state.hands],
        "turn": state.turn,
        "direction": state.direction,
        "top_card": state.top_card.code if state.top_card is not None else None,
        "active_suit": state.active_suit,
        "pending_sevens": state.pending_sevens,
        "stock_count": len(state.stock),
        "phase": state.phase,
        "discard_count": len(state.pile),
    }


def deal_replay(
    match: Match, deal: Deal, steps: Sequence[tuple[Move | None, engine.State]]
) -> dict[str, Any]:
    """`GET …/deals/{n}/replay`: the positions of selectors.deal_replay_get, all hands open;
    `result` null for a deal abandoned as its match stopped (its last position is where it
    stopped)."""
    positions = []
    for index, (row, state) in enumerate(steps):
        move = None
        if row is not None:
            body = {"action": row.action, "card": row.card, "suit": row.suit}
            played = engine.Move.from_json({k: v for k, v in body.items() if v is not None})
            move = {
                "seq": row.seq,
                "seat": row.seat,
                "action": row.action,
                "card": row.card,
                "suit": row.suit,
                "drawn": list(row.drawn),
                "effect": engine.move_effect(steps[index - 1][1], played, state).to_json(),
            }
        positions.append(
            {
                "index": index,
                "move": move,
                "seat": row.seat if row is not None else None,
                "state": open_position(state),
            }
        )
    return {
        "match": str(match.id),
        "number": deal.number,
        "dealer": deal.dealer,
        "opener": deal.opener,
        "commitment": deal.commitment,
        "seed": bytes(deal.seed).hex(),
        "rules": match.rules,
        "seat_count": match.seat_count,
        "hands_at_start": deal.hands_at_start,
        "positions": positions,
        "result": None if deal.result is None else _deal_result(deal.result),
    }
