"""Writes on tournaments: create, start, cancel, and advance to the next round.

Each round's tables are matches made by games.services.match_create (seated=[…]), so a
tournament match is an ordinary match: same rules engine, same bot turns, same settlement.
`tournament_advance` runs after every settled tournament match (receivers.py → tasks.py); it
locks the tournament row and starts the next round only once every match of the current round
is finished. Round numbers are unique per tournament, so running it twice has effect once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from games.engine.bots import BOTS
from games.models import Match
from games.services import match_create, rules_from_options
from pisyedili_api.errors import ApplicationError
from players.models import Player
from players.services import bot_player_get_or_create

from . import pairing
from .models import Entrant, Round, Table, Tournament
from .selectors import tournament_standings

MIN_TABLE_SIZE, MAX_TABLE_SIZE = 2, 4
MAX_ENTRANTS = 64
MAX_ROUNDS = 64


def _invalid(field: str, message: str) -> ApplicationError:
    return ApplicationError("invalid", f"{field}: {message}", {field: [message]})


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
) -> Tournament:
    """A tournament in draft: entrants are `players` (ids, people or bots) then one bot player per
    name in `bots`. Bad input raises 400 `invalid` naming the field (or the rule option)."""
    if format not in Tournament.Format.values:
        raise _invalid("format", f"must be one of {', '.join(Tournament.Format.values)}")
    if not MIN_TABLE_SIZE <= table_size <= MAX_TABLE_SIZE:
        raise _invalid("table_size", f"must be {MIN_TABLE_SIZE}..{MAX_TABLE_SIZE}")
    parsed = rules_from_options(rules=rules, deals=deals)
    if table_size > parsed.max_players or table_size * parsed.hand_size > 51:
        raise _invalid("table_size", f"{table_size} seats do not fit these rules")
    for field, names in (("bots", bots), ("fill_bots", [fill_bots] if fill_bots else [])):
        unknown = [n for n in names if n not in BOTS]
        if unknown:
            raise _invalid(field, f"unknown bot strategy {unknown[0]!r}; see GET /api/v1/bots")
    wanted = [str(p) for p in players]
    duplicates = [p for p, count in Counter(wanted).items() if count > 1]
    if duplicates:
        raise _invalid("players", f"player {duplicates[0]} is listed twice")
    found = {str(p.id): p for p in Player.objects.filter(id__in=wanted)}
    missing = [p for p in wanted if p not in found]
    if missing:
        raise _invalid("players", f"no player {missing[0]}")
    entrants = [found[p] for p in wanted] + _bot_entrants(bots, exclude=set(wanted))
    if len(entrants) < table_size:
        raise _invalid("players", f"at least {table_size} entrants are needed for one table")
    if len(entrants) > MAX_ENTRANTS:
        raise _invalid("players", f"at most {MAX_ENTRANTS} entrants")
    if format == Tournament.Format.ROUND_ROBIN:
        if rounds is not None:
            raise _invalid("rounds", "a round robin plays as many rounds as its schedule needs")
        ids = [str(p.id) for p in entrants]
        plans = pairing.round_robin_schedule(ids, table_size, fill=bool(fill_bots))
        schedule: list[dict[str, Any]] | None = [
            {"tables": [list(t) for t in plan.tables], "byes": list(plan.byes)} for plan in plans
        ]
        rounds_total = len(plans)
    else:
        schedule = None
        rounds_total = rounds or pairing.swiss_default_rounds(len(entrants), table_size)
        if not 1 <= rounds_total <= MAX_ROUNDS:
            raise _invalid("rounds", f"must be 1..{MAX_ROUNDS}")

    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name,
            organizer=organizer,
            format=format,
            table_size=table_size,
            deals_per_match=parsed.deals_per_match,
            rules=parsed.to_dict(),
            fill_bot=fill_bots or "",
            rounds_total=rounds_total,
            schedule=schedule,
        )
        Entrant.objects.bulk_create(
            [Entrant(tournament=tournament, player=p, position=i) for i, p in enumerate(entrants)]
        )
    return tournament


def _bot_entrants(strategies: Sequence[str], exclude: set[str]) -> list[Player]:
    """One distinct bot player per name (bot-<strategy>-<n>), skipping ids already entered."""
    chosen: list[Player] = []
    for name in strategies:
        chosen.extend(_bots_of(name, 1, exclude | {str(p.id) for p in chosen}))
    return chosen


def _bots_of(strategy: str, count: int, exclude: set[str]) -> list[Player]:
    bots: list[Player] = []
    ordinal = 0
    while len(bots) < count:
        ordinal += 1
        bot = bot_player_get_or_create(strategy=strategy, ordinal=ordinal)
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


def tournament_start(*, tournament_id: UUID | str, player: Player) -> Tournament:
    """The organizer starts a draft tournament: round 1's matches are created at once."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organizer(tournament, player)
        if tournament.status == Tournament.Status.RUNNING:
            raise ApplicationError("tournament_started")
        if tournament.status != Tournament.Status.DRAFT:
            raise ApplicationError("tournament_over")
        tournament.status = Tournament.Status.RUNNING
        tournament.started_at = timezone.now()
        _round_start(tournament, 1)
        tournament.save()
    return tournament


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
    return tournament


def tournament_advance(*, tournament_id: UUID | str) -> bool:
    """If every match of the current round is finished: start the next round, or finish the
    tournament after the last. True if it changed something; safe to run any number of times."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(id=tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return False
        current = Round.objects.get(tournament=tournament, number=tournament.current_round)
        playing = Match.objects.filter(tournament_table__round=current).exclude(
            status=Match.Status.FINISHED
        )
        if playing.exists():
            return False
        now = timezone.now()
        current.finished_at = now
        current.save(update_fields=["finished_at"])
        if tournament.current_round >= tournament.rounds_total:
            tournament.status = Tournament.Status.FINISHED
            tournament.finished_at = now
        else:
            _round_start(tournament, tournament.current_round + 1)
        tournament.save()
        return True


def _round_start(tournament: Tournament, number: int) -> None:
    """Seat round `number`: one match per table (entrants, then filler bots), byes recorded."""
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        planned = tournament.schedule[number - 1]
        plan = pairing.RoundPlan(tuple(tuple(t) for t in planned["tables"]), tuple(planned["byes"]))
    else:
        plan = _swiss_plan(tournament)
    rnd = Round.objects.create(tournament=tournament, number=number, byes=list(plan.byes))
    entrant_ids = {str(pid) for pid in tournament.entrants.values_list("player_id", flat=True)}
    players = {str(p.id): p for p in Player.objects.filter(id__in=entrant_ids)}
    for index, table in enumerate(plan.tables, start=1):
        occupants = [players[str(pid)] for pid in table]
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
        )
        Table.objects.create(tournament=tournament, round=rnd, number=index, match=match)
    tournament.current_round = number


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
