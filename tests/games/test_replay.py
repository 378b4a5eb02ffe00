"""`GET …/deals/{n}/replay` (docs/api.md): every position of a finished deal, all hands open,
rebuilt by the engine from the seed and the move log; nothing before the deal is over."""

from __future__ import annotations

from collections import Counter

import pytest

from games import engine
from games.models import Deal, Match
from games.selectors import deal_revealable
from tests.helpers import create_match, post_move, state

# Bots and scoring run on commit: in place, inside the test's transaction
# (conftest.commits_in_place).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("commits_in_place")]


@pytest.fixture
def finished(make_player, client_for):
    """A match of one deal against a greedy bot, played to its end (the bot in-process)."""

    def make(spectators: str = "public") -> dict:
        _, token = make_player()
        client = client_for(token)
        match = create_match(client, bots=["greedy"], deals=1, spectators=spectators)
        view = state(client, match["id"])
        for _ in range(1000):
            if view["status"] != "active":
                break
            assert view["turn"] == 0, "the bot answers before the move's response returns"
            moved = post_move(client, match["id"], view["legal_moves"][-1], view["version"])
            assert moved.status_code == 200, moved.content
            view = state(client, match["id"])
        assert view["status"] == "finished"
        return {"id": match["id"], "seat": client}

    return make


def replay_of(client, match_id: str, number: int = 1):
    return client.get(f"/api/v1/matches/{match_id}/deals/{number}/replay")


def test_replay_gives_every_position_from_the_deal_to_its_end(finished, api):
    table = finished()
    response = replay_of(api, table["id"])
    assert response.status_code == 200, response.content
    replay = response.json()
    reveal = api.get(f"/api/v1/matches/{table['id']}/deals/1").json()
    deal = Deal.objects.get(match_id=table["id"], number=1)
    assert replay["match"] == table["id"] and replay["number"] == 1 and replay["seat_count"] == 2
    assert replay["seed"] == reveal["seed"] and replay["commitment"] == reveal["commitment"]
    assert replay["dealer"] == reveal["dealer"] and replay["opener"] == reveal["opener"]
    assert replay["hands_at_start"] == reveal["hands_at_start"]
    assert replay["result"] == reveal["result"]
    assert replay["rules"] == Match.objects.get(id=table["id"]).rules
    positions = replay["positions"]
    assert len(positions) == len(reveal["moves"]) + 1
    assert [p["index"] for p in positions] == list(range(len(positions)))
    first = positions[0]
    assert first["move"] is None and first["seat"] is None
    assert first["state"]["hands"] == reveal["hands_at_start"]
    assert first["state"]["phase"] == "opening" and first["state"]["discard_count"] == 0
    for position, logged in zip(positions[1:], reveal["moves"], strict=True):
        expected = {
            k: logged[k] for k in ("seq", "seat", "action", "card", "suit", "drawn", "effect")
        }
        assert position["move"] == expected and position["seat"] == logged["seat"]
    last = positions[-1]["state"]
    assert last["phase"] == "deal_over" and last["turn"] is None
    assert last["hands"] == deal.final_state["hands"]  # the engine agrees with the stored end
    assert last["stock_count"] == len(deal.final_state["stock"])


def test_each_position_follows_from_the_one_before(finished, api):
    replay = replay_of(api, finished()["id"]).json()
    positions = replay["positions"]
    for before, after in zip(positions, positions[1:], strict=False):
        state_before, state_after, move = before["state"], after["state"], after["move"]
        # Every card is somewhere: the hands, the stock and the pile make the pack.
        cards = sum(len(h) for h in state_after["hands"])
        assert cards + state_after["stock_count"] + state_after["discard_count"] == 52
        assert move["seat"] == state_before["turn"]  # the seat on turn moved
        hand_before = Counter(state_before["hands"][move["seat"]])
        hand_after = Counter(state_after["hands"][move["seat"]])
        if move["action"] == "play":
            assert state_after["top_card"] == move["card"]
            assert hand_before - hand_after == Counter([move["card"]])
        elif move["action"] == "draw":
            assert len(move["drawn"]) >= 1
            assert hand_after - hand_before == Counter(move["drawn"])
        else:
            assert hand_after == hand_before
        for other in range(len(state_after["hands"])):
            if other != move["seat"]:
                assert state_after["hands"][other] == state_before["hands"][other]


def test_replay_before_the_deal_is_over_is_409(make_player, client_for, api):
    _, token = make_player()
    client = client_for(token)
    match = create_match(client, bots=["greedy"], deals=2)
    for who in (client, api):
        response = replay_of(who, match["id"])
        assert response.status_code == 409 and response.json()["code"] == "deal_not_over"
    deal = Deal.objects.get(match_id=match["id"], number=1)
    assert not deal_revealable(deal)
    Deal.objects.filter(id=deal.id).update(status=Deal.Status.OVER)
    deal.refresh_from_db()
    assert deal_revealable(deal)


def test_replay_of_no_such_deal_or_match_is_404(finished, api):
    table = finished()
    missing = replay_of(api, table["id"], 2)
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    nowhere = replay_of(api, "00000000-0000-0000-0000-000000000000")
    assert nowhere.status_code == 404 and nowhere.json()["code"] == "not_found"


def test_replay_of_a_match_without_spectators_is_for_its_seats(finished, api, make_player):
    from rest_framework.test import APIClient

    table = finished("none")
    assert replay_of(table["seat"], table["id"]).status_code == 200
    _, token = make_player()
    outsider = APIClient()
    outsider.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    for who in (api, outsider):
        response = replay_of(who, table["id"])
        assert response.status_code == 403 and response.json()["code"] == "spectators_not_allowed"


def test_replay_matches_the_engine_replay_of_the_log(finished, api):
    """The replay's last position is the engine's own replay of the seed and moves."""
    table = finished()
    replay = replay_of(api, table["id"]).json()
    rules = engine.Rules.from_json(replay["rules"])
    moves = [
        engine.Move.from_json(
            {k: v for k, v in p["move"].items() if k in ("action", "card", "suit") and v}
        )
        for p in replay["positions"][1:]
    ]
    end = engine.replay(rules, 2, replay["opener"], bytes.fromhex(replay["seed"]), moves)
    assert replay["positions"][-1]["state"]["hands"] == [[c.code for c in h] for h in end.hands]
    assert end.result is not None and end.result.to_json() == replay["result"]
