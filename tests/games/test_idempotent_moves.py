"""Keyed moves (Idempotency-Key, API.md) in every kind of match: the first answer is 2xx, a
replay is byte-for-byte the same answer, and nothing is applied twice."""

from __future__ import annotations

import pytest

from games import engine
from games.engine.rules import _BOOLEANS, _CHOICES
from games.models import IdempotencyRecord, Move
from tests.helpers import create_match, post_move, state

pytestmark = pytest.mark.django_db


def _rule_variants() -> list[dict]:
    """Every rule option with every value other than its default."""
    defaults = engine.Rules().to_dict()
    variants: list[dict] = []
    for name, choices in _CHOICES.items():
        variants += [{name: value} for value in choices if value != defaults[name]]
    variants += [{name: not defaults[name]} for name in _BOOLEANS]
    variants += [
        {"max_actions": 10},
        {"hand_size": 1},
        {"hand_size": 12, "max_players": 4},
        {"deals_per_match": 1},
    ]
    return variants


# Every option of the create body (seats, bots, deals, rules, turn_seconds), each at least once.
CREATE_BODIES = [
    {"seats": 2},
    {"seats": 2, "turn_seconds": 300},
    {"seats": 2, "turn_seconds": 1},
    {"seats": 2, "turn_seconds": None},
    {"seats": 2, "deals": 1},
    {"seats": 2, "deals": 20},
    {"seats": 3, "bots": ["greedy"]},
    {"seats": 4, "bots": ["random", "greedy"], "turn_seconds": 60, "deals": 2},
    {"seats": 7, "bots": ["random"] * 5, "rules": {"max_players": 7}},
    *({"seats": 2, "rules": rules} for rules in _rule_variants()),
    *({"seats": 2, "rules": rules, "turn_seconds": 300} for rules in _rule_variants()),
]


def _label(body: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in body.items())


@pytest.mark.parametrize("body", CREATE_BODIES, ids=[_label(b) for b in CREATE_BODIES])
def test_keyed_move_replays_identically_in_every_kind_of_match(make_player, client_for, body):
    (ana, ta), (bob, tb) = make_player(), make_player()
    clients = {str(ana.id): client_for(ta), str(bob.id): client_for(tb)}
    match = create_match(clients[str(ana.id)], **body)
    if match["status"] == "waiting":
        joined = clients[str(bob.id)].post(f"/api/v1/matches/{match['id']}/join")
        assert joined.status_code == 200, joined.content
        match = joined.json()
    assert match["status"] == "active"
    # Bots have played (in-process) up to the first person on turn.
    view = state(clients[str(ana.id)], match["id"])
    holder = match["seats"][view["turn"]]["player"]
    assert not holder["is_bot"]
    client = clients[holder["id"]]
    view = state(client, match["id"])
    moves_before = Move.objects.filter(match_id=match["id"], player_id=holder["id"]).count()

    first = post_move(
        client, match["id"], view["legal_moves"][0], view["version"], HTTP_IDEMPOTENCY_KEY="key-1"
    )
    assert 200 <= first.status_code < 300, first.content
    again = post_move(
        client, match["id"], view["legal_moves"][0], view["version"], HTTP_IDEMPOTENCY_KEY="key-1"
    )
    assert again.status_code == first.status_code
    assert again.content == first.content
    assert Move.objects.filter(match_id=match["id"], player_id=holder["id"]).count() == (
        moves_before + 1
    )
    assert IdempotencyRecord.objects.filter(match_id=match["id"]).count() == 1
