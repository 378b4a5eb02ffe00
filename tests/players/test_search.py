"""Player search (`GET /players?search=…`) against PostgreSQL: prefixes of usernames and display
names in any letter case, accents ignored; people only; signed cursor pages; public fields only;
bad queries are 400 and change nothing; throttled; and the prefix is an index scan."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.throttling import SimpleRateThrottle

from players.models import ApiToken, Player
from players.services import bot_player_get_or_create, player_register

pytestmark = pytest.mark.django_db

URL = "/api/v1/players"
PUBLIC_FIELDS = {"id", "username", "display_name", "is_bot", "rating"}


def person(username, display_name=None, email=""):
    player, _ = player_register(
        username=username, password="s3cret-pass", display_name=display_name or username
    )
    if email:
        get_user_model().objects.filter(pk=player.user_id).update(email=email)
    return player


def search(api, text, **params):
    return api.get(URL, {"search": text, **params})


def names(response):
    assert response.status_code == 200, response.content
    return [row["username"] for row in response.json()["results"]]


def test_prefix_of_username_or_display_name_in_any_case(api):
    person("ana", "Ana Lima")
    person("anabel", "Bel")
    person("zed", "Anatolia")
    person("banana", "Mr Banana")
    assert names(search(api, "ana")) == ["ana", "anabel", "zed"]
    assert names(search(api, "ANA")) == ["ana", "anabel", "zed"]
    assert names(search(api, "aNaB")) == ["anabel"]
    assert names(search(api, "mr b")) == ["banana"]
    # A prefix, never the middle of a name.
    assert names(search(api, "nana")) == []


def test_accents_and_turkish_letters_are_folded(api):
    person("omer1", "Ömer Şahin")
    person("isik", "IŞIK")
    person("ilker", "İlker")
    assert names(search(api, "omer s")) == ["omer1"]
    assert names(search(api, "ÖMER Ş")) == ["omer1"]
    assert names(search(api, "ışı")) == ["isik"]
    assert names(search(api, "isi")) == ["isik"]
    assert names(search(api, "il")) == ["ilker"]
    assert names(search(api, "İL")) == ["ilker"]


def test_finds_people_never_bots(api):
    bot_player_get_or_create(strategy="greedy", ordinal=1)
    person("botanist", "Botanist")
    assert names(search(api, "bot")) == ["botanist"]
    assert names(search(api, "greedy")) == []


def test_public_fields_only(api, client_for):
    found = person("carla", "Carla", email="carla@example.com")
    token = ApiToken.objects.filter(user_id=found.user_id).first()
    for client in (api, client_for(player_register(username="dora", password="s3cret-pass")[1])):
        r = search(client, "car")
        assert r.status_code == 200
        (row,) = r.json()["results"]
        assert set(row) == PUBLIC_FIELDS
        assert row["id"] == str(found.id) and row["is_bot"] is False
        assert set(row["rating"]) == {"mu", "sigma", "ordinal"}
        raw = r.content.decode()
        secrets = ("carla@example.com", "email", "password", "pbkdf2", '"user"', '"user_id"')
        for private in (*secrets, token.digest):
            assert private not in raw


def test_cursor_pages_forward_and_back(api):
    for n in range(7):
        person(f"page{n}", f"Page {n}")
    first = api.get(URL, {"search": "page", "limit": 3}).json()
    assert [r["username"] for r in first["results"]] == ["page0", "page1", "page2"]
    assert first["previous"] is None
    second = api.get(first["next"]).json()
    assert [r["username"] for r in second["results"]] == ["page3", "page4", "page5"]
    third = api.get(second["next"]).json()
    assert [r["username"] for r in third["results"]] == ["page6"] and third["next"] is None
    back = api.get(second["previous"]).json()
    assert [r["username"] for r in back["results"]] == ["page0", "page1", "page2"]
    # A forged cursor is 400 naming `cursor`.
    r = api.get(URL, {"search": "page", "cursor": "bm90LWEtY3Vyc29y"})
    assert r.status_code == 400 and "cursor" in r.json()["detail"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "search"),
        ({"search": ""}, "search"),
        ({"search": "a"}, "search"),
        ({"search": " a "}, "search"),
        ({"search": "\u0301\u0301"}, "search"),  # two accents: nothing to search for
        ({"search": "x" * 151}, "search"),
        ({"search": "ab\x00"}, "search"),
        ({"search": "ab\x1b"}, "search"),
        ({"search": "ana", "limit": "0"}, "limit"),
        ({"search": "ana", "limit": "101"}, "limit"),
        ({"search": "ana", "limit": "many"}, "limit"),
    ],
)
def test_bad_queries_are_400_naming_the_field_and_change_nothing(api, params, field):
    person("ana", "Ana")
    before = (
        list(Player.objects.order_by("id").values()),
        list(ApiToken.objects.order_by("digest").values()),
    )
    r = api.get(URL, params)
    assert r.status_code == 400, r.content
    assert r.json()["code"] == "invalid" and field in r.json()["detail"], r.json()
    after = (
        list(Player.objects.order_by("id").values()),
        list(ApiToken.objects.order_by("digest").values()),
    )
    assert before == after


def test_too_short_in_turkish(api):
    r = api.get(URL, {"search": "a"}, HTTP_ACCEPT_LANGUAGE="tr")
    assert r.status_code == 400
    assert r.json()["detail"]["search"] == ["En az 2 karakterle ara."]


def test_like_wildcards_are_text(api):
    person("a_b", "A_B")
    person("axb", "Axb")
    assert names(search(api, "a_")) == ["a_b"]
    assert names(search(api, "a%")) == []


def test_throttled_per_user(api, client_for, monkeypatch):
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"player_search": "3/min"})
    _, one = player_register(username="one", password="s3cret-pass")
    _, two = player_register(username="two", password="s3cret-pass")
    first = client_for(one)
    assert [search(first, "on").status_code for _ in range(3)] == [200, 200, 200]
    refused = search(first, "on")
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"
    assert int(refused["Retry-After"]) > 0
    # Another user has a count of their own.
    assert search(client_for(two), "on").status_code == 200


def test_the_prefix_is_an_index_scan():
    """With many players and fresh statistics, PostgreSQL reads each key's index for the prefix
    (never the whole table)."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's plan")
    Player.objects.bulk_create(
        [
            Player(
                username=f"filler{n}",
                display_name=f"Filler {n}",
                username_key=f"filler{n}",
                display_name_key=f"filler {n}",
            )
            for n in range(20000)
        ]
    )
    person("needle", "Needle")
    from players.selectors import player_search

    query = player_search(text="needl").order_by("username_key", "id")[:21]
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE players_player")
        sql, params = query.query.sql_with_params()
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "player_username_key" in plan and "player_display_name_key" in plan, plan
    assert "Seq Scan" not in plan, plan
