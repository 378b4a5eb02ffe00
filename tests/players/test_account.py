"""The account routes against PostgreSQL and the Redis cache: a password change (validators,
the old password checked as a login, every other token revoked, the caller's kept), the list of
one's tokens (never a key or a digest) and the revocation of one, the display name changed;
every refusal is a 4xx that changes nothing; throttled per user."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from players.models import ApiToken, token_digest
from players.services import player_register

pytestmark = pytest.mark.django_db

PASSWORD = "s3cret-pass"
NEW = "an0ther-s3cret"


def client(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


def login(username: str, password: str = PASSWORD):
    return APIClient().post(
        "/api/v1/auth/token", {"username": username, "password": password}, format="json"
    )


@pytest.fixture
def account():
    """A player with three tokens (registration and two logins): (username, [keys])."""
    _, first = player_register(username="ana", password=PASSWORD)
    keys = [first] + [login("ana").json()["token"] for _ in range(2)]
    return "ana", keys


def snapshot(username: str):
    user = get_user_model().objects.get(username=username)
    tokens = sorted(ApiToken.objects.filter(user=user).values_list("digest", "last_used"))
    return user.password, tokens


def change(key: str, old: str = PASSWORD, new: str = NEW, **extra):
    body = {"old_password": old, "new_password": new, **extra}
    return client(key).post("/api/v1/auth/password", body, format="json")


def test_a_password_change_keeps_the_callers_token_and_revokes_the_others(account):
    username, (one, two, three) = account
    response = change(two)
    assert response.status_code == 204 and response.content == b""
    assert client(two).get("/api/v1/players/me").status_code == 200
    for revoked in (one, three):
        r = client(revoked).get("/api/v1/players/me")
        assert r.status_code == 401 and r.json()["code"] == "not_authenticated"
    assert list(ApiToken.objects.values_list("digest", flat=True)) == [token_digest(two)]
    assert login(username).status_code == 401
    assert login(username, NEW).status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"old_password": "wrong-pass-1", "new_password": NEW}, "old_password"),
        ({"old_password": PASSWORD, "new_password": "short"}, "new_password"),
        ({"old_password": PASSWORD, "new_password": "12345678901"}, "new_password"),
        ({"old_password": PASSWORD, "new_password": "password"}, "new_password"),
        ({"old_password": PASSWORD, "new_password": " " * 12}, "new_password"),
        ({"old_password": PASSWORD, "new_password": "x" * 129}, "new_password"),
        ({"old_password": PASSWORD}, "new_password"),
        ({"new_password": NEW}, "old_password"),
        ({"old_password": PASSWORD, "new_password": NEW, "confirm": NEW}, "confirm"),
        ({"old_password": PASSWORD, "new_password": 12345678}, "new_password"),
    ],
)
def test_a_refused_change_is_400_naming_the_field_and_changes_nothing(account, body, field):
    username, (one, two, three) = account
    before = snapshot(username)
    response = client(one).post("/api/v1/auth/password", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid" and field in response.json()["detail"]
    assert snapshot(username) == before
    assert all(client(k).get("/api/v1/players/me").status_code == 200 for k in (one, two, three))


def test_a_bad_new_password_is_refused_before_the_old_one_is_checked(account, settings):
    """A refused new password costs no failed login: the old one is not even read."""
    username, (one, _, _) = account
    for _ in range(settings.AXES_FAILURE_LIMIT + 2):
        response = change(one, old="wrong-pass-1", new="short")
        assert response.status_code == 400 and "new_password" in response.json()["detail"]
    assert login(username).status_code == 200


def test_wrong_old_passwords_lock_the_username_as_logins_do(account, settings, monkeypatch):
    rates = {"account": "1000/min", "auth": "1000/min", "auth_username": "1000/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    username, (one, _, _) = account
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert change(one, old="wrong-pass-1").status_code == 400
    locked = change(one, old="wrong-pass-1")
    assert locked.status_code == 429 and locked.json()["code"] == "throttled"
    # Locked: the right password changes nothing either, and logins are locked too.
    before = snapshot(username)
    assert change(one).status_code == 429
    assert snapshot(username) == before
    assert login(username).status_code == 429


def test_the_change_in_turkish(account):
    _, (one, _, _) = account
    response = client(one).post(
        "/api/v1/auth/password",
        {"old_password": "wrong-pass-1", "new_password": NEW},
        format="json",
        HTTP_ACCEPT_LANGUAGE="tr",
    )
    assert response.json()["detail"] == {"old_password": ["Parola yanlış."]}


def test_the_token_list_names_ids_times_and_the_current_one_never_a_secret(account):
    _, (one, two, three) = account
    response = client(two).get("/api/v1/auth/tokens")
    assert response.status_code == 200
    rows = response.json()
    assert len(rows) == 3
    assert all(set(row) == {"id", "created_at", "last_used", "current", "device"} for row in rows)
    assert [row["current"] for row in rows].count(True) == 1
    raw = response.content.decode()
    for key in (one, two, three):
        assert key not in raw and token_digest(key) not in raw
    # The caller's own sessions: no cache keeps them (docs/api.md "Conventions").
    assert response["Cache-Control"] == "no-store, private" and "ETag" not in response
    assert "authorization" in response["Vary"].lower()
    # Each token sees itself as current; ids are stable.
    ids = {row["id"] for row in rows}
    for key in (one, three):
        listed = client(key).get("/api/v1/auth/tokens").json()
        assert {row["id"] for row in listed} == ids
        (current,) = [row for row in listed if row["current"]]
        assert current["id"] in ids


def test_revoking_one_token_by_its_id(account):
    _, (one, two, three) = account
    rows = client(one).get("/api/v1/auth/tokens").json()
    (mine,) = [row["id"] for row in rows if row["current"]]
    two_id = next(
        row["id"] for row in client(two).get("/api/v1/auth/tokens").json() if row["current"]
    )
    response = client(one).post(f"/api/v1/auth/tokens/{two_id}/revoke", format="json")
    assert response.status_code == 204
    assert client(two).get("/api/v1/players/me").status_code == 401
    assert client(three).get("/api/v1/players/me").status_code == 200
    assert {row["id"] for row in client(one).get("/api/v1/auth/tokens").json()} == {
        row["id"] for row in rows
    } - {two_id}
    # Again: it is gone, 404. Its own id logs the caller out.
    again = client(one).post(f"/api/v1/auth/tokens/{two_id}/revoke", format="json")
    assert again.status_code == 404 and again.json()["code"] == "not_found"
    assert client(one).post(f"/api/v1/auth/tokens/{mine}/revoke").status_code == 204
    assert client(one).get("/api/v1/players/me").status_code == 401


CHROME_LINUX = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)"
    " Chrome/156.0.0.0 Safari/537.36"
)
SAFARI_IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15"
    " (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
)


def test_each_session_names_the_device_its_login_came_from_and_a_rotation_keeps_it():
    registered = APIClient().post(
        "/api/v1/auth/register",
        {"username": "cem", "password": PASSWORD},
        format="json",
        HTTP_USER_AGENT=CHROME_LINUX,
    )
    phone = APIClient().post(
        "/api/v1/auth/token",
        {"username": "cem", "password": PASSWORD},
        format="json",
        HTTP_USER_AGENT=SAFARI_IPHONE,
    )
    script = APIClient().post(
        "/api/v1/auth/token",
        {"username": "cem", "password": PASSWORD},
        format="json",
        HTTP_USER_AGENT="curl/8.5.0",
    )
    bare = login("cem")  # no User-Agent at all
    keys = [r.json()["token"] for r in (registered, phone, script, bare)]
    rotated = client(keys[1]).post("/api/v1/auth/token/rotate").json()["token"]
    rows = client(keys[0]).get("/api/v1/auth/tokens").json()
    assert sorted(row["device"] for row in rows) == sorted(
        ["Chrome · Linux", "Mobile Safari · iOS", "curl", ""]
    )
    (current,) = [row for row in rows if row["current"]]
    assert current["device"] == "Chrome · Linux"
    (phone_row,) = [r for r in client(rotated).get("/api/v1/auth/tokens").json() if r["current"]]
    assert phone_row["device"] == "Mobile Safari · iOS"
    # Only the label is kept, never the header.
    assert not ApiToken.objects.filter(device__contains="Mozilla").exists()


def test_signing_out_everywhere_else_revokes_every_other_token_and_keeps_the_callers(account):
    _, (one, two, three) = account
    _, other = player_register(username="bo", password=PASSWORD)
    response = client(two).post("/api/v1/auth/tokens/revoke-others", format="json")
    assert response.status_code == 200 and response.json() == {"revoked": 2}
    for revoked in (one, three):
        r = client(revoked).get("/api/v1/players/me")
        assert r.status_code == 401 and r.json()["code"] == "not_authenticated"
    rows = client(two).get("/api/v1/auth/tokens").json()
    assert [row["current"] for row in rows] == [True]
    assert client(other).get("/api/v1/players/me").status_code == 200
    # Nothing left to revoke: 0, and the caller still signed in.
    again = client(two).post("/api/v1/auth/tokens/revoke-others", format="json")
    assert again.status_code == 200 and again.json() == {"revoked": 0}
    assert client(two).get("/api/v1/players/me").status_code == 200


def test_signing_out_everywhere_else_with_a_body_is_refused_and_changes_nothing(account):
    username, (one, _, _) = account
    before = snapshot(username)
    r = client(one).post("/api/v1/auth/tokens/revoke-others", {"keep": "x"}, format="json")
    assert r.status_code == 400 and "keep" in r.json()["detail"]
    assert snapshot(username) == before


@pytest.mark.parametrize("body", [[{"x": 1}], [], "x", 42, True])
@pytest.mark.parametrize(
    "path",
    ["/api/v1/auth/logout", "/api/v1/auth/tokens/revoke-others", "/api/v1/auth/token/rotate"],
)
def test_a_route_that_takes_no_body_refuses_json_that_is_not_an_object(account, path, body):
    """A list, a string or a number where no body (or an empty object) belongs is refused under
    `non_field_errors`, as a serializer refuses it, and nothing changes."""
    username, (one, _, _) = account
    before = snapshot(username)
    r = client(one).post(path, body, format="json")
    assert r.status_code == 400 and r.json()["code"] == "invalid", r.content
    assert list(r.json()["detail"]) == ["non_field_errors"], r.json()
    assert snapshot(username) == before
    assert client(one).get("/api/v1/players/me").status_code == 200


def test_another_players_token_or_a_bad_id_or_a_body_is_refused_and_changes_nothing(account):
    username, (one, _, _) = account
    _, other = player_register(username="bo", password=PASSWORD)
    (other_id,) = [row["id"] for row in client(other).get("/api/v1/auth/tokens").json()]
    before = snapshot(username), snapshot("bo")
    r = client(one).post(f"/api/v1/auth/tokens/{other_id}/revoke", format="json")
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    r = client(one).post("/api/v1/auth/tokens/not-a-uuid/revoke", format="json")
    assert r.status_code == 404
    (mine,) = [row["id"] for row in client(one).get("/api/v1/auth/tokens").json() if row["current"]]
    r = client(one).post(f"/api/v1/auth/tokens/{mine}/revoke", {"all": True}, format="json")
    assert r.status_code == 400 and "all" in r.json()["detail"]
    assert (snapshot(username), snapshot("bo")) == before
    assert client(other).get("/api/v1/players/me").status_code == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/v1/auth/password"),
        ("get", "/api/v1/auth/tokens"),
        ("post", "/api/v1/auth/tokens/8d1c2e3a-0000-4000-8000-000000000000/revoke"),
        ("post", "/api/v1/auth/tokens/revoke-others"),
        ("patch", "/api/v1/players/me"),
    ],
)
def test_the_account_routes_need_a_token(method, path):
    response = getattr(APIClient(), method)(path, format="json")
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"


def test_the_account_routes_are_throttled_per_user(account, monkeypatch):
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"account": "3/min"})
    _, (one, _, _) = account
    _, other = player_register(username="bo", password=PASSWORD)
    api = client(one)
    assert [api.get("/api/v1/auth/tokens").status_code for _ in range(3)] == [200] * 3
    before = snapshot("ana")
    refused = change(one)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert snapshot("ana") == before
    assert client(other).get("/api/v1/auth/tokens").status_code == 200


# ---- the display name ----


def test_the_display_name_is_changed_and_shown_everywhere_the_player_is(account):
    _, (key, _, _) = account
    api = client(key)
    match = api.post("/api/v1/matches", {"seats": 2, "bots": ["greedy"]}, format="json").json()
    r = api.patch("/api/v1/players/me", {"display_name": "Ana Ş."}, format="json")
    assert r.status_code == 200 and r.json()["display_name"] == "Ana Ş.", r.content
    assert r.json()["username"] == "ana"
    assert api.get("/api/v1/players/me").json()["display_name"] == "Ana Ş."
    seat = api.get(f"/api/v1/matches/{match['id']}").json()["seats"][0]
    assert seat["player"]["display_name"] == "Ana Ş."
    found = APIClient().get("/api/v1/players", {"search": "ana s"}).json()["results"]
    assert [p["display_name"] for p in found] == ["Ana Ş."]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "display_name"),
        ({"display_name": ""}, "display_name"),
        ({"display_name": "   "}, "display_name"),
        ({"display_name": "x" * 41}, "display_name"),
        ({"display_name": "\u202eevil"}, "display_name"),
        ({"display_name": "bell\x07"}, "display_name"),
        # Nothing to see: a joiner, the Hangul filler, the braille blank, a lone accent.
        ({"display_name": "\u200d"}, "display_name"),
        ({"display_name": "\u200c\u200d"}, "display_name"),
        ({"display_name": "\u3164"}, "display_name"),
        ({"display_name": " \u2800 "}, "display_name"),
        ({"display_name": "\u0301"}, "display_name"),
        # A deleted account's name, in either language.
        ({"display_name": "Deleted player"}, "display_name"),
        ({"display_name": "  deleted   PLAYER"}, "display_name"),
        ({"display_name": "Silinmiş oyuncu"}, "display_name"),
        ({"display_name": "Ana", "username": "boss"}, "username"),
    ],
)
def test_a_refused_display_name_is_400_naming_the_field_and_changes_nothing(account, body, field):
    username, (key, _, _) = account
    before = get_user_model().objects.get(username=username).player.display_name
    r = client(key).patch("/api/v1/players/me", body, format="json")
    assert r.status_code == 400 and r.json()["code"] == "invalid", r.content
    assert field in r.json()["detail"], r.json()
    player = get_user_model().objects.get(username=username).player
    assert (player.display_name, player.username) == (before, "ana")


@pytest.mark.parametrize(
    "name",
    [
        "SİLİNMİŞ OYUNCU",  # Turkish capitals: casefold makes İ an i and a combining dot
        "SILINMIŞ OYUNCU",
        "silinmis oyuncu",
        "Deleted player\u200d",  # a joiner, which a display name may hold
        "Dele\u200cted player",
        "\uff24eleted player",  # fullwidth
        "\uff24\uff25\uff2c\uff25\uff34\uff25\uff24\u3000player",
        "De\u0301leted\u00a0player",  # an accent, a no-break space
        "Deleted\u2800player\ufe0f",  # the braille blank, a variation selector
    ],
)
def test_the_deleted_accounts_name_is_kept_however_it_is_written(account, name):
    username, (key, _, _) = account
    r = client(key).patch("/api/v1/players/me", {"display_name": name}, format="json")
    assert r.status_code == 400 and r.json()["code"] == "invalid", r.content
    said = "That display name is kept for deleted accounts."
    assert r.json()["detail"] == {"display_name": [said]}, r.json()
    assert get_user_model().objects.get(username=username).player.display_name == "ana"
    registered = APIClient().post(
        "/api/v1/auth/register",
        {"username": "someone", "password": "s3cret-pass", "display_name": name},
        format="json",
    )
    assert registered.status_code == 400 and registered.json()["detail"] == {"display_name": [said]}
    assert not get_user_model().objects.filter(username="someone").exists()


def test_a_name_near_the_deleted_accounts_is_kept_as_typed(account):
    _, (key, _, _) = account
    for name in ("Deleted players", "\uff24eleted gamer", "SİLİNMİŞ OYUNCULAR", "Dele\u0301ted"):
        r = client(key).patch("/api/v1/players/me", {"display_name": name}, format="json")
        assert r.status_code == 200 and r.json()["display_name"] == name, r.content


def test_a_display_name_refusal_in_turkish(account):
    _, (key, _, _) = account
    r = client(key).patch(
        "/api/v1/players/me",
        {"display_name": "a\u202eb"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="tr",
    )
    assert r.status_code == 400 and "U+202E" in r.json()["message"]
    assert "görünen ad" in r.json()["message"].lower(), r.json()


def test_changing_the_display_name_is_throttled_and_reading_oneself_is_not(account, monkeypatch):
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"account": "2/min"})
    _, (key, _, _) = account
    api = client(key)
    names = [f"Ana {i}" for i in range(3)]
    codes = [
        api.patch("/api/v1/players/me", {"display_name": n}, format="json").status_code
        for n in names
    ]
    assert codes == [200, 200, 429]
    assert api.get("/api/v1/players/me").json()["display_name"] == "Ana 1"
    assert [api.get("/api/v1/players/me").status_code for _ in range(3)] == [200] * 3
