"""Writes on matches, by sub-domain (HackSoft's services package, Zulip's zerver/actions):

- lifecycle: create a match, seat players, start it, deal each deal;
- moves: apply a move (a person's, a bot's turn, the turn clock's overdue moves), the
  idempotency records;
- scoring: close a deal, score it, settle the match, the seats' totals;
- resign: a person gives up a match, the reference bot plays their seat;
- queue: quick play, the queue and its pairing;
- invitations: private tables, their invitations (challenges) and join codes;
- talk: a seat says a preset phrase to its table (nothing stored);
- notify: notices to away players, Web Push and webhooks;
- analysis: each deal's luck, the boards' skill, a deal's move analysis on request.

Each takes the match row lock first (locks.match_lock) when it writes a match.

Every service is re-exported here, so `from games.services import match_create` is the import
to use.
"""

from .analysis import (
    deal_analyse,
    deal_analysis_request,
    deal_luck,
    deal_skill_backfill,
    match_luck_count,
)
from .invitations import (
    INVITATION_EXPIRE_BATCH,
    invitation_accept,
    invitation_decline,
    invitations_expire,
    match_invite,
)
from .lifecycle import (
    MIN_SEATS,
    WAITING_EXPIRE_BATCH,
    match_cancel,
    match_create,
    match_join,
    match_leave,
    match_rematch,
    matches_waiting_expire,
    rules_from_options,
)
from .moves import (
    IDEMPOTENCY_EXPIRE_BATCH,
    IDEMPOTENCY_EXPIRE_BATCHES,
    OVERDUE_MOVES_MAX,
    Held,
    idempotency_records_expire,
    match_apply_move,
    match_play_bot_turn,
    match_play_overdue_turn,
    request_hash,
)
from .notify import (
    NOTICE_TEXTS,
    notice,
    notices_delete,
    notices_resend,
    notices_send,
    push_enabled,
    push_send,
    push_subscribe,
    push_unsubscribe,
    vapid_public_key,
    webhook_create,
    webhook_delete,
    webhook_deliver,
)
from .queue import PRESETS, presets, queue_get, queue_join, queue_leave, queue_pair
from .resign import match_resign
from .scoring import deal_score, match_settle
from .talk import TALK_PHRASES, match_talk

__all__ = [
    "NOTICE_TEXTS",
    "notice",
    "notices_delete",
    "notices_resend",
    "notices_send",
    "push_enabled",
    "push_send",
    "push_subscribe",
    "push_unsubscribe",
    "vapid_public_key",
    "webhook_create",
    "webhook_delete",
    "webhook_deliver",
    "INVITATION_EXPIRE_BATCH",
    "invitation_accept",
    "invitation_decline",
    "invitations_expire",
    "match_invite",
    "IDEMPOTENCY_EXPIRE_BATCH",
    "IDEMPOTENCY_EXPIRE_BATCHES",
    "MIN_SEATS",
    "WAITING_EXPIRE_BATCH",
    "OVERDUE_MOVES_MAX",
    "Held",
    "PRESETS",
    "TALK_PHRASES",
    "deal_analyse",
    "deal_analysis_request",
    "deal_luck",
    "deal_skill_backfill",
    "deal_score",
    "idempotency_records_expire",
    "match_apply_move",
    "match_cancel",
    "match_create",
    "match_join",
    "match_leave",
    "match_luck_count",
    "match_play_bot_turn",
    "match_play_overdue_turn",
    "match_rematch",
    "match_resign",
    "match_settle",
    "match_talk",
    "presets",
    "queue_get",
    "queue_join",
    "queue_leave",
    "queue_pair",
    "matches_waiting_expire",
    "request_hash",
    "rules_from_options",
]
