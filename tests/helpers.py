"""Small helpers shared by the Django tests."""

from __future__ import annotations

from typing import Any


def create_match(client: Any, **body: Any) -> dict[str, Any]:
    response = client.post("/api/v1/matches", {"seats": 2, **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def state(client: Any, match_id: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/matches/{match_id}/state")
    assert response.status_code == 200, response.content
    return response.json()


def post_move(
    client: Any, match_id: str, move: dict[str, Any], version: int, **headers: Any
) -> Any:
    return client.post(
        f"/api/v1/matches/{match_id}/moves", {**move, "version": version}, format="json", **headers
    )


def play_until(
    clients: dict[int, Any], match_id: str, done: Any, limit: int = 2000
) -> dict[str, Any]:
    """Seated clients (by seat) play their first legal move until `done(view)` or the match ends."""
    view = state(next(iter(clients.values())), match_id)
    for _ in range(limit):
        if view["status"] != "active" or done(view):
            return view
        if view["turn"] is None:  # deal over: scored on commit, then the next deal is dealt
            view = state(next(iter(clients.values())), match_id)
            continue
        if view["you"] != view["turn"]:
            view = state(clients[view["turn"]], match_id)
        response = post_move(
            clients[view["turn"]], match_id, view["legal_moves"][0], view["version"]
        )
        assert response.status_code == 200, response.content
        view = response.json()
    raise AssertionError("the match did not get there")


def end_deal_by_last_card(match_id: Any, player_id: Any, seat: int) -> None:
    """Script the live deal so that `seat` (two seats) holds only 7D on a 9D and the other seat
    keeps JS 7C 3H (R-31: 144 points), then play the 7D for `player_id` through the service: the
    deal is over, its scoring sent on commit."""
    from games import engine
    from games.models import Match
    from games.services import match_apply_move

    current = Match.objects.get(id=match_id)
    hands = ["JS 7C 3H", "JS 7C 3H"]
    hands[seat] = "7D"
    position = engine.deal_from_codes(
        hands=hands,
        top="9D",
        stock=["2C", "4C"],
        turn=seat,
        rules=engine.Rules.from_dict(current.rules),
        phase="play",
    )
    Match.objects.filter(id=match_id).update(state=engine.state_to_json(position))
    match_apply_move(
        match_id=match_id,
        player_id=player_id,
        move=engine.Move.decode({"action": "play", "card": "7D"}),
        version=current.version,
    )
