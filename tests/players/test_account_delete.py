"""POST /auth/account/delete against PostgreSQL: the password checked as a login; active matches
resigned through the resign service, waiting ones left, draft tournaments declined, organized
ones cancelled; the login, the tokens and the login records gone; the player anonymous in the
matches it played and out of player search; a refusal changes nothing."""

from __future__ import annotations

import threading

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from rest_framework.test import APIClient

from games.models import Match, QueueEntry, Seat
from games.services import match_create, queue_join
from pisyedili_api.errors import ApplicationError
from players.models import ApiToken, Player
from players.services import player_register
from tests.helpers import create_match, play_to_the_end
from tournaments.models import Entrant, Tournament
from tournaments.services import tournament_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("commits_in_place")]

PASSWORD = "s3cret-pass"
URL = "/api/v1/auth/account/delete"


def client(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


def person(name: str):
    player, key = player_register(username=name, password=PASSWORD, display_name=name.title())
    return player, key, client(key)


def delete(api: APIClient, password: str = PASSWORD, **extra):
    return api.post(URL, {"password": password, **extra}, format="json")


def snapshot(player: Player):
    return (
        list(get_user_model().objects.filter(pk=player.user_id).values()),
        list(Player.objects.filter(pk=player.pk).values()),
        sorted(ApiToken.objects.filter(user_id=player.user_id).values_list("digest", flat=True)),
        sorted(Seat.objects.filter(player=player).values_list("match_id", "resigned_at")),
        sorted(Match.objects.values_list("id", "status", "version")),
        sorted(Entrant.objects.values_list("tournament_id", "player_id", "status")),
        sorted(Tournament.objects.values_list("id", "status")),
    )


def test_the_account_goes_and_the_player_stays_anonymous(api):
    ana, key, ana_api = person("ana")
    get_user_model().objects.filter(pk=ana.user_id).update(email="ana@example.com")
    finished = create_match(ana_api, bots=["greedy"], deals=1)
    play_to_the_end(ana_api, finished["id"])
    second = APIClient().post(
        "/api/v1/auth/token", {"username": "ana", "password": PASSWORD}, format="json"
    )
    other_key = second.json()["token"]
    user_id = ana.user_id

    response = delete(ana_api)
    assert response.status_code == 204 and response.content == b""

    for token in (key, other_key):
        assert client(token).get("/api/v1/players/me").status_code == 401
    assert not get_user_model().objects.filter(pk=user_id).exists()
    assert not ApiToken.objects.filter(user_id=user_id).exists()
    login = APIClient().post(
        "/api/v1/auth/token", {"username": "ana", "password": PASSWORD}, format="json"
    )
    assert login.status_code == 401
    ana.refresh_from_db()
    assert ana.user_id is None and ana.deleted_at is not None
    assert ana.display_name == "Deleted player" and ana.username == f"deleted:{ana.id.hex}"
    # The finished match keeps the anonymous player in its seat.
    seats = api.get(f"/api/v1/matches/{finished['id']}").json()["seats"]
    assert seats[0]["player"] == {
        "id": str(ana.id),
        "display_name": "Deleted player",
        "is_bot": False,
    }
    raw = api.get(f"/api/v1/players/{ana.id}").content.decode()
    assert "ana@example.com" not in raw and '"ana"' not in raw and "Ana" not in raw
    # Search finds nobody, whatever the name; the old username may be registered again.
    for text in ("ana", "deleted", "Deleted player"):
        assert api.get("/api/v1/players", {"search": text}).json()["results"] == []
    again = APIClient().post(
        "/api/v1/auth/register", {"username": "ana", "password": PASSWORD}, format="json"
    )
    assert again.status_code == 201 and again.json()["id"] != str(ana.id)


def test_active_matches_are_resigned_and_waiting_ones_left(make_player, client_for):
    ana, _, ana_api = person("ana")
    bo, _, bo_api = person("bo")
    alone = create_match(ana_api, bots=["greedy"], deals=2)  # only Ana: abandoned
    shared = create_match(ana_api, seats=3, bots=["greedy"], deals=2)
    assert bo_api.post(f"/api/v1/matches/{shared['id']}/join", format="json").status_code == 200
    waiting = create_match(ana_api, seats=3)
    handed = create_match(bo_api, seats=3)
    assert ana_api.post(f"/api/v1/matches/{handed['id']}/join", format="json").status_code == 200

    assert delete(ana_api).status_code == 204

    status = dict(Match.objects.values_list("id", "status"))
    assert status[Match.objects.get(id=alone["id"]).id] == Match.Status.ABANDONED
    assert status[Match.objects.get(id=shared["id"]).id] == Match.Status.ACTIVE
    assert Seat.objects.get(match_id=shared["id"], player=ana).resigned_at is not None
    assert Match.objects.get(id=shared["id"]).resigned == [0]
    assert Match.objects.get(id=waiting["id"]).status == Match.Status.CANCELLED
    # Bo's waiting match: Ana's seat is open again.
    assert not Seat.objects.filter(match_id=handed["id"], player=ana).exists()
    assert Match.objects.get(id=handed["id"]).status == Match.Status.WAITING
    # Bo plays on against the bots in Ana's seat.
    view = bo_api.get(f"/api/v1/matches/{shared['id']}/state").json()
    assert view["status"] == "active" and 0 in view["resigned"]


def test_tournaments_are_declined_and_cancelled(make_player):
    ana, _, ana_api = person("ana")
    bo, _, bo_api = person("bo")
    invited = bo_api.post(
        "/api/v1/tournaments",
        {"name": "Bo's cup", "players": [str(bo.id), str(ana.id)], "format": "round_robin",
         "table_size": 2, "deals": 1},
        format="json",
    )  # fmt: skip
    assert invited.status_code == 201, invited.content
    organized = ana_api.post(
        "/api/v1/tournaments",
        {"name": "Ana's cup", "players": [str(bo.id)], "bots": ["greedy"],
         "format": "round_robin", "table_size": 2, "deals": 1},
        format="json",
    )  # fmt: skip
    assert organized.status_code == 201, organized.content

    assert delete(ana_api).status_code == 204

    assert not Entrant.objects.filter(tournament_id=invited.json()["id"], player=ana).exists()
    assert Tournament.objects.get(id=invited.json()["id"]).status == Tournament.Status.DRAFT
    assert Tournament.objects.get(id=organized.json()["id"]).status == Tournament.Status.CANCELLED


def test_the_login_records_of_the_username_go(settings):
    ana, _, ana_api = person("ana")
    for _ in range(3):
        APIClient().post(
            "/api/v1/auth/token", {"username": "ana", "password": "wrong-pass"}, format="json"
        )
    assert AccessAttempt.objects.filter(username="ana").exists()
    assert delete(ana_api).status_code == 204
    assert not AccessAttempt.objects.filter(username="ana").exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"password": "wrong-pass-1"}, "password"),
        ({"password": ""}, "password"),
        ({}, "password"),
        ({"password": "x" * 129}, "password"),
        ({"password": PASSWORD, "confirm": True}, "confirm"),
        ({"password": 12345678}, "password"),
    ],
)
def test_a_refused_deletion_is_400_naming_the_field_and_changes_nothing(body, field):
    ana, key, ana_api = person("ana")
    create_match(ana_api, bots=["greedy"], deals=2)
    create_match(ana_api, seats=3)
    before = snapshot(ana)
    response = ana_api.post(URL, body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid" and field in response.json()["detail"]
    assert snapshot(ana) == before
    assert client(key).get("/api/v1/players/me").status_code == 200


def test_wrong_passwords_lock_the_username_as_logins_do(settings, monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    rates = {"account": "1000/min", "auth": "1000/min", "auth_username": "1000/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    ana, _, ana_api = person("ana")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert delete(ana_api, "wrong-pass-1").status_code == 400
    assert delete(ana_api, "wrong-pass-1").status_code == 429
    before = snapshot(ana)
    locked = delete(ana_api)
    assert locked.status_code == 429 and locked.json()["code"] == "throttled"
    assert snapshot(ana) == before


def test_deletion_needs_a_token():
    response = APIClient().post(URL, {"password": PASSWORD}, format="json")
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"


# ---- a deletion raced by the same person's other devices ----


def test_a_write_let_in_before_the_deletion_and_run_after_it_writes_nothing():
    """A request of another device whose token was checked just before the deletion committed
    and whose write runs just after it (a new match, a quick-play entry, a tournament) finds
    the account deleted under the player's row lock: 401, as its token's next request, and
    nothing is written for a player no one can play as any more."""
    ana, _, ana_api = person("ana")
    bo, _, _ = person("bo")
    before = Player.objects.get(pk=ana.pk)  # the player as such a request holds it
    assert delete(ana_api).status_code == 204
    writes = {
        "match": lambda: match_create(player=before, seats=3),
        "queue": lambda: queue_join(player=before, seats=2, wait_seconds=60),
        "tournament": lambda: tournament_create(
            organizer=before, name="Cup", format="round_robin", table_size=2, players=[bo.id]
        ),
    }
    for name, write in writes.items():
        with pytest.raises(ApplicationError) as refused:
            write()
        assert refused.value.code == "not_authenticated", name
    assert not Seat.objects.filter(player=ana).exists()
    assert not QueueEntry.objects.filter(player=ana).exists()
    assert not Tournament.objects.filter(organizer=ana).exists()


@pytest.mark.django_db(transaction=True)
def test_a_write_committing_while_the_deletion_starts_is_ended_by_it():
    """Another device's new match is still being written when the deletion starts: the
    deletion waits for it (the player's row lock) and then leaves it, so the lobby keeps no
    table whose creator and seat 0 are a deleted player."""
    ana, key, _ = person("ana")
    writing, release = threading.Event(), threading.Event()
    made: list[Match] = []

    def create() -> None:
        try:
            with transaction.atomic():
                made.append(match_create(player=Player.objects.get(pk=ana.pk), seats=3))
                writing.set()
                release.wait(20)
        finally:
            connection.close()

    answers: list[int] = []

    def remove() -> None:
        try:
            answers.append(delete(client(key)).status_code)
        finally:
            connection.close()

    creator = threading.Thread(target=create)
    creator.start()
    assert writing.wait(20)
    deleter = threading.Thread(target=remove)
    deleter.start()
    deleter.join(1.0)
    waited = deleter.is_alive()  # behind the create's lock on the player's row
    release.set()
    creator.join(20)
    deleter.join(30)
    assert waited and answers == [204]
    (match,) = made
    assert Match.objects.get(id=match.id).status == Match.Status.CANCELLED
    assert not Seat.objects.filter(player=ana, match__status__in=["waiting", "active"]).exists()
