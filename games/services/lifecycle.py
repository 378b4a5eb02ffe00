"""A match's lifecycle: create it, seat players, start it, deal each deal.

These paths run once per match or per deal, so they use the ORM (docs/architecture.md): the
statements it builds are the ones a hand-written version would send.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import engine
from games.engine.bots import BOTS
from pisyedili_api.errors import ApplicationError, engine_message
from pisyedili_api.tasks import send_on_commit
from players.models import Player
from players.services import bot_player_get_or_create, player_lock

from .. import clock, events
from ..models import REMATCH_CONSTRAINT, Deal, Match, Seat
from ..selectors import match_hidden_check, seat_of
from . import invitations
from .locks import match_lock

logger = logging.getLogger(__name__)

MIN_SEATS = 2

_ACTIVE = (Match.Status.WAITING, Match.Status.ACTIVE)


def rules_from_options(
    *, rules: Mapping[str, Any] | None, deals: int | None = None
) -> engine.Rules:
    """The rules of a match from a request's `rules` and `deals` (the option `deals_per_match`
    by another name, which wins over the one in `rules`: a named rule set's options, with the
    number of deals chosen apart); 400 `invalid` naming the option otherwise. Tournaments
    validate their rules with it too."""
    options = dict(rules or {})
    if deals is not None:
        options["deals_per_match"] = deals
    try:
        parsed = engine.Rules.from_json(options)
    except engine.RulesError as exc:
        message = engine_message(exc)
        raise ApplicationError("invalid", message, {"rules": {exc.option: [message]}}) from None
    # docs/rules.md allows 1..52 deals; the server plays at most MAX_DEALS_PER_MATCH a match,
    # so one request cannot queue hours of bot work (R-32 extra deals may still follow).
    cap = settings.MAX_DEALS_PER_MATCH
    if parsed.deals_per_match > cap:
        message = _("deals must be 1..%(cap)d on this server (MAX_DEALS_PER_MATCH)") % {"cap": cap}
        detail: dict[str, Any] = (
            {"deals": [message]} if deals is not None else {"rules": {"deals_per_match": [message]}}
        )
        raise ApplicationError("invalid", message, detail)
    return parsed


def seats_check(seats: int, parsed: engine.Rules) -> None:
    """400 `invalid` naming `seats` unless a table of `seats` fits the rules `parsed`."""
    if not MIN_SEATS <= seats <= parsed.max_players:
        message = _("seats must be %(low)d..%(high)d (rule option max_players)") % {
            "low": MIN_SEATS,
            "high": parsed.max_players,
        }
        raise ApplicationError("invalid", message, {"seats": [message]})
    if seats * parsed.hand_size > 51:
        message = _("%(seats)d seats × %(cards)d cards leave no stock") % {
            "seats": seats,
            "cards": parsed.hand_size,
        }
        raise ApplicationError("invalid", message, {"seats": [message]})


def match_create(
    *,
    player: Player,
    seats: int,
    bots: Sequence[str] = (),
    deals: int | None = None,
    rules: Mapping[str, Any] | None = None,
    seated: Sequence[Player] | None = None,
    turn_seconds: int | None = None,
    spectators: str | None = None,
    seed_key: str | None = None,
    private: bool = False,
    invite: Sequence[str] = (),
) -> Match:
    """A new match: the creator takes seat 0, bots the next seats; it starts once full.

    `seated` (organizers' tools, e.g. tournaments): these distinct players take seats 0.. in
    order instead of the creator and `bots`; bot players among them play by their strategy.
    `turn_seconds`: the turn clock (games.clock), None for none. `spectators`: who may watch
    (Match.Spectators; None: `public`, `none` for a private match). `seed_key`: a seed source
    the match shares with others (duplicate tournaments, Match.seed_key), None for fresh seeds.
    `private`: a private table (games.services.invitations) with a join code, inviting the
    people named by `invite` (usernames)."""
    if spectators is None:
        spectators = Match.Spectators.NONE if private else Match.Spectators.PUBLIC
    if turn_seconds is not None and not (
        clock.TURN_SECONDS_MIN <= turn_seconds <= clock.TURN_SECONDS_MAX
    ):
        message = _("turn_seconds must be %(low)d..%(high)d") % {
            "low": clock.TURN_SECONDS_MIN,
            "high": clock.TURN_SECONDS_MAX,
        }
        raise ApplicationError("invalid", message, {"turn_seconds": [message]})
    if spectators not in Match.Spectators.values:
        message = _("spectators must be one of %(choices)s") % {
            "choices": ", ".join(Match.Spectators.values)
        }
        raise ApplicationError("invalid", message, {"spectators": [message]})
    parsed = rules_from_options(rules=rules, deals=deals)
    seats_check(seats, parsed)
    if len(bots) > seats - 1:
        message = _("at most %(bots)d bots fit beside you at a table of %(seats)d") % {
            "bots": seats - 1,
            "seats": seats,
        }
        raise ApplicationError("invalid", message, {"bots": [message]})
    unknown = [name for name in bots if name not in BOTS]
    if unknown:
        message = _("unknown bot strategy %(name)r; see GET /api/v1/bots") % {"name": unknown[0]}
        raise ApplicationError("invalid", message, {"bots": [message]})

    ordinal: dict[str, int] = {}
    bot_players = []
    for name in bots:
        ordinal[name] = ordinal.get(name, 0) + 1
        bot_players.append(bot_player_get_or_create(strategy=name, ordinal=ordinal[name]))
    occupants = [player, *bot_players] if seated is None else list(seated)
    if len(occupants) > seats or len({p.id for p in occupants}) < len(occupants):
        message = _("seated: at most %(seats)d distinct players") % {"seats": seats}
        raise ApplicationError("invalid", message, {"seated": [message]})
    if invite and not private:
        message = _("only a private match invites people")
        raise ApplicationError("invalid", message, {"invite": [message]})
    invitees = invitations.invitees_resolve(
        usernames=invite, creator=player, match=None, open_seats=seats - len(occupants)
    )

    with transaction.atomic():
        seat_players: list[str | None] = [str(p.id) for p in occupants]
        seat_players += [None] * (seats - len(seat_players))
        match = Match(
            created_by=player,
            created_at=timezone.now(),
            seat_count=seats,
            deals_total=parsed.deals_per_match,
            rules=parsed.to_json(),
            seat_players=seat_players,
            seat_bots=[p.strategy if p.is_bot else "" for p in occupants]
            + [""] * (seats - len(occupants)),
            totals=[0] * seats,
            turn_seconds=turn_seconds,
            spectators=spectators,
            seed_key=seed_key,
            private=private,
            join_code=invitations.join_code_new() if private else None,
        )
        seat_rows = _match_insert(
            match,
            [Seat(match=match, seat=i, player=p) for i, p in enumerate(occupants)],
            limits_of=player if seated is None else None,
        )
        if invitees:
            invitations.invitations_send(match, invitees)
    _related_known(match, seats=seat_rows, deals=_deals_known(match))
    return match


def _match_insert(match: Match, seats: list[Seat], *, limits_of: Player | None) -> list[Seat]:
    """Insert the new `match` and its `seats` (inside the caller's transaction; each seat
    carries the match's created_at): first the
    limits of `limits_of` (its row locked; None for organizers' tools), then a full table
    starts at once, its match row inserted as started, pointing at deal 1 (the foreign keys
    between the two are checked at commit)."""
    if limits_of is not None:
        _limits_check_locked(limits_of, bots_only=match.seat_bots.count("") == 1)
    started = None not in match.seat_players
    if started:
        _match_start(match)
        match.version += 1
    match.save(force_insert=True)
    for row in seats:
        row.match_created_at = match.created_at  # as saved: the field is auto_now_add
    rows = Seat.objects.bulk_create(seats)
    if started:
        events.match_version_on_commit(match, status_changed=True, lobby=False)
        _after_commit_bot_turn(match)
    else:
        events.match_version_on_commit(match)  # a new match in the lobby
    return rows


def _limits_check_locked(player: Player, *, bots_only: bool) -> None:
    """Lock the creator's player row (players.services.player_lock: 401 for an account
    deleted meanwhile), then check their limits on matches going on at once. Under READ
    COMMITTED each statement sees what committed before it began: the count runs after the
    lock is held, so it sees every match a racing create of this player committed (that
    create held the lock until its commit). Past a limit the caller's transaction rolls back."""
    player_lock(player)
    # A seat its person resigned is the reference bot's now: it holds no slot (match_resign).
    active = list(
        Seat.objects.filter(
            player_id=player.id, match__status__in=_ACTIVE, resigned_at__isnull=True
        ).values_list("match__seat_bots", flat=True)
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
        message = _(
            "You have %(active)d matches waiting or active; at most %(limit)d at once."
            " Finish or leave one first."
        ) % {"active": len(active), "limit": limit}
        raise ApplicationError(
            "too_many_active_matches", message, {"active_matches": len(active), "limit": limit}
        )
    if not bots_only:
        return
    bot_limit = settings.MAX_BOT_MATCHES_PER_PLAYER
    against_bots = sum(1 for seat_bots in active if list(seat_bots).count("") == 1)
    if against_bots >= bot_limit:
        message = _(
            "You have %(active)d matches against bots only going on; at most %(limit)d"
            " at once. Finish one first, or leave a seat open for a person."
        ) % {"active": against_bots, "limit": bot_limit}
        raise ApplicationError(
            "too_many_active_matches", message, {"bot_matches": against_bots, "limit": bot_limit}
        )


_SEAT_CONSTRAINTS = ("seat_unique_per_match", "player_once_per_match")


def match_join(*, match_id: UUID, player: Player, code: str | None = None) -> Match:
    """Take the lowest open seat; joining a match you sit in is a no-op. Full/started → 409.
    A private match seats only an invitee (their invitation is accepted) or the bearer of its
    join `code` (invitations.private_admit); to anyone else it is 404, as if it did not exist."""
    try:
        with transaction.atomic():
            match = match_lock(match_id)
            if match is None:
                raise ApplicationError("not_found", "No such match.")
            if seat_of(match, player.id) is not None:
                return match
            invitation = invitations.private_admit(match, player, code) if match.private else None
            seat_take_locked(match, player, invitation=invitation)
    except IntegrityError as exc:
        # Under the match row lock the seat rows follow seat_players, so a seat's unique
        # constraints only trip over a row written behind this service; the join rolled back.
        if not any(_violates(exc, Seat, name) for name in _SEAT_CONSTRAINTS):
            logger.exception("join of match %s: unexpected integrity error", match_id)
            raise
        raise ApplicationError("match_full") from None
    _related_known(match, deals=_deals_known(match))
    return match


def seat_take_locked(match: Match, player: Player, *, invitation: Any = None) -> None:
    """`player` takes the lowest open seat of the locked `match` (inside the caller's
    transaction): it starts when that was the last; `invitation`, the one accepted by taking
    it. 409 `match_full`, `too_many_active_matches`."""
    if match.status != Match.Status.WAITING or None not in match.seat_players:
        raise ApplicationError("match_full")
    # A match someone joins has two people at least: only the overall limit applies.
    # Counted under the joiner's row lock, as a create counts: two joins (or a join and
    # a create) of one player at once are counted one after the other.
    _limits_check_locked(player, bots_only=False)
    seat = match.seat_players.index(None)
    Seat.objects.create(match=match, seat=seat, player=player, match_created_at=match.created_at)
    match.seat_players[seat] = str(player.id)
    match.version += 1
    started = None not in match.seat_players
    if started:
        _match_start(match)
    if invitation is not None:
        invitations.invitation_accepted(match, invitation)
    _match_write(match, "seat_players", "version", *(_START_FIELDS if started else ()))
    _after_commit_bot_turn(match)


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
    rules = engine.Rules.from_json(match.rules)
    seed = _deal_seed(match, number)
    opener = engine.opener_for_deal(number + match.first_opener, match.seat_count)
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
    match.state = state.to_json()
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


# ---- The lobby: leave, cancel, expire; the rematch ----


def _people_seated(match: Match) -> list[int]:
    """The seats of `match` that people (not bots) hold."""
    return [
        seat
        for seat, holder in enumerate(match.seat_players)
        if holder is not None and not match.seat_bots[seat]
    ]


def match_leave(*, match_id: UUID | str, player: Player) -> Match:
    """A seated person leaves a waiting match: their seat is open again. The creator leaving a
    table nobody else has joined cancels it (`cancel_reason` "cancelled"); leaving one that
    others have joined hands the match to the person in the lowest seat. 403 `not_seated`,
    409 `match_not_waiting`."""
    with transaction.atomic():
        match = match_lock(match_id)
        if match is None:
            raise ApplicationError("not_found", "No such match.")
        seat = seat_of(match, player.id)
        if seat is None:
            match_hidden_check(match, player.id)
            raise ApplicationError("not_seated")
        if match.status != Match.Status.WAITING:
            raise ApplicationError("match_not_waiting")
        others = [s for s in _people_seated(match) if s != seat]
        if not others:
            # Only the creator sits at a waiting table (with bots, if any): it is theirs.
            _match_cancel_locked(match, Match.CancelReason.CANCELLED)
        else:
            Seat.objects.filter(match=match, seat=seat).delete()
            match.seat_players[seat] = None
            match.version += 1
            fields = ["seat_players", "version"]
            if str(match.created_by_id) == str(player.id):
                match.created_by_id = UUID(str(match.seat_players[others[0]]))
                fields.append("created_by_id")
            _match_write(match, *fields)
    return match


def match_cancel(*, match_id: UUID | str, player: Player) -> Match:
    """Its creator cancels a waiting match (`cancel_reason` "cancelled"). 403 `not_creator`,
    409 `match_not_waiting`."""
    with transaction.atomic():
        match = match_lock(match_id)
        if match is None:
            raise ApplicationError("not_found", "No such match.")
        if str(match.created_by_id) != str(player.id):
            match_hidden_check(match, player.id)
            raise ApplicationError("not_creator")
        if match.status != Match.Status.WAITING:
            raise ApplicationError("match_not_waiting")
        _match_cancel_locked(match, Match.CancelReason.CANCELLED)
    return match


def _match_cancel_locked(match: Match, reason: str) -> None:
    """The locked waiting `match` is cancelled for `reason`; its seats stay as history (a
    cancelled match counts towards no limit)."""
    match.status = Match.Status.CANCELLED
    match.cancel_reason = reason
    match.finished_at = timezone.now()
    match.version += 1
    _match_write(match, "status", "cancel_reason", "finished_at", "version")


# Waiting matches expired per sweep (games.tasks.sweep); the next sweep takes the rest.
WAITING_EXPIRE_BATCH = 500


def matches_waiting_expire(*, now: datetime | None = None) -> int:
    """Cancel (`cancel_reason` "expired") the matches still waiting MATCH_WAITING_TTL seconds
    after their creation, oldest first, at most WAITING_EXPIRE_BATCH; the number cancelled.
    Rows another transaction holds (a join under way) are skipped: the next sweep sees them
    again, and a match that has started by then is no longer waiting."""
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.MATCH_WAITING_TTL)
    with transaction.atomic():
        expired = list(
            Match.objects.select_for_update(skip_locked=True)
            .filter(status=Match.Status.WAITING, created_at__lt=cutoff)
            .order_by("created_at")[:WAITING_EXPIRE_BATCH]
        )
        for match in expired:
            _match_cancel_locked(match, Match.CancelReason.EXPIRED)
    return len(expired)


def match_rematch(*, match_id: UUID | str, player: Player) -> tuple[Match, bool]:
    """The next match of a finished one, and whether this call created it (a repeated
    rematch, by anyone, gives the same match, the caller seated in it: `_rematch_taken`).
    Same seat count, deals, rules and turn clock; the bots sit at once in their seats, the
    caller in their old seat; the other people's seats are open for them; the first dealer
    moves on by one seat. 403 `not_seated`, 409 `match_not_finished`, 409
    `too_many_active_matches` (the caller's limits)."""
    try:
        with transaction.atomic():
            previous = match_lock(match_id)
            if previous is None:
                raise ApplicationError("not_found", "No such match.")
            seat = seat_of(previous, player.id)
            if seat is None:
                match_hidden_check(previous, player.id)
                raise ApplicationError("not_seated")
            if previous.status != Match.Status.FINISHED:
                raise ApplicationError("match_not_finished")
            asked = previous.next_match_id
            if asked is None:
                match = _rematch_create(previous, seat, player)
    except IntegrityError as exc:
        if not _violates(exc, Match, REMATCH_CONSTRAINT):
            logger.exception("rematch of match %s: unexpected integrity error", match_id)
            raise
        # A rematch of the same match written behind the row lock (a backend without row
        # locks): it rolled back; the one that committed is the next match, the caller seated
        # in it as the second to ask.
        taken = Match.objects.only("id").get(rematch_of_id=UUID(str(match_id)))
        return _rematch_taken(taken.id, player), False
    if asked is not None:
        return _rematch_taken(asked, player), False
    return match, True


# A rematch's seat the caller could not take after all: filled or started meanwhile, or (a
# private one) their invitation answered or expired. They are shown the match as it is.
_REMATCH_SEAT_GONE = frozenset(
    {"match_full", "match_not_waiting", "not_found", "not_invited", "invitation_not_pending"}
)


def _rematch_taken(match_id: UUID, player: Player) -> Match:
    """The rematch another player of the finished match asked for first, with the caller in
    the seat it keeps for them while it waits for players (as `match_join` seats anyone: an
    open seat, or their invitation to a private one), under their limits."""
    match = Match.objects.get(id=match_id)
    if match.status != Match.Status.WAITING or seat_of(match, player.id) is not None:
        return match
    try:
        return match_join(match_id=match.id, player=player)
    except ApplicationError as exc:
        if exc.code not in _REMATCH_SEAT_GONE:
            raise
        return Match.objects.get(id=match_id)


def _rematch_create(previous: Match, seat: int, player: Player) -> Match:
    """Insert the rematch of the locked, finished `previous` for `player` in `seat`, and link
    the two; it starts at once when the bots and the caller fill it."""
    seats = previous.seat_count
    # The bots that sat from the start; a resigned person's seat is open again.
    bots = ["" if s in previous.resigned else bot for s, bot in enumerate(previous.seat_bots)]
    seat_players: list[str | None] = [
        holder if bots[s] else None for s, holder in enumerate(previous.seat_players)
    ]
    seat_players[seat] = str(player.id)
    match = Match(
        created_by=player,
        created_at=timezone.now(),
        seat_count=seats,
        # The rules' deals, not deals_total: an R-32 extra deal belongs to the match it settled.
        deals_total=engine.Rules.from_json(previous.rules).deals_per_match,
        rules=previous.rules,
        seat_players=seat_players,
        seat_bots=bots,
        totals=[0] * seats,
        turn_seconds=previous.turn_seconds,
        spectators=previous.spectators,
        first_opener=(previous.first_opener + 1) % seats,
        rematch_of=previous,
        private=previous.private,
        join_code=invitations.join_code_new() if previous.private else None,
    )
    _match_insert(
        match,
        [
            Seat(match=match, seat=s, player_id=holder)
            for s, holder in enumerate(seat_players)
            if holder is not None
        ],
        limits_of=player,
    )
    previous.next_match = match
    _match_write(previous, "next_match_id")
    if match.private:
        # A private table's rematch invites the other people of the finished match.
        others = [h for s, h in enumerate(previous.seat_players) if h and not bots[s]]
        people = Player.objects.filter(id__in=others, deleted_at__isnull=True).exclude(id=player.id)
        invitations.invitations_send(match, list(people))
    return match
