"""Writes on matches: create, join, apply a move (human or bot), end a deal, finish a match.

Exactly-once moves (docs/architecture.md "A move, end to end"): the match row is locked with
SELECT … FOR UPDATE, the request's version must equal the match's, a repeated Idempotency-Key
(per player and match) returns the stored first response, and (match, seq) is unique. An
IntegrityError of a race a service knows (a unique constraint it names) becomes a documented
4xx; any other one is a logged 500.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Subquery
from django.utils import timezone

from games import engine
from games.engine.bots import BOTS, get_bot
from pisyedili_api import rawsql
from pisyedili_api.errors import ApplicationError
from pisyedili_api.renderers import JSONRenderer
from players.auth import token_player_sql
from players.models import Player
from players.services import bot_player_get_or_create, player_deals_add, player_standings_settle

from . import clock, events
from .models import IDEMPOTENCY_KEY_CONSTRAINT, Deal, IdempotencyRecord, Match, ScoreEntry, Seat
from .models import Move as MoveRow
from .selectors import seat_of, state_view
from .signals import match_settled

logger = logging.getLogger(__name__)

MIN_SEATS = 2


def rules_from_options(
    *, rules: Mapping[str, Any] | None, deals: int | None = None
) -> engine.Rules:
    """The rules of a match from a request's `rules` (and `deals`); 400 `invalid` naming the
    option otherwise. Tournaments validate their rules with it too."""
    options = dict(rules or {})
    if deals is not None:
        options["deals_per_match"] = deals
    try:
        parsed = engine.Rules.from_dict(options)
    except engine.RulesError as exc:
        raise ApplicationError(
            "invalid", str(exc), {"rules": {exc.option: [exc.message]}}
        ) from None
    # docs/rules.md allows 1..52 deals; the server plays at most MAX_DEALS_PER_MATCH a match,
    # so one request cannot queue hours of bot work (R-32 extra deals may still follow).
    cap = settings.MAX_DEALS_PER_MATCH
    if parsed.deals_per_match > cap:
        message = f"deals must be 1..{cap} on this server (MAX_DEALS_PER_MATCH)"
        detail = (
            {"deals": [message]} if deals is not None else {"rules": {"deals_per_match": [message]}}
        )
        raise ApplicationError("invalid", message, detail)
    return parsed


def match_create(
    *,
    player: Player,
    seats: int,
    bots: Sequence[str] = (),
    deals: int | None = None,
    rules: Mapping[str, Any] | None = None,
    seated: Sequence[Player] | None = None,
    turn_seconds: int | None = None,
) -> Match:
    """A new match: the creator takes seat 0, bots the next seats; it starts once full.

    `seated` (organizers' tools, e.g. tournaments): these distinct players take seats 0.. in
    order instead of the creator and `bots`; bot players among them play by their strategy.
    `turn_seconds`: the turn clock (games.clock), None for none."""
    if turn_seconds is not None and not (
        clock.TURN_SECONDS_MIN <= turn_seconds <= clock.TURN_SECONDS_MAX
    ):
        message = f"turn_seconds must be {clock.TURN_SECONDS_MIN}..{clock.TURN_SECONDS_MAX}"
        raise ApplicationError("invalid", message, {"turn_seconds": [message]})
    parsed = rules_from_options(rules=rules, deals=deals)
    if not MIN_SEATS <= seats <= parsed.max_players:
        message = f"seats must be {MIN_SEATS}..{parsed.max_players} (rule option max_players)"
        raise ApplicationError("invalid", message, {"seats": [message]})
    if seats * parsed.hand_size > 51:
        message = f"{seats} seats × {parsed.hand_size} cards leave no stock"
        raise ApplicationError("invalid", message, {"seats": [message]})
    if len(bots) > seats - 1:
        message = f"at most {seats - 1} bots fit beside you at a table of {seats}"
        raise ApplicationError("invalid", message, {"bots": [message]})
    unknown = [name for name in bots if name not in BOTS]
    if unknown:
        message = f"unknown bot strategy {unknown[0]!r}; see GET /api/v1/bots"
        raise ApplicationError("invalid", message, {"bots": [message]})

    ordinal: dict[str, int] = {}
    bot_players = []
    for name in bots:
        ordinal[name] = ordinal.get(name, 0) + 1
        bot_players.append(bot_player_get_or_create(strategy=name, ordinal=ordinal[name]))
    occupants = [player, *bot_players] if seated is None else list(seated)
    if len(occupants) > seats or len({p.id for p in occupants}) < len(occupants):
        message = f"seated: at most {seats} distinct players"
        raise ApplicationError("invalid", message, {"seated": [message]})

    with transaction.atomic():
        seat_players: list[str | None] = [str(p.id) for p in occupants]
        seat_players += [None] * (seats - len(seat_players))
        match = Match(
            created_by=player,
            created_at=timezone.now(),
            seat_count=seats,
            deals_total=parsed.deals_per_match,
            rules=parsed.to_dict(),
            seat_players=seat_players,
            seat_bots=[p.strategy if p.is_bot else "" for p in occupants]
            + [""] * (seats - len(occupants)),
            totals=[0] * seats,
            turn_seconds=turn_seconds,
        )
        seat_rows = [
            Seat(match=match, seat=i, player=p, match_created_at=match.created_at)
            for i, p in enumerate(occupants)
        ]
        _match_insert(match, seat_rows, limited=None if seated is not None else player)
        if None not in seat_players:
            _match_start(match)
            match.version += 1
            _match_write(match, "version", *_START_FIELDS)
            _after_commit_bot_turn(match)
    _related_known(match, seats=seat_rows, deals=_deals_known(match))
    return match


def _match_insert(match: Match, seats: list[Seat], *, limited: Player | None) -> None:
    """INSERT the new `match` and its `seats`; with `limited`, the creator, first lock the
    creator's player row, then check their limits on matches going on at once, in the
    statement that inserts the rows on PostgreSQL (its snapshot, taken once the lock is held,
    sees every match a racing create committed; not this one). Past a limit the caller's
    transaction rolls the rows back."""
    match_row = rawsql.insert_sql(
        Match, **{f.attname: getattr(match, f.attname) for f in Match._meta.concrete_fields}
    )
    if limited is None:
        rawsql.execute(*match_row)
        seats[:] = Seat.objects.bulk_create(seats)
    else:
        rawsql.execute(*_player_lock_sql(limited.id))
        active_sql, active_params = _active_seat_bots_sql(limited.id)
        if connection.vendor == "postgresql":
            # One round trip: the rows ride in data-modifying CTEs (the seats' foreign key to
            # the match is checked at commit).
            rows = [match_row] + [
                rawsql.insert_sql(
                    Seat,
                    **{
                        f.attname: getattr(seat, f.attname)
                        for f in Seat._meta.concrete_fields
                        if not f.primary_key
                    },
                )
                for seat in seats
            ]
            ctes = ", ".join(f"new_{n} AS ({sql})" for n, (sql, _) in enumerate(rows))
            params = [value for _, values in rows for value in values]
            active = _fetch_all(f"WITH {ctes} {active_sql}", [*params, *active_params])
            for seat in seats:
                seat._state.adding, seat._state.db = False, connection.alias
        else:
            rawsql.execute(*match_row)
            active = _fetch_all(active_sql, active_params)
            seats[:] = Seat.objects.bulk_create(seats)
        _limits_check([bots for (bots,) in active], bots_only=match.seat_bots.count("") == 1)
    match._state.adding = False
    match._state.db = connection.alias


def _player_lock_sql(player_id: Any) -> tuple[str, list[Any]]:
    """Lock a player row: FOR NO KEY UPDATE on PostgreSQL, which does not wait for, nor hold
    up, the foreign key checks of that player's moves elsewhere (FOR KEY SHARE). SQLite has no
    row locks and serialises writers itself."""
    lock = " FOR NO KEY UPDATE" if connection.vendor == "postgresql" else ""
    column = rawsql.columns(Player)["id"]
    sql = f"SELECT {column} FROM {rawsql.table(Player)} WHERE {column} = %s{lock}"
    return sql, rawsql.prepared(Player, id=player_id)


def _active_seat_bots_sql(player_id: Any) -> tuple[str, list[Any]]:
    """`SELECT …`: the seat_bots of every match waiting or active where the player sits."""
    seat, match = rawsql.columns(Seat), rawsql.columns(Match)
    sql = (
        f"SELECT m.{match['seat_bots']} FROM {rawsql.table(Seat)} s"
        f" JOIN {rawsql.table(Match)} m ON m.{match['id']} = s.{seat['match']}"
        f" WHERE s.{seat['player']} = %s AND m.{match['status']} IN (%s, %s)"
    )
    params = [
        *rawsql.prepared(Seat, player=player_id),
        Match.Status.WAITING.value,
        Match.Status.ACTIVE.value,
    ]
    return sql, params


def _limits_check(active: Sequence[Any], *, bots_only: bool) -> None:
    """409 `too_many_active_matches` if the player already has MAX_ACTIVE_MATCHES_PER_PLAYER
    matches waiting or active, or, for a match where they are the only person and bots play
    the other seats, MAX_BOT_MATCHES_PER_PLAYER such matches: one account cannot fill the bot
    workers (their bot turns all queue on the same workers as everyone's)."""
    limit = settings.MAX_ACTIVE_MATCHES_PER_PLAYER
    if len(active) >= limit:
        message = (
            f"You have {len(active)} matches waiting or active; at most {limit} at once."
            " Finish or leave one first."
        )
        raise ApplicationError(
            "too_many_active_matches", message, {"active_matches": len(active), "limit": limit}
        )
    if not bots_only:
        return
    bot_limit = settings.MAX_BOT_MATCHES_PER_PLAYER
    against_bots = sum(1 for seat_bots in active if _json_list(seat_bots).count("") == 1)
    if against_bots >= bot_limit:
        message = (
            f"You have {against_bots} matches against bots only going on; at most {bot_limit}"
            " at once. Finish one first, or leave a seat open for a person."
        )
        raise ApplicationError(
            "too_many_active_matches", message, {"bot_matches": against_bots, "limit": bot_limit}
        )


def _fetch_all(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _json_list(value: Any) -> list[Any]:
    """A JSON column's list as the database returns it (parsed on PostgreSQL, text elsewhere)."""
    return json.loads(value) if isinstance(value, str | bytes) else list(value)


_SEAT_CONSTRAINTS = ("seat_unique_per_match", "player_once_per_match")


def _active_count_sql() -> str:
    """A scalar subquery: the number of matches waiting or active where a player sits."""
    seat, match = rawsql.columns(Seat), rawsql.columns(Match)
    return (
        f"(SELECT COUNT(*) FROM {rawsql.table(Seat)} s JOIN {rawsql.table(Match)} m"
        f" ON m.{match['id']} = s.{seat['match']}"
        f" WHERE s.{seat['player']} = %s AND m.{match['status']} IN (%s, %s))"
    )


def match_join(*, match_id: UUID, player: Player) -> Match:
    """Take the lowest open seat; joining a match you sit in is a no-op. Full/started → 409."""
    try:
        with transaction.atomic():
            active, match = rawsql.fetch_by_pk(
                Match,
                match_id,
                lock=True,
                extra=_active_count_sql(),
                extra_params=[
                    *rawsql.prepared(Seat, player=player.id),
                    Match.Status.WAITING.value,
                    Match.Status.ACTIVE.value,
                ],
            )
            if match is None:
                raise ApplicationError("not_found", "No such match.")
            if seat_of(match, player.id) is not None:
                return match
            if match.status != Match.Status.WAITING or None not in match.seat_players:
                raise ApplicationError("match_full")
            # A match someone joins has two people at least: only the overall limit applies.
            _limits_check([None] * active, bots_only=False)
            seat = match.seat_players.index(None)
            Seat.objects.create(
                match=match, seat=seat, player=player, match_created_at=match.created_at
            )
            match.seat_players[seat] = str(player.id)
            match.version += 1
            started = None not in match.seat_players
            if started:
                _match_start(match)
            _match_write(match, "seat_players", "version", *(_START_FIELDS if started else ()))
            _after_commit_bot_turn(match)
    except IntegrityError as exc:
        # Under the match row lock the seat rows follow seat_players, so a seat's unique
        # constraints only trip over a row written behind this service; the join rolled back.
        if not any(_violates(exc, Seat, name) for name in _SEAT_CONSTRAINTS):
            logger.exception("join of match %s: unexpected integrity error", match_id)
            raise
        raise ApplicationError("match_full") from None
    _related_known(match, deals=_deals_known(match))
    return match


# The match fields _deal_start sets, and _match_start with the status (the caller writes them).
_DEAL_FIELDS = ("live_deal_id", "current_deal", "state", "turn_deadline")
_START_FIELDS = ("status", *_DEAL_FIELDS)
# The match fields _deal_close sets (the caller writes them).
_CLOSE_FIELDS = ("state", "turn_deadline")


def _match_start(match: Match) -> None:
    """Every seat is filled: deal 1 (the caller writes the match's _START_FIELDS)."""
    match.status = Match.Status.ACTIVE
    _deal_start(match, 1)


def _match_write(match: Match, *names: str) -> None:
    """Write the attributes `names` of `match` to its row, and nothing else: one plain UPDATE
    (pisyedili_api.rawsql), which leaves the live deal's state alone unless it is named."""
    rawsql.execute(*rawsql.update_sql(Match, match.id, **{n: getattr(match, n) for n in names}))
    if "version" in names:
        events.match_version_on_commit(match, status_changed="status" in names)


def _deals_known(match: Match) -> list[Deal]:
    """The deals of a match that has just been created or joined: the one just dealt, if any
    (a match deals its first deal when its last seat fills)."""
    return [] if match.live_deal is None else [match.live_deal]


def _related_known(match: Match, **related: list[Any]) -> None:
    """Hand `match` rows of its relations (e.g. `deals=[…]`) that this service holds, as if
    prefetched: the response (selectors.match_get, match_summary) does not read them back."""
    cache = match.__dict__.setdefault("_prefetched_objects_cache", {})
    for name, rows in related.items():
        queryset = getattr(match, name).get_queryset()
        queryset._result_cache = list(rows)
        queryset._prefetch_done = True
        cache[name] = queryset


def _deal_start(match: Match, number: int) -> None:
    """Deal `number` (R-3..R-5, R-8): fresh seed, commitment public, state stored on the match
    (the caller writes the match's _DEAL_FIELDS)."""
    rules = engine.Rules.from_dict(match.rules)
    seed = engine.new_seed()
    opener = engine.opener_for_deal(number, match.seat_count)
    state = engine.new_deal(rules, match.seat_count, opener, seed)
    deal = Deal.objects.create(
        match=match,
        number=number,
        dealer=state.dealer,
        opener=opener,
        seed=seed,
        commitment=engine.commitment(seed),
        hands_at_start=[[c.code for c in hand] for hand in state.hands],
    )
    match.live_deal = deal
    match.current_deal = number
    match.state = engine.state_to_json(state)
    match.turn_deadline = clock.deadline_for(match, state)


def request_hash(match_id: Any, body: Mapping[str, Any]) -> str:
    canonical = json.dumps({"match": str(match_id), "body": body}, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def match_apply_move(
    *,
    match_id: UUID | str,
    move: engine.Move,
    version: int,
    player_id: UUID | str | None = None,
    token: str | None = None,
    idempotency_key: str | None = None,
    request_body: Mapping[str, Any] | None = None,
    by_bot: bool = False,
) -> dict[str, Any]:
    """Apply one move for the player's seat; return that seat's view right after it.

    The mover is `player_id`, or the player whose API `token` it is: the move POST hands over
    the token so that the statement locking the match looks it up too (one round trip fewer on
    the hottest route); a token of no active player is 401 `not_authenticated`.

    Order of checks: (token) → match exists → seat → idempotent replay → match active →
    version → turn → legality. A replay returns the stored first response and applies nothing.
    """
    if (player_id is None) == (token is None):
        raise ValueError("give exactly one of player_id and token")
    digest = (
        request_hash(match_id, request_body if request_body is not None else move.encode())
        if idempotency_key
        else ""
    )
    try:
        with transaction.atomic():
            return _apply_locked(
                match_id=match_id,
                player_id=player_id,
                token=token,
                move=move,
                version=version,
                idempotency_key=idempotency_key,
                digest=digest,
                by_bot=by_bot,
            )
    except IntegrityError as exc:
        if not idempotency_key or not _violates(exc, IdempotencyRecord, IDEMPOTENCY_KEY_CONSTRAINT):
            # Not a race this service knows: a bug or a row written behind it. A 500 that is
            # logged, never a domain answer that would hide it.
            logger.exception("move on match %s: unexpected integrity error", match_id)
            raise
        # A record of this (player, match, key) written behind the match row lock (a backend
        # without row locks, a writer that does not take the lock). The transaction rolled
        # back; answer as the winner decided.
        if token is not None:
            player_id = _token_player(token)
        record = IdempotencyRecord.objects.filter(
            player_id=player_id, match_id=match_id, key=idempotency_key
        ).first()
        if record is not None:
            if record.request_hash == digest:
                return json.loads(record.response)
            raise ApplicationError("idempotency_mismatch") from None
        current = Match.objects.filter(id=match_id).values_list("version", flat=True).first()
        raise ApplicationError("stale_version", detail={"current_version": current}) from None


def _violates(exc: IntegrityError, model: type[Any], name: str) -> bool:
    """Whether `exc` is a violation of `model`'s unique constraint `name`: PostgreSQL names the
    constraint; SQLite lists its columns ("UNIQUE constraint failed: table.col, …")."""
    diag = getattr(exc.__cause__, "diag", None)
    if diag is not None:
        return bool(diag.constraint_name == name)
    constraint = next(c for c in model._meta.constraints if c.name == name)
    table = model._meta.db_table
    columns = ", ".join(f"{table}.{model._meta.get_field(f).column}" for f in constraint.fields)
    return str(exc) == f"UNIQUE constraint failed: {columns}"


def _apply_locked(
    *,
    match_id: UUID | str,
    player_id: UUID | str | None,
    token: str | None,
    move: engine.Move,
    version: int,
    idempotency_key: str | None,
    digest: str,
    by_bot: bool,
) -> dict[str, Any]:
    match, token_player = _match_lock(match_id, token)
    if token is not None:
        if match is None:
            token_player = _token_player(token)  # 401 comes before 404
        if token_player is None:
            raise ApplicationError("not_authenticated", "Invalid token.")
        player_id = token_player
    if match is None:
        raise ApplicationError("not_found", "No such match.")
    seat = seat_of(match, player_id)
    if seat is None:
        raise ApplicationError("not_seated")
    if idempotency_key:
        record = IdempotencyRecord.objects.filter(
            player_id=player_id, match_id=match.id, key=idempotency_key
        ).first()
        if record is not None:
            if record.request_hash != digest:
                raise ApplicationError("idempotency_mismatch")
            return json.loads(record.response)
    if match.status != Match.Status.ACTIVE:
        raise ApplicationError("match_not_active")
    if version != match.version:
        raise ApplicationError("stale_version", detail={"current_version": match.version})
    state = engine.state_from_json(match.state)
    after = _move_write(match, state, seat, player_id, move, by_bot=by_bot)
    view = state_view(match, seat, state=after)
    if idempotency_key:
        IdempotencyRecord.objects.create(
            player_id=player_id,
            key=idempotency_key,
            request_hash=digest,
            match=match,
            response=_response_text(view),
        )
    return view


# Expired idempotency records are deleted this many per statement, at most this many
# statements per sweep (games.tasks.sweep), so one sweep never holds long locks.
IDEMPOTENCY_EXPIRE_BATCH = 1000
IDEMPOTENCY_EXPIRE_BATCHES = 10


def idempotency_records_expire(*, now: datetime | None = None) -> int:
    """Delete the idempotency records older than settings.IDEMPOTENCY_TTL_SECONDS, oldest
    first, in bounded batches; the number deleted. A key is so replayable for at least that
    long (README, Configuration); later the same key is a new move."""
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.IDEMPOTENCY_TTL_SECONDS)
    deleted = 0
    for _ in range(IDEMPOTENCY_EXPIRE_BATCHES):
        oldest = (
            IdempotencyRecord.objects.filter(created_at__lt=cutoff)
            .order_by("created_at")
            .values("pk")[:IDEMPOTENCY_EXPIRE_BATCH]
        )
        count, _ = IdempotencyRecord.objects.filter(pk__in=Subquery(oldest)).delete()
        deleted += count
        if count < IDEMPOTENCY_EXPIRE_BATCH:
            break
    return deleted


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
) -> engine.State:
    """Apply `move` for `seat` to the locked `match` at `state` and write it: the Move row, the
    match's state and version (one statement on PostgreSQL), the deal's end if it ends; a bot
    on turn next is enqueued on commit. The state after it; 409/422 if it is not this seat's
    turn or not legal."""
    try:
        after = engine.apply(state, move, seat)
    except engine.NotYourTurn:
        raise ApplicationError("not_your_turn") from None
    except engine.IllegalMove as exc:
        raise ApplicationError(
            "illegal_move",
            f"{move} is not legal now.",
            {"legal_moves": [m.encode() for m in exc.legal_moves]},
        ) from None

    seq = match.move_count + 1
    move_row = rawsql.insert_sql(
        MoveRow,
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
    )
    match.move_count = seq
    match.version += 1
    if after.is_over:
        rawsql.execute(*move_row)
        _deal_close(match, after)
        _match_write(match, "version", "move_count", *_CLOSE_FIELDS)
    else:
        match.state = engine.state_to_json(after)
        clocked = {}
        if match.turn_seconds:
            match.turn_deadline = clock.deadline_after_move(match, seat, move, after)
            clocked["turn_deadline"] = match.turn_deadline
        match_row = rawsql.update_sql(
            Match,
            match.id,
            state=match.state,
            version=match.version,
            move_count=seq,
            **clocked,
        )
        if connection.vendor == "postgresql":
            # One round trip: the Move insert rides in a data-modifying CTE of the match update.
            both = f"WITH new_move AS ({move_row[0]}) {match_row[0]}"
            rawsql.execute(both, move_row[1] + match_row[1])
        else:
            rawsql.execute(*move_row)
            rawsql.execute(*match_row)
        events.match_version_on_commit(match)
    _after_commit_bot_turn(match)
    return after


def _match_lock(match_id: UUID | str, token: str | None = None) -> tuple[Match | None, Any]:
    """The match row, locked with SELECT … FOR UPDATE (a plain SELECT where the backend has no
    row locks), and with a `token`, the id of the active player it belongs to (else None) from
    the same statement. Plain SQL: this runs on every move (pisyedili_api.rawsql)."""
    if token is None:
        return rawsql.fetch_by_pk(Match, match_id, lock=True)[1], None
    token_player, match = rawsql.fetch_by_pk(
        Match, match_id, lock=True, extra=token_player_sql(), extra_params=[token]
    )
    return match, _player_id(token_player)


def _token_player(token: str) -> UUID | None:
    """The id of the active player whose API token this is, else None."""
    row = rawsql.fetch_one(f"SELECT {token_player_sql()}", [token])
    return None if row is None else _player_id(row[0])


def _player_id(value: Any) -> UUID | None:
    """A player id as the database returns it (a UUID; hex text on SQLite) as a UUID."""
    return None if value is None else Player._meta.pk.to_python(value)  # type: ignore[union-attr]


def _after_commit_bot_turn(match: Match) -> None:
    """If a bot is on turn, enqueue its turn once this transaction commits."""
    if match.status != Match.Status.ACTIVE or not match.state:
        return
    turn = match.state.get("turn")
    if turn is None or not match.seat_bots[turn]:
        return
    from .tasks import enqueue_bot_turn

    match_id, version = str(match.id), match.version
    transaction.on_commit(lambda: enqueue_bot_turn(match_id, version))


# ---- The end of a deal, scoring and settlement ----
# The move that ends a deal only closes it (result and final state stored, so every seat's view
# shows phase deal_over); games.score_deal records the scores and deals on or finishes the match,
# and games.settle_match updates the players' standings. Each is run once however often it is
# delivered: the match row lock plus Deal.scored_at / Match.settled_at decide.


def _deal_close(match: Match, final: engine.State) -> None:
    """R-28, R-29: the deal is over. Store its result and final state; score it on a worker
    once the move commits (the caller writes the match's _CLOSE_FIELDS)."""
    result = final.result
    assert result is not None
    Deal.objects.filter(id=match.live_deal_id).update(
        status=Deal.Status.OVER,
        result=result.to_json(),
        final_state=engine.state_to_json(final),
        finished_at=timezone.now(),
    )
    match.state = engine.state_to_json(final)
    match.turn_deadline = None
    from .tasks import enqueue_score_deal

    match_id, number = str(match.id), match.current_deal
    transaction.on_commit(lambda: enqueue_score_deal(match_id, number))


def deal_score(*, match_id: UUID | str, deal_number: int) -> bool:
    """R-30, R-31, R-32: record every seat's score of a deal that is over (penalty, hand
    penalty, multiplier, cards left), the players' deal counters, then deal the next deal or
    finish the match (places) and have it settled. True if it scored now; False when there is
    nothing to do (no such deal, not over yet, scored already)."""
    with transaction.atomic():
        match, _ = _match_lock(match_id)
        if match is None:
            return False
        now = timezone.now()
        deal = _deal_claim(match, deal_number, now)
        if deal is None:
            return False
        result = deal.result
        # The next deal is dealt only once this one is scored: until then the match holds the
        # final state of its live deal (_deal_close), so it need not be read again.
        final = engine.state_from_json(
            match.state if deal.id == match.live_deal_id else deal.final_state
        )
        player_ids = [UUID(p) for p in match.seat_players]
        winners = set(result["winners"])
        penalties = result["penalties"]
        ScoreEntry.objects.bulk_create(
            [
                ScoreEntry(
                    deal=deal,
                    match=match,
                    seat=seat,
                    player_id=player_ids[seat],
                    penalty=penalties[seat],
                    hand_penalty=result["hand_penalties"][seat],
                    multiplier=result["multiplier"],
                    cards_left=[c.code for c in final.hands[seat]],
                    won=seat in winners,
                )
                for seat in range(match.seat_count)
            ]
        )
        match.totals = [t + p for t, p in zip(match.totals, penalties, strict=True)]
        player_deals_add(
            deals=[
                (player_ids[seat], seat in winners, penalties[seat])
                for seat in range(match.seat_count)
            ]
        )
        match.version += 1  # long-polls see the next deal (or the match's end)
        rules = engine.Rules.from_dict(match.rules)
        if match.current_deal < match.deals_total or engine.match_needs_extra_deal(
            match.totals, rules
        ):
            if match.current_deal >= match.deals_total:
                match.deals_total += 1  # R-32 extra_deal: play on while the lowest total is shared
            _deal_start(match, match.current_deal + 1)
            _seats_save_totals(match, places=None)
            _match_write(match, "totals", "version", "deals_total", *_DEAL_FIELDS)
            _after_commit_bot_turn(match)
            return True
        match.status = Match.Status.FINISHED
        match.finished_at = now
        _seats_save_totals(match, places=engine.match_places(match.totals))
        _match_write(match, "totals", "version", "status", "finished_at")
        from .tasks import enqueue_settle_match

        settle_id = str(match.id)
        transaction.on_commit(lambda: enqueue_settle_match(settle_id))
    return True


def _deal_claim(match: Match, number: int, now: Any) -> Deal | None:
    """Deal `number` of `match` marked scored at `now` if it is over and not scored yet, else
    None: the claim that has a deal scored once however often score_deal runs. The deal comes
    back with its id and result (its other fields load when read)."""
    column = rawsql.columns(Deal)
    sql = (
        f"UPDATE {rawsql.table(Deal)} SET {column['scored_at']} = %s"
        f" WHERE {column['match']} = %s AND {column['number']} = %s"
        f" AND {column['status']} = %s AND {column['scored_at']} IS NULL"
        f" RETURNING {column['id']}, {column['result']}"
    )
    params = rawsql.prepared(
        Deal, scored_at=now, match=match.id, number=number, status=Deal.Status.OVER.value
    )
    row = rawsql.fetch_one(sql, params)
    return None if row is None else rawsql.from_row(Deal, ("id", "result"), row)


def match_settle(*, match_id: UUID | str) -> bool:
    """A finished match's players' standings (wins, ratings, boards), once: True if it settled
    now, False if the match is not finished or was settled already. games.signals.match_settled
    is sent after the settlement commits."""
    with transaction.atomic():
        match, _ = _match_lock(match_id)
        if match is None or match.status != Match.Status.FINISHED or match.settled_at is not None:
            return False
        scores = list(
            ScoreEntry.objects.filter(match_id=match.id).order_by().values_list("seat", "won")
        )
        player_standings_settle(
            match_id=match.id,
            player_ids=[UUID(p) for p in match.seat_players],
            # The places deal_score gave the seats from these totals when it finished the match.
            places=engine.match_places(match.totals),
            rules=match.rules,
            finished_at=match.finished_at,
            deals_played=len(scores) // match.seat_count,
            deals_won=[sum(w for s, w in scores if s == seat) for seat in range(match.seat_count)],
            penalties=list(match.totals),
        )
        match.settled_at = timezone.now()
        _match_write(match, "settled_at")
        settled_id = str(match.id)
        transaction.on_commit(lambda: match_settled.send(sender=None, match_id=settled_id))
    return True


def _seats_save_totals(match: Match, places: list[int] | None) -> None:
    """Every seat row's running total from the match, and with `places` its place: one UPDATE
    by seat number (the rows are not read first)."""
    column = rawsql.columns(Seat)
    by_seat = (
        {"total": match.totals} if places is None else {"total": match.totals, "place": places}
    )
    whens = " ".join(["WHEN %s THEN %s"] * match.seat_count)
    assignments = ", ".join(
        f"{column[name]} = CASE {column['seat']} {whens} END" for name in by_seat
    )
    sql = f"UPDATE {rawsql.table(Seat)} SET {assignments} WHERE {column['match']} = %s"
    params: list[Any] = [
        value
        for values in by_seat.values()
        for seat in range(match.seat_count)
        for value in (seat, values[seat])
    ]
    params += rawsql.prepared(Seat, match=match.id)
    rawsql.execute(sql, params)


def match_play_bot_turn(*, match_id: UUID | str, version: int) -> bool:
    """One bot turn if the match is still at `version` and a bot is on turn; True if it moved.

    Safe to run twice: a stale version or a human on turn means "done" (docs/architecture.md)."""
    return _play_locked(match_id, version, lambda match, seat: match.seat_bots[seat] or None)


def _play_locked(
    match_id: UUID | str, version: int, strategy_for: Callable[[Match, int], str | None]
) -> bool:
    """Under the match row lock, at `version` only: the seat on turn plays the move that the bot
    `strategy_for(match, seat)` chooses from its observation (None: nothing to play), applied
    as by_bot. True if it moved. One transaction from the version check to the write, so a
    moved version, a finished match or a person who just moved all mean "done"."""
    with transaction.atomic():
        match, _ = _match_lock(match_id)
        if match is None or match.version != version or match.status != Match.Status.ACTIVE:
            return False
        state = engine.state_from_json(match.state)
        seat = state.turn
        if seat is None:
            return False
        strategy = strategy_for(match, seat)
        if strategy is None:
            return False
        move = get_bot(strategy).choose(engine.observe(state, seat), random.Random())
        _move_write(match, state, seat, match.seat_players[seat], move, by_bot=True)
    return True


# A turn may be a run of moves (draws, an Ace follow-up); never more than this many by the clock.
OVERDUE_MOVES_MAX = 64


def match_play_overdue_turn(*, match_id: UUID | str, version: int) -> int:
    """The turn clock: the greedy move for the person on turn whose deadline has passed, again
    while that same turn goes on; the number of moves played. Nothing before the deadline, on a
    moved version or with a bot on turn (all read under the match row lock)."""

    def overdue(match: Match, seat: int) -> str | None:
        late = match.turn_deadline is not None and match.turn_deadline <= timezone.now()
        return clock.DEFAULT_MOVE_STRATEGY if late and not match.seat_bots[seat] else None

    played = 0
    while played < OVERDUE_MOVES_MAX and _play_locked(match_id, version, overdue):
        played += 1
        version += 1
    return played
