"""Tournament routes: create/start/cancel permissions (organizer, other, anonymous), bad input
that changes nothing, public reads, the caller's tables. Nothing is played here (no on_commit),
so these tests stay fast; tests/tournaments/test_tournament_play.py plays tournaments out."""

from __future__ import annotations

import uuid

import pytest

from games.models import Match
from players.services import bot_player_get_or_create
from tournaments.models import Round, Table, Tournament

from .helpers import accept_all

pytestmark = pytest.mark.django_db


def error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code and body["message"], body
    return body


@pytest.fixture
def cast(make_player, client_for, api):
    """An organizer, four people entered, an outsider, and an anonymous client."""
    organizer, token = make_player()
    entrants = [make_player() for _ in range(4)]
    _, outsider_token = make_player()
    return {
        "organizer": client_for(token),
        "organizer_player": organizer,
        "entrants": [client_for(t) for _, t in entrants],
        "entrant_players": [p for p, _ in entrants],
        "other": client_for(outsider_token),
        "anonymous": api,
    }


def body_for(cast, **overrides) -> dict:
    return {
        "name": "Spring open",
        "players": [str(p.id) for p in cast["entrant_players"]],
        "format": "round_robin",
        "table_size": 2,
        "deals": 2,
        **overrides,
    }


def create(cast, **overrides) -> dict:
    response = cast["organizer"].post(
        "/api/v1/tournaments", body_for(cast, **overrides), format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_create_returns_the_draft(cast):
    t = create(cast, rules={"draw_policy": "free"}, fill_bots="greedy")
    assert t["status"] == "draft" and t["current_round"] == 0 and t["started_at"] is None
    assert t["format"] == "round_robin" and t["table_size"] == 2 and t["deals_per_match"] == 2
    assert t["rules"]["draw_policy"] == "free" and t["rules"]["deals_per_match"] == 2
    assert t["fill_bots"] == "greedy" and t["rounds_total"] == 3
    assert t["organizer"]["id"] == str(cast["organizer_player"].id)
    assert [p["id"] for p in t["players"]] == [str(p.id) for p in cast["entrant_players"]]
    assert Match.objects.count() == 0  # nothing is dealt before the start


def test_swiss_rounds_default_and_bot_entrants(cast):
    t = create(cast, format="swiss", table_size=3, bots=["greedy", "greedy", "random", "random"])
    assert len(t["players"]) == 8 and t["rounds_total"] == 3  # ceil(log2 8), repeat-free bound 3
    bots = [p for p in t["players"] if p["is_bot"]]
    assert len({p["id"] for p in bots}) == 4
    assert create(cast, format="swiss", rounds=5)["rounds_total"] == 5


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"table_size": 5}, "table_size"),
        ({"table_size": 1}, "table_size"),
        ({"format": "knockout"}, "format"),
        ({"rules": {"jokers": True}}, "rules"),
        ({"rules": {"hand_size": 0}}, "rules"),
        ({"deals": 0}, "deals"),
        ({"fill_bots": "clairvoyant"}, "fill_bots"),
        ({"bots": ["clairvoyant"]}, "bots"),
        ({"rounds": 3}, "rounds"),  # round robin: the schedule decides
        ({"name": ""}, "name"),
        ({"players": ["not-a-uuid"]}, "players"),
    ],
)
def test_bad_input_is_400_naming_the_field_and_changes_nothing(cast, overrides, field):
    response = cast["organizer"].post(
        "/api/v1/tournaments", body_for(cast, **overrides), format="json"
    )
    body = error(response, 400, "invalid")
    assert field in body["detail"], body
    assert Tournament.objects.count() == 0


def test_unknown_rule_option_is_named(cast):
    response = cast["organizer"].post(
        "/api/v1/tournaments", body_for(cast, rules={"jokers": True}), format="json"
    )
    body = error(response, 400, "invalid")
    assert body["detail"] == {"rules": {"jokers": ["unknown rule option 'jokers'"]}}
    assert "jokers" in body["message"]


def test_players_must_be_distinct_known_and_enough_for_a_table(cast):
    ids = [str(p.id) for p in cast["entrant_players"]]
    cases = [
        (ids + [ids[0]], f"player {cast['entrant_players'][0].username} is listed twice"),
        ([*ids, str(uuid.uuid4())], "no player"),
        (ids[:2], "at least 3 entrants"),
    ]
    for players, words in cases:
        response = cast["organizer"].post(
            "/api/v1/tournaments", body_for(cast, players=players, table_size=3), format="json"
        )
        body = error(response, 400, "invalid")
        assert words in body["detail"]["players"][0], body
    assert Tournament.objects.count() == 0


def test_a_deleted_player_is_no_entrant(cast, make_player, client_for):
    """A deleted account's invitation could never be answered (the tournament would never
    start): its id is refused as an unknown one is."""
    gone, token = make_player()
    answer = client_for(token).post(
        "/api/v1/auth/account/delete", {"password": "s3cret-pass"}, format="json"
    )
    assert answer.status_code == 204, answer.content
    ids = [str(p.id) for p in cast["entrant_players"]]
    response = cast["organizer"].post(
        "/api/v1/tournaments", body_for(cast, players=[*ids, str(gone.id)]), format="json"
    )
    body = error(response, 400, "invalid")
    assert f"no player {gone.id}" in body["detail"]["players"][0], body
    assert Tournament.objects.count() == 0


def test_the_organizer_listed_twice_is_named_by_username(cast):
    organizer = cast["organizer_player"]
    players = [str(organizer.id), *(str(p.id) for p in cast["entrant_players"]), str(organizer.id)]
    response = cast["organizer"].post(
        "/api/v1/tournaments", body_for(cast, players=players), format="json"
    )
    body = error(response, 400, "invalid")
    said = f"player {organizer.username} is listed twice"
    assert body["detail"] == {"players": [said]} and body["message"] == f"players: {said}", body
    assert str(organizer.id) not in response.content.decode()
    assert Tournament.objects.count() == 0


@pytest.mark.parametrize("char", ["\x07", "\u202e", "\u200b", "\n", "\u2028"])
def test_a_name_with_a_control_or_format_character_is_refused_as_a_display_name_is(cast, api, char):
    name = f"Spring{char}open"
    response = cast["organizer"].post(
        "/api/v1/tournaments", body_for(cast, name=name), format="json"
    )
    body = error(response, 400, "invalid")
    said = f"The tournament name may not contain the control character U+{ord(char):04X}."
    assert body == {"code": "invalid", "message": f"name: {said}", "detail": {"name": [said]}}
    assert Tournament.objects.count() == 0
    # The same character in a display name is refused by the same check.
    registered = api.post(
        "/api/v1/auth/register",
        {"username": "nameless", "password": "s3cret-pass", "display_name": name},
        format="json",
    )
    refused = error(registered, 400, "invalid")
    assert refused["detail"] == {
        "display_name": [
            f"The display name may not contain the control character U+{ord(char):04X}."
        ]
    }


def test_a_refused_name_is_said_in_turkish(cast):
    response = cast["organizer"].post(
        "/api/v1/tournaments",
        body_for(cast, name="\u202eKupa"),
        format="json",
        HTTP_ACCEPT_LANGUAGE="tr",
    )
    body = error(response, 400, "invalid")
    assert body["detail"] == {"name": ["Turnuva adı U+202E denetim karakterini içeremez."]}


# Nothing to see, as a display name may not be: the Hangul filler, the braille blank, a lone
# accent, a joiner.
@pytest.mark.parametrize("name", ["\u3164\u3164", "\u2800\u2800", "\u0301", "\u200d", " \u3164 "])
def test_a_name_that_shows_nothing_is_refused_as_a_display_name_is(cast, api, name):
    response = cast["organizer"].post(
        "/api/v1/tournaments", body_for(cast, name=name), format="json"
    )
    body = error(response, 400, "invalid")
    said = "The tournament name may not be blank."
    assert body == {"code": "invalid", "message": f"name: {said}", "detail": {"name": [said]}}
    assert Tournament.objects.count() == 0
    turkish = cast["organizer"].post(
        "/api/v1/tournaments", body_for(cast, name=name), format="json", HTTP_ACCEPT_LANGUAGE="tr"
    )
    assert error(turkish, 400, "invalid")["detail"] == {"name": ["Turnuva adı boş olamaz."]}
    registered = api.post(
        "/api/v1/auth/register",
        {"username": "nameless", "password": "s3cret-pass", "display_name": name},
        format="json",
    )
    assert error(registered, 400, "invalid")["detail"] == {
        "display_name": ["The display name may not be blank."]
    }
    assert Tournament.objects.count() == 0
    # A name with something to see keeps its filler.
    assert create(cast, name="Kupa\u3164")["name"] == "Kupa\u3164"


def test_a_name_keeps_the_joiner_of_an_emoji_sequence(cast):
    name = "Family \U0001f468\u200d\U0001f469\u200d\U0001f467 cup"
    assert create(cast, name=name)["name"] == name


def test_permission_matrix(cast):
    """Writes: organizer only (403 not_organizer for others, 401 anonymous). Reads: public."""
    t = create(cast)
    base = f"/api/v1/tournaments/{t['id']}"
    reads = [base, f"{base}/standings", f"{base}/standings.csv", f"{base}/tables"]
    for who in ("organizer", "other", "anonymous"):
        for url in reads:
            assert cast[who].get(url).status_code == 200, (who, url)
        assert cast[who].get("/api/v1/tournaments").status_code == 200
    assert cast["entrants"][0].get(f"{base}/tables?mine=true").status_code == 200
    error(cast["anonymous"].get(f"{base}/tables?mine=true"), 401, "not_authenticated")

    for action in ("start", "cancel"):
        error(cast["anonymous"].post(f"{base}/{action}"), 401, "not_authenticated")
        error(cast["other"].post(f"{base}/{action}"), 403, "not_organizer")
        error(cast["entrants"][0].post(f"{base}/{action}"), 403, "not_organizer")
    error(
        cast["anonymous"].post("/api/v1/tournaments", body_for(cast), format="json"),
        401,
        "not_authenticated",
    )
    assert Tournament.objects.get(id=t["id"]).status == "draft" and Match.objects.count() == 0

    accept_all(t["id"])
    started = cast["organizer"].post(f"{base}/start")
    assert started.status_code == 200 and started.json()["status"] == "running"
    assert started.json()["current_round"] == 1
    error(cast["organizer"].post(f"{base}/start"), 409, "tournament_started")
    error(cast["other"].post(f"{base}/cancel"), 403, "not_organizer")
    cancelled = cast["organizer"].post(f"{base}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    error(cast["organizer"].post(f"{base}/cancel"), 409, "tournament_over")
    error(cast["organizer"].post(f"{base}/start"), 409, "tournament_over")


def test_unknown_tournament_is_404_everywhere(cast):
    base = f"/api/v1/tournaments/{uuid.uuid4()}"
    for url in ("", "/standings", "/standings.csv", "/tables"):
        response = cast["anonymous"].get(base + url)
        error(response, 404, "not_found")
        assert response["Content-Type"] == "application/json"
    error(cast["anonymous"].get(f"{base}/standings?format=csv"), 404, "not_found")
    for action in ("start", "cancel"):
        error(cast["organizer"].post(f"{base}/{action}"), 404, "not_found")


def test_start_seats_round_one_and_players_see_their_tables(cast):
    t = create(cast)
    accept_all(t["id"])
    cast["organizer"].post(f"/api/v1/tournaments/{t['id']}/start")
    rnd = Round.objects.get(tournament_id=t["id"], number=1)
    tables = list(Table.objects.filter(round=rnd).select_related("match"))
    assert len(tables) == 2 and rnd.byes == []
    for table in tables:
        assert table.match.status == "active" and table.match.seat_count == 2
        assert table.match.deals_total == 2 and table.match.seat_bots == ["", ""]
    seated = sorted(p for t_ in tables for p in t_.match.seat_players)
    assert seated == sorted(str(p.id) for p in cast["entrant_players"])

    everything = cast["anonymous"].get(f"/api/v1/tournaments/{t['id']}/tables").json()
    assert [len(r["tables"]) for r in everything["rounds"]] == [2]
    me = cast["entrant_players"][0]
    mine = cast["entrants"][0].get(f"/api/v1/tournaments/{t['id']}/tables?mine=true").json()
    assert len(mine["rounds"]) == 1 and len(mine["rounds"][0]["tables"]) == 1
    table = mine["rounds"][0]["tables"][0]
    assert str(me.id) in [s["player"]["id"] for s in table["seats"]]
    assert all(s["entrant"] for s in table["seats"])
    # The match is an ordinary match: the seated player sees their hand there.
    state = cast["entrants"][0].get(f"/api/v1/matches/{table['match']}/state")
    assert state.status_code == 200 and state.json()["you"] in (0, 1)
    assert cast["other"].get(f"/api/v1/tournaments/{t['id']}/tables?mine=true").json() == {
        "tournament": t["id"],
        "rounds": [],
    }


def test_odd_count_without_bots_gives_a_bye(cast, make_player):
    extra, _ = make_player()
    players = [str(p.id) for p in cast["entrant_players"]] + [str(extra.id)]
    t = create(cast, players=players)
    assert t["rounds_total"] == 5
    accept_all(t["id"])
    cast["organizer"].post(f"/api/v1/tournaments/{t['id']}/start")
    rnd = Round.objects.get(tournament_id=t["id"], number=1)
    assert len(rnd.byes) == 1 and rnd.tables.count() == 2
    tables = cast["anonymous"].get(f"/api/v1/tournaments/{t['id']}/tables").json()
    assert [p["id"] for p in tables["rounds"][0]["byes"]] == rnd.byes
    standings = cast["anonymous"].get(f"/api/v1/tournaments/{t['id']}/standings").json()
    by_id = {r["player"]["id"]: r for r in standings["results"]}
    # The round is on: the bye counts (and scores) once it is over.
    assert by_id[rnd.byes[0]]["byes"] == 0 and by_id[rnd.byes[0]]["penalty"] == 0
    assert all(r["rank"] == 1 for r in standings["results"])  # nothing scored yet: all tied


def test_odd_count_with_bots_seats_a_bot_instead(cast, make_player):
    extra, _ = make_player()
    players = [str(p.id) for p in cast["entrant_players"]] + [str(extra.id)]
    bot = bot_player_get_or_create(strategy="greedy", ordinal=1)
    t = create(cast, players=[*players, str(bot.id)], table_size=3, fill_bots="greedy")
    accept_all(t["id"])
    cast["organizer"].post(f"/api/v1/tournaments/{t['id']}/start")
    tables = cast["anonymous"].get(f"/api/v1/tournaments/{t['id']}/tables").json()["rounds"][0]
    assert tables["byes"] == [] and len(tables["tables"]) == 2
    seats = [s for table in tables["tables"] for s in table["seats"]]
    assert len(seats) == 6
    fillers = [s for s in seats if not s["entrant"]]
    assert len(fillers) == 0  # 6 entrants fill two tables of 3
    t2 = create(cast, players=players, table_size=3, fill_bots="greedy")
    accept_all(t2["id"])
    cast["organizer"].post(f"/api/v1/tournaments/{t2['id']}/start")
    round1 = cast["anonymous"].get(f"/api/v1/tournaments/{t2['id']}/tables").json()["rounds"][0]
    fillers = [s for table in round1["tables"] for s in table["seats"] if not s["entrant"]]
    assert len(fillers) == 1 and fillers[0]["player"]["is_bot"]
    assert fillers[0]["player"]["id"] not in players


def test_list_is_public_paginated_and_filtered(cast):
    ids = [create(cast, name=f"cup {i}")["id"] for i in range(3)]
    accept_all(ids[0])
    cast["organizer"].post(f"/api/v1/tournaments/{ids[0]}/start")
    page = cast["anonymous"].get("/api/v1/tournaments?limit=2").json()
    assert [t["id"] for t in page["results"]] == ids[::-1][:2] and page["next"]
    rest = cast["anonymous"].get(page["next"]).json()
    assert [t["id"] for t in rest["results"]] == [ids[0]]
    running = cast["anonymous"].get("/api/v1/tournaments?status=running").json()
    assert [t["id"] for t in running["results"]] == [ids[0]]
    error(cast["anonymous"].get("/api/v1/tournaments?status=paused"), 400, "invalid")
    error(cast["anonymous"].get("/api/v1/tournaments?cursor=zzz"), 400, "invalid")


def test_options_on_the_csv_routes_answers_json(cast):
    t = create(cast)
    for url in ("/standings.csv", "/standings?format=csv"):
        response = cast["anonymous"].options(f"/api/v1/tournaments/{t['id']}{url}")
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
        assert response.json()["name"]


def test_a_format_the_csv_route_does_not_name_is_404_in_json(cast):
    t = create(cast)
    base = f"/api/v1/tournaments/{t['id']}/standings.csv"
    for given in ("", "?format=csv", "?format=json"):
        response = cast["anonymous"].get(f"{base}{given}")
        assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    refused = cast["anonymous"].get(f"{base}?format=xml")
    assert refused.status_code == 404 and refused["Content-Type"] == "application/json"
    assert refused.json()["code"] == "not_found"
