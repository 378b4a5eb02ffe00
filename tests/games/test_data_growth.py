"""Data that only grew: idempotency records expire (games.sweep, bounded batches), and a
player's match list reads that player's seats in order (Seat.match_created_at, indexed)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import IdempotencyRecord, Match, Seat
from games.selectors import match_list
from games.services import moves as services
from games.tasks import sweep
from tests.helpers import create_match, post_move, state

pytestmark = pytest.mark.django_db


def _keyed_records(make_player, client_for, count):
    """`count` idempotency records of real keyed moves (one player, fresh two-seat matches)."""
    (_, ta), (_, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    for i in range(count):
        match = create_match(ana)
        bob.post(f"/api/v1/matches/{match['id']}/join")
        view = state(ana, match["id"])
        r = post_move(
            ana, match["id"], view["legal_moves"][0], view["version"], HTTP_IDEMPOTENCY_KEY=f"k{i}"
        )
        assert r.status_code == 200
    return list(IdempotencyRecord.objects.order_by("created_at"))


def _age(records, seconds):
    IdempotencyRecord.objects.filter(pk__in=[r.pk for r in records]).update(
        created_at=timezone.now() - timedelta(seconds=seconds)
    )


def test_sweep_deletes_idempotency_records_past_their_window_only(
    make_player, client_for, settings
):
    settings.IDEMPOTENCY_TTL_SECONDS = 3600
    records = _keyed_records(make_player, client_for, 3)
    _age(records[:2], 3601)
    _age(records[2:], 3500)
    sweep()
    assert list(IdempotencyRecord.objects.values_list("pk", flat=True)) == [records[2].pk]


def test_expiry_deletes_in_bounded_batches_oldest_first(
    make_player, client_for, settings, monkeypatch
):
    settings.IDEMPOTENCY_TTL_SECONDS = 60
    monkeypatch.setattr(services, "IDEMPOTENCY_EXPIRE_BATCH", 2)
    monkeypatch.setattr(services, "IDEMPOTENCY_EXPIRE_BATCHES", 2)
    records = _keyed_records(make_player, client_for, 5)
    for age, record in zip((500, 400, 300, 200, 100), records, strict=True):
        _age([record], age)
    assert services.idempotency_records_expire() == 4
    assert list(IdempotencyRecord.objects.values_list("pk", flat=True)) == [records[4].pk]
    assert services.idempotency_records_expire() == 1
    assert not IdempotencyRecord.objects.exists()


def test_an_expired_key_is_a_new_move(make_player, client_for, settings):
    """Past the window the same key and body is a new request: here a stale version, 409."""
    settings.IDEMPOTENCY_TTL_SECONDS = 60
    record = _keyed_records(make_player, client_for, 1)[0]
    _age([record], 61)
    sweep()
    assert not IdempotencyRecord.objects.exists()


def test_seats_carry_their_matchs_created_at(make_player, client_for):
    (_, ta), (_, tb) = make_player(), make_player()
    match = create_match(client_for(ta), seats=3, bots=["random"])
    client_for(tb).post(f"/api/v1/matches/{match['id']}/join")
    created = Match.objects.get(id=match["id"]).created_at
    seats = Seat.objects.filter(match_id=match["id"])
    assert seats.count() == 3 and {s.match_created_at for s in seats} == {created}


def test_a_players_match_list_pages_in_order_by_their_seats(make_player, client_for, api):
    (ana, ta), (_, tb) = make_player(), make_player()
    mine = [create_match(client_for(ta), seats=3)["id"] for _ in range(5)]
    for _ in range(3):
        create_match(client_for(tb), seats=3)
    # The page query orders by the seat's copy of created_at: the index seat_player_matches.
    query = match_list(player_id=ana.id).query
    assert '"games_seat"."match_created_at" AS "listed_at"' in str(query)
    assert query.order_by == ("-listed_at", "-id")
    seen, url = [], f"/api/v1/matches?player={ana.id}&limit=2"
    while url:
        page = api.get(url).json()
        seen += [m["id"] for m in page["results"]]
        url = page["next"]
    assert seen == mine[::-1]
    everyone = api.get("/api/v1/matches?limit=100").json()["results"]
    assert len(everyone) == 8
