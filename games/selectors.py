"""Reads on matches: models and rows; games/serializers.py shapes them into responses (a
per-seat view from `engine.observe` only, a spectator's public view from
`engine.observe_public` only, docs/architecture.md)."""

from __future__ import annotations

import time
from typing import Any, cast
from uuid import UUID

from django.db.models import Exists, F, OuterRef, Prefetch, Q, QuerySet, prefetch_related_objects
from django.utils import timezone
from django.utils.translation import gettext as _

from games import engine
from games.engine import analysis as engine_analysis
from pisyedili_api import rawsql
from pisyedili_api.errors import ApplicationError
from players.models import Player

from .models import Deal, DealAnalysis, Invitation, Match, Move, Seat

# A long-poll that waits in a thread (Django's test client: the web processes serve every
# waiting long-poll from their hub, live.streams.match_state_long_poll) reads the version
# after 2 ms, then ever less often (×1.5) up to every LONG_POLL_INTERVAL s.
LONG_POLL_FIRST = 0.002
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


def match_get(
    *, match_id: UUID | str | None = None, match: Match | None = None, viewer_id: Any = False
) -> Match:
    """The match with its seats (and their players) and deals, as match_summary reads them:
    by `match_id` (404 if there is none), or onto `match`, a row in hand (e.g. the one a service
    has just written), without reading it again and fetching only the relations it does not
    hold yet. Give exactly one of the two. `viewer_id`, the caller's player id (None:
    anonymous): 404 if the match is hidden from them (match_guest)."""
    if (match_id is None) == (match is None):
        raise ValueError("give exactly one of match_id and match")
    related = _summary_related()
    if match is not None:
        prefetch_related_objects([match], *related)
        return match
    # The guard above: with no `match`, `match_id` is given.
    by_id = Match.objects.filter(id=cast("UUID | str", match_id))
    found = by_id.prefetch_related(*related).first()
    if found is None or (viewer_id is not False and not match_guest(found, viewer_id)):
        raise ApplicationError("not_found", "No such match.")
    return found


def match_guest(match: Match, player_id: Any) -> bool:
    """Whether the player `player_id` (None: anonymous) may see `match`: anyone a public
    match; a private one (games.services.invitations) its seats, its creator and the people
    it invited, whatever they answered."""
    if not match.private:
        return True
    if player_id is None:
        return False
    if seat_of(match, player_id) is not None or str(match.created_by_id) == str(player_id):
        return True
    return Invitation.objects.filter(match_id=match.id, player_id=player_id).exists()


def match_hidden_check(match: Match, player_id: Any) -> None:
    """404 `not_found` (as if `match` did not exist) to a caller it is hidden from."""
    if not match_guest(match, player_id):
        raise ApplicationError("not_found", "No such match.")


def _guest_of(player_id: Any) -> Q:
    """The matches the player `player_id` may see in a list (match_guest), None: anonymous."""
    if player_id is None:
        return Q(private=False)
    seated = Seat.objects.filter(match_id=OuterRef("pk"), player_id=player_id)
    invited = Invitation.objects.filter(match_id=OuterRef("pk"), player_id=player_id)
    return Q(private=False) | Q(created_by_id=player_id) | Exists(seated) | Exists(invited)


def private_matches_hidden(match_ids: list[Any], viewer_id: Any) -> set[UUID]:
    """Those of `match_ids` that are private matches hidden from the player `viewer_id` (None:
    anonymous): what another app's list (a player's rating history) must not name."""
    hidden = Match.objects.filter(id__in=match_ids, private=True).exclude(_guest_of(viewer_id))
    return set(hidden.values_list("id", flat=True))


def match_list(
    *,
    status: str | None = None,
    player_id: UUID | None = None,
    viewer_id: Any = None,
    invited: bool = False,
) -> QuerySet[Match]:
    """Matches newest first by `listed_at` (their created_at): of one player, read from that
    player's seats by the index (player, match_created_at) in that order. Only those the
    caller `viewer_id` (None: anonymous) may see (match_guest); `invited`: the waiting private
    matches to which the caller has a pending invitation (their challenges)."""
    matches = Match.objects.filter(_guest_of(viewer_id))
    if status:
        matches = matches.filter(status=status)
    if invited:
        pending = Invitation.objects.filter(
            match_id=OuterRef("pk"),
            player_id=viewer_id,
            status=Invitation.Status.PENDING,
            expires_at__gt=timezone.now(),
        )
        matches = matches.filter(Exists(pending), status=Match.Status.WAITING)
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
    has finished it. A table has finished a deal once it is closed there (over, or abandoned
    as its match stopped), or once its match plays no more (Match.STOPPED: a deal it never dealt
    it never will). Empty for a match with a seed of its own per deal."""
    if match.seed_key is None:
        return set()
    open_ids = list(
        Match.objects.filter(seed_key=match.seed_key)
        .exclude(status__in=Match.STOPPED)
        .values_list("id", flat=True)
    )
    if not open_ids:
        return set()
    over: dict[Any, set[int]] = {m: set() for m in open_ids}
    for match_id, number in Deal.objects.filter(
        match_id__in=open_ids, status__in=Deal.CLOSED
    ).values_list("match_id", "number"):
        over[match_id].add(number)
    numbers = range(1, max(match.deals_total, match.current_deal) + 1)
    return {n for n in numbers if any(n not in done for done in over.values())}


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
    if seat is None:
        match_hidden_check(match, player.id if player is not None else None)
    if seat is None and match.spectators != Match.Spectators.PUBLIC:
        raise ApplicationError("spectators_not_allowed")
    if seat is None and live and match.seed_key is not None and shared_deals_pending(match):
        message = _("Other tables are still playing this table's deals: watch it once they finish.")
        raise ApplicationError("spectators_not_allowed", message)
    return match, seat


def match_view_for_player(
    *,
    match_id: UUID | str,
    player: Player | None,
    after_version: int | None = None,
    wait: float = 0,
) -> tuple[Match, int | None]:
    """The match and the caller's seat in it (None: a spectator), for the caller's view
    (serializers.match_view); with `after_version`, read once the version passes it or `wait`
    s have gone by."""
    match, seat = match_viewer_get(match_id, player)
    if after_version is not None and wait > 0 and match.version <= after_version:
        deadline = time.monotonic() + wait
        versions = Match.objects.filter(id=match.id).values_list("version", flat=True)
        interval = LONG_POLL_FIRST
        while time.monotonic() < deadline:
            time.sleep(min(interval, max(0.0, deadline - time.monotonic())))
            if versions.first() > after_version:  # type: ignore[operator]
                break
            interval = min(interval * 1.5, LONG_POLL_INTERVAL)
        # Read and checked again: the caller may have left their seat (or taken one) meanwhile.
        match, seat = match_viewer_get(match.id, player)
    return match, seat


def deal_revealable(deal: Deal, *, pending: set[int] | None = None) -> bool:
    """May anyone see `deal`'s hidden facts: its seed, the hands at its start, every card
    drawn, its replay, its move analysis? Once nobody plays the deal any more: it is over, or
    abandoned as its match stopped; and for a deal of a duplicate round once every table of
    the round has finished it. `pending`: shared_deals_pending(deal.match), when the caller
    has it already."""
    if deal.status not in Deal.CLOSED:
        return False
    if pending is None:
        pending = shared_deals_pending(deal.match)
    return deal.number not in pending


def deal_revealable_check(deal: Deal, *, pending: set[int] | None = None) -> None:
    """409 `deal_not_over` unless deal_revealable(deal): its `detail.available` says when
    its replay and analysis will be (`deal_status`, the deal's status here)."""
    if deal.status not in Deal.CLOSED:
        raise ApplicationError(
            "deal_not_over",
            _(
                "Deal %(number)d is still being played: its replay and analysis are available"
                " once it is over."
            )
            % {"number": deal.number},
            {"available": "when the deal is over", "deal_status": deal.status},
        )
    if not deal_revealable(deal, pending=pending):
        raise ApplicationError(
            "deal_not_over",
            _(
                "Deal %(number)d is still being played at another table of the round: its"
                " replay and analysis are available once every table has finished it."
            )
            % {"number": deal.number},
            {
                "available": "when every table of the round has finished the deal",
                "deal_status": deal.status,
            },
        )


def _revealable_numbers(match: Match) -> set[int]:
    pending = shared_deals_pending(match)
    deals = Deal.objects.filter(match=match).only("id", "match_id", "number", "status")
    return {deal.number for deal in deals if deal_revealable(deal, pending=pending)}


def match_moves_for_player(
    *,
    match_id: UUID | str,
    player: Player | None,
    deal: int | None = None,
    after_seq: int | None = None,
) -> list[tuple[Move, bool]]:
    """The match's moves in order (of one `deal`, after `after_seq` if given), each with
    whether the caller may see the cards it drew: their own draws, and every draw of a
    revealable deal (R-3); a spectator (no seat) sees only the latter."""
    match, seat = match_viewer_get(match_id, player)
    moves = Move.objects.filter(match=match).order_by("seq")
    if deal is not None:
        moves = moves.filter(deal_number=deal)
    if after_seq is not None:
        moves = moves.filter(seq__gt=after_seq)
    shown = _revealable_numbers(match)
    return [
        (m, m.action != "draw" or (seat is not None and m.seat == seat) or m.deal_number in shown)
        for m in moves
    ]


def deal_get(
    *, match_id: UUID | str, number: int, player: Player | None
) -> tuple[Deal, list[Move] | None]:
    """A deal of a match and, once it may be shown, its moves in order, else None
    (serializers.deal_reveal shows its seed, hands and moves only then): once it is over, and
    for a deal of a duplicate round, once every table of the round has finished it. 404
    `not_found`; 403 `spectators_not_allowed` at no seat of a `spectators: none` match, before
    the deal and after it (match_viewer_get)."""
    match = match_viewer_get(match_id, player, live=False)[0]
    deal = Deal.objects.filter(match_id=match.id, number=number).first()
    if deal is None:
        raise ApplicationError("not_found", "No such deal.")
    deal.match = match  # the row in hand
    if not deal_revealable(deal):
        return deal, None
    moves = Move.objects.filter(match_id=deal.match_id, deal_number=deal.number).order_by("seq")
    return deal, list(moves)


def deal_replay_get(
    *, match_id: UUID | str, number: int, player: Player | None
) -> tuple[Match, Deal, list[tuple[Move | None, engine.State]]]:
    """`GET …/deals/{n}/replay`: the match, the deal and every position of it, rebuilt by the
    engine from its seed and move log (as deal_problems checks them): the deal as dealt, then
    each move with the position after it. 404 `not_found`, 403 `spectators_not_allowed`
    (match_viewer_get), 409 `deal_not_over` unless deal_revealable (deal_revealable_check).
    A deal abandoned as its match stopped ends where it stopped."""
    match = match_viewer_get(match_id, player, live=False)[0]
    deal = Deal.objects.filter(match_id=match.id, number=number).first()
    if deal is None:
        raise ApplicationError("not_found", "No such deal.")
    deal.match = match  # the row in hand
    deal_revealable_check(deal)
    rules = engine.Rules.from_json(match.rules)
    state = engine.new_deal(rules, match.seat_count, deal.opener, bytes(deal.seed))
    steps: list[tuple[Move | None, engine.State]] = [(None, state)]
    rows = Move.objects.filter(match_id=match.id, deal_number=deal.number).order_by("seq")
    for row in rows:
        body = {"action": row.action, "card": row.card, "suit": row.suit}
        move = engine.Move.from_json({k: v for k, v in body.items() if v is not None})
        state = engine.apply(state, move, row.seat)
        steps.append((row, state))
    return match, deal, steps


def deal_problems(deal: Deal) -> list[str]:
    """Recompute a finished deal from its seed and move log with the engine; list every
    difference from what is stored (hands at start, each move and draw, result, scores). A
    deal abandoned as its match stopped has a log that does not end it, and no score."""
    from .models import ScoreEntry

    problems: list[str] = []
    match = deal.match
    seed = bytes(deal.seed)
    if engine.commitment(seed) != deal.commitment:
        problems.append("seed does not match the commitment")
    rules = engine.Rules.from_json(match.rules)
    state = engine.new_deal(rules, match.seat_count, deal.opener, seed)
    if state.dealer != deal.dealer:
        problems.append(f"dealer {deal.dealer} stored, {state.dealer} by R-8")
    if [[c.code for c in hand] for hand in state.hands] != deal.hands_at_start:
        problems.append("hands at start differ from the shuffle of the seed")
    for row in Move.objects.filter(match_id=match.id, deal_number=deal.number).order_by("seq"):
        body = {"action": row.action, "card": row.card, "suit": row.suit}
        try:
            move = engine.Move.from_json({k: v for k, v in body.items() if v is not None})
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
        if deal.status == Deal.Status.ABANDONED:
            if state.is_over:
                problems.append("the move log ends a deal stored as abandoned")
            if deal.result is not None or ScoreEntry.objects.filter(deal=deal).exists():
                problems.append("a deal stored as abandoned has a result or scores")
        elif not state.is_over or state.result is None:
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


# ---- luck and move analysis (games.services.analysis) ----


def deal_luck_view(deal: Deal) -> dict[str, Any] | None:
    """A deal's luck and skill by seat with how they were estimated, or None until its task
    has run. The skill's figures are null on a row estimated before the skill was."""
    from .models import DealLuck

    rows = list(DealLuck.objects.filter(deal=deal).order_by("seat"))
    if not rows:
        return None
    first = rows[0]
    skilled = first.skill is not None

    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 4)

    return {
        "samples": first.samples,
        "bot": first.bot,
        "seed": first.seed,
        "skill_samples": first.skill_samples,
        "skill_view": first.skill_view if skilled else None,
        "skill_seed": first.skill_seed if skilled else None,
        "seats": [
            {
                "seat": row.seat,
                "penalty": row.penalty,
                "expected": round(row.expected, 4),
                "stderr": round(row.stderr, 4),
                "luck": round(row.luck, 4),
                "adjusted": rounded(row.adjusted),
                "skill": rounded(row.skill),
            }
            for row in rows
        ],
    }


def deal_analysis_view(analysis: DealAnalysis) -> dict[str, Any]:
    """`GET …/deals/{n}/analysis`: pending, failed (for good, with its reason), or ready with
    every person's decisions."""
    if analysis.status == DealAnalysis.Status.FAILED:
        return {"status": analysis.status, "reason": analysis.failure}
    if analysis.status != DealAnalysis.Status.READY:
        return {"status": analysis.status}
    return {
        "status": analysis.status,
        "samples": analysis.samples,
        "bot": analysis.bot,
        "seed": analysis.seed,
        "cpu_seconds": analysis.cpu_seconds,
        "thresholds": {
            "inaccuracy": engine_analysis.INACCURACY,
            "mistake": engine_analysis.MISTAKE,
            "blunder": engine_analysis.BLUNDER,
            "significance_z": engine_analysis.SIGNIFICANCE_Z,
        },
        "decisions": (analysis.result or {}).get("decisions", []),
    }
