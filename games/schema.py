"""What the served schema says of the match routes (docs/api.md): for each operation, named by
its operation id, one `extend_schema` with its id, summary, description and examples. The
views (games/apis.py) stack it over what the operation takes and gives (their serializers,
parameters and error codes)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema

_MATCH_EXAMPLE: dict[str, Any] = {
    "id": "5b0c6f1e-8a57-4a3e-9d53-6f7d2b7a9c10",
    "status": "waiting",
    "created_at": "2026-03-01T10:00:00.123456Z",
    "finished_at": None,
    "deals_total": 4,
    "current_deal": None,
    "version": 0,
    "rules": {"deals_per_match": 4},
    "seats": [
        {
            "seat": 0,
            "player": {
                "id": "0f6c1d2e-3b4a-4c5d-8e9f-a0b1c2d3e4f5",
                "display_name": "Ana",
                "is_bot": False,
            },
            "total": 0,
            "place": None,
            "resigned": False,
            "absent": False,
        },
        {"seat": 1, "player": None, "total": 0, "place": None, "resigned": False, "absent": False},
    ],
    "deals": [],
    "turn_seconds": None,
    "turn_deadline": None,
    "spectators": "public",
    "open_seats": 1,
    "creator": "0f6c1d2e-3b4a-4c5d-8e9f-a0b1c2d3e4f5",
    "cancel_reason": None,
    "rematch_of": None,
    "next_match": None,
    "private": False,
    "join_code": None,
    "invitations": [],
}

_PRIVATE_EXAMPLE: dict[str, Any] = {
    "private": True,
    "spectators": "none",
    "join_code": "kq3V0x7mZ1b9Xw2cT5yH8A",
    "invitations": [
        {
            "player": {
                "id": "6d1f0b2a-7c3e-4e8d-9a5b-1c2d3e4f5a6b",
                "username": "bora",
                "display_name": "Bora",
            },
            "status": "pending",
            "expires_at": "2026-03-01T10:10:00.123456Z",
            "answered_at": None,
        }
    ],
}


def match_example(name: str, **changes: Any) -> OpenApiExample:
    """A response example of `<match>`: the waiting two-seat match above, with `changes`."""
    return OpenApiExample(name, value={**_MATCH_EXAMPLE, **changes}, response_only=True)


def _cancelled_example(name: str) -> OpenApiExample:
    """A waiting match its creator cancelled (or left alone) at version 1."""
    return match_example(
        name,
        status="cancelled",
        cancel_reason="cancelled",
        finished_at="2026-03-01T10:05:00.000000Z",
        version=1,
    )


matches_list = extend_schema(
    operation_id="matches_list",
    summary="List matches, newest first",
    description=(
        "Public. Cursor pages of matches, newest first, filtered by `status` and by `player` "
        "(the matches in which that player has a seat). `next`/`previous` are signed links: "
        "pass them back as they are."
    ),
)


matches_create = extend_schema(
    operation_id="matches_create",
    summary="Create a match",
    description=(
        "The caller takes seat 0, `bots` the next seats; the match starts (deal 1 is dealt) "
        "once every seat is filled. A player sits in at most MAX_ACTIVE_MATCHES_PER_PLAYER "
        "waiting or active matches, and MAX_BOT_MATCHES_PER_PLAYER of those against bots only "
        "(`409 too_many_active_matches`); `deals` is capped at MAX_DEALS_PER_MATCH."
    ),
    examples=[
        OpenApiExample(
            "two greedy bots",
            value={"seats": 3, "bots": ["greedy", "greedy"], "deals": 4},
            request_only=True,
        ),
        OpenApiExample(
            "no spectators",
            value={"seats": 2, "spectators": "none"},
            request_only=True,
        ),
        OpenApiExample(
            "a private table, inviting bora",
            value={"seats": 2, "private": True, "invite": ["bora"]},
            request_only=True,
        ),
        match_example("a private table, as its creator sees it", **_PRIVATE_EXAMPLE),
    ],
)


matches_detail = extend_schema(
    operation_id="matches_detail",
    summary="Get a match",
    description=("Public. The match's public summary: seats, totals, deals; no card and no seed."),
)


matches_join = extend_schema(
    operation_id="matches_join",
    summary="Join a match",
    description=(
        "Takes the lowest open seat; the match starts when it was the last. Joining a match in"
        " which the caller sits already changes nothing. Counts towards the caller's "
        "active-match limit. A private match seats an invitee (their invitation is accepted)"
        " or whoever brings its join `code`, while an open seat is not held by others'"
        " pending invitations; to anyone else, a wrong code included, it is 404 as if it did"
        " not exist. A join with a `code` is throttled per user (THROTTLE_MATCH_INVITE)."
    ),
    examples=[
        OpenApiExample("an open seat", value={}, request_only=True),
        OpenApiExample(
            "a private match's join link",
            value={"code": "kq3V0x7mZ1b9Xw2cT5yH8A"},
            request_only=True,
        ),
    ],
)


matches_invite = extend_schema(
    operation_id="matches_invite",
    summary="Invite people to a private match",
    description=(
        "The creator of a waiting private match invites more people by username (a declined or"
        " expired invitation may be sent again); each gets the event `challenge` on their"
        " `me` stream, and their invitation holds an open seat for them until it is answered"
        " or expires (PRIVATE_INVITATION_SECONDS). The version steps once. `400 invalid`"
        " naming `invite`: an unknown username, the caller, a name twice, a person seated or"
        " invited already, more people than the open seats not held by pending invitations,"
        " or a public match. Throttled per user (THROTTLE_MATCH_INVITE)."
    ),
    examples=[
        OpenApiExample("invite two", value={"invite": ["bora", "cem"]}, request_only=True),
        match_example("a private table, as its creator sees it", **_PRIVATE_EXAMPLE, version=1),
    ],
)


matches_invitations_accept = extend_schema(
    operation_id="matches_invitations_accept",
    summary="Accept an invitation to a private match",
    description=(
        "The invitee takes the open seat their pending invitation holds; the match starts if"
        " it was the last. The creator gets `challenge_answered` on their `me` stream."
        " Accepting again, seated, changes nothing. A declined or expired invitation is"
        " `409 invitation_not_pending` (`detail.status`). No body; throttled per user"
        " (THROTTLE_MATCH_INVITE)."
    ),
)


matches_invitations_decline = extend_schema(
    operation_id="matches_invitations_decline",
    summary="Decline an invitation to a private match",
    description=(
        "The invitee declines: the seat their invitation held is open again, for the others"
        " the creator invites (by name or by the join link), never for the lobby. The version"
        " steps once and the creator gets `challenge_answered`. Declining again changes"
        " nothing; an accepted or expired invitation is `409 invitation_not_pending`. No body;"
        " throttled per user (THROTTLE_MATCH_INVITE)."
    ),
)


matches_state = extend_schema(
    operation_id="matches_state",
    summary="Get the caller's view of a match",
    description=(
        "A seat's view: its hand, whose turn it is, the legal moves (docs/rules.md §10). "
        "Anyone else (signed in or not) gets the public view of a `spectators: public` "
        "match: the same keys with `you` null and no hand and no legal move (hand counts, "
        "top card, turn, stock count, totals); of a `spectators: none` match, 403 "
        "`spectators_not_allowed`. With `after_version` and `wait` it is a long-poll: it "
        "answers as soon as the match's version passes `after_version`, or after `wait` "
        "seconds with the current view. A long-poll that waits takes one of the caller's "
        "long-poll slots (`429 throttled` when all are taken) and needs the server's Redis "
        "(`503 unavailable` with `Retry-After` while it does not answer)."
    ),
    examples=[
        OpenApiExample(
            "a spectator's public view",
            value={
                "match": "9b0c6a4e-2f6d-4a51-8f0e-3c1d2b7a9e10",
                "version": 12,
                "status": "active",
                "deal": 1,
                "deals_total": 4,
                "phase": "play",
                "you": None,
                "turn": 1,
                "dealer": 1,
                "direction": 1,
                "hand": [],
                "hand_counts": [5, 6],
                "top_card": "9D",
                "active_suit": "D",
                "pending_sevens": 0,
                "penalty_cards": 0,
                "draws_this_turn": 0,
                "stock_count": 30,
                "totals": [0, 0],
                "commitment": "5d41402abc4b2a76b9719d911017c592…",
                "legal_moves": [],
                "turn_deadline": None,
                "result": None,
                "resigned": [],
            },
            response_only=True,
        )
    ],
)


matches_moves_create = extend_schema(
    operation_id="matches_moves_create",
    summary="Play one move",
    description=(
        "`version` is the match version the move was chosen at (else `409 stale_version`); of "
        "two moves at one version exactly one applies. An `Idempotency-Key` belongs to the "
        "caller in this match and replays the first answer to the same body for at least "
        "IDEMPOTENCY_TTL_SECONDS (24 h). Throttled per token (THROTTLE_MATCH_MOVE). The same "
        'move may be sent on the match\'s WebSocket as `{"type": "move", …, "key"}` and is '
        'answered there as `{"event": "move", "key", "status", "data"}` with this route\'s '
        'status and body (docs/api.md "On the match\'s WebSocket").'
    ),
    examples=[
        OpenApiExample("draw", value={"action": "draw", "version": 17}, request_only=True),
        OpenApiExample(
            "play a Jack",
            value={"action": "play", "card": "JS", "suit": "H", "version": 17},
            request_only=True,
        ),
    ],
)


matches_moves_list = extend_schema(
    operation_id="matches_moves_list",
    summary="Get the move log",
    description=(
        "The match's moves in order as the caller may see them: cards another seat drew are "
        "shown once the deal is over, or abandoned as its match stopped (R-3). Seats, and "
        "anyone (signed in or not) on a `spectators: public` match, who sees no `drawn` card "
        "of a deal in progress; a "
        "`spectators: none` match is 403 `spectators_not_allowed` to a caller at no seat."
    ),
)


matches_deals_detail = extend_schema(
    operation_id="matches_deals_detail",
    summary="Get a deal",
    description=(
        "Public, or seats only on a `spectators: none` match. A deal's commitment; once it is"
        " over (or `abandoned`, for good, as its match stopped: no result), its seed, the hands"
        " at its start and every move, so that anyone who may see it can replay and check it"
        " (R-3, R-4), and each seat's luck once a worker has estimated it (null before; always"
        " null for an abandoned deal, never scored)."
    ),
)


matches_deals_analysis = extend_schema(
    operation_id="matches_deals_analysis",
    summary="Get a deal's move analysis",
    description=(
        "Every decision of a person (2+ legal moves) in a deal that is over (or abandoned as"
        " its match stopped: the decisions before it stopped): the estimated"
        " value (expected deal score, lower is better) of the move played and of the best"
        " move from that seat's observation only, the loss and its verdict (`inaccuracy` /"
        " `mistake` / `blunder`, docs/api.md). The first request has a worker compute it:"
        " `202 {status: pending}`, poll again; then `200` with the analysis, kept, or `200"
        " {status: failed, reason}` when it could not be computed (for good). For a"
        " seat of the match; for anyone once the match is finished or abandoned and public."
        " Before the deal may be shown, 409 `deal_not_over` (`detail.available`). Throttled"
        " per user (THROTTLE_DEAL_ANALYSIS)."
    ),
    examples=[
        OpenApiExample(
            "pending", value={"status": "pending"}, response_only=True, status_codes=["202"]
        ),
        OpenApiExample(
            "failed",
            value={
                "status": "failed",
                "reason": "too long to analyse: more than 4000000 simulated moves"
                " (ANALYSIS_MAX_ACTIONS)",
            },
            response_only=True,
            status_codes=["200"],
        ),
        OpenApiExample(
            "ready",
            value={
                "status": "ready",
                "samples": 64,
                "bot": "greedy",
                "seed": "moves:5c1e…",
                "cpu_seconds": 0.41,
                "thresholds": {
                    "inaccuracy": 3.0,
                    "mistake": 8.0,
                    "blunder": 20.0,
                    "significance_z": 2.0,
                },
                "decisions": [
                    {
                        "seq": 4,
                        "seat": 0,
                        "by_bot": False,
                        "played": {"action": "play", "card": "KH"},
                        "played_value": 31.2,
                        "best": {"action": "play", "card": "7H"},
                        "best_value": 18.9,
                        "loss": 12.3,
                        "loss_stderr": 2.1,
                        "verdict": "mistake",
                        "values": [
                            {"move": {"action": "play", "card": "7H"}, "value": 18.9},
                            {"move": {"action": "play", "card": "KH"}, "value": 31.2},
                        ],
                    }
                ],
            },
            response_only=True,
            status_codes=["200"],
        ),
    ],
)


rules_list = extend_schema(
    operation_id="rules_list",
    summary="List the rule options",
    description=(
        "Public. Every house rule a match's `rules` may set (docs/rules.md), in the order "
        "of its table: name, kind, default, and the values it takes. `deals_per_match` is "
        "also the `deals` field of a create, at most MAX_DEALS_PER_MATCH on this server."
    ),
    # One option per example: the schema wraps each in the list the route answers.
    examples=[
        OpenApiExample(
            "a choice option",
            value={
                "name": "draw_policy",
                "type": "choice",
                "default": "free",
                "choices": ["free", "one_then_pass", "until_playable"],
            },
            response_only=True,
        ),
        OpenApiExample(
            "an integer option",
            value={"name": "hand_size", "type": "integer", "default": 7, "min": 1, "max": 25},
            response_only=True,
        ),
    ],
)


matches_leave = extend_schema(
    operation_id="matches_leave",
    summary="Leave a waiting match",
    description=(
        "A seated person leaves a match that is still waiting for players: the seat is open"
        " again. The creator leaving a table nobody else has joined cancels it"
        " (`cancel_reason` `cancelled`); leaving one that others have joined makes the person"
        " in the lowest seat its creator. No body."
    ),
    examples=[_cancelled_example("the creator alone leaves: cancelled")],
)


matches_cancel = extend_schema(
    operation_id="matches_cancel",
    summary="Cancel a waiting match",
    description=(
        "Its creator cancels a match that is still waiting for players: status `cancelled`,"
        " `cancel_reason` `cancelled`. It never starts; it counts towards no limit. No body."
    ),
    examples=[_cancelled_example("cancelled")],
)


matches_rematch = extend_schema(
    operation_id="matches_rematch",
    summary="Ask for a rematch of a finished match",
    description=(
        "A seat of a finished match: `201` and the next match, with the same seat count,"
        " deals, rules and turn clock, the first dealer moved on by one seat. The bots sit"
        " in their seats at once, the caller in their old seat; the other people's seats are"
        " open: they join it as any match (it starts when the last seat fills). Asked again,"
        " by anyone: `200` and the same next match, the caller seated in it while it waits"
        " (an open seat, or their invitation to a private one). Linked by `next_match` and"
        " `rematch_of`. Counts towards the caller's active-match limits. No body."
    ),
    examples=[
        match_example(
            "the next match",
            rematch_of="9d2f4c61-0b7e-4f3a-a1c5-2e8b6d4f0a93",
        )
    ],
)


matches_deals_replay = extend_schema(
    operation_id="matches_deals_replay",
    summary="Replay a finished deal",
    description=(
        "Once deal `number` is over, or abandoned as its match stopped: every position from the "
        "deal to its end (an abandoned one's: where it stopped, `result` null) with all hands "
        "open, rebuilt by the engine from the seed and the move log, for replay viewers. "
        "`positions[0]` is the deal as dealt (`move` and `seat` null), `positions[i]` the "
        "position after move i. Public on a `spectators: public` match; seats only on a "
        "`spectators: none` match (403 `spectators_not_allowed`). Before that, 409 "
        "`deal_not_over` (`detail.available`: when it will be)."
    ),
    examples=[
        OpenApiExample(
            "a two-seat deal",
            value={
                "match": "9b0c6a4e-2f6d-4a51-8f0e-3c1d2b7a9e10",
                "number": 1,
                "dealer": 1,
                "opener": 0,
                "commitment": "…",
                "seed": "…",
                "rules": {"opening": "opener_only", "…": "…"},
                "seat_count": 2,
                "hands_at_start": [["4C", "7H", "…"], ["2D", "JS", "…"]],
                "positions": [
                    {
                        "index": 0,
                        "move": None,
                        "seat": None,
                        "state": {
                            "hands": [["4C", "7H", "…"], ["2D", "JS", "…"]],
                            "turn": 0,
                            "direction": 1,
                            "top_card": None,
                            "active_suit": None,
                            "pending_sevens": 0,
                            "stock_count": 38,
                            "phase": "opening",
                            "discard_count": 0,
                        },
                    },
                    {
                        "index": 1,
                        "move": {
                            "seq": 1,
                            "seat": 0,
                            "action": "play",
                            "card": "4C",
                            "suit": None,
                            "drawn": [],
                            "effect": {"kind": "opening", "seat": None, "suit": None, "cards": 0},
                        },
                        "seat": 0,
                        "state": {
                            "hands": [["7H", "…"], ["2D", "JS", "…"]],
                            "turn": 1,
                            "direction": 1,
                            "top_card": "4C",
                            "active_suit": "C",
                            "pending_sevens": 0,
                            "stock_count": 38,
                            "phase": "play",
                            "discard_count": 1,
                        },
                    },
                ],
                "result": {
                    "winners": [0],
                    "reason": "shed",
                    "last_card": "9D",
                    "multiplier": 1,
                    "penalties": [0, 42],
                    "hand_penalties": [0, 42],
                },
            },
            response_only=True,
        )
    ],
)


matches_resign = extend_schema(
    operation_id="matches_resign",
    summary="Resign a match under way",
    description=(
        "A seated person gives up an active match: from then on the reference bot (`greedy`)"
        " plays their seat to the end (`by_bot` in the move log; at once when it is on turn),"
        " and they are placed last in the match for the ratings and the boards whatever"
        ' the points (docs/rules.md, "Server policies"). The seat\'s `resigned` is true and it no'
        " longer counts towards the caller's limits. A match left with no person ends at once"
        " with status `abandoned` (a tournament's table is played to its end by its bots),"
        " the deal being played closed as `abandoned` too; its places still count. The match"
        " stream tells the other seats and spectators (event `resigned`). Resigning again"
        " answers the match as it is and changes nothing."
        " Throttled per user (THROTTLE_MATCH_RESIGN). No body."
    ),
    examples=[
        match_example(
            "the only person resigned: abandoned",
            status="abandoned",
            created_at="2026-03-01T10:00:00.123456Z",
            finished_at="2026-03-01T10:07:00.000000Z",
            current_deal=1,
            version=9,
            seats=[
                {
                    "seat": 0,
                    "player": {
                        "id": "0f6c1d2e-3b4a-4c5d-8e9f-a0b1c2d3e4f5",
                        "display_name": "Ana",
                        "is_bot": False,
                    },
                    "total": 0,
                    "place": 2,
                    "resigned": True,
                    "absent": False,
                },
                {
                    "seat": 1,
                    "player": {
                        "id": "6d1f0b2a-7c3e-4e8d-9a5b-1c2d3e4f5a6b",
                        "display_name": "greedy bot",
                        "is_bot": True,
                    },
                    "total": 0,
                    "place": 1,
                    "resigned": False,
                    "absent": False,
                },
            ],
            deals=[
                {
                    "number": 1,
                    "status": "abandoned",
                    "winners": [],
                    "reason": None,
                    "penalties": [],
                }
            ],
            open_seats=0,
        )
    ],
)


matches_talk = extend_schema(
    operation_id="matches_talk",
    summary="Say a preset phrase to the table",
    description=(
        "Table talk: a seat of a match under way says one of a few preset phrases"
        " (`phrase`: an id; no free text). It is not stored: the match stream sends it at once"
        " to the seats and spectators watching (event `talk`: `match`, `seat`, `phrase`,"
        " `at`; no id). Throttled per user (THROTTLE_MATCH_TALK). A match still waiting for"
        " players, cancelled, or over (finished or abandoned: its stream has closed, nobody"
        " would hear it) is 409 `match_not_active`."
    ),
    examples=[
        OpenApiExample("well played", value={"phrase": "well_played"}, request_only=True),
        OpenApiExample(
            "said",
            value={
                "match": "9b0c6a4e-2f6d-4a51-8f0e-3c1d2b7a9e10",
                "seat": 1,
                "phrase": "well_played",
                "at": "2026-03-01T10:07:00.000000Z",
            },
            response_only=True,
        ),
    ],
)


_QUEUE_EXAMPLE: dict[str, Any] = {
    "status": "waiting",
    "seats": 2,
    "preset": "classic",
    "rules": {"draw_policy": "free", "…": "…", "deals_per_match": 4},
    "bots_allowed": True,
    "wait_seconds": 30,
    "rating": 0.0,
    "created_at": "2026-03-01T10:00:00.000000Z",
    "deadline": "2026-03-01T10:00:30.000000Z",
    "ended_at": None,
    "match": None,
    "bot_seats": 0,
}


rules_presets = extend_schema(
    operation_id="rules_presets",
    summary="List the named rule sets",
    description=(
        "Public. The presets quick play offers (`preset` of POST /queue), each with its full "
        "rules: `classic` (the default rules) and the house variants `reshuffle`, `doubling`, "
        "`strict`, `club_round` and `quick` (docs/api.md names the options each changes)."
    ),
    examples=[
        OpenApiExample(
            "presets",
            value={"name": "classic", "rules": {"draw_policy": "free", "…": "…"}},
            response_only=True,
        )
    ],
)


queue_get = extend_schema(
    operation_id="queue_get",
    summary="The caller's quick-play entry",
    description=(
        "The caller's entry: `waiting`, or how their last wait ended (`seated` at `match`, "
        "`expired`, `left`) until they queue again. 204 with no body when they never queued "
        "(nothing to show, and nothing for a browser to log as a failed load)."
    ),
    examples=[
        OpenApiExample(
            "seated",
            value={
                **_QUEUE_EXAMPLE,
                "status": "seated",
                "ended_at": "2026-03-01T10:00:30.500000Z",
                "match": "5b0c6f1e-8a57-4a3e-9d53-6f7d2b7a9c10",
                "bot_seats": 1,
            },
            response_only=True,
        )
    ],
)


queue_join = extend_schema(
    operation_id="queue_join",
    summary="Ask for a game (quick play)",
    description=(
        "Queue for a table of `seats` with a preset's rules or custom ones, waiting "
        "`wait_seconds`. The pairing seats people of close ratings together (the gap accepted "
        "widens with the wait); when the wait ends, bots fill the empty seats if "
        "`bots_allowed`, else the wait ends with no table. A join pairs at once: the answer may "
        "be `seated` already. The entry's changes come as the event `queue` on /me/events. "
        "One entry per player (`409 already_queued`); a player who could not start the match "
        "is `409 too_many_active_matches`. Throttled per user (THROTTLE_QUEUE)."
    ),
    examples=[
        OpenApiExample(
            "classic, two seats",
            value={"seats": 2, "preset": "classic", "wait_seconds": 30, "bots_allowed": True},
            request_only=True,
        ),
        OpenApiExample(
            "custom rules",
            value={"seats": 3, "rules": {"draw_policy": "one_then_pass"}, "wait_seconds": 60},
            request_only=True,
        ),
        OpenApiExample("waiting", value=_QUEUE_EXAMPLE, response_only=True),
    ],
)


queue_leave = extend_schema(
    operation_id="queue_leave",
    summary="Leave the quick-play queue",
    description=(
        "The caller's waiting entry ends (`left`). An entry that is no longer waiting is "
        "`409 not_queued` with its `status` and `match` (a seated caller plays there). "
        "Throttled per user (THROTTLE_QUEUE)."
    ),
    examples=[
        OpenApiExample(
            "left",
            value={**_QUEUE_EXAMPLE, "status": "left", "ended_at": "2026-03-01T10:00:12.000000Z"},
            response_only=True,
        )
    ],
)


_PUSH_SUBSCRIPTION_EXAMPLE: dict[str, Any] = {
    "id": "3f2c9a1e-7b4d-4e8a-9c61-0d5e2f7a8b90",
    "endpoint": "https://fcm.googleapis.com/fcm/send/dXz…",
    "created_at": "2026-03-01T10:00:00.123456Z",
}
_WEBHOOK_EXAMPLE: dict[str, Any] = {
    "id": "6a1d0c2b-5e4f-4a3b-8c7d-9e0f1a2b3c4d",
    "url": "https://app.example.com/pisyedili/notices",
    "active": True,
    "failures": 0,
    "created_at": "2026-03-01T10:00:00.123456Z",
    "disabled_at": None,
}

push_vapid_key = extend_schema(
    operation_id="push_vapid_key",
    summary="Get the server's Web Push key",
    description=(
        "Public. The VAPID public key a browser subscribes with (`applicationServerKey`), and"
        " whether this server sends Web Push at all (without WEB_PUSH_VAPID_PRIVATE_KEY it"
        " does not: `enabled` false, `public_key` null)."
    ),
    examples=[
        OpenApiExample(
            "on",
            value={
                "enabled": True,
                "public_key": (
                    "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1"
                    "XbjhazAkj7I99e8QcYP7DkM"
                ),
            },
            response_only=True,
        ),
        OpenApiExample("off", value={"enabled": False, "public_key": None}, response_only=True),
    ],
)

push_subscriptions_list = extend_schema(
    operation_id="push_subscriptions_list",
    summary="List the caller's push subscriptions",
    description="The caller's Web Push subscriptions (browsers), oldest first; never their keys.",
    examples=[OpenApiExample("one", value=_PUSH_SUBSCRIPTION_EXAMPLE, response_only=True)],
)

push_subscriptions_create = extend_schema(
    operation_id="push_subscriptions_create",
    summary="Subscribe a browser to Web Push",
    description=(
        "The body is the browser's PushSubscription as `toJSON()` gives it. From then on the"
        " notices `your_turn`, `challenge`, `tournament_round` and `tournament_invitation` are"
        " pushed to it while the caller has no open stream, until the session (token) that"
        " registered it ends: a sign-out, a revoked session or a password change deletes it (a"
        " rotation keeps it). Each holds its kind, the match or tournament id, the moment past"
        " which it is moot (`turn_deadline`, `expires_at`) and a short text, never a card; a"
        " push whose moment has passed is dropped. An endpoint is one browser: the same one"
        " again replaces its keys and its session (200); one another player registered moves"
        " to the caller (201). The"
        " endpoint must be https and outside the server's own networks; at most"
        " WEB_PUSH_MAX_PER_PLAYER per player (400 naming `endpoint`). 409 `push_disabled`"
        " without a VAPID key. Throttled per user (THROTTLE_NOTIFY)."
    ),
    examples=[
        OpenApiExample(
            "a browser's subscription",
            value={
                "endpoint": "https://fcm.googleapis.com/fcm/send/dXz…",
                "expirationTime": None,
                "keys": {
                    "p256dh": (
                        "BIPUL12DLfytvTajnryr2PRdAgXS3HGKiLqndGcJGabyhHheJYlNGCeXl1dn18gSJ1W"
                        "AkAPIxr4gK0_dQds4yiI"
                    ),
                    "auth": "FPssNDTKnInHVndSTdbKFw",
                },
            },
            request_only=True,
        ),
        OpenApiExample("subscribed", value=_PUSH_SUBSCRIPTION_EXAMPLE, response_only=True),
    ],
)

push_subscriptions_delete = extend_schema(
    operation_id="push_subscriptions_delete",
    summary="Remove a push subscription",
    description=(
        "One of the caller's push subscriptions goes: nothing more is pushed to it. 404 for"
        " an id that is not the caller's. Throttled per user (THROTTLE_NOTIFY)."
    ),
)

webhooks_list = extend_schema(
    operation_id="webhooks_list",
    summary="List the caller's webhooks",
    description="The caller's webhooks, oldest first; never their secrets.",
    examples=[OpenApiExample("one", value=_WEBHOOK_EXAMPLE, response_only=True)],
)

webhooks_create = extend_schema(
    operation_id="webhooks_create",
    summary="Register a webhook",
    description=(
        "A URL (a mobile app's backend) that is POSTed each of the caller's notices"
        " (`your_turn`, `challenge`, `tournament_round`, `tournament_invitation`), signed:"
        " header `Pisyedili-Signature:"
        ' t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by the secret>`, and'
        " `Pisyedili-Delivery: <id>` (the body's `id`, the same on every retry). The secret is"
        " in this answer only. The URL must be https and outside the server's own networks"
        " (400 naming `url`), at most WEBHOOK_MAX_PER_PLAYER per player. Throttled per user"
        " (THROTTLE_NOTIFY)."
    ),
    examples=[
        OpenApiExample(
            "an app's backend",
            value={"url": "https://app.example.com/pisyedili/notices"},
            request_only=True,
        ),
        OpenApiExample(
            "registered",
            value={**_WEBHOOK_EXAMPLE, "secret": "whsec_T0pS3cr3t…"},
            response_only=True,
        ),
    ],
)

webhooks_delete = extend_schema(
    operation_id="webhooks_delete",
    summary="Remove a webhook",
    description=(
        "One of the caller's webhooks goes, with its deliveries still waiting. 404 for an id"
        " that is not the caller's. Throttled per user (THROTTLE_NOTIFY)."
    ),
)
