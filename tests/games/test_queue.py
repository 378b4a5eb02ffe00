"""Quick play (`POST /queue`, `GET /queue`, `POST /queue/leave`, `GET /rules/presets`): one
entry per player, pairing by rating closeness that widens with the wait, bots or an expired wait
when it ends, the `queue` event on `/me/events`; what is refused changes nothing; races on
PostgreSQL seat nobody twice (docs/api.md "Quick play")."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.throttling import SimpleRateThrottle

from games import tasks
from games.models import Match, QueueEntry, Seat
from games.services import queue_join, queue_pair
from games.services.queue import tables_pick
from live.hub import me_log
from players.models import Player
from tests.helpers import race

pytestmark = pytest.mark.django_db


def _join(client, **body):
    body = {"seats": 2, "wait_seconds": 30, **body}
    return client.post("/api/v1/queue", body, format="json")


def _refused(response, code, status):
    assert response.status_code == status, response.content
    assert response.json()["code"] == code and response.json()["message"]
    return response.json()


def _ok(response, status=200):
    assert response.status_code == status, response.content
    return response.json()


def test_presets_are_public_with_their_full_rules(api):
    presets = {p["name"]: p["rules"] for p in _ok(api.get("/api/v1/rules/presets"))}
    assert list(presets) == ["classic", "reshuffle", "doubling", "strict", "club_round", "quick"]
    classic = presets["classic"]
    assert classic["deals_per_match"] == 4 and classic["draw_policy"] == "free"
    assert presets["reshuffle"] == {**classic, "stock_exhausted": "reshuffle"}
    assert presets["quick"] == {**classic, "draw_policy": "one_then_pass", "ace_mode": "skip_next"}


def test_one_entry_per_player_and_leaving(make_player, client_for):
    player, token = make_player()
    client = client_for(token)
    never = client.get("/api/v1/queue")  # never queued: no content
    assert never.status_code == 204 and never.content == b"", never.content
    _refused(client.post("/api/v1/queue/leave"), "not_found", 404)
    entry = _ok(_join(client, bots_allowed=True), 201)
    assert entry["status"] == "waiting" and entry["preset"] == "classic" and entry["match"] is None
    assert entry["rules"]["deals_per_match"] == 4 and entry["bots_allowed"] is True
    assert _ok(client.get("/api/v1/queue")) == entry
    refused = _refused(_join(client, seats=3), "already_queued", 409)
    assert "detail" not in refused
    assert QueueEntry.objects.get(player=player).seats == 2  # the refusal changed nothing
    left = _ok(client.post("/api/v1/queue/leave"))
    assert left["status"] == "left" and left["ended_at"] is not None
    again = _refused(client.post("/api/v1/queue/leave"), "not_queued", 409)
    assert again["detail"] == {"status": "left", "match": None}
    # Queueing again replaces the last outcome.
    assert _ok(_join(client, seats=3, preset="strict"), 201)["status"] == "waiting"
    assert QueueEntry.objects.filter(player=player).count() == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seats": 1}, "seats"),
        ({"seats": 8}, "seats"),
        ({"wait_seconds": 1}, "wait_seconds"),
        ({"wait_seconds": 601}, "wait_seconds"),
        ({"wait_seconds": "soon"}, "wait_seconds"),
        ({"preset": "blitz"}, "preset"),
        ({"preset": "classic", "rules": {}}, "rules"),
        ({"rules": {"draw_policy": "sometimes"}}, "rules"),
        ({"seats": 7}, "seats"),
        ({"rules": {"deals_per_match": 40}}, "rules"),
        ({"bots_allowed": "maybe"}, "bots_allowed"),
        ({"bot": "greedy"}, "bot"),
    ],
)
def test_bad_input_is_400_naming_the_field_and_changes_nothing(
    make_player, client_for, body, field
):
    player, token = make_player()
    refused = _refused(_join(client_for(token), **body), "invalid", 400)
    assert field in refused["detail"], refused
    if field == "rules" and "rules" in body and body["rules"]:
        assert set(refused["detail"]["rules"]) == set(body["rules"])
    assert not QueueEntry.objects.filter(player=player).exists()


def test_queue_needs_a_token(api):
    _refused(api.get("/api/v1/queue"), "not_authenticated", 401)
    _refused(_join(api), "not_authenticated", 401)


def test_two_people_asking_for_the_same_table_sit_at_one_match(
    make_player, client_for, commits_in_place
):
    (ana, ta), (bob, tb) = make_player(), make_player()
    first = _ok(_join(client_for(ta)), 201)
    assert first["status"] == "waiting"
    # Another table size or rule set is another queue.
    (cem, tc) = make_player()
    assert _ok(_join(client_for(tc), preset="quick"), 201)["status"] == "waiting"
    second = _ok(_join(client_for(tb)), 201)  # the join pairs at once
    assert second["status"] == "seated" and second["bot_seats"] == 0
    mine = _ok(client_for(ta).get("/api/v1/queue"))
    assert mine["status"] == "seated" and mine["match"] == second["match"]
    match = Match.objects.get(id=second["match"])
    assert match.status == "active" and match.turn_seconds == 60
    assert set(match.seat_players) == {str(ana.id), str(bob.id)}
    assert match.seat_bots == ["", ""]
    assert QueueEntry.objects.get(player=cem).status == "waiting"
    # Each heard it on /me/events: queued (waiting), then seated, beside match_started.
    for person in (ana, bob):
        _, logged = me_log(str(person.id), 0)
        told = [(e["status"], e["match"]) for e in logged if e["type"] == "queue"]
        assert told == [("waiting", None), ("seated", second["match"])], logged
        assert any(e["type"] == "match_started" for e in logged)
    _refused(client_for(ta).post("/api/v1/queue/leave"), "not_queued", 409)


def _entry(player, *, rating, waited=0.0, wait=30, bots=False, seats=2):
    """A waiting entry of `player` at `rating` (ordinal), queued `waited` seconds ago (moved
    back after its join, whose own pairing saw it just queued)."""
    player.rating_mu, player.rating_sigma = rating, 0.0
    player.save(update_fields=["rating_mu", "rating_sigma"])
    entry = queue_join(player=player, seats=seats, wait_seconds=wait, bots_allowed=bots)
    _waited(entry, waited)
    return entry


def _waited(entry, seconds):
    at = timezone.now() - timedelta(seconds=seconds)
    QueueEntry.objects.filter(id=entry.id).update(
        created_at=at, deadline=at + timedelta(seconds=entry.wait_seconds)
    )


@override_settings(QUEUE_RATING_GAP=3.0, QUEUE_RATING_WIDEN=0.5)
def test_pairing_takes_the_nearest_rating_and_widens_with_the_wait(make_player, commits_in_place):
    a, b, c = (make_player()[0] for _ in range(3))
    _entry(a, rating=10.0)
    _entry(b, rating=20.0)  # 10 apart: neither accepts the other yet
    assert QueueEntry.objects.filter(status="waiting").count() == 2
    _entry(c, rating=19.0)  # 1 from b: paired at once, not with a
    assert QueueEntry.objects.get(player=a).status == "waiting"
    assert QueueEntry.objects.get(player=b).match_id == QueueEntry.objects.get(player=c).match_id
    d = make_player()[0]
    _entry(d, rating=24.0)
    now = timezone.now()
    assert queue_pair(now=now + timedelta(seconds=5)) == (0, 0)  # 14 apart, 3 + 2.5 accepted
    # After 23 s a accepts a gap of 14.5: the wait widened it (both still waiting).
    assert queue_pair(now=now + timedelta(seconds=23)) == (1, 0)
    a_entry, d_entry = QueueEntry.objects.get(player=a), QueueEntry.objects.get(player=d)
    assert a_entry.status == d_entry.status == "seated" and a_entry.match_id == d_entry.match_id


def test_a_wait_that_ends_seats_bots_if_allowed_else_tells_the_player(
    make_player, commits_in_place
):
    (ana, _), (bob, _), (cem, _) = make_player(), make_player(), make_player()
    entries = [
        _entry(ana, rating=0.0, wait=30, bots=True, seats=3),
        _entry(bob, rating=50.0, wait=30, bots=False, seats=3),
        _entry(cem, rating=0.0, wait=300, bots=False, seats=2),
    ]
    assert queue_pair() == (0, 0)  # 50 apart: ana and bob wait
    for entry in entries:
        _waited(entry, 40)
    assert tasks.queue_pair() == {"seated": 1, "expired": 1}
    ana_entry = QueueEntry.objects.get(player=ana)
    assert ana_entry.status == "seated" and ana_entry.bot_seats == 2
    match = Match.objects.get(id=ana_entry.match_id)
    assert match.status == "active" and match.seat_players[0] == str(ana.id)
    assert match.seat_bots[1:] == ["greedy", "greedy"]
    assert Player.objects.filter(id__in=match.seat_players[1:], is_bot=True).count() == 2
    bob_entry = QueueEntry.objects.get(player=bob)
    assert bob_entry.status == "expired" and bob_entry.match_id is None
    _, logged = me_log(str(bob.id), 0)
    assert [e["status"] for e in logged if e["type"] == "queue"] == ["waiting", "expired"]
    assert QueueEntry.objects.get(player=cem).status == "waiting"  # still within its wait


def test_a_person_who_allows_no_bots_is_never_seated_beside_them():
    now = timezone.now()

    class Entry:
        def __init__(self, rating, waited, bots):
            self.rating, self.bots_allowed = rating, bots
            self.created_at = now - timedelta(seconds=waited)
            self.deadline = self.created_at + timedelta(seconds=10)

    anchor, picky, easy = Entry(0.0, 20, True), Entry(0.5, 1, False), Entry(1.0, 1, True)
    tables, expired = tables_pick([anchor, picky, easy], 4, now)
    assert [(t.entries, t.bots) for t in tables] == [([anchor, easy], 2)] and expired == []


def test_limits_apply_when_queueing(make_player, client_for, settings):
    _, token = make_player()
    client = client_for(token)
    settings.MAX_BOT_MATCHES_PER_PLAYER = 0
    refused = _refused(_join(client, bots_allowed=True), "too_many_active_matches", 409)
    assert refused["detail"] == {"bot_matches": 0, "limit": 0}
    assert _ok(_join(client, bots_allowed=False), 201)["status"] == "waiting"
    client.post("/api/v1/queue/leave")
    settings.MAX_ACTIVE_MATCHES_PER_PLAYER = 0
    _refused(_join(client), "too_many_active_matches", 409)


def test_queue_writes_are_throttled_per_user(make_player, client_for, monkeypatch):
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "queue": "2/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    (_, ta), (_, tb) = make_player(), make_player()
    ana = client_for(ta)
    assert _join(ana, seats=5).status_code == 201
    assert ana.post("/api/v1/queue/leave").status_code == 200
    refused = _join(ana, seats=5)
    _refused(refused, "throttled", 429)
    assert int(refused["Retry-After"]) > 0
    assert ana.get("/api/v1/queue").status_code == 200  # reading is not a write
    assert _join(client_for(tb), seats=5).status_code == 201  # counts of her own


@pytest.mark.django_db(transaction=True)
def test_one_player_joining_many_times_at_once_has_one_entry(make_player):
    player, _ = make_player()
    outcomes = race(
        *(lambda s=s: queue_join(player=player, seats=s, wait_seconds=60) for s in (2, 3, 4, 5))
    )
    assert sorted(outcomes) == ["already_queued"] * 3 + ["ok"]
    assert QueueEntry.objects.filter(player=player, status="waiting").count() == 1


@pytest.mark.django_db(transaction=True)
def test_parallel_joins_and_pairings_seat_everyone_once_and_never_alone(make_player):
    """Twelve people join two-seat tables at once while three pairings run beside them, on
    their own connections: each person sits at one match at most, no match holds a person
    twice, and each entry's match is the one they sit at."""
    people = [make_player()[0] for _ in range(12)]
    for _ in range(2):
        outcomes = race(
            *(
                lambda p=p: queue_join(player=p, seats=2, wait_seconds=60, bots_allowed=True)
                for p in people
            ),
            *(lambda: queue_pair() for _ in range(3)),
        )
        assert outcomes == ["ok"] * 15
        queue_pair(now=timezone.now() + timedelta(seconds=120))  # the rest get bots
        entries = {e.player_id: e for e in QueueEntry.objects.filter(player__in=people)}
        assert {e.status for e in entries.values()} == {"seated"}
        matches = {e.match_id for e in entries.values()}
        seats = list(Seat.objects.filter(match_id__in=matches).values_list("match_id", "player_id"))
        by_person = {}
        for match_id, player_id in seats:
            if player_id in entries:
                by_person.setdefault(player_id, []).append(match_id)
        assert all(len(found) == 1 for found in by_person.values()), by_person
        assert {p: m[0] for p, m in by_person.items()} == {
            p: e.match_id for p, e in entries.items()
        }
        for match in Match.objects.filter(id__in=matches):
            held = [p for p in match.seat_players if p]
            assert len(held) == len(set(held)) == 2 and match.status == "active"
        # Every one of them queues again: the second round reuses the rows.
        Match.objects.filter(id__in=matches).update(status="finished")


def test_deleting_the_account_leaves_the_queue(make_player, client_for):
    player, token = make_player()
    client = client_for(token)
    assert _join(client).status_code == 201
    deleted = client.post("/api/v1/auth/account/delete", {"password": "s3cret-pass"}, format="json")
    assert deleted.status_code == 204, deleted.content
    assert QueueEntry.objects.get(player=player).status == "left"
