"""Every POST body of the API: a field the route does not know is `400 invalid` naming it, and
nothing changes (pisyedili_api.serializers)."""

from __future__ import annotations

import pytest

from games.models import Match, Move
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
