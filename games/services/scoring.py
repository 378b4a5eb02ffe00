"""The end of a deal, its score and the match's settlement.

The move that ends a deal only closes it (result and final state stored, so every seat's view
shows phase deal_over); games.score_deal records the scores and deals on or finishes the match,
and games.settle_match updates the players' standings. Each is run once however often it is
delivered: the match row lock plus Deal.scored_at / Match.settled_at decide. These run once
per deal or per match, so they use the ORM.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import Case, IntegerField, Value, When
from django.utils import timezone

from games import engine
from pisyedili_api.tasks import send_on_commit
from players.services import player_deals_add, player_standings_settle

from ..models import Deal, Match, ScoreEntry, Seat
from ..selectors import shared_deals_pending
from ..signals import match_settled
from .lifecycle import _DEAL_FIELDS, _after_commit_bot_turn, _deal_start, _match_write
from .locks import match_lock


def _deal_close_values(final: engine.State, final_json: dict[str, Any]) -> dict[str, Any]:
    """R-28, R-29: the values of the Deal row that the move to `final` (`final_json`: its
    stored form) ended: status, result, final state. The move writes them with the match
    (games.services.moves._move_write), whose row then holds the final state until
    games.deal_score scores the deal on a worker, sent once the move commits."""
    assert final.result is not None  # the deal has just ended
    return {
        "status": Deal.Status.OVER,
        "result": final.result.to_json(),
        "final_state": final_json,
        "finished_at": timezone.now(),
    }


def deal_score(*, match_id: UUID | str, deal_number: int) -> bool:
    """R-30, R-31, R-32: record every seat's score of a deal that is over (penalty, hand
    penalty, multiplier, cards left), the players' deal counters, then deal the next deal or
    finish the match (places) and have it settled. True if it scored now; False when there is
    nothing to do (no such deal, not over yet, scored already)."""
    with transaction.atomic():
        match = match_lock(match_id)
        if match is None or match.status != Match.Status.ACTIVE:
            return False  # an abandoned match scored its last deal over as it ended
        now = timezone.now()
        deal = _deal_claim(match, deal_number, now)
        if deal is None:
            return False
        _deal_record(match, deal)
        match.version += 1  # long-polls see the next deal (or the match's end)
        rules = engine.Rules.from_json(match.rules)
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
        _seats_save_totals(match, places=match_final_places(match))
        _match_write(match, "totals", "version", "status", "finished_at")
        send_on_commit("games.match_settle", str(match.id))
    return True


def _deal_record(match: Match, deal: Deal) -> None:
    """The scores of the claimed `deal` of the locked `match` (_deal_claim): every seat's
    score entry, the match's running totals (the caller writes them) and the players' deal
    counters; its luck is sent on commit."""
    send_on_commit("games.deal_luck", str(match.id), deal.number)  # its own queue
    result = deal.result
    # The next deal is dealt only once this one is scored: until then the match holds the
    # final state of its live deal (the move that ended it wrote it), so it need not be read
    # again.
    final_json = match.state if deal.id == match.live_deal_id else deal.final_state
    assert result is not None and final_json is not None  # the deal's last move wrote both
    final = engine.State.from_json(final_json)
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
    if match.seed_key is None:
        # A deal shared with other tables (duplicate) counts at settlement instead, once
        # every table has finished it: public counters must not tell one table's result
        # to another still playing the same cards.
        player_deals_add(
            deals=[
                (player_ids[seat], seat in winners, penalties[seat])
                for seat in range(match.seat_count)
            ]
        )


def _deals_abandon(match: Match, now: datetime) -> int:
    """The deal of the locked `match` still being played as the match stops, closed as
    `abandoned` at `now`: no result, no score (it counts as no deal played), never played on.
    Its hidden facts are then shown as a finished deal's (selectors.deal_revealable). The
    number closed (0 or 1)."""
    return Deal.objects.filter(match_id=match.id, status=Deal.Status.ACTIVE).update(
        status=Deal.Status.ABANDONED, finished_at=now
    )


def match_final_places(match: Match) -> list[int]:
    """Each seat's place in the finished or abandoned `match` (docs/rules.md, "Server
    policies"): the seats nobody resigned by their totals (R-32, ties share a place), then the
    resigned seats, whatever their totals: the last to resign first, the first to resign
    last."""
    stayed = [seat for seat in range(match.seat_count) if seat not in match.resigned]
    places = [0] * match.seat_count
    for seat, place in zip(
        stayed, engine.match_places([match.totals[seat] for seat in stayed]), strict=True
    ):
        places[seat] = place
    for behind, seat in enumerate(reversed(match.resigned)):
        places[seat] = len(stayed) + 1 + behind
    return places


def _deal_claim(match: Match, number: int, now: datetime) -> Deal | None:
    """Deal `number` of `match` marked scored at `now` if it is over and not scored yet, else
    None: the claim that has a deal scored once however often score_deal runs (the caller
    holds the match row lock, so no other claim of this deal runs between the read and the
    write). The deal comes back with its id, number and result (its other fields load when
    read)."""
    deal = (
        Deal.objects.filter(match_id=match.id, number=number)
        .only("id", "match_id", "number", "status", "scored_at", "result")
        .first()
    )
    if deal is None or deal.status != Deal.Status.OVER or deal.scored_at is not None:
        return None
    Deal.objects.filter(id=deal.id).update(scored_at=now)
    deal.scored_at = now
    return deal


def match_settle(*, match_id: UUID | str) -> bool:
    """A finished (or abandoned) match's players' standings (wins, ratings, boards), once: True
    if it settled now, False if the match is not over or was settled already.
    games.signals.match_settled is sent after the settlement commits."""
    with transaction.atomic():
        match = match_lock(match_id)
        if match is None or match.status not in Match.OVER or match.settled_at is not None:
            return False
        assert match.finished_at is not None  # set with the status
        if match.seed_key is not None and not _shared_deals_settle(match):
            return False
        scores = list(
            ScoreEntry.objects.filter(match_id=match.id).order_by().values_list("seat", "won")
        )
        player_standings_settle(
            match_id=match.id,
            player_ids=[UUID(p) for p in match.seat_players],
            # The places deal_score (or the last resignation) gave the seats when the match ended.
            places=match_final_places(match),
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
        send_on_commit("games.match_luck_count", settled_id)  # the luck so far on the boards
    return True


def _shared_deals_settle(match: Match) -> bool:
    """A match whose deals other tables share (duplicate) settles only once every table has
    finished every deal: until then its standings, ratings and deal counters would tell the
    other tables its results (False: not yet; the sweeper and the last table to finish send
    the settlement again). Then its deal counters are added, and its sibling tables that are
    over (finished or abandoned) are sent their settlement."""
    if shared_deals_pending(match):
        return False
    entries = ScoreEntry.objects.filter(match_id=match.id).order_by()
    player_deals_add(deals=list(entries.values_list("player_id", "won", "penalty")))
    siblings = Match.objects.filter(
        seed_key=match.seed_key, status__in=Match.OVER, settled_at__isnull=True
    ).exclude(id=match.id)
    for sibling in siblings.values_list("id", flat=True):
        send_on_commit("games.match_settle", str(sibling))
    return True


def _seats_save_totals(match: Match, places: list[int] | None) -> None:
    """Every seat row's running total from the match, and with `places` its place: one UPDATE
    by seat number (the rows are not read first)."""

    def by_seat(values: list[int]) -> Case:
        whens = [When(seat=seat, then=Value(value)) for seat, value in enumerate(values)]
        return Case(*whens, output_field=IntegerField())

    updates = {"total": by_seat(match.totals)}
    if places is not None:
        updates["place"] = by_seat(places)
    Seat.objects.filter(match_id=match.id).update(**updates)
