"""Quick play: a person asks for a table of a size and rule set and waits; the pairing seats
waiting people of close ratings together, and when a wait ends, fills the empty seats with bots
(if the person allowed them) or tells the person and takes them out of the queue.

Where it runs: each join pairs its own table size and rules at once (`queue_join`), and the beat
(`games.queue_pair`, every QUEUE_PAIR_SECONDS, embedded or under Celery beat) pairs the whole
queue, which is also what ends the waits. No process keeps the queue in memory: the entries are
rows (QueueEntry), one per player, and a pairing locks the waiting rows it reads with SELECT …
FOR UPDATE SKIP LOCKED, so two pairings at once (two web processes, a worker and a web process)
never read the same entry, and an entry leaves `waiting` in the transaction that seats it.

Pairing (`tables_pick`, a pure function the bench drives too): the waiting entries of one table
size and ruleset, oldest first; each, in turn, takes the nearest ratings to its own among the
others whose gap each side accepts (QUEUE_RATING_GAP, plus QUEUE_RATING_WIDEN per second waited:
the longer either has waited, the wider), and forms a table when there are enough of them. An
entry whose wait has ended without a table sits with those it accepts and that allow bots too,
bots in the rest, when it allows bots; else it expires.
"""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

import orjson
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from pisyedili_api.errors import ApplicationError, invalid
from pisyedili_api.renderers import json_datetime
from players.models import Player
from players.services import bot_player_get_or_create

from .. import events
from ..models import Match, QueueEntry
from .lifecycle import _limits_check_locked, match_create, rules_from_options, seats_check

logger = logging.getLogger(__name__)

# The named rule sets quick play offers (GET /rules/presets): the seed rules as "classic" and the
# usual house variants, each the options it changes from the defaults (the web client's new-match
# form starts from the same names).
PRESETS: dict[str, dict[str, Any]] = {
    "classic": {},
    "reshuffle": {"stock_exhausted": "reshuffle"},
    "doubling": {"seven_chain_growth": "doubling"},
    "strict": {"draw_policy": "until_playable", "jack_nomination": "different_suit"},
    "club_round": {"opening": "club_round"},
    "quick": {"draw_policy": "one_then_pass", "ace_mode": "skip_next"},
}
DEFAULT_PRESET = "classic"

# Waiting entries one pairing reads at most (oldest first); the next pairing reads the rest.
PAIR_BATCH = 5000


def presets() -> list[dict[str, Any]]:
    """Each preset with its full rules (defaults filled in), in PRESETS order."""
    return [
        {"name": name, "rules": rules_from_options(rules=options).to_json()}
        for name, options in PRESETS.items()
    ]


def rules_key(rules: Mapping[str, Any]) -> str:
    """The name of a full rule set: the SHA-256 of its canonical JSON (keys sorted)."""
    return hashlib.sha256(orjson.dumps(dict(rules), option=orjson.OPT_SORT_KEYS)).hexdigest()


def queue_join(
    *,
    player: Player,
    seats: int,
    wait_seconds: int,
    bots_allowed: bool = False,
    preset: str | None = None,
    rules: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> QueueEntry:
    """Queue `player` for a table of `seats` with the rules of `preset` (default "classic") or
    the custom `rules` (checked as POST /matches checks them), waiting `wait_seconds`; then pair
    that table size and ruleset at once. 400 `invalid` naming the field; 409 `already_queued`
    while the player waits already; 409 `too_many_active_matches` when they could not start the
    match it would seat them at. `now`: the clock (bench/matchmaking.py simulates it)."""
    if preset is not None and rules is not None:
        raise invalid("rules", _("Give either preset or rules, not both."))
    if rules is None and (preset or DEFAULT_PRESET) not in PRESETS:
        raise invalid("preset", _("must be one of %(names)s") % {"names": ", ".join(PRESETS)})
    low, high = settings.QUEUE_WAIT_MIN, settings.QUEUE_WAIT_MAX
    if not low <= wait_seconds <= high:
        raise invalid(
            "wait_seconds",
            _("must be %(low)d..%(high)d seconds") % {"low": low, "high": high},
        )
    name = "" if rules is not None else (preset or DEFAULT_PRESET)
    parsed = rules_from_options(rules=rules if rules is not None else PRESETS[name])
    seats_check(seats, parsed)
    full = parsed.to_json()
    now = now or timezone.now()
    with transaction.atomic():
        # The player's row lock first (as a create counts its matches): two joins of one
        # player run one after the other, and the second finds the first's entry waiting.
        _limits_check_locked(player, bots_only=bots_allowed)
        entry = QueueEntry.objects.select_for_update().filter(player=player).first()
        if entry is not None and entry.status == QueueEntry.Status.WAITING:
            raise ApplicationError("already_queued")
        entry = entry or QueueEntry(player=player)
        entry.status = QueueEntry.Status.WAITING
        entry.seats = seats
        entry.preset = name
        entry.rules = full
        entry.rules_key = rules_key(full)
        entry.rating = player.rating_mu - 3.0 * player.rating_sigma
        entry.bots_allowed = bots_allowed
        entry.wait_seconds = wait_seconds
        entry.created_at = now
        entry.deadline = now + timedelta(seconds=wait_seconds)
        entry.ended_at = None
        entry.match = None
        entry.bot_seats = 0
        entry.save()
        _told_on_commit(entry)
    queue_pair(seats=seats, rules_key=entry.rules_key, now=now)
    entry.refresh_from_db()
    return entry


def queue_get(*, player: Player) -> QueueEntry | None:
    """The player's entry (waiting, or how their last wait ended); None when they never
    queued."""
    return QueueEntry.objects.filter(player=player).first()


def queue_leave(*, player: Player) -> QueueEntry:
    """The player leaves the queue (status `left`). 404 when they never queued; 409
    `not_queued` when their entry is not waiting (seated already, expired or left): the
    entry says which, and a seated entry's match is theirs."""
    with transaction.atomic():
        # Waits for a pairing that holds the row: it is seated then, or still waiting.
        entry = QueueEntry.objects.select_for_update().filter(player=player).first()
        if entry is None:
            raise ApplicationError("not_found", _("You are not in the queue."))
        if entry.status != QueueEntry.Status.WAITING:
            match = str(entry.match_id) if entry.match_id else None
            raise ApplicationError("not_queued", None, {"status": entry.status, "match": match})
        entry.status = QueueEntry.Status.LEFT
        entry.ended_at = timezone.now()
        entry.save(update_fields=["status", "ended_at"])
        _told_on_commit(entry)
    return entry


def queue_event(entry: QueueEntry) -> dict[str, Any]:
    """The `queue` event of the player's `me` stream: the entry's state (no one else's)."""
    return {
        "type": "queue",
        "status": entry.status,
        "seats": entry.seats,
        "preset": entry.preset or None,
        "deadline": json_datetime(entry.deadline),
        "match": str(entry.match_id) if entry.match_id else None,
        "bot_seats": entry.bot_seats,
    }


def _told_on_commit(*entries: QueueEntry) -> None:
    people = [(str(e.player_id), queue_event(e)) for e in entries]
    transaction.on_commit(lambda: events.publish(None, people), robust=True)


# ---- pairing ----


class Waiting(Protocol):
    """What the pairing reads of a waiting entry."""

    rating: float
    created_at: datetime
    deadline: datetime
    bots_allowed: bool


@dataclass
class Table:
    """A table the pairing formed: its entries (the oldest first) and the bots that fill it."""

    entries: list[Any]
    bots: int


def tolerance(entry: Waiting, now: datetime) -> float:
    """The rating gap `entry` accepts now: QUEUE_RATING_GAP, widened by QUEUE_RATING_WIDEN per
    second it has waited."""
    waited = max(0.0, (now - entry.created_at).total_seconds())
    return float(settings.QUEUE_RATING_GAP + settings.QUEUE_RATING_WIDEN * waited)


def tables_pick(entries: Sequence[Any], seats: int, now: datetime) -> tuple[list[Table], list[Any]]:
    """The tables formed from the waiting `entries` of one table size and ruleset, and the
    entries whose wait ended without a table or bots (expired). Each entry, oldest first, takes
    the nearest ratings among those not seated yet whose gap both sides accept (the wider of
    the two tolerances); an entry sits at most once."""
    pool = sorted(entries, key=lambda e: (e.created_at, str(getattr(e, "id", ""))))
    taken: set[int] = set()
    tables: list[Table] = []
    expired: list[Any] = []
    tol = [tolerance(e, now) for e in pool]
    for i, anchor in enumerate(pool):
        if i in taken:
            continue
        near = sorted(
            (
                (abs(other.rating - anchor.rating), j)
                for j, other in enumerate(pool)
                if j != i
                and j not in taken
                and abs(other.rating - anchor.rating) <= max(tol[i], tol[j])
            ),
        )
        if len(near) >= seats - 1:
            chosen = [i, *(j for _, j in near[: seats - 1])]
            tables.append(Table([pool[j] for j in sorted(chosen)], 0))
            taken.update(chosen)
        elif anchor.deadline <= now:
            taken.add(i)
            if anchor.bots_allowed:
                partners = [j for _, j in near if pool[j].bots_allowed][: seats - 1]
                taken.update(partners)
                people = [pool[j] for j in sorted([i, *partners])]
                tables.append(Table(people, seats - len(people)))
            else:
                expired.append(anchor)
    return tables, expired


def queue_pair(
    *, seats: int | None = None, rules_key: str | None = None, now: datetime | None = None
) -> tuple[int, int]:
    """Pair the waiting entries (of one table size and ruleset, or all): seat each table formed
    at a new match (people in queue order, then bots) and end the waits that ended without one.
    The number of tables seated and of entries expired."""
    now = now or timezone.now()
    waiting = QueueEntry.objects.filter(status=QueueEntry.Status.WAITING)
    if seats is not None:
        waiting = waiting.filter(seats=seats, rules_key=rules_key)
    seated = expired = 0
    with transaction.atomic():
        # The entries only (`of`): the players' rows stay free for their other requests.
        rows = list(
            waiting.select_for_update(skip_locked=True, of=("self",))
            .select_related("player")
            .order_by("created_at", "id")[:PAIR_BATCH]
        )
        groups: dict[tuple[int, str], list[QueueEntry]] = defaultdict(list)
        for row in rows:
            groups[row.seats, row.rules_key].append(row)
        for (size, _key), group in groups.items():
            tables, ended = tables_pick(group, size, now)
            for table in tables:
                _table_seat(table, size, now)
                seated += 1
            for entry in ended:
                entry.status = QueueEntry.Status.EXPIRED
                entry.ended_at = now
                entry.save(update_fields=["status", "ended_at"])
            expired += len(ended)
            _told_on_commit(*ended)
    return seated, expired


def _table_seat(table: Table, seats: int, now: datetime) -> Match:
    """A new match for the locked entries of `table` (their rules), bots in the empty seats;
    the entries are seated at it in the same transaction."""
    people: list[Player] = [e.player for e in table.entries]
    bots = [
        bot_player_get_or_create(strategy=settings.QUEUE_FILL_BOT, ordinal=n)
        for n in range(1, table.bots + 1)
    ]
    match = match_create(
        player=people[0],
        seats=seats,
        rules=table.entries[0].rules,
        seated=[*people, *bots],
        turn_seconds=settings.QUEUE_TURN_SECONDS,
    )
    for entry in table.entries:
        entry.status = QueueEntry.Status.SEATED
        entry.match = match
        entry.ended_at = now
        entry.bot_seats = table.bots
        entry.save(update_fields=["status", "match", "ended_at", "bot_seats"])
    _told_on_commit(*table.entries)
    return match
