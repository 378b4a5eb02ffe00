"""A match's lifecycle: create it, seat players, start it, deal each deal.

These paths run once per match or per deal, so they use the ORM (docs/architecture.md): the
statements it builds are the ones a hand-written version would send.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from games import engine
from games.engine.bots import BOTS
from pisyedili_api.errors import ApplicationError
from pisyedili_api.tasks import send_on_commit
from players.models import Player
from players.services import bot_player_get_or_create

from .. import clock, events
from ..models import Deal, Match, Seat
from ..selectors import seat_of

logger = logging.getLogger(__name__)

MIN_SEATS = 2

_ACTIVE = (Match.Status.WAITING, Match.Status.ACTIVE)


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
        detail: dict[str, Any] = (
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
    seed_key: str | None = None,
) -> Match:
    """A new match: the creator takes seat 0, bots the next seats; it starts once full.

    `seated` (organizers' tools, e.g. tournaments): these distinct players take seats 0.. in
    order instead of the creator and `bots`; bot players among them play by their strategy.
    `turn_seconds`: the turn clock (games.clock), None for none. `seed_key`: a seed source the
    match shares with others (duplicate tournaments, Match.seed_key), None for fresh seeds."""
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
            seed_key=seed_key,
        )
        if seated is None:
            _limits_check_locked(player, bots_only=match.seat_bots.count("") == 1)
        started = None not in seat_players
        if started:
            # A full table starts at once: its match row is inserted as started, pointing at
            # deal 1 (the foreign keys between the two are checked at commit).
            _match_start(match)
            match.version += 1
        match.save(force_insert=True)
        seat_rows = Seat.objects.bulk_create(
            [
                Seat(match=match, seat=i, player=p, match_created_at=match.created_at)
                for i, p in enumerate(occupants)
            ]
        )
        if started:
            events.match_version_on_commit(match, status_changed=True)
            _after_commit_bot_turn(match)
    _related_known(match, seats=seat_rows, deals=_deals_known(match))
    return match


def _limits_check_locked(player: Player, *, bots_only: bool) -> None:
    """Lock the creator's player row, then check their limits on matches going on at once.
    Under READ COMMITTED each statement sees what committed before it began: the count runs
    after the lock is held, so it sees every match a racing create of this player committed
    (that create held the lock until its commit). Past a limit the caller's transaction
    rolls back. FOR NO KEY UPDATE does not wait for, nor hold up, the foreign key checks of
    that player's moves elsewhere (FOR KEY SHARE); SQLite has no row locks and serialises
    writers itself."""
    lock = Player.objects.select_for_update(no_key=True).filter(id=player.id).order_by()
    list(lock.values_list("id"))
    active = list(
        Seat.objects.filter(player_id=player.id, match__status__in=_ACTIVE).values_list(
            "match__seat_bots", flat=True
        )
    )
    _limits_check(active, bots_only=bots_only)


def _limits_check(active: Sequence[Any], *, bots_only: bool) -> None:
    """409 `too_many_active_matches` if the player already has MAX_ACTIVE_MATCHES_PER_PLAYER
    matches waiting or active (`active`: the seat_bots of each), or, for a match where they
    are the only person and bots play the other seats, MAX_BOT_MATCHES_PER_PLAYER such
    matches: one account cannot fill the bot workers (their bot turns all queue on the same
    workers as everyone's)."""
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
    against_bots = sum(1 for seat_bots in active if list(seat_bots).count("") == 1)
    if against_bots >= bot_limit:
        message = (
            f"You have {against_bots} matches against bots only going on; at most {bot_limit}"
            " at once. Finish one first, or leave a seat open for a person."
        )
        raise ApplicationError(
            "too_many_active_matches", message, {"bot_matches": against_bots, "limit": bot_limit}
        )


_SEAT_CONSTRAINTS = ("seat_unique_per_match", "player_once_per_match")


def _active_count(player_id: Any) -> Coalesce:
    """A scalar subquery: the number of matches waiting or active where a player sits."""
    seats = (
        Seat.objects.filter(player_id=player_id, match__status__in=_ACTIVE)
        .order_by()
        .annotate(one=Value(1))
        .values("one")
        .annotate(count=Count("*"))
        .values("count")
    )
    return Coalesce(Subquery(seats), 0)


def match_join(*, match_id: UUID, player: Player) -> Match:
    """Take the lowest open seat; joining a match you sit in is a no-op. Full/started → 409."""
    try:
        with transaction.atomic():
            # The match row locked, with the joiner's count of matches going on, in one
            # statement.
            match = (
                Match.objects.select_for_update(of=("self",))
                .annotate(active_matches=_active_count(player.id))
                .filter(id=match_id)
                .first()
            )
            if match is None:
                raise ApplicationError("not_found", "No such match.")
            if seat_of(match, player.id) is not None:
                return match
            if match.status != Match.Status.WAITING or None not in match.seat_players:
                raise ApplicationError("match_full")
            # A match someone joins has two people at least: only the overall limit applies.
            _limits_check([None] * match.active_matches, bots_only=False)
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


# The match fields _deal_start sets, and _match_start with the status (the caller writes them).
_DEAL_FIELDS = ("live_deal_id", "current_deal", "state", "turn_deadline")
_START_FIELDS = ("status", *_DEAL_FIELDS)


def _match_start(match: Match) -> None:
    """Every seat is filled: deal 1 (the caller writes the match's _START_FIELDS)."""
    match.status = Match.Status.ACTIVE
    _deal_start(match, 1)


def _match_write(match: Match, *names: str) -> None:
    """Write the attributes `names` of `match` to its row, and nothing else: one UPDATE, which
    leaves the live deal's state alone unless it is named."""
    Match.objects.filter(id=match.id).update(**{n: getattr(match, n) for n in names})
    if "version" in names:
        events.match_version_on_commit(match, status_changed="status" in names)


def _deals_known(match: Match) -> list[Deal]:
    """The deals of a match that has just been created or joined: the one just dealt, if any
    (a match deals its first deal when its last seat fills)."""
    return [] if match.live_deal is None else [match.live_deal]


def _related_known(match: Match, **related: list[Any]) -> None:
    """Hand `match` rows of its relations (e.g. `deals=[…]`) that this service holds, in the
    attributes that selectors.match_get prefetches them to (Prefetch to_attr `seat_rows`,
    `deal_rows`): the response (match_summary) does not read them back."""
    for name, rows in related.items():
        setattr(match, f"{name.removesuffix('s')}_rows", list(rows))


def _deal_start(match: Match, number: int) -> None:
    """Deal `number` (R-3..R-5, R-8): its secret seed (_deal_seed), commitment public, state
    stored on the match (the caller writes the match's _DEAL_FIELDS)."""
    rules = engine.Rules.from_dict(match.rules)
    seed = _deal_seed(match, number)
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


def _deal_seed(match: Match, number: int) -> bytes:
    """A fresh secret seed (R-3), or deal `number`'s seed of the match's shared seed source
    (Match.seed_key: every table of a duplicate round plays the same deals)."""
    if match.seed_key is None:
        return engine.new_seed()
    return hmac.digest(bytes.fromhex(match.seed_key), f"deal:{number}".encode(), "sha256")


def _after_commit_bot_turn(match: Match) -> None:
    """If a bot is on turn, enqueue its turn once this transaction commits."""
    if match.status != Match.Status.ACTIVE or not match.state:
        return
    turn = match.state.get("turn")
    if turn is None or not match.seat_bots[turn]:
        return
    send_on_commit("games.match_play_bot_turn", str(match.id), match.version)
