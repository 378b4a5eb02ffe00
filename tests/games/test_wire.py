"""Bytes on the wire (docs/api.md "Conventions"), through the whole middleware stack on
PostgreSQL: answers over COMPRESS_MIN_BYTES come brotli- or gzip-compressed as Accept-Encoding
asks; GET answers that may be stored carry an ETag of their body and answer 304 to it; the
per-seat answers get none, and API answers vary on the caller's token."""

from __future__ import annotations

import gzip

import brotli
import pytest
from django.conf import settings
from django.test import Client

from pisyedili_api.compression import accepted_encoding
from tests.helpers import create_match, play_to_the_end

# Bots and scoring run on commit: in place, inside the test's transaction.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("commits_in_place")]


def vary(response) -> set[str]:
    return {v.strip().lower() for v in response.get("Vary", "").split(",") if v.strip()}


@pytest.fixture
def finished(make_player, client_for):
    """A finished one-deal match against a greedy bot, and its seat's client."""
    _, token = make_player()
    seat = client_for(token)
    match = create_match(seat, bots=["greedy"], deals=1)
    assert play_to_the_end(seat, match["id"])["status"] == "finished"
    return match["id"], seat


def public_reads(match_id: str) -> list[str]:
    return [
        "/api/v1/rules",
        "/api/v1/bots",
        f"/api/v1/matches/{match_id}",
        f"/api/v1/matches/{match_id}/deals/1",
        f"/api/v1/matches/{match_id}/deals/1/replay",
        "/api/v1/leaderboard",
        "/api/v1/leaderboard?metric=wins&limit=1",
        "/api/v1/leaderboards",
    ]


def test_public_reads_answer_304_to_their_etag(finished):
    match_id, _ = finished
    client = Client()
    for path in public_reads(match_id):
        first = client.get(path)
        assert first.status_code == 200, (path, first.content)
        etag = first["ETag"]
        assert etag.startswith('"') and len(etag) > 10, (path, etag)
        again = client.get(path, HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 304, path
        assert again.content == b"" and again["ETag"] == etag
        assert {"accept", "authorization"} <= vary(again), path
        other = client.get(path, HTTP_IF_NONE_MATCH='"not-this-body"')
        assert other.status_code == 200 and other.content == first.content


def test_a_compressed_answers_weak_etag_still_answers_304(finished):
    match_id, _ = finished
    client = Client()
    path = f"/api/v1/matches/{match_id}/deals/1/replay"
    for encoding in ("gzip", "br"):
        first = client.get(path, HTTP_ACCEPT_ENCODING=encoding)
        assert first["Content-Encoding"] == encoding
        assert first["ETag"].startswith('W/"')
        again = client.get(path, HTTP_ACCEPT_ENCODING=encoding, HTTP_IF_NONE_MATCH=first["ETag"])
        assert again.status_code == 304 and again.content == b""
        # The 304 repeats the 200's validators: its ETag as sent, its Vary with the encoding.
        assert again["ETag"] == first["ETag"]
        assert vary(again) == vary(first) and "accept-encoding" in vary(again)
    # Not compressed for a client that accepts no encoding: a strong ETag, still varying on it.
    plain = client.get(path)
    assert plain["ETag"].startswith('"') and "accept-encoding" in vary(plain)
    again = client.get(path, HTTP_IF_NONE_MATCH=plain["ETag"])
    assert again.status_code == 304 and again["ETag"] == plain["ETag"]
    assert vary(again) == vary(plain)


def test_a_changed_body_gets_a_new_etag(finished):
    match_id, seat = finished
    path = f"/api/v1/matches/{match_id}"
    before = Client().get(path)["ETag"]
    assert seat.post(f"/api/v1/matches/{match_id}/rematch", format="json").status_code == 201
    after = Client().get(path, HTTP_IF_NONE_MATCH=before)
    assert after.status_code == 200 and after.json()["next_match"] is not None
    assert after["ETag"] != before


def test_per_seat_answers_get_no_etag_and_never_304(make_player, client_for):
    """Two seats of one match each see their own hand: no ETag, no 304, whatever is sent."""
    (_, one), (_, two) = make_player(), make_player()
    a, b = client_for(one), client_for(two)
    match = create_match(a)
    assert b.post(f"/api/v1/matches/{match['id']}/join", format="json").status_code == 200
    views = {}
    for client in (a, b):
        for path in ("state", "moves"):
            response = client.get(f"/api/v1/matches/{match['id']}/{path}")
            assert response.status_code == 200
            assert "ETag" not in response
            assert "no-store" in response["Cache-Control"]
            assert "private" in response["Cache-Control"]
            views[client, path] = response
    assert views[a, "state"].json()["hand"] != views[b, "state"].json()["hand"]
    # The hash of one seat's view, sent by the other seat: still a whole 200 of its own view.
    import hashlib

    stolen = '"' + hashlib.md5(views[a, "state"].content).hexdigest() + '"'
    for etag in (stolen, "*"):
        response = b.get(f"/api/v1/matches/{match['id']}/state", HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 200
        assert response.json()["hand"] == views[b, "state"].json()["hand"]


def test_an_error_gets_no_etag(api):
    for path in ("/api/v1/matches/00000000-0000-4000-8000-000000000000", "/api/v1/players/me"):
        response = api.get(path)
        assert response.status_code in (401, 404) and "ETag" not in response
    refused = api.get("/api/v1/leaderboard?period=never")
    assert refused.status_code == 400 and "ETag" not in refused
    assert "ETag" in api.get("/api/v1/bots")  # a success keeps its own


def test_an_etag_is_the_bodys_own_so_callers_who_see_different_bodies_never_share_one(
    make_player, client_for
):
    """Two players' public profiles, and the lobby as an outsider and as a private match's
    creator sees it (with the join code: theirs alone, no-store and no ETag)."""
    (one, key), (two, _) = make_player(), make_player()
    first = Client().get(f"/api/v1/players/{one.id}")
    second = Client().get(f"/api/v1/players/{two.id}")
    assert first["ETag"] != second["ETag"]
    assert "authorization" in vary(first)
    create_match(client_for(key), seats=2, private=True)
    public = Client().get("/api/v1/matches?status=waiting")
    assert public.json()["results"] == [] and "ETag" in public
    own = client_for(key).get("/api/v1/matches?status=waiting", HTTP_IF_NONE_MATCH=public["ETag"])
    assert own.status_code == 200 and own.json()["results"][0]["join_code"]
    assert "ETag" not in own and "no-store" in own["Cache-Control"]


def personal_reads(tournament_id: str, match_id: str) -> list[str]:
    """The GET answers that are the caller's alone (docs/api.md "Conventions", ETags)."""
    return [
        "/api/v1/players/me",
        "/api/v1/auth/tokens",
        "/api/v1/me/push-subscriptions",
        "/api/v1/me/webhooks",
        "/api/v1/queue",  # 204: not waiting
        "/api/v1/matches?invited=true",
        "/api/v1/tournaments?invited=true",
        f"/api/v1/tournaments/{tournament_id}/tables?mine=true",
        "/api/v1/leaderboard?around=me",
        f"/api/v1/matches/{match_id}",  # a private match, to its creator (its join code)
        "/api/v1/matches",  # the same, in the caller's list
    ]


def test_the_caller_s_own_answers_are_never_stored_and_get_no_etag(make_player, client_for):
    """A shared computer's browser keeps none of them on disk for the next person once its
    player signs out; the public reads of the same things keep their ETags."""
    (ana, ana_key), (bob, bob_key) = make_player(), make_player()
    ana_client, bob_client = client_for(ana_key), client_for(bob_key)
    private = create_match(bob_client, seats=2, private=True, invite=[ana.username])
    entered = {
        "name": "Spring open",
        "players": [str(ana.id), str(bob.id)],
        "format": "round_robin",
        "table_size": 2,
    }
    tournament = bob_client.post("/api/v1/tournaments", entered, format="json")
    assert tournament.status_code == 201, tournament.content
    paths = personal_reads(tournament.json()["id"], private["id"])
    for path in paths:
        response = bob_client.get(path)
        assert response.status_code in (200, 204), (path, response.content)
        assert "ETag" not in response, path
        assert {"no-store", "private"} <= {
            part.strip() for part in response["Cache-Control"].split(",")
        }, path
        again = bob_client.get(path, HTTP_IF_NONE_MATCH="*")
        assert again.status_code == response.status_code, path
    invited = ana_client.get("/api/v1/matches?invited=true")
    assert [m["id"] for m in invited.json()["results"]] == [private["id"]]
    assert "no-store" in invited["Cache-Control"] and "ETag" not in invited
    # The same match to an invitee (no join code), and the public reads: stored, with an ETag.
    public = [
        f"/api/v1/players/{bob.id}",
        f"/api/v1/tournaments/{tournament.json()['id']}/tables",
        "/api/v1/tournaments",
        "/api/v1/leaderboard",
    ]
    for client, path in [(ana_client, f"/api/v1/matches/{private['id']}")] + [
        (Client(), path) for path in public
    ]:
        response = client.get(path)
        assert response.status_code == 200, (path, response.content)
        assert "ETag" in response and "no-store" not in response.get("Cache-Control", ""), path


@pytest.fixture
def big_list(make_player, client_for):
    """GET /matches?limit=100 of a lobby well over COMPRESS_MIN_BYTES."""
    for _ in range(4):
        _, token = make_player()
        client = client_for(token)
        for _ in range(3):
            create_match(client, seats=4)
    path = "/api/v1/matches?limit=100"
    plain = Client().get(path)
    assert len(plain.content) > 4 * settings.COMPRESS_MIN_BYTES
    return path, plain


def test_the_answer_to_a_write_is_never_stored(make_player, client_for):
    """A write's answer is the caller's (a token, a stream ticket, a join code, a webhook's
    secret): `no-store, private`, whatever it holds."""
    player, token = make_player()
    anonymous = Client()
    signed_up = anonymous.post(
        "/api/v1/auth/register",
        {"username": "nostore1", "password": "s3cret-pass-1"},
        content_type="application/json",
    )
    signed_in = anonymous.post(
        "/api/v1/auth/token",
        {"username": "nostore1", "password": "s3cret-pass-1"},
        content_type="application/json",
    )
    client = client_for(token)
    private = client.post("/api/v1/matches", {"seats": 2, "private": True}, format="json")
    ticket = client.post("/api/v1/auth/stream-ticket", {"path": "/api/v1/me/events"}, format="json")
    for answer in (signed_up, signed_in, private, ticket):
        assert 200 <= answer.status_code < 300, answer.content
        cache = answer.get("Cache-Control", "")
        assert "no-store" in cache and "private" in cache, (answer.request["PATH_INFO"], cache)
        assert not answer.has_header("ETag")
    assert private.json()["join_code"]


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("gzip", "gzip"),
        ("br", "br"),
        ("gzip, deflate, br, zstd", "br"),
        ("br;q=0.5, gzip", "gzip"),
        ("br;q=0, gzip;q=0.1", "gzip"),
        ("*", "br"),
        ("*;q=0.5, br;q=0", "gzip"),
        ("identity", None),
        ("gzip;q=0", None),
        ("", None),
    ],
)
def test_json_over_1kb_is_compressed_as_the_client_asks(big_list, accept, expected):
    path, plain = big_list
    assert accepted_encoding(accept) == expected
    response = Client().get(path, HTTP_ACCEPT_ENCODING=accept)
    assert response.status_code == 200
    assert "accept-encoding" in vary(response)
    if expected is None:
        assert "Content-Encoding" not in response and response.content == plain.content
        return
    assert response["Content-Encoding"] == expected
    assert int(response["Content-Length"]) == len(response.content)
    body = gzip.decompress(response.content) if expected == "gzip" else None
    body = brotli.decompress(response.content) if expected == "br" else body
    assert body == plain.content
    assert len(response.content) < len(plain.content) / 4


def test_small_answers_and_errors_stay_plain(make_player, client_for):
    _, token = make_player()
    me = client_for(token).get("/api/v1/players/me", HTTP_ACCEPT_ENCODING="gzip, br")
    assert len(me.content) <= settings.COMPRESS_MIN_BYTES
    assert "Content-Encoding" not in me
    refused = Client().get("/api/v1/players", {"search": "a"}, HTTP_ACCEPT_ENCODING="br")
    assert refused.status_code == 400 and "Content-Encoding" not in refused


def test_a_no_transform_answer_is_left_as_it_is():
    from django.http import HttpResponse

    from pisyedili_api.compression import compress_response

    body = b'{"x": "' + b"a" * 5000 + b'"}'
    response = HttpResponse(body, content_type="application/json")
    response["Cache-Control"] = "no-transform"
    request = Client().get("/").wsgi_request
    request.META["HTTP_ACCEPT_ENCODING"] = "gzip"
    assert compress_response(request, response).content == body
    assert "Content-Encoding" not in response
