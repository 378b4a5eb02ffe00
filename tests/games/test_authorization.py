"""Every per-match route × {seated player, other player, anonymous} × {a match open to
spectators, one that is not, a private one}: nothing beyond docs/api.md."""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from games.models import Move
from tests.helpers import client_with, create_match, state

pytestmark = pytest.mark.django_db

# (method, route suffix) -> expected status for seated / other / anonymous, on a match with
# `spectators: public` (the default): whoever is not seated sees the public view.
MATRIX = {
    ("GET", ""): (200, 200, 200),  # public
    ("POST", "/join"): (200, 409, 401),  # seated: already in; other: the 2-seat match is full
    ("GET", "/state"): (200, 200, 200),  # others: the public view
    ("GET", "/moves"): (200, 200, 200),  # others: no drawn card of the deal in progress
    ("POST", "/moves"): (200, 403, 401),
    ("GET", "/deals/1"): (200, 200, 200),  # the seed is absent until the deal is over
    ("GET", "/deals/1/replay"): (409, 409, 409),  # deal 1 is in progress
    ("GET", "/events"): (200, 200, 200),  # the event stream (live.streams)
    # The lobby and the rematch, on this started match: not waiting, not finished.
    ("POST", "/leave"): (409, 403, 401),
    ("POST", "/cancel"): (409, 403, 401),
    ("POST", "/rematch"): (409, 403, 401),
    # Resign: the seat gives the match up (a person is left: it goes on).
    ("POST", "/resign"): (200, 403, 401),
    # Table talk: a seat says a preset phrase (sent as {"phrase": "oops"}).
    ("POST", "/talk"): (200, 403, 401),
    # Deal 1 is being played: 409 for the seat; a seat's only until the match is finished.
    ("GET", "/deals/1/analysis"): (409, 403, 401),
    # Private tables' routes on this public match (sent as {"invite": ["x"]}): a public match
    # invites nobody (400), nobody has an invitation to answer.
    ("POST", "/invite"): (400, 403, 401),
    ("POST", "/invitations/accept"): (403, 403, 401),
    ("POST", "/invitations/decline"): (403, 403, 401),
}
# Where a match with `spectators: none` answers otherwise: nobody but its seats sees it.
PRIVATE = {
    ("GET", "/state"): (200, 403, 403),
    ("GET", "/moves"): (200, 403, 403),
    ("GET", "/deals/1"): (200, 403, 403),
    ("GET", "/deals/1/replay"): (409, 403, 403),
    ("GET", "/events"): (200, 403, 403),
}
CODES = {401: "not_authenticated", 403: "not_seated", 409: "match_full", 404: "not_found"}
# Routes whose refusals have codes of their own: (method, suffix) -> {status: code}.
ROUTE_CODES = {
    ("POST", "/leave"): {409: "match_not_waiting"},
    ("POST", "/cancel"): {403: "not_creator", 409: "match_not_waiting"},
    ("POST", "/rematch"): {409: "match_not_finished"},
    ("POST", "/invite"): {400: "invalid", 403: "not_creator"},
    ("POST", "/invitations/accept"): {403: "not_invited"},
    ("POST", "/invitations/decline"): {403: "not_invited"},
    ("GET", "/deals/1/replay"): {409: "deal_not_over"},
    ("GET", "/deals/1/analysis"): {409: "deal_not_over"},
}
PRIVATE_CODES = {403: "spectators_not_allowed"}


def per_match_routes() -> set[str]:
    """Route suffixes under matches/<id:match_id> found by walking the URL resolver."""
    found: set[str] = set()

    def walk(patterns, prefix):
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                route = prefix + str(p.pattern)
                if "<id:match_id>" in route:
                    found.add(route.split("<id:match_id>", 1)[1].replace("<int:number>", "1"))

    walk(get_resolver().url_patterns, "")
    return found


def test_matrix_covers_every_per_match_route():
    assert per_match_routes() == {suffix for _, suffix in MATRIX}


# A private match (`private: true`, its second seat invited and accepted): to anyone else it
# is 404 on every route, as a match that does not exist (401 first where a token is needed);
# its creator's answers as on a `spectators: none` match, but these.
PRIVATE_TABLE_SEATED = {
    ("POST", "/invite"): (409, "match_not_waiting"),
}


@pytest.fixture(scope="module")
def _tables_once(module_rows):
    """The three kinds of table, made once for the module (conftest.module_rows): each test
    runs in a savepoint of it, so what one test changes is undone for the next. Per kind: the
    match's id and the tokens of its creator, its second seat and an outsider."""
    from players.services import player_register

    tables = {}
    for kind in ("public", "none", "private"):
        (_, ta), (second_player, tb), (_, tc) = (
            player_register(username=f"auth-{kind}-{who}", password="s3cret-pass")
            for who in ("seated", "second", "other")
        )
        seated, second = client_with(ta), client_with(tb)
        if kind == "private":
            match = create_match(seated, private=True, invite=[second_player.username])
            second.post(f"/api/v1/matches/{match['id']}/invitations/accept")
        else:
            match = create_match(seated, spectators=kind)
            second.post(f"/api/v1/matches/{match['id']}/join")
        tables[kind] = (match["id"], ta, tc)
    return tables


@pytest.fixture(params=["public", "none", "private"])
def table(request, _tables_once, db, api):
    match_id, seated_token, other_token = _tables_once[request.param]
    return {
        "id": match_id,
        "seated": client_with(seated_token),
        "other": client_with(other_token),
        "anonymous": api,
        "spectators": "none" if request.param == "private" else request.param,
        "private": request.param == "private",
    }


def expected_answer(table, method, suffix, who) -> tuple[int, str | None]:
    """The status and (for a refusal) the code of `who` calling the route on `table`."""
    if table["private"] and who != "seated":
        if who == "anonymous" and MATRIX[(method, suffix)][2] == 401:
            return 401, "not_authenticated"
        return 404, "not_found"
    if table["private"] and (method, suffix) in PRIVATE_TABLE_SEATED:
        return PRIVATE_TABLE_SEATED[(method, suffix)]
    private = table["spectators"] == "none"
    statuses = PRIVATE.get((method, suffix)) if private else None
    status = (statuses or MATRIX[(method, suffix)])[["seated", "other", "anonymous"].index(who)]
    code = {**CODES, **ROUTE_CODES.get((method, suffix), {})}.get(status)
    if private and (method, suffix) in PRIVATE:
        code = PRIVATE_CODES.get(status, code)
    return status, code


def call(client, method, url, version):
    if method == "GET":
        return client.get(url)
    body = {"action": "draw", "version": version} if url.endswith("/moves") else {}
    if url.endswith("/talk"):
        body = {"phrase": "oops"}
    if url.endswith("/invite"):
        body = {"invite": ["x"]}
    return client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="same-key")


@pytest.mark.parametrize(("method", "suffix"), sorted(MATRIX))
@pytest.mark.parametrize("who", ["seated", "other", "anonymous"])
def test_route_by_caller(table, method, suffix, who):
    expected, code = expected_answer(table, method, suffix, who)
    view = state(table["seated"], table["id"])
    if (
        method == "POST"
        and suffix == "/moves"
        and who == "seated"
        and {"action": "draw"} not in view["legal_moves"]
    ):
        # an opener holding a club may not draw; play the first legal move instead.
        body = {**view["legal_moves"][0], "version": view["version"]}
        response = table["seated"].post(f"/api/v1/matches/{table['id']}/moves", body, format="json")
    else:
        response = call(
            table[who], method, f"/api/v1/matches/{table['id']}{suffix}", view["version"]
        )
    assert response.status_code == expected, response.content
    if suffix == "/state" and who != "seated" and expected == 200:
        public = response.json()  # the public view: no seat, no hand, no legal move
        assert public["you"] is None and public["hand"] == [] and public["legal_moves"] == []
        assert public["hand_counts"] == view["hand_counts"]
    if expected >= 400:
        assert response.json()["code"] == code
        # A refused request changes nothing.
        assert state(table["seated"], table["id"]) == view
        assert not Move.objects.filter(match_id=table["id"]).exists()


@pytest.mark.parametrize(("method", "suffix"), sorted(MATRIX))
@pytest.mark.parametrize("who", ["other", "anonymous"])
def test_unknown_match_answers_like_a_hidden_one(table, method, suffix, who):
    url = f"/api/v1/matches/00000000-0000-0000-0000-000000000000{suffix}"
    response = call(table[who], method, url, 1)
    public = MATRIX[(method, suffix)][2] != 401
    if who == "anonymous" and not public:
        assert response.status_code == 401
    else:
        assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_other_player_cannot_replay_a_seated_players_idempotency_key(table):
    view = state(table["seated"], table["id"])
    move = {**view["legal_moves"][0], "version": view["version"]}
    url = f"/api/v1/matches/{table['id']}/moves"
    first = table["seated"].post(url, move, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert first.status_code == 200
    stolen = table["other"].post(url, move, format="json", HTTP_IDEMPOTENCY_KEY="k")
    # Another player has no seat; a private table's outsider is told there is no match.
    assert stolen.status_code == (404 if table["private"] else 403), stolen.content
    assert "hand" not in stolen.json()


# The move POST checks its token in the statement that locks the match (no lookup of its own):
# it must refuse exactly what every other route refuses, in the same order (401 before 400/404).
BAD_CREDENTIALS = {
    "unknown token": "Token 0123456789abcdef0123456789abcdef01234567",
    "malformed header": "Token two words",
    "other scheme": "Bearer abc",
}


@pytest.mark.parametrize("header", sorted(BAD_CREDENTIALS))
@pytest.mark.parametrize(
    "body",
    [{"action": "draw"}, {"action": "fly"}, "not json"],
    ids=["valid", "bad_move", "bad_json"],
)
def test_move_post_refuses_bad_credentials_first(table, api, header, body):
    view = state(table["seated"], table["id"])
    api.credentials(HTTP_AUTHORIZATION=BAD_CREDENTIALS[header])
    url = f"/api/v1/matches/{table['id']}/moves"
    if isinstance(body, dict):
        response = api.post(url, {**body, "version": view["version"]}, format="json")
    else:
        response = api.post(url, body, content_type="application/json")
    assert response.status_code == 401, response.content
    assert response.json()["code"] == "not_authenticated"
    assert response["WWW-Authenticate"].startswith("Token")
    assert state(table["seated"], table["id"]) == view
    assert not Move.objects.filter(match_id=table["id"]).exists()


def test_move_post_refuses_an_inactive_players_token(make_player, client_for):
    player, token = make_player()
    client = client_for(token)
    match = create_match(client, bots=["random"])
    view = state(client, match["id"])
    player.user.is_active = False
    player.user.save()
    body = {**view["legal_moves"][0], "version": view["version"]}
    response = client.post(f"/api/v1/matches/{match['id']}/moves", body, format="json")
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"
    assert not Move.objects.filter(match_id=match["id"]).exists()


def test_move_post_with_a_valid_token_on_an_unknown_match_is_404(table):
    url = "/api/v1/matches/00000000-0000-0000-0000-000000000000/moves"
    response = table["other"].post(url, {"action": "draw", "version": 1}, format="json")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    bad = table["anonymous"]
    bad.credentials(HTTP_AUTHORIZATION=BAD_CREDENTIALS["unknown token"])
    response = bad.post(url, {"action": "draw", "version": 1}, format="json")
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"
