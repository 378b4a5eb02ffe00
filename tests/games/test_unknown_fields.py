"""Every POST body of the API: a field the route does not know, or a value of another JSON type
than its field's (`"3"` or `3.0` for an integer, `"yes"` for true), is `400 invalid` naming it,
and nothing changes (pisyedili_api.serializers)."""

from __future__ import annotations

import pytest

from games.models import Match, Move, QueueEntry
from players.models import ApiToken, Player
from tests.helpers import create_match, state
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def _names_the_field(response, field):
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid"
    assert field in body["message"]
    assert body["detail"][field] == ["Unknown field."]


def test_a_typo_of_bots_creates_nothing(make_player, client_for):
    _, token = make_player()
    client = client_for(token)
    for body in ({"bot": ["greedy"]}, {"seats": 2, "bot": ["greedy"]}):
        _names_the_field(client.post("/api/v1/matches", body, format="json"), "bot")
    assert not Match.objects.exists()
    # Every unknown field is named.
    response = client.post("/api/v1/matches", {"seats": 2, "bot": [], "deal": 1}, format="json")
    assert set(response.json()["detail"]) == {"bot", "deal"}
    assert create_match(client, bots=["greedy"])["seats"][1]["player"]["is_bot"]


def test_the_move_body(make_player, client_for):
    _, token = make_player()
    client = client_for(token)
    match = create_match(client, bots=["random"])
    view = state(client, match["id"])
    move = {**view["legal_moves"][0], "version": view["version"], "cards": ["2C"]}
    response = client.post(f"/api/v1/matches/{match['id']}/moves", move, format="json")
    _names_the_field(response, "cards")
    assert not Move.objects.exists()
    # A bad token is still 401 before the bad body.
    client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    response = client.post(f"/api/v1/matches/{match['id']}/moves", move, format="json")
    assert response.status_code == 401


@pytest.mark.parametrize("route", ["join", "leave", "cancel", "rematch"])
def test_the_match_routes_without_a_body(make_player, client_for, route):
    (_, ta), (_, tb) = make_player(), make_player()
    match = create_match(client_for(ta), seats=3)
    caller = client_for(tb if route == "join" else ta)
    before = Match.objects.get(id=match["id"]).version
    response = caller.post(f"/api/v1/matches/{match['id']}/{route}", {"seat": 1}, format="json")
    _names_the_field(response, "seat")
    assert Match.objects.get(id=match["id"]).version == before
    assert Match.objects.count() == 1
    # An empty object, or no body at all, is no body.
    if route == "join":
        joined = caller.post(f"/api/v1/matches/{match['id']}/join", {}, format="json")
        assert joined.status_code == 200, joined.content


def test_the_auth_routes(api, make_player, client_for):
    body = {"username": "carol", "password": "s3cret-pass", "displayname": "Carol"}
    _names_the_field(api.post("/api/v1/auth/register", body, format="json"), "displayname")
    assert not Player.objects.filter(user__username="carol").exists()
    _, token = make_player("dave")
    body = {"username": "dave", "password": "s3cret-pass", "remember": True}
    _names_the_field(api.post("/api/v1/auth/token", body, format="json"), "remember")
    tokens = ApiToken.objects.count()
    client = client_for(token)
    for route in ("token/rotate", "logout", "stream-ticket"):
        response = client.post(f"/api/v1/auth/{route}", {"all": True}, format="json")
        _names_the_field(response, "all")
    assert ApiToken.objects.count() == tokens
    assert client.get("/api/v1/players/me").status_code == 200  # the token still works


def test_the_tournament_routes(make_player, client_for):
    (_, token), (bob, _) = make_player(), make_player()
    client = client_for(token)
    body = {
        "name": "Cup",
        "players": [str(bob.id)],
        "bots": ["greedy"],
        "format": "round_robin",
        "table_size": 2,
        "fillbots": "greedy",
    }
    _names_the_field(client.post("/api/v1/tournaments", body, format="json"), "fillbots")
    assert not Tournament.objects.exists()
    del body["fillbots"]
    tournament = client.post("/api/v1/tournaments", body, format="json").json()
    for route in ("start", "cancel", "invitations/accept", "invitations/decline"):
        url = f"/api/v1/tournaments/{tournament['id']}/{route}"
        _names_the_field(client.post(url, {"now": True}, format="json"), "now")
    assert Tournament.objects.get(id=tournament["id"]).status == "draft"


def _nothing_created():
    return (Match.objects.count(), QueueEntry.objects.count(), Tournament.objects.count())


INTEGER = "A valid integer is required."
BOOLEAN = "Must be a valid boolean."
TEXT = "Not a valid string."
UUID = "Must be a valid UUID."


@pytest.mark.parametrize(
    ("route", "body", "field", "said"),
    [
        ("/api/v1/matches", {"seats": "3"}, "seats", INTEGER),
        ("/api/v1/matches", {"seats": 3.0}, "seats", INTEGER),
        ("/api/v1/matches", {"seats": True}, "seats", INTEGER),
        ("/api/v1/matches", {"seats": 2, "deals": 1.0}, "deals", INTEGER),
        ("/api/v1/matches", {"seats": 2, "turn_seconds": "60"}, "turn_seconds", INTEGER),
        ("/api/v1/matches", {"seats": 2, "private": "yes"}, "private", BOOLEAN),
        ("/api/v1/matches", {"seats": 2, "private": 1}, "private", BOOLEAN),
        ("/api/v1/matches", {"seats": 2, "private": "true"}, "private", BOOLEAN),
        ("/api/v1/queue", {"seats": 2.0, "wait_seconds": 10}, "seats", INTEGER),
        ("/api/v1/queue", {"seats": 2, "wait_seconds": "10"}, "wait_seconds", INTEGER),
        (
            "/api/v1/queue",
            {"seats": 2, "wait_seconds": 10, "bots_allowed": "yes"},
            "bots_allowed",
            BOOLEAN,
        ),
        (
            "/api/v1/queue",
            {"seats": 2, "wait_seconds": 10, "bots_allowed": 0},
            "bots_allowed",
            BOOLEAN,
        ),
        ("/api/v1/tournaments", {"table_size": "2"}, "table_size", INTEGER),
        ("/api/v1/tournaments", {"deals": 1.0}, "deals", INTEGER),
        ("/api/v1/tournaments", {"rounds": False}, "rounds", INTEGER),
        ("/api/v1/tournaments", {"name": 5}, "name", TEXT),
    ],
)
def test_a_value_of_another_json_type_is_400_naming_the_field(
    make_player, client_for, route, body, field, said
):
    (_, token), (bob, _) = make_player(), make_player()
    client = client_for(token)
    if route == "/api/v1/tournaments":
        body = {
            "name": "Cup",
            "players": [str(bob.id)],
            "bots": ["greedy"],
            "format": "swiss",
            "table_size": 2,
            **body,
        }
    response = client.post(route, body, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {
        "code": "invalid",
        "message": f"{field}: {said}",
        "detail": {field: [said]},
    }
    assert _nothing_created() == (0, 0, 0)
    turkish = client.post(route, body, format="json", HTTP_ACCEPT_LANGUAGE="tr").json()
    assert turkish["code"] == "invalid" and list(turkish["detail"]) == [field]
    assert turkish["detail"][field] != [said] and turkish["message"].startswith(f"{field}: ")
    assert _nothing_created() == (0, 0, 0)


def test_an_item_of_another_json_type_is_named_by_its_place(make_player, client_for):
    """DRF would take `5` for the bot "5", and a number for the UUID it is the integer of."""
    _, token = make_player()
    client = client_for(token)
    response = client.post("/api/v1/matches", {"seats": 3, "bots": ["greedy", 5]}, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == {"bots": {"1": [TEXT]}}
    body = {"name": "Cup", "players": [7], "bots": ["greedy"], "format": "swiss", "table_size": 2}
    response = client.post("/api/v1/tournaments", body, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == {"players": {"0": [UUID]}}
    assert _nothing_created() == (0, 0, 0)


def test_the_values_of_their_own_type_are_taken(make_player, client_for):
    """The check refuses only what DRF would convert: integers, booleans, null where a field
    takes it; a query's values stay strings (`?after_version=1`, `?invited=true`)."""
    _, token = make_player()
    client = client_for(token)
    body = {"seats": 2, "deals": 1, "private": False, "turn_seconds": None, "bots": ["greedy"]}
    match = client.post("/api/v1/matches", body, format="json")
    assert match.status_code == 201, match.content
    queued = client.post(
        "/api/v1/queue", {"seats": 3, "wait_seconds": 10, "bots_allowed": True}, format="json"
    )
    assert queued.status_code == 201, queued.content
    match_id = match.json()["id"]
    polled = client.get(f"/api/v1/matches/{match_id}/state?after_version=0&wait=0")
    assert polled.status_code == 200, polled.content
    assert client.get("/api/v1/matches?invited=true&limit=5").status_code == 200
