"""Writes on tournaments: create, answer an invitation, start, cancel, advance to the next round.

Nobody is entered without their consent: the people an organizer lists are invited, and the
tournament starts only once every one of them has accepted (`409 invitations_pending` before);
one who declines leaves it. Every tournament match runs a turn clock (`turn_seconds`, default
settings.TOURNAMENT_TURN_SECONDS), so a person who stops playing cannot hold a round forever.
What one organizer may create is bounded (settings): tournaments in draft or running
(MAX_ACTIVE_TOURNAMENTS_PER_PLAYER, 409), entrants (TOURNAMENT_MAX_ENTRANTS) and the deals of
the whole tournament (TOURNAMENT_MAX_DEALS, tables of every round × deals per match), 400.

Each round's tables are matches made by games.services.match_create (seated=[…]), so a
tournament match is an ordinary match: same rules engine, same bot turns, same settlement.
`tournament_advance` runs after every settled tournament match (receivers.py → tasks.py); it
locks the tournament row and starts the next round only once every match of the current round
is finished. Round numbers are unique per tournament, so running it twice has effect once. Once
a tournament is cancelled its dealt round plays on and is closed (`finished_at`, a duplicate
round's matchpoints) when its last match ends; no round starts after it.
A round's matches are dealt in the caller's transaction, but their bot turns are never played
there: with a broker a worker plays them; in the embedded default they run on the background
thread of games.tasks.in_background, so `start` answers at once.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, cast
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games import clock, events
from games.engine.bots import BOTS
from games.models import Match
from games.services import match_create, rules_from_options
from pisyedili_api.errors import ApplicationError, invalid, translated
from pisyedili_api.tasks import in_background
from players.models import Player
from players.services import (
    bot_player_get_or_create,
    has_visible_character,
    plain_text_check,
    player_lock,
)

from . import pairing
from .models import Entrant, Round, Table, Tournament
from .selectors import round_matchpoints, tournament_standings

MIN_TABLE_SIZE, MAX_TABLE_SIZE = 2, 4
MAX_ROUNDS = 64
ACTIVE = (Tournament.Status.DRAFT, Tournament.Status.RUNNING)
# A tournament's name is plain text that shows something, as a display name is
# (players.services.has_visible_character, plain_text_check).
_BLANK_NAME = gettext_noop("The tournament name may not be blank.")
_CONTROL_IN_NAME = gettext_noop(
    "The tournament name may not contain the control character U+%(code)04X."
)


@transaction.atomic
def tournament_create(
    *,
    organizer: Player,
    name: str,
    format: str,
    table_size: int,
    players: Sequence[UUID | str] = (),
    bots: Sequence[str] = (),
    deals: int | None = None,
    rules: Mapping[str, Any] | None = None,
    fill_bots: str | None = None,
    rounds: int | None = None,
    turn_seconds: int | None = None,
) -> Tournament:
    """A tournament in draft: entrants are `players` (ids, people or bots) then one bot player per
    name in `bots`. The people are invited (the organizer, if listed, and bots accept at once).
    Bad input raises 400 `invalid` naming the field (or the rule option); an organizer with
    MAX_ACTIVE_TOURNAMENTS_PER_PLAYER tournaments in draft or running gets 409
    `too_many_tournaments`."""
    if not has_visible_character(name):
        raise invalid("name", _BLANK_NAME)
    plain_text_check("name", name, _CONTROL_IN_NAME)
    # One transaction: the organizer's row lock makes the count and the insert one step (two
    # creates at once cannot both pass the limit), and bad input leaves no row behind (the bot
    # players of `bots` included).
    player_lock(organizer)  # refused if the account was deleted meanwhile
    active = Tournament.objects.filter(organizer=organizer, status__in=ACTIVE).count()
    if active >= settings.MAX_ACTIVE_TOURNAMENTS_PER_PLAYER:
        raise ApplicationError(
            "too_many_tournaments",
            _(
                "You have %(active)d tournaments in draft or running, the most allowed"
                " (MAX_ACTIVE_TOURNAMENTS_PER_PLAYER); finish or cancel one first."
            )
            % {"active": active},
            {"active": active, "limit": settings.MAX_ACTIVE_TOURNAMENTS_PER_PLAYER},
        )
    if turn_seconds is None:
        turn_seconds = settings.TOURNAMENT_TURN_SECONDS
    if not clock.TURN_SECONDS_MIN <= turn_seconds <= clock.TURN_SECONDS_MAX:
        # A tournament match without a clock could wait forever for one entrant.
        raise invalid(
            "turn_seconds",
            _("must be %(low)d..%(high)d")
            % {"low": clock.TURN_SECONDS_MIN, "high": clock.TURN_SECONDS_MAX},
        )
    if format not in Tournament.Format.values:
        raise invalid(
            "format",
            _("must be one of %(choices)s") % {"choices": ", ".join(Tournament.Format.values)},
        )
    if not MIN_TABLE_SIZE <= table_size <= MAX_TABLE_SIZE:
        raise invalid(
            "table_size",
            _("must be %(low)d..%(high)d") % {"low": MIN_TABLE_SIZE, "high": MAX_TABLE_SIZE},
        )
    parsed = rules_from_options(rules=rules, deals=deals)
    if table_size > parsed.max_players or table_size * parsed.hand_size > 51:
        raise invalid(
            "table_size", _("%(seats)d seats do not fit these rules") % {"seats": table_size}
        )
    for field, names in (("bots", bots), ("fill_bots", [fill_bots] if fill_bots else [])):
        unknown = [n for n in names if n not in BOTS]
        if unknown:
            raise invalid(
                field,
                _("unknown bot strategy %(name)r; see GET /api/v1/bots") % {"name": unknown[0]},
            )
    wanted = [str(p) for p in players]
    # A deleted player is no entrant: their invitation could never be answered.
    found = {str(p.id): p for p in Player.objects.filter(id__in=wanted, deleted_at__isnull=True)}
    missing = [p for p in wanted if p not in found]
    if missing:
        raise invalid("players", _("no player %(id)s") % {"id": missing[0]})
    duplicates = [p for p, count in Counter(wanted).items() if count > 1]
    if duplicates:
        raise invalid(
            "players",
            _("player %(username)s is listed twice") % {"username": found[duplicates[0]].username},
        )
    entrants = [found[p] for p in wanted] + _bot_entrants(bots, exclude=set(wanted))
    if len(entrants) < table_size:
        raise invalid(
            "players",
            _("at least %(count)d entrants are needed for one table") % {"count": table_size},
        )
    if len(entrants) > settings.TOURNAMENT_MAX_ENTRANTS:
        raise invalid(
            "players",
            _("at most %(count)d entrants") % {"count": settings.TOURNAMENT_MAX_ENTRANTS},
        )
    ids = [str(p.id) for p in entrants]
    schedule: list[dict[str, Any]] | None = None
    if format == Tournament.Format.DUPLICATE:
        _duplicate_check(len(entrants), table_size, fill_bots, parsed)
        rounds_total = rounds or table_size
        if not 1 <= rounds_total <= MAX_ROUNDS:
            raise invalid("rounds", _("must be 1..%(most)d") % {"most": MAX_ROUNDS})
        # The schedule is drawn at the start, for the entrants who accepted.
        tables = rounds_total * (len(entrants) // table_size)
    elif format == Tournament.Format.ROUND_ROBIN:
        if rounds is not None:
            raise invalid("rounds", "a round robin plays as many rounds as its schedule needs")
        planned = _round_robin(ids, table_size, bool(fill_bots))
        schedule = planned
        rounds_total = len(planned)
        tables = sum(len(rnd["tables"]) for rnd in planned)
    else:
        rounds_total = rounds or pairing.swiss_default_rounds(len(entrants), table_size)
        if not 1 <= rounds_total <= MAX_ROUNDS:
            raise invalid("rounds", _("must be 1..%(most)d") % {"most": MAX_ROUNDS})
        per_round = -(-len(entrants) // table_size) if fill_bots else len(entrants) // table_size
        tables = rounds_total * per_round
    deals_total = tables * parsed.deals_per_match
    if deals_total > settings.TOURNAMENT_MAX_DEALS:
        raise invalid(
            "deals",
            _(
                "%(tables)d matches × %(deals)d deals = %(total)d deals in all;"
                " at most %(most)d (fewer entrants, deals or rounds)"
            )
            % {
                "tables": tables,
                "deals": parsed.deals_per_match,
                "total": deals_total,
                "most": settings.TOURNAMENT_MAX_DEALS,
            },
        )

    tournament = Tournament.objects.create(
        name=name,
        organizer=organizer,
        format=format,
        table_size=table_size,
        deals_per_match=parsed.deals_per_match,
        rules=parsed.to_json(),
        fill_bot=fill_bots or "",
        rounds_total=rounds_total,
        schedule=schedule,
        turn_seconds=turn_seconds,
    )
    Entrant.objects.bulk_create(
        [
            Entrant(
                tournament=tournament,
                player=p,
                position=i,
                status=Entrant.Status.ACCEPTED
                if p.is_bot or p.id == organizer.id
                else Entrant.Status.INVITED,
            )
            for i, p in enumerate(entrants)
        ]
    )
    events.tournament_invitation_on_commit(
        tournament, [str(p.id) for p in entrants if not p.is_bot and p.id != organizer.id]
    )
    return tournament


def _duplicate_check(count: int, table_size: int, fill_bots: str | None, rules: Any) -> None:
    """400 `invalid` unless `count` entrants fit the duplicate rotation (pairing.py), saying
    which counts fit; a duplicate round seats entrants only and plays the same deals everywhere."""
    if fill_bots:
        raise invalid("fill_bots", "a duplicate round seats entrants only; enter bots with `bots`")
    if rules.match_tiebreak != "shared":
        message = translated(
            "match_tiebreak must be shared in a duplicate tournament: extra deals would be"
            " played at some tables only"
        )
        # Named as a refused rule option is (games.services.rules_from_options).
        raise ApplicationError("invalid", message, {"rules": {"match_tiebreak": [message]}})
    if not pairing.duplicate_fits(count, table_size):
        raise invalid("players", _duplicate_fit_message(count, table_size))


def _duplicate_fit_message(count: int, table_size: int) -> str:
    fits = pairing.duplicate_counts(table_size, settings.TOURNAMENT_MAX_ENTRANTS)
    shown = ", ".join(str(n) for n in fits) if fits else _("none on this server")
    return _(
        "%(count)d entrants do not fit a duplicate rotation of %(seats)d seats: it needs a"
        " multiple of %(section)d entrants (%(seats)d tables of %(seats)d per section);"
        " counts that fit: %(fits)s"
    ) % {"count": count, "seats": table_size, "section": table_size * table_size, "fits": shown}


def _round_robin(ids: Sequence[str], table_size: int, fill: bool) -> list[dict[str, Any]]:
    """Every round's tables and byes of a round robin of `ids`, as stored in `schedule`."""
    plans = pairing.round_robin_schedule(ids, table_size, fill=fill)
    return [{"tables": [list(t) for t in plan.tables], "byes": list(plan.byes)} for plan in plans]


def _bot_entrants(strategies: Sequence[str], exclude: set[str]) -> list[Player]:
    """One distinct bot player per name (bot-<strategy>-<n>), skipping ids already entered: a
    strategy's bots in the order of their ordinals, given out in the order of `strategies`."""
    of_strategy = {
        name: iter(_bots_of(name, strategies.count(name), exclude))
        for name in dict.fromkeys(strategies)
    }
    return [next(of_strategy[name]) for name in strategies]


def _bots_of(strategy: str, count: int, exclude: set[str]) -> list[Player]:
    """The first `count` bots of `strategy` by ordinal whose ids are not in `exclude`; the rows
    that exist read at once, the missing ones made."""
    existing = {
        bot.bot_ordinal: bot
        for bot in Player.objects.filter(
            is_bot=True, strategy=strategy, bot_ordinal__lte=count + len(exclude)
        )
    }
    bots: list[Player] = []
    ordinal = 0
    while len(bots) < count:
        ordinal += 1
        bot = existing.get(ordinal) or bot_player_get_or_create(strategy=strategy, ordinal=ordinal)
        if str(bot.id) not in exclude:
            bots.append(bot)
    return bots


def _lock(tournament_id: UUID | str) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(id=tournament_id).first()
    if tournament is None:
        raise ApplicationError("not_found", "No such tournament.")
    return tournament


def _check_organizer(tournament: Tournament, player: Player) -> None:
    if tournament.organizer_id != player.id:
        raise ApplicationError("not_organizer")


def _check_draft(tournament: Tournament) -> None:
    if tournament.status == Tournament.Status.RUNNING:
        raise ApplicationError("tournament_started")
    if tournament.status != Tournament.Status.DRAFT:
        raise ApplicationError("tournament_over")


def _invitation(tournament: Tournament, player: Player) -> Entrant:
    """The caller's entry in a draft tournament (locked with the tournament), else 403/409."""
    _check_draft(tournament)
    entrant = Entrant.objects.filter(tournament=tournament, player=player).first()
    if entrant is None:
        raise ApplicationError("not_invited")
    return entrant


def tournament_invitation_accept(*, tournament_id: UUID | str, player: Player) -> Tournament:
    """An invited person accepts their seat in a draft tournament (again: no change)."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        entrant = _invitation(tournament, player)
        if entrant.status != Entrant.Status.ACCEPTED:
            entrant.status = Entrant.Status.ACCEPTED
            entrant.save(update_fields=["status"])
            events.tournament_answered_on_commit(tournament, str(player.id), "accepted")
    return tournament


def tournament_invitation_decline(*, tournament_id: UUID | str, player: Player) -> Tournament:
    """An entrant of a draft tournament declines (or withdraws an acceptance): they leave it, and
    a round robin's schedule is drawn again for the entrants left."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _invitation(tournament, player).delete()
        events.tournament_answered_on_commit(tournament, str(player.id), "declined")
        _entrants_changed(tournament)
    return tournament


def tournament_entrant_remove(
    *, tournament_id: UUID | str, player: Player, entrant_id: UUID | str
) -> Tournament:
    """The organizer takes an entrant (a pending invitation, an accepted one, or a bot) out of a
    draft tournament, as if they had declined: one who never answers no longer holds up the
    start. The person removed is told (`tournament_withdrawn`). 400 `invalid` for a player who
    is not an entrant."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organizer(tournament, player)
        _check_draft(tournament)
        entrant = (
            Entrant.objects.select_related("player")
            .filter(tournament=tournament, player_id=entrant_id)
            .first()
        )
        if entrant is None:
            message = _("%(id)s is not an entrant of this tournament") % {"id": entrant_id}
            raise ApplicationError("invalid", message, {"player": [message]})
        entrant.delete()
        if not entrant.player.is_bot:
            events.tournament_withdrawn_on_commit(tournament, str(entrant.player_id))
        _entrants_changed(tournament)
    return tournament


def _entrants_changed(tournament: Tournament) -> None:
    """An entrant left the locked draft `tournament`: a round robin's schedule is drawn again
    for the entrants left."""
    ids = [
        str(p)
        for p in Entrant.objects.filter(tournament=tournament)
        .order_by("position")
        .values_list("player_id", flat=True)
    ]
    size = tournament.table_size
    if tournament.format == Tournament.Format.ROUND_ROBIN and len(ids) >= size:
        tournament.schedule = _round_robin(ids, size, bool(tournament.fill_bot))
        tournament.rounds_total = len(tournament.schedule)
        tournament.save(update_fields=["schedule", "rounds_total"])


def tournament_start(*, tournament_id: UUID | str, player: Player) -> Tournament:
    """The organizer starts a draft tournament once every invitation is accepted: round 1's
    matches are dealt at once, and nothing is played before the start returns."""
    with in_background(), transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organizer(tournament, player)
        _check_draft(tournament)
        entrants = list(tournament.entrants.values_list("player_id", "status"))
        pending = [str(p) for p, status in entrants if status != Entrant.Status.ACCEPTED]
        if pending:
            raise ApplicationError(
                "invitations_pending",
                _("Invited players who have not accepted yet: %(count)d.")
                % {"count": len(pending)},
                {"pending": pending},
            )
        if len(entrants) < tournament.table_size:
            raise ApplicationError(
                "not_enough_entrants",
                _("Entrants: %(count)d; a table needs %(seats)d.")
                % {"count": len(entrants), "seats": tournament.table_size},
                {"entrants": len(entrants), "table_size": tournament.table_size},
            )
        if tournament.format == Tournament.Format.DUPLICATE:
            _duplicate_schedule_draw(tournament, [str(p) for p, _ in entrants])
        tournament.status = Tournament.Status.RUNNING
        tournament.started_at = timezone.now()
        _round_start(tournament, 1)
        tournament.save()
    return tournament


def _duplicate_schedule_draw(tournament: Tournament, entrants: Sequence[str]) -> None:
    """Fix a duplicate tournament's tables of every round for the entrants who accepted (in
    seeding order); 409 `not_enough_entrants` if a decline left a count that does not fit."""
    size = tournament.table_size
    if not pairing.duplicate_fits(len(entrants), size):
        raise ApplicationError(
            "not_enough_entrants",
            _duplicate_fit_message(len(entrants), size),
            {"entrants": len(entrants), "table_size": size},
        )
    order = {
        str(p): i
        for p, i in Entrant.objects.filter(tournament=tournament).values_list(
            "player_id", "position"
        )
    }
    seeded = sorted(entrants, key=order.__getitem__)
    plans = pairing.duplicate_schedule(seeded, size, tournament.rounds_total)
    tournament.schedule = [{"tables": [list(t) for t in plan.tables], "byes": []} for plan in plans]


def tournament_cancel(*, tournament_id: UUID | str, player: Player) -> Tournament:
    """The organizer cancels: no further round starts (matches already dealt play on)."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organizer(tournament, player)
        if tournament.status not in (Tournament.Status.DRAFT, Tournament.Status.RUNNING):
            raise ApplicationError("tournament_over")
        tournament.status = Tournament.Status.CANCELLED
        tournament.finished_at = timezone.now()
        tournament.save(update_fields=["status", "finished_at"])
        people = Entrant.objects.filter(tournament=tournament, player__is_bot=False)
        told = [str(p) for p in people.values_list("player_id", flat=True)]
        events.tournament_cancelled_on_commit(tournament, told)
    return tournament


def tournament_advance(*, tournament_id: UUID | str) -> bool:
    """If every match of the current round is finished: close the round, then start the next
    one, or finish the tournament after the last (a cancelled tournament's round is closed, no
    other starts). True if it changed something; safe to run any number of times."""
    with in_background(), transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(id=tournament_id).first()
        if tournament is None or tournament.status not in (
            Tournament.Status.RUNNING,
            Tournament.Status.CANCELLED,
        ):
            return False
        current = Round.objects.filter(
            tournament=tournament, number=tournament.current_round, finished_at__isnull=True
        ).first()
        if current is None:  # cancelled in draft, or its round closed already
            return False
        playing = Match.objects.filter(tournament_table__round=current).exclude(
            status=Match.Status.FINISHED
        )
        if playing.exists():
            return False
        now = timezone.now()
        current.finished_at = now
        if tournament.format == Tournament.Format.DUPLICATE:
            current.matchpoints = round_matchpoints(current)
        current.save(update_fields=["finished_at", "matchpoints"])
        if tournament.status == Tournament.Status.CANCELLED:
            return True
        if tournament.current_round >= tournament.rounds_total:
            tournament.status = Tournament.Status.FINISHED
            tournament.finished_at = now
        else:
            _round_start(tournament, tournament.current_round + 1)
        tournament.save()
        return True


def _round_start(tournament: Tournament, number: int) -> None:
    """Seat round `number`: one match per table (entrants, then filler bots), byes recorded."""
    duplicate = tournament.format == Tournament.Format.DUPLICATE
    if tournament.format in (Tournament.Format.ROUND_ROBIN, Tournament.Format.DUPLICATE):
        # A round robin's schedule is fixed when it is created, a duplicate one when it starts.
        planned = cast("list[dict[str, Any]]", tournament.schedule)[number - 1]
        plan = pairing.RoundPlan(tuple(tuple(t) for t in planned["tables"]), tuple(planned["byes"]))
    else:
        plan = _swiss_plan(tournament)
    # Duplicate: one secret seed source for the round, so every table plays the same deals.
    seed_key = secrets.token_hex(32) if duplicate else None
    rnd = Round.objects.create(
        tournament=tournament, number=number, byes=list(plan.byes), seed_key=seed_key
    )
    entrant_ids = {str(pid) for pid in tournament.entrants.values_list("player_id", flat=True)}
    players = {str(p.id): p for p in Player.objects.filter(id__in=entrant_ids)}
    for index, table in enumerate(plan.tables, start=1):
        occupants = [players[str(pid)] for pid in table]
        if not duplicate:  # a duplicate table is seated by its rotation (pairing.py)
            shift = (number - 1) % len(occupants)  # rotate who sits first from round to round
            occupants = occupants[shift:] + occupants[:shift]
        if len(occupants) < tournament.table_size:
            occupants += _bots_of(
                tournament.fill_bot, tournament.table_size - len(occupants), entrant_ids
            )
        match = match_create(
            player=tournament.organizer,
            seats=tournament.table_size,
            rules=tournament.rules,
            seated=occupants,
            turn_seconds=tournament.turn_seconds,
            seed_key=seed_key,
        )
        Table.objects.create(tournament=tournament, round=rnd, number=index, match=match)
    tournament.current_round = number
    events.tournament_round_on_commit(rnd)


def _swiss_plan(tournament: Tournament) -> pairing.RoundPlan:
    standings = tournament_standings(tournament)
    ranking = [row["player"]["id"] for row in standings]
    entrants = set(ranking)
    met: Counter[frozenset[Any]] = Counter()
    for seat_players in Match.objects.filter(tournament_table__tournament=tournament).values_list(
        "seat_players", flat=True
    ):
        met.update(pairing.pairs_of([p for p in seat_players if p in entrants]))
    byes: Counter[Any] = Counter(
        pid for round_byes in tournament.rounds.values_list("byes", flat=True) for pid in round_byes
    )
    return pairing.swiss_round(ranking, tournament.table_size, bool(tournament.fill_bot), met, byes)
