"""Moves: a person's move, a bot's turn, the turn clock's overdue moves.

Exactly-once moves (docs/architecture.md "A move, end to end"): the request's version must
equal the match's, and the write lands only if the match still holds it (on PostgreSQL a move,
a person's, a bot's or the clock's, reads without a lock and writes in one statement guarded
by the version; one that lost the race runs again under the match row lock, SELECT … FOR
UPDATE), a repeated Idempotency-Key (per player and match) returns the stored first response,
and (match, seq) is unique. An IntegrityError of a race a service knows (a unique constraint
it names) becomes a documented 4xx; any other one is a logged 500. This is the hottest path of
the server, so its statements are written by hand (games/sql.py, pisyedili_api/rawsql.py).
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import random
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from datetime import datetime, timedelta
from functools import partial
from typing import Any, NamedTuple
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Model, Subquery
from django.utils import timezone

from games import engine
from games.engine.bots import get_bot
from games.engine.history import LoggedMove, deal_log, seen_by
from pisyedili_api import rawsql
from pisyedili_api.errors import ApplicationError
from pisyedili_api.renderers import JSONRenderer
from pisyedili_api.tasks import send_on_commit

from .. import clock, events, sql
from ..models import (
    IDEMPOTENCY_KEY_CONSTRAINT,
    Deal,
    IdempotencyRecord,
    KeyedWrite,
    Match,
    Seat,
)
from ..models import Move as MoveRow
from ..selectors import match_hidden_check, seat_of
from .lifecycle import _after_commit_bot_turn, _violates
from .locks import CallerLookup, move_lock
from .resign import match_absent_turn
from .scoring import _deal_close_values

logger = logging.getLogger(__name__)


def request_hash(match_id: Any, body: Mapping[str, Any]) -> str:
    """The digest an Idempotency-Key is bound to: the match and the body's fields, a `null`
    one left out (it is as none: `"suit": null` is the same move as no suit)."""
    sent = {name: value for name, value in body.items() if value is not None}
    canonical = json.dumps({"match": str(match_id), "body": sent}, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


# The reply to a move: what `match_apply_move` answers and stores for an Idempotency-Key, from
# the match, the mover's seat and the state after the move (the view's, games.serializers).
MoveReply = Callable[[Match, int, engine.State], dict[str, Any]]


class Held(NamedTuple):
    """A match as a process holds it for its streams (live.streams: read, written or advanced
    there, at its version), its live deal, and the player whose token opened the stream: a
    move at that version may be written without reading the match (`match_apply_move`)."""

    match: Match
    state: engine.State
    player_id: UUID


def match_apply_move(
    *,
    match_id: UUID | str,
    player_id: UUID | str | CallerLookup,
    move: engine.Move,
    version: int,
    reply: MoveReply,
    idempotency_key: str | None = None,
    request_body: Mapping[str, Any] | None = None,
    by_bot: bool = False,
    held: Held | None = None,
) -> dict[str, Any]:
    """Apply one move for the player's seat; return `reply` of it (that seat's view right
    after it, as the caller builds it).

    The mover is `player_id`, or a `CallerLookup` (the move POST's `request.user`,
    players.auth.DeferredPlayer): then the statement that locks the match reads the player's
    id too (one round trip fewer on the hottest route), and a token of no active player is 401.

    Order of checks: (caller) → match exists → seat → idempotent replay → match active →
    seat not resigned → version → turn → legality. A replay returns the stored first response
    and applies nothing.

    `held` (a move on a match's WebSocket, `player_id` the socket's CallerLookup): the match as
    the socket's process holds it. A move that passes every check on it is written by one
    statement, without the read (`_apply_held`); any other is answered as below.
    """
    digest = (
        request_hash(match_id, request_body if request_body is not None else move.to_json())
        if idempotency_key
        else ""
    )
    apply = partial(
        _apply,
        match_id=match_id,
        player_id=player_id,
        move=move,
        version=version,
        reply=reply,
        idempotency_key=idempotency_key,
        digest=digest,
        by_bot=by_bot,
    )
    try:
        if connection.vendor == "postgresql":
            if held is not None and not isinstance(player_id, UUID | str):
                try:
                    return _apply_held(
                        held, player_id, move, version, reply, idempotency_key, digest
                    )
                except _Unguarded:
                    pass  # not as held: the read answers it
            # Two round trips, no transaction: the read, then the write guarded by the version.
            try:
                return apply(guarded=True)
            except _Unguarded:
                pass  # a write of the match came first: the lock
        with transaction.atomic():
            return apply(guarded=False)
    except IntegrityError as exc:
        if not idempotency_key or not _violates(exc, IdempotencyRecord, IDEMPOTENCY_KEY_CONSTRAINT):
            # Not a race this service knows: a bug or a row written behind it. A 500 that is
            # logged, never a domain answer that would hide it.
            logger.exception("move on match %s: unexpected integrity error", match_id)
            raise
        # A record of this (player, match, key) written behind the match row lock (a backend
        # without row locks, a writer that does not take the lock). The transaction rolled
        # back; answer as the winner decided.
        if not isinstance(player_id, UUID | str):
            player_id = player_id.verify()
        stored = _idempotency_record(player_id, match_id, idempotency_key)
        if stored is not None:
            return _stored_answer(stored, digest)
        current = Match.objects.filter(id=match_id).values_list("version", flat=True).first()
        raise ApplicationError("stale_version", detail={"current_version": current}) from None


class _Unguarded(Exception):
    """A guarded move (`_move_write`'s `guarded`) that wrote nothing and must be applied under
    the match row lock: the match no longer held the version read. `move`: a bot's move, chosen
    at that version (`_play`)."""

    move: engine.Move | None = None


def _apply(
    *,
    match_id: UUID | str,
    player_id: UUID | str | CallerLookup,
    move: engine.Move,
    version: int,
    reply: MoveReply,
    idempotency_key: str | None,
    digest: str,
    by_bot: bool,
    guarded: bool,
) -> dict[str, Any]:
    """match_apply_move's checks and write, under the match row lock (in the caller's
    transaction), or `guarded`: read without it, written only if the version read is still
    the match's (else `_Unguarded`, nothing written)."""
    match, found, notices = move_lock(match_id, player_id, lock=not guarded)
    if not isinstance(player_id, UUID | str):
        # 401 comes before 404: with no match row, the lookup runs alone.
        player_id = player_id.verify() if match is None else player_id.player_id(found)
    if match is None:
        raise ApplicationError("not_found", "No such match.")
    seat = seat_of(match, player_id)
    if seat is None:
        match_hidden_check(match, player_id)
        raise ApplicationError("not_seated")
    try:
        # The checks after the seat's, in order, then the write (`_move_write` raises the
        # engine's 409/422 before it writes anything).
        if match.status != Match.Status.ACTIVE:
            raise ApplicationError("match_not_active")
        if seat in match.resigned:
            raise ApplicationError("resigned")  # the reference bot plays the seat now
        if version != match.version:
            raise ApplicationError("stale_version", detail={"current_version": match.version})
        return _move_write(
            match,
            _live_state(match),
            seat,
            player_id,
            move,
            by_bot=by_bot,
            reply=reply,
            record=_record(player_id, match.id, idempotency_key, digest),
            notices=notices,
            guarded=guarded,
        )[1]
    except (ApplicationError, engine.EngineError):
        # A stored record of the key comes before every check above. Read only now: a replay
        # always fails one of them (its move moved the version on), and a key reused for
        # another move that passes them all trips the record's unique constraint
        # (match_apply_move answers it), so a first move reads no record at all.
        stored = idempotency_key and _idempotency_record(player_id, match.id, idempotency_key)
        if stored:
            return _stored_answer(stored, digest)
        raise


def _apply_held(
    held: Held,
    caller: CallerLookup,
    move: engine.Move,
    version: int,
    reply: MoveReply,
    idempotency_key: str | None,
    digest: str,
) -> dict[str, Any]:
    """A person's move at the version of `held`, written from it without reading the match:
    only where every check of `_apply` passes on it (the seat the held player sits in, the
    match active, the seat not resigned, the version, the turn, the move legal), by the
    guarded statement, which lands only if the match is still at that version and `caller`'s
    token still names that player (and reads whether notices are wanted, as the read would).
    Anything else raises `_Unguarded`, nothing written, and the read answers it: every answer
    but the move's own comes from the match as it is then, with the checks in their order."""
    match, state, player_id = held
    seat = seat_of(match, player_id)
    if (
        seat is None
        or match.status != Match.Status.ACTIVE
        or seat in match.resigned
        or version != match.version
        or state.turn != seat
    ):
        raise _Unguarded
    match = copy.copy(match)  # the streams' copy stays as held: the write moves this one on
    try:
        return _move_write(
            match,
            state,
            seat,
            player_id,
            move,
            by_bot=False,
            reply=reply,
            record=_record(player_id, match.id, idempotency_key, digest),
            guarded=True,
            caller=caller,
        )[1]
    except engine.EngineError:
        raise _Unguarded from None  # not legal at the version held: answered at the match's


def _record(
    player_id: Any, match_id: Any, idempotency_key: str | None, digest: str
) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    """With a key, what gives the IdempotencyRecord of a move's reply (`_move_write`'s
    `record`); None without one."""
    if not idempotency_key:
        return None

    def record(view: dict[str, Any]) -> dict[str, Any]:
        return {
            "player": player_id,
            "key": idempotency_key,
            "request_hash": digest,
            "match": match_id,
            "response": _response_text(view),
            "created_at": timezone.now(),
        }

    return record


def _stored_answer(stored: tuple[str, str], digest: str) -> dict[str, Any]:
    """The answer of an Idempotency-Key's stored record (request hash, response) to a request
    of hash `digest`: the first response to the same request, 422 to another."""
    if stored[0] != digest:
        raise ApplicationError("idempotency_mismatch") from None
    return _stored_reply(stored[1])


# Expired idempotency records are deleted this many per statement, at most this many
# statements per sweep (games.tasks.sweep), so one sweep never holds long locks.
IDEMPOTENCY_EXPIRE_BATCH = 1000
IDEMPOTENCY_EXPIRE_BATCHES = 10


def idempotency_records_expire(*, now: datetime | None = None) -> int:
    """Delete the idempotency records older than settings.IDEMPOTENCY_TTL_SECONDS (the moves'
    and the other writes', KeyedWrite), oldest first, in bounded batches of each; the number
    deleted. A key is so replayable for at least that long (docs/api.md "Versions,
    exactly-once moves and idempotency"); later the same key is a new request."""
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.IDEMPOTENCY_TTL_SECONDS)
    deleted = 0
    for model in (IdempotencyRecord, KeyedWrite):
        for _ in range(IDEMPOTENCY_EXPIRE_BATCHES):
            oldest = (
                model.objects.filter(created_at__lt=cutoff)
                .order_by("created_at")
                .values("pk")[:IDEMPOTENCY_EXPIRE_BATCH]
            )
            count, _ = model.objects.filter(pk__in=Subquery(oldest)).delete()
            deleted += count
            if count < IDEMPOTENCY_EXPIRE_BATCH:
                break
    return deleted


def _idempotency_record(
    player_id: UUID | str, match_id: UUID | str, key: str
) -> tuple[str, str] | None:
    """The request hash and the stored response of the record of (player, match, key)."""
    params = rawsql.prepared(IdempotencyRecord, player=player_id, match=match_id, key=key)
    row = rawsql.fetch_one(sql.idempotency_record(), params)
    return None if row is None else (row[0], row[1])


def _stored_reply(response: str) -> dict[str, Any]:
    """The first response to a replayed Idempotency-Key, as it was rendered (_response_text)."""
    reply: dict[str, Any] = json.loads(response)
    return reply


def _live_state(match: Match) -> engine.State:
    """The live deal's state of an active match (every active match has one)."""
    assert match.state is not None, match.id
    return engine.State.from_json(match.state)


def _response_text(view: Mapping[str, Any]) -> str:
    """The JSON text the API renders `view` as (datetimes such as `turn_deadline` in DRF's
    form), so that a replay of the stored text answers exactly what the first request did."""
    return JSONRenderer().render(view).decode()


def _move_write(
    match: Match,
    state: engine.State,
    seat: int,
    player_id: Any,
    move: engine.Move,
    *,
    by_bot: bool,
    reply: MoveReply | None = None,
    record: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    notices: bool = True,
    guarded: bool = False,
    caller: CallerLookup | None = None,
) -> tuple[engine.State, dict[str, Any]]:
    """Apply `move` for `seat` to `match` (locked, or read without the lock where `guarded`) at
    `state` and write it: the Move row, the match's state and version, and the deal's close
    if the move ends it (one statement on PostgreSQL); a bot on turn next, or the deal's
    scoring, is sent on commit. The state after it and `reply` of it (the mover's view as the
    caller builds it, once `match` holds what the move made of it; {} without `reply`), which
    this process's streams of the match are handed with the write (the mover's `state` event
    is that view, not rendered again). `record(view)` gives a row to write with the move (an
    IdempotencyRecord's values: a keyed move's, the reply in it), in the same statement where
    the move's is one. `notices` False: no one seated has anywhere to be sent notices
    (`move_lock` read it), so the commit looks none up. `guarded` (PostgreSQL, `match` read
    without the lock): the statement writes only if the match still holds the version read,
    outside any transaction of its own; `_Unguarded` and nothing written if it no longer does.
    `caller` (guarded, `match` as a process holds it, not read: `_apply_held`): the statement
    writes only if the caller's lookup still names `player_id`, and reads `notices` itself.
    409/422 if it is not this seat's turn or not legal (the engine's errors)."""
    # NotYourTurn and IllegalMove carry the API's code (pisyedili_api.errors maps them).
    after = engine.apply(state, move, seat)
    seq = match.move_count + 1
    read_version = match.version
    match.version += 1
    move_values: dict[str, Any] = dict(
        match_id=match.id,
        seq=seq,
        deal_id=match.live_deal_id,
        deal_number=match.current_deal,
        seat=seat,
        player_id=player_id,
        action=move.action,
        card=move.card.code if move.card is not None else None,
        suit=move.suit,
        drawn=[c.code for c in after.last_drawn] if move.action == "draw" else [],
        by_bot=by_bot,
        at=timezone.now(),
        version=match.version,
        after=public_facts(after),
        effect=engine.move_effect(state, move, after).to_json(),
    )
    match.move_count = seq
    match.state = after.to_json()
    written: dict[str, Any] = {"state": match.state, "version": match.version, "move_count": seq}
    if after.is_over:
        match.turn_deadline = None  # no turn to play until the next deal
        written["turn_deadline"] = None
    elif match.turn_seconds:
        match.turn_deadline = clock.deadline_after_move(match, seat, move, after)
        written["turn_deadline"] = match.turn_deadline
    match_row = rawsql.update_sql(Match, match.id, **written)
    view = reply(match, seat, after) if reply is not None else {}
    inserted: list[tuple[type[Model], dict[str, Any]]] = [(MoveRow, move_values)]
    if record is not None:
        inserted.append((IdempotencyRecord, record(view)))
    closed = _deal_close_values(after, match.state) if after.is_over else None
    if connection.vendor == "postgresql":
        # One round trip: the other writes ride in data-modifying CTEs of the match update,
        # which writes only if the version read is still the row's (always so under the lock).
        rows = [rawsql.insert_from_sql(model, "updated", **v) for model, v in inserted]
        if closed is not None:
            rows.append(rawsql.update_from_sql(Deal, match.live_deal_id, "updated", **closed))
        writes = [r[0] for r in rows]
        params = [*match_row[1], read_version]
        if caller is None:
            statement = sql.update_if_version_then_writes(match_row[0], writes)
        else:
            statement = sql.update_if_version_then_writes(match_row[0], writes, caller.lookup_sql())
            params += [*caller.lookup_params(), *rawsql.prepared(MoveRow, player=player_id)]
        params += [p for row in rows for p in row[1]]
        if caller is not None:
            params += rawsql.prepared(Seat, match=match.id)  # notices_wanted's
        # Guarded inside a caller's transaction (a test's): a savepoint, which a failed
        # statement would otherwise leave unusable for the answer's reads.
        nested = guarded and connection.in_atomic_block
        with transaction.atomic() if nested else nullcontext():
            landed = rawsql.fetch_one(statement, params)
        if not (landed and landed[0]):
            raise _Unguarded  # guarded only: under the lock the version cannot move
        if caller is not None:
            notices = bool(landed[1])
    else:
        for row in (*(rawsql.insert_sql(m, **v) for m, v in inserted), match_row):
            rawsql.execute(*row)
        if closed is not None:
            rawsql.execute(*rawsql.update_sql(Deal, match.live_deal_id, **closed))
    # The streams are told first: on commit the hooks run in this order.
    events.match_version_on_commit(
        match,
        state=after,
        replies={seat: view} if view else None,
        notices=notices,
        played=events.move_facts(match, seat, move),
    )
    if after.is_over:
        send_on_commit("games.deal_score", str(match.id), match.current_deal)  # R-30..R-32
    _after_commit_bot_turn(match)
    return after, view


def public_facts(state: engine.State) -> dict[str, Any]:
    """The table's public facts in `state` (engine.observe_public: no card of a hand or of the
    stock), as a move's log entry keeps them (`after`)."""
    facts = engine.observe_public(state).to_json()
    for key in ("you", "hand", "legal_moves"):
        facts.pop(key)
    return facts


def match_play_bot_turn(*, match_id: UUID | str, version: int) -> bool:
    """One bot turn if the match is still at `version` and a bot is on turn; True if it moved.

    Safe to run twice: a stale version or a human on turn means "done" (docs/architecture.md)."""
    return _play(match_id, version, lambda match, seat: match.seat_bots[seat] or None)


def _play(
    match_id: UUID | str, version: int, strategy_for: Callable[[Match, int], str | None]
) -> bool:
    """At `version` only: the seat on turn plays the move that the bot `strategy_for(match,
    seat)` chooses from its observation (None: nothing to play), applied as by_bot. True if
    it moved; a moved version, a finished match or a person who just moved all mean "done".
    On PostgreSQL the match is read without the lock and the move written only if the version
    read is still the match's (as a person's move, match_apply_move): the bot thinks holding
    no lock. A write that found the version moved on is played again under the match row lock,
    in one transaction from the version check to the write (the move already chosen, where the
    version is still the one it was chosen at)."""
    chosen = None
    if connection.vendor == "postgresql":
        try:
            return _play_at(match_id, version, strategy_for, guarded=True)
        except _Unguarded as unguarded:
            chosen = unguarded.move
    with transaction.atomic():
        return _play_at(match_id, version, strategy_for, guarded=False, chosen=chosen)


def _play_at(
    match_id: UUID | str,
    version: int,
    strategy_for: Callable[[Match, int], str | None],
    *,
    guarded: bool,
    chosen: engine.Move | None = None,
) -> bool:
    match, _found, notices = move_lock(match_id, lock=not guarded)
    if match is None or match.version != version or match.status != Match.Status.ACTIVE:
        return False
    state = _live_state(match)
    seat = state.turn
    if seat is None:
        return False
    strategy = strategy_for(match, seat)
    if strategy is None:
        return False
    move = chosen
    if move is None:
        bot = get_bot(strategy)
        history = _seen_history(match, state, seat) if bot.reads_history else ()
        move = bot.choose(engine.observe(state, seat), random.Random(), history)
    try:
        _move_write(
            match,
            state,
            seat,
            match.seat_players[seat],
            move,
            by_bot=True,
            notices=notices,
            guarded=guarded,
        )
    except _Unguarded as unguarded:
        unguarded.move = move
        raise
    return True


def _seen_history(match: Match, state: engine.State, seat: int) -> tuple[LoggedMove, ...]:
    """The live deal's move log as `seat` sees it (engine.history.seen_by), replayed from the
    deal's seed: what a bot that reads the log is given besides its observation."""
    rows = MoveRow.objects.filter(match_id=match.id, deal_number=match.current_deal)
    moves = [
        engine.Move.from_json(
            {"action": action, "card": card, "suit": suit} if card else {"action": action}
        )
        for action, card, suit in rows.order_by("seq").values_list("action", "card", "suit")
    ]
    return seen_by(deal_log(state.rules, state.seats, state.opener, state.seed, moves), seat)


# A turn may be a run of moves (draws, an Ace follow-up); never more than this many by the clock.
OVERDUE_MOVES_MAX = 64


def match_play_overdue_turn(*, match_id: UUID | str, version: int) -> int:
    """The turn clock: the greedy move for the person on turn whose deadline has passed, again
    while that same turn goes on; the number of moves played. Nothing before the deadline, on a
    moved version or with a bot on turn (all read at the version the move is written at)."""

    seats: list[int] = []

    def overdue(match: Match, seat: int) -> str | None:
        late = match.turn_deadline is not None and match.turn_deadline <= timezone.now()
        if late and not match.seat_bots[seat]:
            seats.append(seat)
            return clock.DEFAULT_MOVE_STRATEGY
        return None

    played = 0
    while played < OVERDUE_MOVES_MAX and _play(match_id, version, overdue):
        played += 1
        version += 1
    if played:
        match_absent_turn(match_id=match_id, seat=seats[-1])
    return played
