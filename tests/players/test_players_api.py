"""Auth and player routes of docs/api.md against PostgreSQL."""

from __future__ import annotations

import pytest
from rest_framework.throttling import SimpleRateThrottle

pytestmark = pytest.mark.django_db


def test_register_returns_player_and_token(api):
    r = api.post(
        "/api/v1/auth/register",
        {"username": "ana", "password": "s3cret-pass", "display_name": "Ana"},
        format="json",
    )
    assert r.status_code == 201
    body = r.json()
    assert set(body) == {"id", "username", "display_name", "token"}
    assert body["username"] == "ana" and body["display_name"] == "Ana"
    me = api.get("/api/v1/players/me", HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert me.status_code == 200
    assert me.json()["id"] == body["id"]


def test_register_display_name_defaults_to_username(api):
    r = api.post(
        "/api/v1/auth/register", {"username": "bob", "password": "s3cret-pass"}, format="json"
    )
    assert r.status_code == 201 and r.json()["display_name"] == "bob"


def test_register_taken_username_is_invalid(api, make_player):
    make_player("carla")
    r = api.post(
        "/api/v1/auth/register", {"username": "carla", "password": "s3cret-pass"}, format="json"
    )
    assert r.status_code == 400
    assert r.json()["code"] == "invalid" and "username" in r.json()["detail"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"username": "x"},
        {"username": "", "password": "s3cret-pass"},
        {"username": "has space", "password": "s3cret-pass"},
        {"username": "dan", "password": "123"},
    ],
)
def test_register_bad_bodies_are_invalid(api, body):
    r = api.post("/api/v1/auth/register", body, format="json")
    assert r.status_code == 400 and r.json()["code"] == "invalid"
    assert r.json()["detail"]


def test_token_for_right_and_wrong_password(api, make_player):
    _, token = make_player("erin")
    r = api.post(
        "/api/v1/auth/token", {"username": "erin", "password": "s3cret-pass"}, format="json"
    )
    # A login makes a new token (only digests are stored, so the first key cannot be shown
    # again); both authenticate.
    assert r.status_code == 200 and set(r.json()) == {"token"} and r.json()["token"] != token
    for key in (token, r.json()["token"]):
        me = api.get("/api/v1/players/me", HTTP_AUTHORIZATION=f"Token {key}")
        assert me.status_code == 200 and me.json()["username"] == "erin"
    r = api.post(
        "/api/v1/auth/token", {"username": "erin", "password": "wrong-pass"}, format="json"
    )
    assert r.status_code == 401 and r.json()["code"] == "not_authenticated"


def test_me_needs_a_token(api):
    r = api.get("/api/v1/players/me")
    assert r.status_code == 401
    assert r.json()["code"] == "not_authenticated"
    assert r["WWW-Authenticate"].startswith("Token")
    r = api.get("/api/v1/players/me", HTTP_AUTHORIZATION="Token not-a-token")
    assert r.status_code == 401 and r.json()["code"] == "not_authenticated"


def test_player_by_id_is_public_with_rating_and_stats(api, make_player):
    player, _ = make_player("fay")
    r = api.get(f"/api/v1/players/{player.id}")
    assert r.status_code == 200
    body = r.json()
    assert body["username"] == "fay" and body["is_bot"] is False
    assert set(body["rating"]) == {"mu", "sigma", "ordinal"}
    assert body["rating"]["ordinal"] == pytest.approx(
        body["rating"]["mu"] - 3 * body["rating"]["sigma"]
    )
    assert body["stats"] == {
        "matches": 0,
        "wins": 0,
        "deals_played": 0,
        "deals_won": 0,
        "penalty_points": 0,
        "luck_deals": 0,
        "mean_luck": None,
        "luck_adjusted_score": 0.0,
        "skill_deals": 0,
        "mean_skill": None,
    }


def test_unknown_player_is_not_found(api):
    r = api.get("/api/v1/players/00000000-0000-0000-0000-000000000000")
    assert r.status_code == 404 and r.json()["code"] == "not_found"


def test_bots_list_names_random_greedy_and_the_strongest(api):
    r = api.get("/api/v1/bots")
    assert r.status_code == 200
    strategies = {b["strategy"] for b in r.json()}
    assert {"random", "greedy", "ismcts"} <= strategies
    assert all(b["description"] for b in r.json())


def test_bots_list_shows_each_level_with_its_measured_rating_and_command(api):
    from games.engine.bots import level_ratings

    measured = level_ratings()
    bots = api.get("/api/v1/bots").json()
    # The levels come first in the order of the file, weakest first: the order its ladder
    # showed, each level beating the one below in paired deals.
    levels = list(measured["levels"])
    assert levels == ["random", "beginner", "casual", "strong", "expert"]
    assert [b["strategy"] for b in bots[: len(levels)]] == levels
    assert [(s["lower"], s["upper"]) for s in measured["steps"]] == list(
        zip(levels, levels[1:], strict=False)
    )
    for bot in bots[: len(levels)]:
        assert bot["level"] == bot["strategy"]
        rating = bot["rating"]
        assert rating["measured_by"] == measured["command"]
        assert rating["measured_by"].startswith("bench/bots.py --levels")
        assert rating["mu"] == measured["levels"][bot["strategy"]]["mu"]
        assert rating["ordinal"] == measured["levels"][bot["strategy"]]["ordinal"]
        assert (
            rating["cpu_ms_per_decision"]
            == measured["levels"][bot["strategy"]]["cpu_ms_per_decision"]
        )
    alias = next(b for b in bots if b["strategy"] == "greedy")
    assert alias["level"] == "casual" and alias["rating"] == bots[2]["rating"]
    search = next(b for b in bots if b["strategy"] == "ismcts")
    assert search["level"] is None and search["rating"] is None
    # The measured order: the ratings climb with the ladder.
    mus = [b["rating"]["mu"] for b in bots[: len(levels)]]
    assert mus == sorted(mus)


def test_auth_routes_are_throttled_with_retry_after(api, monkeypatch):
    # The cache is this test's own key prefix (tests/conftest.py): never cleared or flushed.
    rates = {"auth": "2/min", "auth_username": "100/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    for _ in range(2):
        api.post("/api/v1/auth/token", {"username": "nobody", "password": "x"}, format="json")
    r = api.post("/api/v1/auth/token", {"username": "nobody", "password": "x"}, format="json")
    assert r.status_code == 429
    assert r.json()["code"] == "throttled"
    assert int(r["Retry-After"]) > 0
