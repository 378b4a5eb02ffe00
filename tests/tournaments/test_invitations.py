"""Nobody is entered without consent: listed people are invited, accept or decline through their
own routes, and the organizer cannot start while an invitation is pending. Every tournament
match runs a turn clock."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Match
from games.tasks import expire_turns
from pisyedili_api.errors import ApplicationError
from players.services import bot_player_get_or_create
from tournaments.models import Entrant, Round, Tournament
from tournaments.services import tournament_create

pytestmark = pytest.mark.django_db


def error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code and body["message"], body
    return body


@pytest.fixture
def cast(make_player, client_for, api):
    organizer, token = make_player()
    people = [make_player() for _ in range(5)]
    _, outsider_token = make_player()
    return {
        "organizer": client_for(token),
        "organizer_player": organizer,
        "people": [p for p, _ in people],
        "clients": [client_for(t) for _, t in people],
        "other": client_for(outsider_token),
        "anonymous": api,
    }


def create(cast, count: int = 4, **overrides) -> dict:
    body = {
        "name": "Invitational",
        "players": [str(p.id) for p in cast["people"][:count]],
        "format": "round_robin",
        "table_size": 2,
        "deals": 1,
        **overrides,
    }
    response = cast["organizer"].post("/api/v1/tournaments", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def ids(players: list[dict]) -> list[str]:
    return [p["id"] for p in players]


def test_people_are_invited_bots_and_the_organizer_accept_at_once(cast):
    bot = bot_player_get_or_create(strategy="greedy", ordinal=1)
    me = str(cast["organizer_player"].id)
    listed = [str(p.id) for p in cast["people"][:2]]
    t = create(cast, players=[*listed, me, str(bot.id)], bots=["random"])
    assert len(t["players"]) == 5
    assert ids(t["pending_invitations"]) == listed
    statuses = dict(Entrant.objects.filter(tournament_id=t["id"]).values_list("player", "status"))
    assert {str(p) for p, s in statuses.items() if s == "accepted"} == set(ids(t["players"])) - set(
        listed
    )


def test_start_waits_for_every_invitation_and_changes_nothing(cast):
    t = create(cast)
    base = f"/api/v1/tournaments/{t['id']}"
    body = error(cast["organizer"].post(f"{base}/start"), 409, "invitations_pending")
    assert sorted(body["detail"]["pending"]) == sorted(str(p.id) for p in cast["people"][:4])
    for client in cast["clients"][:3]:
        assert client.post(f"{base}/invitations/accept").status_code == 200
    body = error(cast["organizer"].post(f"{base}/start"), 409, "invitations_pending")
    assert body["detail"]["pending"] == [str(cast["people"][3].id)]
    assert Tournament.objects.get(id=t["id"]).status == "draft"
    assert not Match.objects.exists() and not Round.objects.exists()

    accepted = cast["clients"][3].post(f"{base}/invitations/accept")
    assert accepted.status_code == 200 and accepted.json()["pending_invitations"] == []
    started = cast["organizer"].post(f"{base}/start")
    assert started.status_code == 200 and started.json()["status"] == "running"
    assert Match.objects.filter(tournament_table__tournament_id=t["id"]).count() == 2


def test_accepting_twice_changes_nothing_and_only_the_invited_may_answer(cast):
    t = create(cast)
    base = f"/api/v1/tournaments/{t['id']}"
    for _ in range(2):
        response = cast["clients"][0].post(f"{base}/invitations/accept")
        assert response.status_code == 200
        assert str(cast["people"][0].id) not in ids(response.json()["pending_invitations"])
    for answer in ("accept", "decline"):
        error(cast["other"].post(f"{base}/invitations/{answer}"), 403, "not_invited")
        error(cast["organizer"].post(f"{base}/invitations/{answer}"), 403, "not_invited")
        error(cast["anonymous"].post(f"{base}/invitations/{answer}"), 401, "not_authenticated")
        error(
            cast["clients"][0].post(f"/api/v1/tournaments/{uuid.uuid4()}/invitations/{answer}"),
            404,
            "not_found",
        )
    assert len(cast["organizer"].get(base).json()["pending_invitations"]) == 3
    assert Entrant.objects.filter(tournament_id=t["id"]).count() == 4


def test_decline_leaves_and_the_round_robin_is_drawn_again(cast):
    t = create(cast, count=5)
    assert t["rounds_total"] == 5  # 5 entrants at tables of 2: 5 rounds with a bye each
    base = f"/api/v1/tournaments/{t['id']}"
    declined = cast["clients"][4].post(f"{base}/invitations/decline")
    assert declined.status_code == 200
    body = declined.json()
    assert str(cast["people"][4].id) not in ids(body["players"]) and len(body["players"]) == 4
    assert body["rounds_total"] == 3  # 4 entrants: 3 rounds, no byes
    schedule = Tournament.objects.get(id=t["id"]).schedule
    assert all(r["byes"] == [] for r in schedule)
    seated = {p for r in schedule for table in r["tables"] for p in table}
    assert seated == {str(p.id) for p in cast["people"][:4]}
    error(cast["clients"][4].post(f"{base}/invitations/decline"), 403, "not_invited")
    error(cast["clients"][4].post(f"{base}/invitations/accept"), 403, "not_invited")

    # An accepted entrant may still withdraw before the start.
    assert cast["clients"][0].post(f"{base}/invitations/accept").status_code == 200
    assert cast["clients"][0].post(f"{base}/invitations/decline").status_code == 200
    for client in cast["clients"][1:3]:
        client.post(f"{base}/invitations/accept")
    assert cast["clients"][3].post(f"{base}/invitations/decline").status_code == 200
    assert cast["clients"][2].post(f"{base}/invitations/decline").status_code == 200
    body = error(cast["organizer"].post(f"{base}/start"), 409, "not_enough_entrants")
    assert body["detail"] == {"entrants": 1, "table_size": 2}
    assert Tournament.objects.get(id=t["id"]).status == "draft" and not Match.objects.exists()


def test_the_organizer_takes_out_one_who_never_answers_and_starts(cast):
    t = create(cast, count=5, bots=["greedy"])
    base = f"/api/v1/tournaments/{t['id']}"
    for client in cast["clients"][:3]:
        assert client.post(f"{base}/invitations/accept").status_code == 200
    body = error(cast["organizer"].post(f"{base}/start"), 409, "invitations_pending")
    silent, accepted = str(cast["people"][4].id), str(cast["people"][2].id)
    # Only the organizer, with a player who is an entrant, and a body that names one.
    remove = f"{base}/entrants/remove"
    error(cast["clients"][0].post(remove, {"player": silent}, format="json"), 403, "not_organizer")
    error(cast["anonymous"].post(remove, {"player": silent}, format="json"), 401,
          "not_authenticated")  # fmt: skip
    outsider = str(cast["organizer_player"].id)
    refused = error(cast["organizer"].post(remove, {"player": outsider}, format="json"), 400,
                    "invalid")  # fmt: skip
    assert list(refused["detail"]) == ["player"]
    error(cast["organizer"].post(remove, {"player": "nobody"}, format="json"), 400, "invalid")
    error(cast["organizer"].post(remove, {}, format="json"), 400, "invalid")
    error(cast["organizer"].post(f"/api/v1/tournaments/{uuid.uuid4()}/entrants/remove",
                                 {"player": silent}, format="json"), 404, "not_found")  # fmt: skip
    assert Entrant.objects.filter(tournament_id=t["id"]).count() == 6

    for gone in (silent, str(cast["people"][3].id), accepted):
        response = cast["organizer"].post(remove, {"player": gone}, format="json")
        assert response.status_code == 200, response.content
        assert gone not in ids(response.json()["players"])
    body = response.json()
    assert ids(body["pending_invitations"]) == [] and len(body["players"]) == 3
    error(cast["clients"][4].post(f"{base}/invitations/accept"), 403, "not_invited")
    error(cast["organizer"].post(remove, {"player": silent}, format="json"), 400, "invalid")
    started = cast["organizer"].post(f"{base}/start")
    assert started.status_code == 200 and started.json()["status"] == "running"
    seated = {
        p for m in Match.objects.filter(tournament_table__tournament_id=t["id"])
        for p in m.seat_players
    }  # fmt: skip
    assert not {silent, accepted} & seated
    error(cast["organizer"].post(remove, {"player": str(cast["people"][0].id)}, format="json"),
          409, "tournament_started")  # fmt: skip


def test_no_answer_once_started_or_cancelled(cast):
    t = create(cast)
    base = f"/api/v1/tournaments/{t['id']}"
    for client in cast["clients"][:4]:
        client.post(f"{base}/invitations/accept")
    assert cast["organizer"].post(f"{base}/start").status_code == 200
    for answer in ("accept", "decline"):
        error(cast["clients"][0].post(f"{base}/invitations/{answer}"), 409, "tournament_started")
    assert Entrant.objects.filter(tournament_id=t["id"]).count() == 4
    cast["organizer"].post(f"{base}/cancel")
    for answer in ("accept", "decline"):
        error(cast["clients"][0].post(f"{base}/invitations/{answer}"), 409, "tournament_over")


def test_the_invited_find_their_invitations(cast):
    first, second = create(cast, name="one"), create(cast, name="two", count=2)
    client = cast["clients"][0]
    listed = client.get("/api/v1/tournaments?invited=true").json()["results"]
    assert ids(listed) == [second["id"], first["id"]]
    client.post(f"/api/v1/tournaments/{first['id']}/invitations/accept")
    listed = client.get("/api/v1/tournaments?invited=true").json()["results"]
    assert ids(listed) == [second["id"]]
    assert cast["clients"][3].get("/api/v1/tournaments?invited=true").json()["results"] == [
        {**first, "pending_invitations": first["pending_invitations"][1:]}
    ]
    assert cast["other"].get("/api/v1/tournaments?invited=true").json()["results"] == []
    error(cast["anonymous"].get("/api/v1/tournaments?invited=true"), 401, "not_authenticated")


def test_every_tournament_match_runs_a_turn_clock(cast, settings):
    settings.TOURNAMENT_TURN_SECONDS = 45
    default = create(cast, count=2)
    chosen = create(cast, count=2, turn_seconds=30, name="quick")
    assert (default["turn_seconds"], chosen["turn_seconds"]) == (45, 30)
    for t, seconds in ((default, 45), (chosen, 30)):
        base = f"/api/v1/tournaments/{t['id']}"
        for client in cast["clients"][:2]:
            client.post(f"{base}/invitations/accept")
        assert cast["organizer"].post(f"{base}/start").status_code == 200
        match = Match.objects.get(tournament_table__tournament_id=t["id"])
        assert match.turn_seconds == seconds and match.turn_deadline is not None
        # The person on turn runs out of time: the clock moves for them (games.clock).
        Match.objects.filter(id=match.id).update(turn_deadline=timezone.now() - timedelta(1))
        assert expire_turns.apply().get() >= 1
        moved = Match.objects.get(id=match.id)
        assert moved.version > match.version and moved.turn_deadline is not None


@pytest.mark.parametrize("turn_seconds", [None, 0, -5, 86_401, "soon"])
def test_a_tournament_without_a_clock_is_refused(cast, turn_seconds):
    body = {
        "name": "No clock",
        "players": [str(p.id) for p in cast["people"][:2]],
        "format": "round_robin",
        "table_size": 2,
        "turn_seconds": turn_seconds,
    }
    response = cast["organizer"].post("/api/v1/tournaments", body, format="json")
    assert "turn_seconds" in error(response, 400, "invalid")["detail"]
    assert not Tournament.objects.exists()


def test_the_service_refuses_a_tournament_without_a_clock(cast):
    with pytest.raises(ApplicationError) as refused:
        tournament_create(
            organizer=cast["organizer_player"],
            name="No clock",
            format="swiss",
            table_size=2,
            players=[p.id for p in cast["people"][:2]],
            turn_seconds=0,
        )
    assert refused.value.code == "invalid" and "turn_seconds" in refused.value.detail
    assert not Tournament.objects.exists()


def test_the_tournament_writes_are_throttled_per_user_on_one_count(cast, monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    rates = {**SimpleRateThrottle.THROTTLE_RATES, "tournament": "3/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    tournament = create(cast, count=2)  # 1
    path = f"/api/v1/tournaments/{tournament['id']}"
    invitee = cast["clients"][0]
    assert invitee.post(f"{path}/invitations/accept").status_code == 200  # the invitee's own count
    assert cast["organizer"].post(f"{path}/cancel").status_code == 200  # 2
    create(cast, count=2)  # 3
    refused = cast["organizer"].post(
        "/api/v1/tournaments",
        {"name": "One more", "players": [str(cast["people"][0].id)], "format": "swiss",
         "table_size": 2, "bots": ["greedy"], "deals": 1},
        format="json",
    )  # fmt: skip
    error(refused, 429, "throttled")
    assert int(refused["Retry-After"]) > 0
    assert Tournament.objects.filter(name="One more").count() == 0  # refused, nothing made
    # Reading is never counted.
    assert cast["organizer"].get("/api/v1/tournaments").status_code == 200
    assert cast["organizer"].get(path).status_code == 200
