"""Luck and move analysis of deals that are over (docs/api.md "Luck and move analysis"); the
move analysis of a deal abandoned as its match stopped too (a deal never scored has no luck).

- Luck and skill: once a deal is scored, games.deal_luck (queue `analysis`) estimates each
  seat's expected deal score from the deal's start (`engine.analysis.expected_deal_scores`,
  K = ANALYSIS_LUCK_SAMPLES re-sampled stocks played by the reference bot) and its
  luck-adjusted deal score from the decisions of the move log (`engine.analysis.deal_skill`,
  K = ANALYSIS_SKILL_SAMPLES paired play-outs per decision that left the reference bot's move,
  from the deciding seat's view), and stores one DealLuck row per seat: `luck = expected −
  penalty`, `adjusted`, and `skill` (what the seat's own decisions gained it against the
  table, DealSkill.skill), with K, the bot, the view, the seeds and the CPU
  times. The start-only luck leaves in the luck of every draw from the stock; the skill takes
  it out (bench/luck.py), so the boards rank by the skill. The players' stats count both at
  once; the boards' `skill` counts the skill once the match is settled (games.match_luck_count,
  sent when the settlement commits, or here when the luck comes after it), each row once
  (`counted_at`, under the match row lock).
- Move analysis: the first `GET …/deals/{n}/analysis` stores a pending DealAnalysis row (one per
  deal: a raced second request trips its unique constraint and reads the winner's row) and
  sends games.deal_analyse, which values every person's decisions from that seat's observation
  only (`engine.analysis.deal_move_analysis`, K = ANALYSIS_MOVE_SAMPLES) and stores the result.

The estimates run outside any transaction (they take CPU time, not rows); the writes after them
lock the match row and check what is stored, so a task run twice writes once.

Bounded (docs/rules.md §9, `max_actions`): a long deal's skill and move analysis take fewer
samples per decision (ANALYSIS_MAX_PLAYOUTS, engine "Bounded cost"), and one task spends at most
ANALYSIS_MAX_ACTIONS simulated moves; past them the analysis fails for good. Each attempt is
claimed first (`Deal.luck_attempts` / `DealAnalysis.attempts`, with the start of the one under
way, a lease of CELERY_TASK_TIME_LIMIT: a copy of the task sent meanwhile does nothing); an
attempt that raises frees the lease for the sweeper's next send, and after
ANALYSIS_MAX_ATTEMPTS attempts (a worker killed mid-task included) the analysis is stored as
failed with its reason (`Deal.luck_failure`, DealAnalysis `failed`), which the sweeper never
sends again. An attempt that Celery's soft time limit (wall time) ended before it had used
half of it on the CPU was held off the CPU by other work (the analysis worker takes only what
play leaves, docs/operations.md "Queues and workers"), not too long to analyse: it is freed
and not counted (`_starved`).
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any
from uuid import UUID

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_noop

from games import engine
from games.engine import analysis
from pisyedili_api.errors import ApplicationError
from pisyedili_api.tasks import send_on_commit
from players.models import Player
from players.services import SeatLuck, player_boards_luck_add, player_luck_add

from ..models import DEAL_ANALYSIS_CONSTRAINT, Deal, DealAnalysis, DealLuck, Match, Move
from ..selectors import deal_revealable_check, match_hidden_check
from .lifecycle import _violates
from .locks import match_lock

logger = logging.getLogger(__name__)


def _deal_start(match: Match, deal: Deal) -> engine.State:
    """The deal as dealt, from its seed (the engine's shuffle, R-3)."""
    rules = engine.Rules.from_json(match.rules)
    return engine.new_deal(rules, match.seat_count, deal.opener, bytes(deal.seed))


def luck_seed(deal: Deal) -> str:
    """The seed of a deal's luck estimate: from its public commitment, so anyone can rerun it."""
    return f"luck:{deal.commitment}"


def skill_seed(deal: Deal) -> str:
    """The seed of a deal's skill estimate (decision i of the log uses f"{seed}:{i}"): from its
    public commitment, as `luck_seed`."""
    return f"skill:{deal.commitment}"


def moves_seed(deal: Deal) -> str:
    """The seed of a deal's move analysis (decision i of the log uses f"{seed}:{i}")."""
    return f"moves:{deal.commitment}"


def _deal_moves(match: Match, deal_number: int) -> tuple[list[Move], list[engine.Move]]:
    """A deal's move log: its rows in order and the engine's moves they record."""
    rows = list(Move.objects.filter(match_id=match.id, deal_number=deal_number).order_by("seq"))
    moves = [
        engine.Move.from_json(
            {k: v for k, v in {"action": m.action, "card": m.card, "suit": m.suit}.items() if v}
        )
        for m in rows
    ]
    return rows, moves


# ---- attempts: claimed, bounded, failed for good ----


def _attempt_claim(rows: QuerySet[Any], attempts: str, attempted_at: str) -> int | None:
    """Start an attempt of the task whose row `rows` selects (none once it failed for good):
    its number, or None when another attempt holds the lease (started less than
    CELERY_TASK_TIME_LIMIT ago, still under way) or there is no such row."""
    now = timezone.now()
    lease = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    free = Q(**{f"{attempted_at}__isnull": True}) | Q(**{f"{attempted_at}__lt": lease})
    if not rows.filter(free).update(**{attempts: F(attempts) + 1, attempted_at: now}):
        return None
    number: int | None = rows.values_list(attempts, flat=True).first()
    return number


def _starved(exc: BaseException, started: float) -> bool:
    """Whether an attempt that raised `exc` (its CPU clock `started` at time.process_time()) was
    ended by Celery's soft time limit, counted in wall time, before it had used half of that
    limit on the CPU (a worker process runs one task at a time: the process's CPU is the
    task's): starved by other work, not too long."""
    used = time.process_time() - started
    limit: float = settings.CELERY_TASK_SOFT_TIME_LIMIT
    return isinstance(exc, SoftTimeLimitExceeded) and used < limit / 2


def _gave_up(attempts: int) -> str:
    return f"did not finish in {attempts} attempts (killed, or past the time limit)"


def _failure(exc: BaseException, attempt: int) -> str:
    """Why an attempt failed, as stored: the kind of error only (its text may name cards)."""
    if isinstance(exc, analysis.BudgetExceeded):
        return f"too long to analyse: {exc} (ANALYSIS_MAX_ACTIONS)"
    return f"failed in {attempt} attempts; the last raised {type(exc).__name__}"


def deal_luck(*, match_id: UUID | str, deal_number: int) -> bool:
    """Estimate and store every seat's luck and skill of a scored deal (once), then count them
    on the boards if the match is settled. True if it stored them now; False when there is
    nothing to do (no such deal, not scored yet, stored already, an attempt under way, failed
    for good). An attempt past ANALYSIS_MAX_ATTEMPTS, or past its budget, stores the failure;
    any other error frees the attempt (the sweeper sends the task again) and is raised."""
    deal = (
        Deal.objects.filter(match_id=match_id, number=deal_number).select_related("match").first()
    )
    if deal is None or deal.scored_at is None or deal.luck_failure:
        return False
    if DealLuck.objects.filter(deal=deal).exists():
        return False
    rows = Deal.objects.filter(id=deal.id, luck_failure="")
    attempt = _attempt_claim(rows, "luck_attempts", "luck_attempted_at")
    if attempt is None:
        return False
    if attempt > settings.ANALYSIS_MAX_ATTEMPTS:
        rows.update(luck_failure=_gave_up(attempt - 1), luck_attempted_at=None)
        logger.error(
            "luck of deal %s of match %s: %s", deal_number, match_id, _gave_up(attempt - 1)
        )
        return False
    started = time.process_time()
    try:
        stored = _deal_luck_store(deal)
    except Exception as exc:
        if _starved(exc, started):
            rows.update(luck_attempts=F("luck_attempts") - 1, luck_attempted_at=None)
            raise
        final = (
            isinstance(exc, analysis.BudgetExceeded) or attempt >= settings.ANALYSIS_MAX_ATTEMPTS
        )
        if final:
            rows.update(luck_failure=_failure(exc, attempt), luck_attempted_at=None)
            logger.error(
                "luck of deal %s of match %s failed for good: %s",
                deal_number,
                match_id,
                _failure(exc, attempt),
            )
            if isinstance(exc, analysis.BudgetExceeded):
                return False
        else:
            rows.update(luck_attempted_at=None)
        raise
    rows.update(luck_attempted_at=None)
    return stored


def _deal_luck_store(deal: Deal) -> bool:
    """deal_luck's estimate and store, in its claimed attempt."""
    match, deal_number = deal.match, deal.number
    budget = analysis.Budget(settings.ANALYSIS_MAX_ACTIONS)  # the whole task's
    start = _deal_start(match, deal)
    started = time.process_time()
    estimate = analysis.expected_deal_scores(
        start,
        k=settings.ANALYSIS_LUCK_SAMPLES,
        bot=analysis.REFERENCE_BOT,
        seed=luck_seed(deal),
        budget=budget,
    )
    cpu_seconds = time.process_time() - started
    decided, skill_cpu_seconds = _deal_skill_estimate(match, deal, start, budget)
    penalties: list[int] = (deal.result or {})["penalties"]
    luck = estimate.luck(penalties)
    skill = list(decided.skill)
    players = [UUID(p) for p in match.seat_players]
    seats = [SeatLuck(*row) for row in zip(players, luck, skill, strict=True)]
    with transaction.atomic():
        locked = match_lock(match.id)
        if locked is None or DealLuck.objects.filter(deal=deal).exists():
            return False
        DealLuck.objects.bulk_create(
            [
                DealLuck(
                    deal=deal,
                    match_id=match.id,
                    seat=seat,
                    player_id=players[seat],
                    penalty=penalties[seat],
                    expected=estimate.expected[seat],
                    stderr=estimate.stderr[seat],
                    luck=luck[seat],
                    samples=estimate.k,
                    bot=estimate.bot,
                    seed=estimate.seed,
                    cpu_seconds=cpu_seconds,
                    adjusted=decided.adjusted[seat],
                    skill=skill[seat],
                    skill_samples=decided.k,
                    skill_view=decided.view,
                    skill_seed=decided.seed,
                    skill_cpu_seconds=skill_cpu_seconds,
                )
                for seat in range(match.seat_count)
            ]
        )
        if locked.seed_key is None:
            # A duplicate table's luck joins its players' stats with its boards, after the
            # settlement (which waits for every table of the round): not while another table
            # still plays the same cards.
            player_luck_add(luck=seats)
        if locked.settled_at is not None:
            _luck_count_locked(locked)  # luck that comes after the settlement
    logger.info(
        "luck of deal %s of match %s: K=%d, %.3f s CPU; skill: %d decisions valued, K=%d,"
        " %.3f s CPU",
        deal_number,
        match.id,
        estimate.k,
        cpu_seconds,
        len(decided.effects),
        decided.k,
        skill_cpu_seconds,
    )
    return True


def _deal_skill_estimate(
    match: Match, deal: Deal, start: engine.State, budget: analysis.Budget | None = None
) -> tuple[analysis.DealSkill, float]:
    """The skill estimate of a finished deal dealt as `start`, from its move log, and its CPU
    seconds; fewer pairs per decision for a long deal (ANALYSIS_MAX_PLAYOUTS), its play-outs
    charged to `budget` (ANALYSIS_MAX_ACTIONS when none is given)."""
    started = time.process_time()
    decided = analysis.deal_skill(
        start,
        _deal_moves(match, deal.number)[1],
        k=settings.ANALYSIS_SKILL_SAMPLES,
        bot=analysis.REFERENCE_BOT,
        seed=skill_seed(deal),
        view="seat",
        max_pairs=settings.ANALYSIS_MAX_PLAYOUTS // 2,
        budget=budget or analysis.Budget(settings.ANALYSIS_MAX_ACTIONS),
    )
    return decided, time.process_time() - started


def deal_skill_backfill(*, match_id: UUID | str, deal_number: int) -> bool:
    """The skill of a deal whose luck rows were stored without one (games.deal_luck before the
    skill existed): estimated as deal_luck does, stored in those rows, and counted wherever the
    rows' luck was counted already: the players' stats, and the boards once the rows were
    counted there (a row not counted yet brings its skill when it is). True if stored now."""
    deal = (
        Deal.objects.filter(match_id=match_id, number=deal_number).select_related("match").first()
    )
    if deal is None or not DealLuck.objects.filter(deal=deal, skill__isnull=True).exists():
        return False
    match = deal.match
    decided, cpu_seconds = _deal_skill_estimate(match, deal, _deal_start(match, deal))
    with transaction.atomic():
        locked = match_lock(match.id)
        rows = list(DealLuck.objects.filter(deal=deal, skill__isnull=True).order_by("seat"))
        if locked is None or not rows:
            return False
        for row in rows:
            row.adjusted = decided.adjusted[row.seat]
            row.skill = decided.skill[row.seat]
            row.skill_samples, row.skill_view = decided.k, decided.view
            row.skill_seed, row.skill_cpu_seconds = decided.seed, cpu_seconds
        fields = ["adjusted", "skill", "skill_samples", "skill_view", "skill_seed"]
        DealLuck.objects.bulk_update(rows, [*fields, "skill_cpu_seconds"])
        # A duplicate table's rows join the stats at the settlement (deal_luck), the others'
        # when they are stored; the boards when they are counted (counted_at).
        in_stats = [r for r in rows if locked.seed_key is None or r.counted_at is not None]
        player_luck_add(luck=[SeatLuck(r.player_id, None, r.skill) for r in in_stats])
        counted = [SeatLuck(r.player_id, None, r.skill) for r in rows if r.counted_at is not None]
        if counted and locked.finished_at is not None:
            player_boards_luck_add(
                seats=locked.seat_count,
                rules=locked.rules,
                finished_at=locked.finished_at,
                luck=counted,
            )
    return True


def match_luck_count(*, match_id: UUID | str) -> int:
    """Count a settled match's luck rows not counted yet on its players' boards (`skill`);
    the number counted (0 for a match not settled). Sent once the settlement commits, and by
    the sweeper for rows left uncounted."""
    with transaction.atomic():
        match = match_lock(match_id)
        if match is None or match.settled_at is None:
            return 0
        return _luck_count_locked(match)


def _luck_count_locked(match: Match) -> int:
    """match_luck_count under the match row lock the caller holds, which has each row counted
    once (deal_luck holds it too)."""
    rows = list(
        DealLuck.objects.filter(match_id=match.id, counted_at__isnull=True).values_list(
            "id", "player_id", "luck", "skill"
        )
    )
    if not rows or match.finished_at is None:
        return 0
    counted = [SeatLuck(player_id, luck, skill) for _, player_id, luck, skill in rows]
    if match.seed_key is not None:
        player_luck_add(luck=counted)  # held back by deal_luck until the settlement
    player_boards_luck_add(
        seats=match.seat_count, rules=match.rules, finished_at=match.finished_at, luck=counted
    )
    DealLuck.objects.filter(id__in=[row[0] for row in rows]).update(counted_at=timezone.now())
    return len(rows)


# ---- move analysis ----

_SEATS_ONLY = gettext_noop(
    "Only a seat of the match may see its analysis before the match is finished."
)


def deal_analysis_request(
    *, match_id: UUID | str, number: int, player: Player | None
) -> DealAnalysis:
    """The deal's analysis row, created (pending, its task sent on commit) by the first request.

    Who may ask: a seat of the match; anyone once the match is over (finished or abandoned)
    and public (404 `not_found`; 403 `spectators_not_allowed` once a match closed to
    spectators is over; 401 `not_authenticated` / 403 `not_seated` otherwise). The
    deal must be revealable as for its replay: over, or abandoned as its match stopped, and a
    deal of a duplicate round finished at every table (409 `deal_not_over`)."""
    match = Match.objects.filter(id=match_id).first()
    if match is None:
        # Anonymous: as for a match that is not finished (nothing tells which it is).
        if player is None:
            raise ApplicationError("not_authenticated", _SEATS_ONLY)
        raise ApplicationError("not_found", "No such match.")
    seated = player is not None and str(player.id) in match.seat_players
    if player is not None and not seated:
        match_hidden_check(match, player.id)
    public = getattr(match, "spectators", "public") == "public"
    hidden = player is None and match.private  # anonymous: told no more than of no match
    if not seated and not public and match.status in Match.OVER and not hidden:
        # Over, as its replay: closed to anyone at no seat (not "before it is finished").
        raise ApplicationError("spectators_not_allowed")
    if not seated and not (match.status in Match.OVER and public):
        raise ApplicationError("not_authenticated" if player is None else "not_seated", _SEATS_ONLY)
    deal = (
        Deal.objects.filter(match_id=match.id, number=number)
        .only("id", "match_id", "number", "status")
        .first()
    )
    if deal is None:
        raise ApplicationError("not_found", "No such deal.")
    deal.match = match  # the row in hand
    deal_revealable_check(deal)
    found = DealAnalysis.objects.filter(deal_id=deal.id).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            created = DealAnalysis.objects.create(deal_id=deal.id)
            send_on_commit("games.deal_analyse", str(match.id), number)
    except IntegrityError as exc:
        if not _violates(exc, DealAnalysis, DEAL_ANALYSIS_CONSTRAINT):
            raise
        # Another request created it between the read and the insert: its task is sent.
        return DealAnalysis.objects.get(deal_id=deal.id)
    return created


def deal_analyse(*, match_id: UUID | str, deal_number: int) -> bool:
    """Compute a requested deal analysis (once): every decision of a person's seat with 2+
    legal moves, valued from that seat's observation only (of an abandoned deal, those made
    before it stopped). True if it stored it now."""
    deal = (
        Deal.objects.filter(match_id=match_id, number=deal_number).select_related("match").first()
    )
    if deal is None or deal.status not in Deal.CLOSED:
        return False
    pending = DealAnalysis.objects.filter(deal=deal, status=DealAnalysis.Status.PENDING)
    attempt = _attempt_claim(pending, "attempts", "attempted_at")
    if attempt is None:
        return False
    if attempt > settings.ANALYSIS_MAX_ATTEMPTS:
        _analysis_failed(pending, _gave_up(attempt - 1))
        return False
    started = time.process_time()
    try:
        return _deal_analyse(deal, pending)
    except Exception as exc:
        if _starved(exc, started):
            pending.update(attempts=F("attempts") - 1, attempted_at=None)
            raise
        if isinstance(exc, analysis.BudgetExceeded) or attempt >= settings.ANALYSIS_MAX_ATTEMPTS:
            _analysis_failed(pending, _failure(exc, attempt))
            if isinstance(exc, analysis.BudgetExceeded):
                return False
        else:
            pending.update(attempted_at=None)  # the sweeper sends it again
        raise


def _analysis_failed(pending: QuerySet[DealAnalysis], failure: str) -> None:
    pending.update(
        status=DealAnalysis.Status.FAILED,
        failure=failure,
        attempted_at=None,
        finished_at=timezone.now(),
    )
    logger.error(
        "move analysis %s failed for good: %s", list(pending.values_list("id", flat=True)), failure
    )


def _deal_analyse(deal: Deal, pending: QuerySet[DealAnalysis]) -> bool:
    """deal_analyse's estimate and store, in its claimed attempt."""
    match, deal_number = deal.match, deal.number
    rows, moves = _deal_moves(match, deal_number)
    # A seat its person resigned is a person's: their decisions before it are analysed.
    people = [seat for seat, bot in enumerate(match.seat_bots) if not bot or seat in match.resigned]
    k, bot, seed = settings.ANALYSIS_MOVE_SAMPLES, analysis.REFERENCE_BOT, moves_seed(deal)
    started = time.process_time()
    decisions = analysis.deal_move_analysis(
        _deal_start(match, deal),
        moves,
        seats=people,
        k=k,
        bot=bot,
        seed=seed,
        max_playouts=settings.ANALYSIS_MAX_PLAYOUTS,
        budget=analysis.Budget(settings.ANALYSIS_MAX_ACTIONS),
    )
    cpu_seconds = time.process_time() - started
    if decisions:
        k = decisions[0][1].k  # fewer for a long deal
    result = {"decisions": [_decision(rows[i], a) for i, a in decisions]}
    stored = pending.update(
        status=DealAnalysis.Status.READY,
        result=result,
        samples=k,
        bot=bot,
        seed=seed,
        cpu_seconds=cpu_seconds,
        attempted_at=None,
        finished_at=timezone.now(),
    )
    logger.info(
        "analysis of deal %s of match %s: %d decisions, K=%d, %.3f s CPU",
        deal_number,
        match.id,
        len(decisions),
        k,
        cpu_seconds,
    )
    return bool(stored)


def _decision(row: Move, move: analysis.MoveAnalysis) -> dict[str, Any]:
    values = dict((m, v) for m, v in move.values)
    assert move.played is not None
    return {
        "seq": row.seq,
        "seat": move.seat,
        "by_bot": row.by_bot,
        "played": move.played.to_json(),
        "played_value": values[move.played],
        "best": move.best.to_json(),
        "best_value": values[move.best],
        "loss": move.loss,
        "loss_stderr": move.loss_stderr,
        "verdict": move.verdict,
        "values": [{"move": m.to_json(), "value": v} for m, v in move.values],
    }
