"""Every 4xx/5xx is the JSON error body of docs/api.md; the move endpoint's SQL budget is pinned."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client

from tests import leakscan
from tests.helpers import create_match, post_move, state

pytestmark = pytest.mark.django_db


def assert_error(response, status, code):
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["code"] == code and isinstance(body["message"], str) and body["message"]
    assert set(body) <= {"code", "message", "detail"}
    return body


def test_unknown_route_is_json_404(api):
    assert_error(api.get("/api/v1/nothing-here"), 404, "not_found")
    assert_error(api.get("/nothing/at/all"), 404, "not_found")
    assert_error(api.get("/api/v1/matches/not-a-uuid"), 404, "not_found")


def test_what_is_no_id_is_told_as_the_object_it_names_not_found(api):
    """`/tournaments/xyz` says what an unknown tournament id says; another unknown route, and an
    unknown route under a well-formed id, keep the general message."""
    unknown = "00000000-0000-0000-0000-000000000000"
    for kind, name in (("matches", "match"), ("tournaments", "tournament"), ("players", "player")):
        body = assert_error(api.get(f"/api/v1/{kind}/xyz/state"), 404, "not_found")
        assert body["message"] == f"No such {name}."
        assert api.get(f"/api/v1/{kind}/{unknown}").json()["message"] == f"No such {name}."
        general = api.get(f"/api/v1/{kind}/{unknown}/nothing-here").json()["message"]
        assert general == "No such object."
    turkish = api.get("/api/v1/tournaments/xyz", HTTP_ACCEPT_LANGUAGE="tr").json()["message"]
    assert turkish != "No such tournament." and turkish
    assert api.get("/api/v1/players/me/xyz").json()["message"] == "No such object."


def test_wrong_method_is_json_405(api, make_player, client_for):
    _, token = make_player()
    assert_error(client_for(token).delete("/api/v1/matches"), 405, "method_not_allowed")
    assert_error(api.put("/api/v1/bots", {}, format="json"), 405, "method_not_allowed")


@pytest.mark.parametrize("body", [[1, 2], "text", 7])
def test_a_body_that_is_not_an_object_is_400_saying_so_without_a_field_name(api, body):
    response = api.post("/api/v1/auth/register", body, format="json")
    assert_error(response, 400, "invalid")
    message = response.json()["message"]
    assert message == "The body must be a JSON object.", message
    assert "non_field_errors" in response.json()["detail"]  # DRF's key stays in `detail`


@pytest.mark.parametrize("body", [[1, 2], "text", 7])
def test_a_move_whose_body_is_not_an_object_is_filed_as_every_route_files_it(
    make_player, client_for, body
):
    _, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=2, bots=["random"])
    response = client.post(f"/api/v1/matches/{match['id']}/moves", body, format="json")
    assert_error(response, 400, "invalid")
    assert list(response.json()["detail"]) == ["non_field_errors"], response.json()


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        (b"{bad", "(line 1, column 2)"),
        (b'{"a": 1,\n "b": [1e999]}', "(line 2, column 8)"),
        (b"[" * 2000, "(line 1, column 1026)"),
        (b'{"username": "\xff"}', "(line 1, column"),
    ],
)
def test_a_body_that_is_not_json_is_400_naming_body_and_where_in_the_callers_language(
    api, raw, where
):
    response = api.generic("POST", "/api/v1/auth/register", raw, "application/json")
    assert_error(response, 400, "invalid")
    body = response.json()
    assert body["message"].startswith("The body is not JSON ") and where in body["message"]
    assert body["detail"] == {"body": [body["message"]]}
    turkish = api.generic(
        "POST", "/api/v1/auth/register", raw, "application/json", HTTP_ACCEPT_LANGUAGE="tr"
    )
    assert turkish.json()["message"].startswith("Gövde JSON değil (satır ")


@pytest.mark.parametrize(
    ("move", "field", "shown"),
    [
        ({"action": None}, "action", "not null"),
        ({"action": ["play"]}, "action", 'not ["play"]'),
        ({"action": "play", "card": {"a": 1}}, "card", 'not {"a": 1}'),
        ({"action": "play", "card": "Z" * 10_000}, "card", "'" + "Z" * 38 + "…"),
        ({"action": "play", "card": "7C", "suit": True}, "suit", "not true"),
    ],
)
def test_a_move_that_is_not_one_shows_what_was_sent_as_json_and_short(
    make_player, client_for, move, field, shown
):
    _, key = make_player()
    match = create_match(client_for(key), bots=["random"])
    response = post_move(client_for(key), match["id"], move, match["version"])
    assert_error(response, 400, "invalid_move")
    body = response.json()
    assert shown in body["message"] and field in body["detail"], body
    assert "None" not in body["message"] and "True" not in body["message"]
    assert len(response.content) < 600
    rules = client_for(key).post(
        "/api/v1/matches", {"seats": 2, "rules": {"hand_size": None}}, format="json"
    )
    assert rules.status_code == 400 and "not null" in rules.json()["message"]


def test_an_id_in_capitals_names_the_same_object(make_player, client_for, api):
    player, key = make_player()
    match = create_match(client_for(key), bots=["random"])
    upper = match["id"].upper()
    assert api.get(f"/api/v1/matches/{upper}").json()["id"] == match["id"]
    assert state(client_for(key), upper)["version"] == match["version"]
    assert api.get(f"/api/v1/players/{str(player.id).upper()}").json()["id"] == str(player.id)
    moved = post_move(client_for(key), upper, {"action": "draw"}, match["version"])
    assert moved.status_code in (200, 409, 422), moved.content  # read as the match's move
    assert moved.json().get("code") not in ("not_found",)
    # Not an id at all: still 404.
    assert_error(api.get(f"/api/v1/matches/{upper.replace('-', '')}"), 404, "not_found")


def test_unhandled_exception_is_json_500(settings):
    settings.ROOT_URLCONF = "tests.urls_with_failure"
    client = Client(raise_request_exception=False)
    response = client.get("/api/v1/test-failure")
    assert_error(response, 500, "server_error")
    assert b"Traceback" not in response.content and b"<html" not in response.content.lower()


@pytest.mark.parametrize("host", ["evil.example", "x" * 5000, "a\nb.example"])
def test_a_host_not_served_is_json_400_and_one_short_log_line(host):
    """As the settings' console handler writes it: a line, not the traceback of the check (a
    scanner sends one such request after another)."""
    import io
    import logging

    out = io.StringIO()
    handler = logging.StreamHandler(out)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        response = Client(raise_request_exception=False).get("/api/v1/bots", HTTP_HOST=host)
    finally:
        root.removeHandler(handler)
    assert_error(response, 400, "invalid")
    assert "Host" in response.json()["message"]
    logged = out.getvalue()
    assert logged.count("\n") == 1 and len(logged) <= 201, logged
    assert logged.startswith("Invalid HTTP_HOST header") and "Traceback" not in logged


def test_not_acceptable_is_json(api):
    assert_error(api.get("/api/v1/bots", HTTP_ACCEPT="text/html"), 406, "not_acceptable")


@pytest.mark.parametrize(
    "accept", [None, "", "*/*", "application/json", "application/json; indent=2", "text/*, */*"]
)
def test_json_is_served_to_clients_that_accept_it(api, accept):
    """pisyedili_api.negotiation answers the common Accept headers without DRF's parsing; every
    header that admits JSON still gets JSON, as DRF itself would serve."""
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    response = api.get("/api/v1/bots", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("application/json")
    assert isinstance(response.json(), list)


def test_format_override_still_goes_through_drf(api):
    assert api.get("/api/v1/bots?format=json").status_code == 200
    assert_error(api.get("/api/v1/bots?format=yaml"), 404, "not_found")
    assert_error(api.get("/api/v1/bots?format=yaml", HTTP_ACCEPT="*/*"), 404, "not_found")
    # The streams are no DRF views: they refuse a format as every route does.
    assert_error(api.get("/api/v1/lobby/events?format=xml"), 404, "not_found")


def test_move_endpoint_makes_at_most_8_queries(
    make_player, client_for, django_assert_max_num_queries
):
    _, ta = make_player()
    _, tb = make_player()
    ca, cb = client_for(ta), client_for(tb)
    match = create_match(ca)
    cb.post(f"/api/v1/matches/{match['id']}/join")
    view = state(ca, match["id"])
    leakscan.DEFER = True
    try:
        with django_assert_max_num_queries(8) as captured:
            response = post_move(
                ca, match["id"], view["legal_moves"][0], view["version"], HTTP_IDEMPOTENCY_KEY="q-1"
            )
        assert response.status_code == 200
        statements = [q["sql"] for q in captured.captured_queries]
        locked = any("FOR UPDATE" in s for s in statements)
        if connection.vendor == "postgresql":
            # The match is read without a lock, and written in one statement guarded by the
            # version read, the keyed move's idempotency record riding in it: two round trips,
            # no BEGIN nor COMMIT.
            assert not locked, statements
            # (The savepoint is the test's: its transaction holds the request's.)
            read, write = [s for s in statements if not s.startswith(("SAVEPOINT", "RELEASE"))]
            assert read.startswith("SELECT") and 'FROM "games_match"' in read
            assert '"games_move"' in write and '"games_idempotencyrecord"' in write
            assert write.startswith('WITH updated AS (UPDATE "games_match"')
            assert f'AND "version" = {view["version"]} RETURNING 1' in write
        else:
            assert locked == connection.features.has_select_for_update
        on_turn = (ca, cb)[response.json()["turn"]]
        view = state(on_turn, match["id"])
        with django_assert_max_num_queries(8):
            response = post_move(on_turn, match["id"], view["legal_moves"][-1], view["version"])
        assert response.status_code == 200
    finally:
        leakscan.DEFER = False
        leakscan.scan_deferred()


def test_leak_scanner_reports_a_hidden_card_and_a_live_seed(make_player, client_for):
    """The scanner itself can fail: feed it bodies that leak."""
    from games.models import Deal, Match

    player, ta = make_player()
    _, tb = make_player()
    match = create_match(client_for(ta))
    client_for(tb).post(f"/api/v1/matches/{match['id']}/join")
    m = Match.objects.get(id=match["id"])
    other_card = m.state["hands"][1][0]
    stock_card = m.state["stock"][0]
    path = f"/api/v1/matches/{m.id}/state"
    body = {"deal": 1, "hand": [other_card, stock_card]}
    found = leakscan.scan_body(path, body, str(body), str(player.id))
    assert len(found) == 2
    seed = bytes(Deal.objects.get(match=m, number=1).seed).hex()
    assert leakscan.scan_body("/api/v1/bots", {"x": seed}, seed, None)
    own = {"deal": 1, "hand": m.state["hands"][0]}
    assert leakscan.scan_body(path, own, str(own), str(player.id)) == []


def _nested(levels: int) -> str:
    """JSON text of `levels` lists, one in another, around a 7."""
    return "[" * levels + "7" + "]" * levels


# Where a nested value went in: a public route, a route with a token, and every kind of
# field of POST /matches (a number, a list of names, a rule option in an object).
NESTED_BODIES = [
    ("/api/v1/auth/token", '{"username": %s, "password": "x"}'),
    ("/api/v1/auth/stream-ticket", '{"path": %s}'),
    ("/api/v1/matches", '{"seats": %s}'),
    ("/api/v1/matches", '{"seats": 2, "bots": %s}'),
    ("/api/v1/matches", '{"seats": 2, "private": true, "invite": %s}'),
    ("/api/v1/matches", '{"seats": 2, "rules": {"hand_size": %s}}'),
    ("/api/v1/queue", '{"seats": 2, "wait_seconds": 5, "preset": %s}'),
    ("/api/v1/tournaments", '{"name": %s, "format": "swiss", "table_size": 2}'),
    ("/api/v1/players/me", '{"display_name": %s}'),
    ("moves", '{"action": %s, "version": 1}'),
]


def _snapshot():
    from games.models import Match, Move, QueueEntry
    from players.models import ApiToken, Player
    from tournaments.models import Tournament

    return (
        Match.objects.count(),
        Move.objects.count(),
        QueueEntry.objects.count(),
        Tournament.objects.count(),
        ApiToken.objects.count(),
        sorted(Player.objects.values_list("display_name", flat=True)),
    )


def _post_raw(client, route, template, levels, match_id, **headers):
    path = f"/api/v1/matches/{match_id}/moves" if route == "moves" else route
    method = "PATCH" if route.endswith("/me") else "POST"
    raw = (template % _nested(levels)).encode()
    return client.generic(method, path, raw, "application/json", **headers)


@pytest.mark.parametrize(("route", "template"), NESTED_BODIES)
def test_a_body_nested_deeper_than_32_levels_is_400_naming_body_and_changes_nothing(
    make_player, client_for, route, template
):
    """orjson parses 1,024 levels, and Python code that walks a value (DRF takes str() of a
    text field's value; a message shows a value as JSON) recurses past Python's limit at about
    1,000: a 500. The parser refuses any body nested past 32 levels, as it refuses what is
    not JSON."""
    _, token = make_player()
    client = client_for(token)
    match = create_match(client, bots=["random"])
    before = _snapshot()
    for levels in (32, 950, 1020):  # the object is a level: 33 levels and more in all
        response = _post_raw(client, route, template, levels, match["id"])
        body = assert_error(response, 400, "invalid")
        said = "The body may nest objects and lists at most 32 levels deep."
        assert body == {"code": "invalid", "message": said, "detail": {"body": [said]}}, body
    turkish = _post_raw(client, route, template, 950, match["id"], HTTP_ACCEPT_LANGUAGE="tr")
    said = "Gövdede nesneler ve listeler en fazla 32 düzey iç içe olabilir."
    assert assert_error(turkish, 400, "invalid")["detail"] == {"body": [said]}
    assert _snapshot() == before


@pytest.mark.parametrize(("route", "template"), NESTED_BODIES)
def test_a_body_nested_32_levels_deep_is_refused_by_its_field(
    make_player, client_for, route, template
):
    """At the parser's limit, nothing that reads the value recurses too deep: the field that
    holds it refuses it (a 400 naming it), never a 500."""
    _, token = make_player()
    client = client_for(token)
    match = create_match(client, bots=["random"])
    before = _snapshot()
    levels = 31 - template.count("{") + 1  # the object(s) around the value are levels too
    response = _post_raw(client, route, template, levels, match["id"])
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] in ("invalid", "invalid_move"), body
    assert "body" not in body.get("detail", {}), body
    assert len(response.content) < 1000
    assert _snapshot() == before


@pytest.mark.parametrize(
    ("method", "route", "field", "value"),
    [
        pytest.param("POST", "/api/v1/queue", "preset", "x" * 60_000, id="queue-preset"),
        pytest.param("POST", "/api/v1/queue", "preset", ["x" * 100] * 100, id="queue-preset-list"),
        pytest.param("POST", "/api/v1/matches", "spectators", "y" * 60_000, id="spectators"),
        pytest.param("POST", "/api/v1/matches/{match_id}/talk", "phrase", "z" * 60_000, id="talk"),
        pytest.param("GET", "/api/v1/matches", "status", "w" * 5_000, id="matches-status"),
        pytest.param("GET", "/api/v1/tournaments", "status", "v" * 5_000, id="tournaments-status"),
        pytest.param("GET", "/api/v1/leaderboard", "metric", "u" * 5_000, id="leaderboard-metric"),
    ],
)
def test_a_choice_not_offered_is_shown_cut_as_the_engine_cuts_a_value(
    make_player, client_for, method, route, field, value
):
    """DRF's `"{input}" is not a valid choice.` would send the value back whole, in `message`
    and in `detail`: it shows at most 40 characters of it, as a move's refusal does."""
    from games.models import Match, QueueEntry

    _, token = make_player()
    client = client_for(token)
    match = create_match(client, bots=["random"])
    before = (Match.objects.count(), QueueEntry.objects.count(), state(client, match["id"]))
    path = route.format(match_id=match["id"])
    base = {"/api/v1/queue": {"seats": 2, "wait_seconds": 5}, "/api/v1/matches": {"seats": 2}}
    for language, said in (("en", "is not a valid choice."), ("tr", "geçerli bir seçim değil.")):
        if method == "GET":
            response = client.get(path, {field: value}, HTTP_ACCEPT_LANGUAGE=language)
        else:
            body = {**base.get(route, {}), field: value}
            response = client.post(path, body, format="json", HTTP_ACCEPT_LANGUAGE=language)
        body = assert_error(response, 400, "invalid")
        shown = (value if isinstance(value, str) else '["' + "x" * 100)[:39] + "…"
        assert body["detail"] == {field: [f'"{shown}" {said}']}, body
        assert body["message"] == f'{field}: "{shown}" {said}'
        assert len(response.content) < 400
    assert (Match.objects.count(), QueueEntry.objects.count(), state(client, match["id"])) == before
