"""Reads on matches. Per-seat views are built from `engine.observe` only, a spectator's public
view from `engine.observe_public` only (docs/architecture.md)."""

from __future__ import annotations

import time
from typing import Any, cast
from uuid import UUID

from django.db import connection
from django.db.models import F, Prefetch, QuerySet, prefetch_related_objects

from games import engine
from pisyedili_api import rawsql
from pisyedili_api.errors import ApplicationError
from players.models import Player

from . import sql
from .models import Deal, Match, Move, Seat

# A long-poll waits for the NOTIFY that a version change sends on PostgreSQL (trigger of
# migration 0003), re-checking the version at least every LONG_POLL_RECHECK s; elsewhere it
# checks after 2 ms, then ever less often (×1.5) up to every LONG_POLL_INTERVAL s.
LONG_POLL_FIRST = 0.002
LONG_POLL_RECHECK = 1.0
LONG_POLL_INTERVAL = 0.05  # seconds between version checks once a long-poll has waited a while


def seat_of(match: Match, player_id: Any) -> int | None:
    """The seat `player_id` holds in `match`, or None."""
    if player_id is None:
        return None
    wanted = str(player_id)
    for seat, holder in enumerate(match.seat_players):
        if holder == wanted:
            return seat
    return None


def match_get(*, match_id: UUID | str | None = None, match: Match | None = None) -> Match:
    """The match with its seats (and their players) and deals, as match_summary reads them:
    by `match_id` (404 if there is none), or onto `match`, a row in hand (e.g. the one a service
    has just written), without reading it again and fetching only the relations it does not
    hold yet. Give exactly one of the two."""
    if (match_id is None) == (match is None):
        raise ValueError("give exactly one of match_id and match")
    related = _summary_related()
    if match is not None:
        prefetch_related_objects([match], *related)
        return match
    # The guard above: with no `match`, `match_id` is given.
    by_id = Match.objects.filter(id=cast("UUID | str", match_id))
    found = by_id.prefetch_related(*related).first()
    if found is None:
        raise ApplicationError("not_found", "No such match.")
    return found


def match_list(*, status: str | None = None, player_id: UUID | None = None) -> QuerySet[Match]:
    """Matches newest first by `listed_at` (their created_at): of one player, read from that
    player's seats by the index (player, match_created_at) in that order."""
    matches = Match.objects.all()
    if status:
        matches = matches.filter(status=status)
    if player_id:
        matches = matches.filter(seats__player_id=player_id).annotate(
            listed_at=F("seats__match_created_at")
        )
    else:
        matches = matches.annotate(listed_at=F("created_at"))
    return matches.prefetch_related(*_summary_related()).order_by("-listed_at", "-id")


def _summary_related() -> tuple[Prefetch[Any], Prefetch[Any]]:
    """What match_summary reads beside the match row: its seats with their players in
    `seat_rows` and its deals in `deal_rows` (a service that holds these rows already sets the
    attributes, and prefetching skips what is set)."""
    return (
        Prefetch("seats", queryset=Seat.objects.select_related("player"), to_attr="seat_rows"),
        Prefetch(
            "deals",
            queryset=Deal.objects.only("id", "match_id", "number", "status", "result"),
            to_attr="deal_rows",
        ),
    )


def shared_deals_pending(match: Match) -> set[int]:
    """The numbers of the deals `match` shares with other tables (Match.seed_key, a duplicate
    tournament round) that some table sharing them has not finished yet: nothing of such a
    deal at any table is shown (its seed, hands, draws, last card, scores) before every table
    has finished it. Empty for a match with a seed of its own per deal."""
    if match.seed_key is None:
        return set()
    open_ids = list(
        Match.objects.filter(seed_key=match.seed_key)
        .exclude(status=Match.Status.FINISHED)
        .values_list("id", flat=True)
    )
    if not open_ids:
        return set()
    over: dict[Any, set[int]] = {m: set() for m in open_ids}
    for match_id, number in Deal.objects.filter(
        match_id__in=open_ids, status=Deal.Status.OVER
    ).values_list("match_id", "number"):
        over[match_id].add(number)
    numbers = range(1, max(match.deals_total, match.current_deal) + 1)
    return {n for n in numbers if any(n not in done for done in over.values())}


def match_summary(match: Match) -> dict[str, Any]:
    """The public `<match>` object of docs/api.md (no card, no seed). A deal another table of
    a duplicate round still plays shows no result, and the totals count only the deals shown."""
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
    }


def state_view(match: Match, seat: int, state: engine.State | None = None) -> dict[str, Any]:
    """The caller's view (docs/api.md `…/state`): an observation of the live deal plus match facts.

    `state` is the live deal's state when the caller already holds it (saves a parse)."""
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
        "draws_this_turn": 0,
        "stock_count": 0,
        "totals": list(match.totals),
        "commitment": None,
        "legal_moves": [],
        "turn_deadline": match.turn_deadline,
        "result": None,
    }
    if not match.state:
        return view  # waiting for players: no deal yet
    if state is None:
        state = engine.state_from_json(match.state)
    view.update(engine.observe(state, seat).to_dict())
    view["commitment"] = engine.commitment(state.seed)
    if state.result is not None:
        # Deal over: its result is public (games.score_deal scores it and deals on).
        view["result"] = state.result.to_json()
    if match.status == Match.Status.FINISHED:
        view["phase"] = "match_over"
        view["turn"] = None
        view["legal_moves"] = []
    return view


def public_view(match: Match, state: engine.State | None = None) -> dict[str, Any]:
    """A spectator's view (docs/api.md `…/state` at no seat): the keys of `state_view` with
    `you` null, no hand and no legal move; the live deal's facts come from
    `engine.observe_public`, which holds no card of any hand nor of the stock."""
    view: dict[str, Any] = {
        "match": str(match.id),
        "version": match.version,
        "status": match.status,
        "deal": match.current_deal or None,
        "deals_total": match.deals_total,
        "phase": None,
        "you": None,
        "turn": None,
        "dealer": None,
        "direction": 1,
        "hand": [],
        "hand_counts": [],
        "top_card": None,
        "active_suit": None,
        "pending_sevens": 0,
        "draws_this_turn": 0,
        "stock_count": 0,
        "totals": list(match.totals),
        "commitment": None,
        "legal_moves": [],
        "turn_deadline": match.turn_deadline,
        "result": None,
    }
    if not match.state:
        return view
    if state is None:
        state = engine.state_from_json(match.state)
    view.update(engine.observe_public(state).to_dict())
    view["commitment"] = engine.commitment(state.seed)
    if state.result is not None:
        view["result"] = state.result.to_json()
    if match.status == Match.Status.FINISHED:
        view["phase"] = "match_over"
        view["turn"] = None
    return view


def match_view(match: Match, seat: int | None, state: engine.State | None = None) -> dict[str, Any]:
    """The view of the caller at `seat`, or the public view when they hold none."""
    return public_view(match, state) if seat is None else state_view(match, seat, state)


def match_read(match_id: UUID | str) -> Match | None:
    """The match row by id, or None. Plain SQL (pisyedili_api.rawsql): every state read and
    long-poll runs it, and the ORM spent longer compiling it than PostgreSQL answering it."""
    return rawsql.fetch_by_pk(Match, match_id)[1]


def match_viewer_get(
    match_id: UUID | str, player: Player | None, *, live: bool = True
) -> tuple[Match, int | None]:
    """The match and the caller's seat in it, None for a spectator (`player` None: anonymous):
    404 `not_found`; 403 `spectators_not_allowed` for a caller at no seat of a match whose
    `spectators` is `none`, and (`live`: its play rather than a finished deal's replay) of a
    table of a duplicate round while another table still plays a deal it shares: what is
    played at one table is the hidden hands of the other."""
    match = match_read(match_id)
    if match is None:
        raise ApplicationError("not_found", "No such match.")
    seat = seat_of(match, player.id if player is not None else None)
    if seat is None and match.spectators != Match.Spectators.PUBLIC:
        raise ApplicationError("spectators_not_allowed")
    if seat is None and live and match.seed_key is not None and shared_deals_pending(match):
        message = "Other tables are still playing this table's deals: watch it once they finish."
        raise ApplicationError("spectators_not_allowed", message)
    return match, seat


def match_view_for_player(
    *,
    match_id: UUID | str,
    player: Player | None,
    after_version: int | None = None,
    wait: float = 0,
) -> dict[str, Any]:
    """The caller's view (the public view at no seat); with `after_version`, wait up to `wait`
    s for version > after_version."""
    match, seat = match_viewer_get(match_id, player)
    if after_version is not None and wait > 0 and match.version <= after_version:
        deadline = time.monotonic() + wait
        versions = Match.objects.filter(id=match.id).values_list("version", flat=True)
        if connection.vendor == "postgresql" and not connection.in_atomic_block:
            _wait_for_notify(match, versions, after_version, deadline)
        else:
            interval = LONG_POLL_FIRST
            while time.monotonic() < deadline:
                time.sleep(min(interval, max(0.0, deadline - time.monotonic())))
                if versions.first() > after_version:  # type: ignore[operator]
                    break
                interval = min(interval * 1.5, LONG_POLL_INTERVAL)
        match = match_read(match.id) or match
    return match_view(match, seat)


def _wait_for_notify(match: Match, versions: Any, after_version: int, deadline: float) -> None:
    """LISTEN on the match's channel until its version passes `after_version` or `deadline`.

    The version is read again after LISTEN (a commit just before it sent its NOTIFY to nobody)
    and at least every LONG_POLL_RECHECK s, so a lost notification only costs a little time."""
    channel = f"match_{UUID(str(match.id)).hex}"
    with connection.cursor() as cursor:
        cursor.execute(sql.listen(channel))
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            if versions.first() > after_version:
                return
            for _ in connection.connection.notifies(
                timeout=min(remaining, LONG_POLL_RECHECK), stop_after=1
            ):
                pass
    finally:
        with connection.cursor() as cursor:
            cursor.execute(sql.unlisten(channel))


def deal_revealable(deal: Deal, *, pending: set[int] | None = None) -> bool:
    """May anyone see `deal`'s hidden facts: its seed, the hands at its start, every card
    drawn, its replay? Once the deal is over, and for a deal of a duplicate round once every
    table of the round has finished it. `pending`: shared_deals_pending(deal.match), when the
    caller has it already."""
    if deal.status != Deal.Status.OVER:
        return False
    if pending is None:
        pending = shared_deals_pending(deal.match)
    return deal.number not in pending


def _revealable_numbers(match: Match) -> set[int]:
    pending = shared_deals_pending(match)
    deals = Deal.objects.filter(match=match).only("id", "match_id", "number", "status")
    return {deal.number for deal in deals if deal_revealable(deal, pending=pending)}


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
    }


def match_moves_for_player(
    *, match_id: UUID | str, player: Player | None, deal: int | None = None
) -> list[dict[str, Any]]:
    """The move log as the caller may see it: a draw's cards to the drawer, to everyone else
    (spectators included) once its deal is revealable."""
    match, seat = match_viewer_get(match_id, player)
    moves = Move.objects.filter(match=match).order_by("seq")
    if deal is not None:
        moves = moves.filter(deal_number=deal)
    revealable = _revealable_numbers(match)
    return [
        move_entry(
            m,
            reveal_drawn=m.action != "draw"
            or (seat is not None and m.seat == seat)
            or m.deal_number in revealable,
        )
        for m in moves
    ]


def deal_reveal(*, match_id: UUID | str, number: int) -> dict[str, Any]:
    """`GET …/deals/{n}`: public; seed, hands at start and full moves only once the deal is over
    (a deal of a duplicate round: once every table of the round has finished it)."""
    deal = Deal.objects.filter(match_id=match_id, number=number).select_related("match").first()
    if deal is None:
        raise ApplicationError("not_found", "No such deal.")
    over = deal_revealable(deal)
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
    }
    if over:
        body["result"] = _deal_result(deal)
        body["seed"] = bytes(deal.seed).hex()
        body["hands_at_start"] = deal.hands_at_start
        moves = Move.objects.filter(match_id=deal.match_id, deal_number=deal.number).order_by("seq")
        body["moves"] = [move_entry(m, reveal_drawn=True) for m in moves]
    return body


def _deal_result(deal: Deal) -> dict[str, Any]:
    result = dict(deal.result or {})
    return {
        "winners": result.get("winners", []),
        "reason": result.get("reason"),
        "last_card": result.get("last_card"),
        "multiplier": result.get("multiplier"),
        "penalties": result.get("penalties", []),
        "hand_penalties": result.get("hand_penalties", []),
    }


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


def deal_replay(*, match_id: UUID | str, number: int, player: Player | None) -> dict[str, Any]:
    """`GET …/deals/{n}/replay`: every position of a revealable deal, all hands open, rebuilt
    from its seed and move log by the engine (as deal_problems checks it). 404 `not_found`,
    403 `spectators_not_allowed` (match_viewer_get), 409 `deal_not_over`."""
    match, _ = match_viewer_get(match_id, player, live=False)
    deal = Deal.objects.filter(match_id=match.id, number=number).first()
    if deal is None:
        raise ApplicationError("not_found", "No such deal.")
    deal.match = match  # the row in hand
    if not deal_revealable(deal):
        raise ApplicationError("deal_not_over")
    seed = bytes(deal.seed)
    rules = engine.Rules.from_dict(match.rules)
    state = engine.new_deal(rules, match.seat_count, deal.opener, seed)
    positions: list[dict[str, Any]] = [
        {"index": 0, "move": None, "seat": None, "state": open_position(state)}
    ]
    rows = Move.objects.filter(match_id=match.id, deal_number=deal.number).order_by("seq")
    for index, row in enumerate(rows, start=1):
        body = {"action": row.action, "card": row.card, "suit": row.suit}
        move = engine.Move.decode({k: v for k, v in body.items() if v is not None})
        state = engine.apply(state, move, row.seat)
        positions.append(
            {
                "index": index,
                "move": {"seq": row.seq, "seat": row.seat, **body, "drawn": list(row.drawn)},
                "seat": row.seat,
                "state": open_position(state),
            }
        )
    return {
        "match": str(match.id),
        "number": deal.number,
        "dealer": deal.dealer,
        "opener": deal.opener,
        "commitment": deal.commitment,
        "seed": seed.hex(),
        "rules": match.rules,
        "seat_count": match.seat_count,
        "hands_at_start": deal.hands_at_start,
        "positions": positions,
        "result": _deal_result(deal),
    }


def deal_problems(deal: Deal) -> list[str]:
    """Recompute a finished deal from its seed and move log with the engine; list every
    difference from what is stored (hands at start, each move and draw, result, scores)."""
    from .models import ScoreEntry

    problems: list[str] = []
    match = deal.match
    seed = bytes(deal.seed)
    if engine.commitment(seed) != deal.commitment:
        problems.append("seed does not match the commitment")
    rules = engine.Rules.from_dict(match.rules)
    state = engine.new_deal(rules, match.seat_count, deal.opener, seed)
    if state.dealer != deal.dealer:
        problems.append(f"dealer {deal.dealer} stored, {state.dealer} by R-8")
    if [[c.code for c in hand] for hand in state.hands] != deal.hands_at_start:
        problems.append("hands at start differ from the shuffle of the seed")
    for row in Move.objects.filter(match_id=match.id, deal_number=deal.number).order_by("seq"):
        body = {"action": row.action, "card": row.card, "suit": row.suit}
        try:
            move = engine.Move.decode({k: v for k, v in body.items() if v is not None})
            if row.seat != state.turn:
                problems.append(
                    f"move {row.seq}: seat {row.seat} moved but seat {state.turn} was on turn"
                )
                break
            state = engine.apply(state, move, row.seat)
        except engine.EngineError as exc:
            problems.append(f"move {row.seq} ({row.action} {row.card or ''}): {exc}")
            break
        drawn = [c.code for c in state.last_drawn] if move.action == "draw" else []
        if drawn != list(row.drawn):
            problems.append(f"move {row.seq}: stored drawn {row.drawn}, replay drew {drawn}")
    else:
        if not state.is_over or state.result is None:
            problems.append("the move log does not end the deal")
        else:
            result = state.result.to_json()
            if result != deal.result:
                problems.append(f"result {deal.result} stored, replay gives {result}")
            scores = dict(ScoreEntry.objects.filter(deal=deal).values_list("seat", "penalty"))
            if [scores.get(s) for s in range(match.seat_count)] != result["penalties"]:
                problems.append(
                    f"score entries {scores} differ from penalties {result['penalties']}"
                )
    return problems
