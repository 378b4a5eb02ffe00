"""Exactly-once moves on a live server over real PostgreSQL: races of identical requests."""

from __future__ import annotations

import pytest

from games.models import Match, Move

from .live import fire_together, register

pytestmark = pytest.mark.django_db(transaction=True)

RACERS = 50


@pytest.fixture
def seat_one_on_turn(live_server):
    """A 2-human match where seat 1 is on turn in the play phase (a draw is legal)."""
    base = live_server.url
    _, a = register(base)
    _, b = register(base)
    match = a.post("/api/v1/matches", {"seats": 2}).json()
    assert b.post(f"/api/v1/matches/{match['id']}/join").status_code == 200
    view = a.state(match["id"])
    while view["turn"] == 0:  # seat 0 opens (R-10: draws until it holds a club, then plays it)
        response = a.post(
            f"/api/v1/matches/{match['id']}/moves",
            {**view["legal_moves"][0], "version": view["version"]},
        )
        assert response.status_code == 200
        view = response.json()
    view = b.state(match["id"])
    assert view["turn"] == 1 and {"action": "draw"} in view["legal_moves"]
    return {"id": match["id"], "a": a, "b": b, "view": view, "base": base}


def test_50_identical_draws_with_different_keys_apply_once(seat_one_on_turn):
    mid, b, view = seat_one_on_turn["id"], seat_one_on_turn["b"], seat_one_on_turn["view"]
    before = Move.objects.filter(match_id=mid).count()
    responses = fire_together(
        RACERS,
        lambda i: b.post(
            f"/api/v1/matches/{mid}/moves",
            {"action": "draw", "version": view["version"]},
            headers={"Idempotency-Key": f"racer-{i}"},
        ),
    )
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [409] * (RACERS - 1), statuses
    assert {r.json()["code"] for r in responses if r.status_code == 409} == {"stale_version"}
    assert all(
        r.json()["detail"] == {"current_version": view["version"] + 1}
        for r in responses
        if r.status_code == 409
    )
    assert Move.objects.filter(match_id=mid).count() == before + 1
    after = b.state(mid)
    assert after["version"] == view["version"] + 1 and len(after["hand"]) == len(view["hand"]) + 1


def test_50_requests_with_the_same_key_apply_once_and_answer_the_same(seat_one_on_turn):
    mid, b, view = seat_one_on_turn["id"], seat_one_on_turn["b"], seat_one_on_turn["view"]
    before = Move.objects.filter(match_id=mid).count()
    responses = fire_together(
        RACERS,
        lambda i: b.post(
            f"/api/v1/matches/{mid}/moves",
            {"action": "draw", "version": view["version"]},
            headers={"Idempotency-Key": "the-one-key"},
        ),
    )
    assert [r.status_code for r in responses] == [200] * RACERS
    assert len({r.content for r in responses}) == 1
    assert Move.objects.filter(match_id=mid).count() == before + 1
    assert responses[0].json()["version"] == view["version"] + 1


def test_one_key_raced_across_two_matches_never_500s(live_server):
    """A key is scoped per (player, match): raced across two matches it is one move in each,
    every answer within a match the same, never a 500."""
    base = live_server.url
    _, a = register(base)
    tables = []
    for _ in range(2):
        _, other = register(base)
        match = other.post("/api/v1/matches", {"seats": 2}).json()
        assert a.post(f"/api/v1/matches/{match['id']}/join").status_code == 200
        view = other.state(match["id"])
        while view["turn"] == 0:
            view = other.post(
                f"/api/v1/matches/{match['id']}/moves",
                {**view["legal_moves"][0], "version": view["version"]},
            ).json()
        tables.append((match["id"], a.state(match["id"])["version"]))
    before = Move.objects.count()
    responses = fire_together(
        RACERS,
        lambda i: a.post(
            f"/api/v1/matches/{tables[i % 2][0]}/moves",
            {"action": "draw", "version": tables[i % 2][1]},
            headers={"Idempotency-Key": "shared-key"},
        ),
    )
    assert [r.status_code for r in responses] == [200] * RACERS
    assert Move.objects.count() == before + 2
    for table in range(2):
        answers = {r.content for i, r in enumerate(responses) if i % 2 == table}
        assert len(answers) == 1


def test_a_create_and_a_leave_raced_with_one_key_are_made_once(live_server):
    """The writes other than a move under one Idempotency-Key (pisyedili_api.keyed): 20 copies
    of a create at once make one match, and 20 of a leave leave once; every copy answers as
    the first, never `not_seated` or a 500."""
    base = live_server.url
    ana_id, ana = register(base)
    creates = fire_together(
        20, lambda i: ana.post("/api/v1/matches", {"seats": 3}, headers={"Idempotency-Key": "c"})
    )
    assert [r.status_code for r in creates] == [201] * 20, [r.text for r in creates]
    assert len({r.content for r in creates}) == 1
    assert Match.objects.filter(created_by_id=ana_id).count() == 1
    match_id = creates[0].json()["id"]
    _, bob = register(base)
    assert bob.post(f"/api/v1/matches/{match_id}/join").status_code == 200
    version = Match.objects.get(id=match_id).version
    leaves = fire_together(
        20,
        lambda i: bob.post(f"/api/v1/matches/{match_id}/leave", headers={"Idempotency-Key": "l"}),
    )
    assert [r.status_code for r in leaves] == [200] * 20, [r.text for r in leaves]
    assert len({r.content for r in leaves}) == 1
    assert Match.objects.get(id=match_id).version == version + 1


def test_a_human_plays_a_whole_match_against_bots_over_http(live_server):
    _, human = register(live_server.url)
    match = human.post(
        "/api/v1/matches", {"seats": 3, "bots": ["greedy", "ismcts"], "deals": 1}
    ).json()
    view = human.state(match["id"])
    for _ in range(500):
        if view["status"] != "active":
            break
        assert view["turn"] == 0
        response = human.post(
            f"/api/v1/matches/{match['id']}/moves",
            {**view["legal_moves"][-1], "version": view["version"]},
        )
        assert response.status_code == 200, response.text
        view = human.state(match["id"])
    assert view["status"] == "finished"
    detail = human.get(f"/api/v1/matches/{match['id']}").json()
    assert all(seat["place"] for seat in detail["seats"])
    log = human.get(f"/api/v1/matches/{match['id']}/moves").json()
    assert {m["seat"] for m in log if m["by_bot"]} == {1, 2}
