"""Spectators (docs/api.md "Hidden information"): the match option `spectators`, the public view
of `…/state` and `…/events`, the move log without others' drawn cards, and `none` matches."""

from __future__ import annotations

import json
import time

import pytest

from games import engine
from games.models import Match
from games.serializers import public_view, state_view
from tests.helpers import create_match, end_deal_by_last_card, post_move, state
from tests.leakscan import scan_body

pytestmark = pytest.mark.django_db


@pytest.fixture
def watched(make_player, client_for, api):
    """A started two-seat match of one deal (`spectators` as asked), its seats, a signed-in
    outsider and an anonymous client."""

    def make(spectators: str | None = None) -> dict:
        (a, ta), (b, tb), (_, tc) = make_player(), make_player(), make_player()
        body = {"deals": 1} if spectators is None else {"deals": 1, "spectators": spectators}
        match = create_match(client_for(ta), **body)
        assert client_for(tb).post(f"/api/v1/matches/{match['id']}/join").status_code == 200
        return {
            "id": match["id"],
            0: client_for(ta),
            1: client_for(tb),
            "players": (a, b),
            "outsider": client_for(tc),
            "anonymous": api,
            "match": match,
        }

    return make


def hidden_cards(match_id: str) -> set[str]:
    """Every card of every hand and of the stock of the live deal."""
    live = engine.State.from_json(Match.objects.get(id=match_id).state)
    return {c.code for hand in live.hands for c in hand} | {c.code for c in live.stock}


def test_spectators_is_a_match_option_shown_in_the_match(watched, make_player, client_for):
    assert watched()["match"]["spectators"] == "public"  # the default
    private = watched("none")
    assert private["match"]["spectators"] == "none"
    assert Match.objects.get(id=private["id"]).spectators == "none"
    listed = private["anonymous"].get(f"/api/v1/matches/{private['id']}").json()
    assert listed["spectators"] == "none"
    _, token = make_player()
    bad = client_for(token).post(
        "/api/v1/matches", {"seats": 2, "spectators": "friends"}, format="json"
    )
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"
    assert "spectators" in bad.json()["detail"]


@pytest.mark.parametrize("who", ["outsider", "anonymous"])
def test_a_spectator_gets_the_public_view(watched, who):
    table = watched()
    seat_view = state(table[0], table["id"])
    response = table[who].get(f"/api/v1/matches/{table['id']}/state")
    assert response.status_code == 200, response.content
    assert "no-store" in response["Cache-Control"]
    view = response.json()
    assert set(view) == set(seat_view)
    assert view["you"] is None and view["hand"] == [] and view["legal_moves"] == []
    for key in ("version", "phase", "turn", "dealer", "direction", "hand_counts", "top_card"):
        assert view[key] == seat_view[key], key
    for key in ("stock_count", "totals", "commitment", "pending_sevens", "active_suit"):
        assert view[key] == seat_view[key], key
    assert view["hand_counts"] == [7, 7] and view["stock_count"] == 38
    text = response.content.decode()
    for code in hidden_cards(table["id"]):
        assert f'"{code}"' not in text, f"a spectator sees {code}"
    deal = Match.objects.get(id=table["id"]).live_deal
    assert bytes(deal.seed).hex() not in text


def test_the_public_view_follows_the_game_to_its_end(watched, django_capture_on_commit_callbacks):
    table = watched()
    a, b = table["players"]
    seat = state(table[0], table["id"])
    moved = post_move(table[0], table["id"], seat["legal_moves"][0], seat["version"])
    assert moved.status_code == 200
    public = state(table["anonymous"], table["id"])
    assert public["version"] == moved.json()["version"]
    assert public["top_card"] == moved.json()["top_card"]
    assert public["hand_counts"] == moved.json()["hand_counts"]
    with django_capture_on_commit_callbacks(execute=True):
        end_deal_by_last_card(table["id"], a.id, 0)  # the only deal: scored, the match over
    over = state(table["anonymous"], table["id"])
    assert over["status"] == "finished" and over["phase"] == "match_over"
    assert over["turn"] is None and over["result"]["winners"] == [0]
    assert over["hand"] == [] and over["you"] is None


def test_public_and_seat_views_have_the_same_keys_at_every_stage(watched, make_player, client_for):
    _, token = make_player()
    waiting = Match.objects.get(id=create_match(client_for(token))["id"])
    assert set(public_view(waiting)) == set(state_view(waiting, 0))
    assert public_view(waiting)["you"] is None
    table = watched()
    live = Match.objects.get(id=table["id"])
    assert set(public_view(live)) == set(state_view(live, 1))


def test_a_spectator_long_polls(watched):
    table = watched()
    version = state(table[0], table["id"])["version"]
    url = f"/api/v1/matches/{table['id']}/state"
    started = time.monotonic()
    behind = table["anonymous"].get(url, {"after_version": version - 1, "wait": 5})
    assert behind.status_code == 200 and time.monotonic() - started < 2
    assert behind.json()["version"] == version and behind.json()["you"] is None
    started = time.monotonic()
    waited = table["outsider"].get(url, {"after_version": version, "wait": 0.3})
    assert waited.status_code == 200 and time.monotonic() - started >= 0.3
    assert waited.json()["version"] == version and waited.json()["hand"] == []
    bad = table["anonymous"].get(url, {"after_version": version, "wait": 99})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"


def test_a_spectator_does_not_see_drawn_cards_until_the_deal_is_over(watched):
    table = watched()
    a, _ = table["players"]
    current = Match.objects.get(id=table["id"])
    # Seat 0 holds no diamond, no 9 and no Jack on a 9D: it must draw (the stock's top is KH).
    position = engine.deal_from_codes(
        hands=["3S 4S", "5H 6H"],
        top="9D",
        stock=["KH", "QC", "5D"],
        turn=0,
        rules=engine.Rules.from_json(current.rules),
        phase="play",
    )
    Match.objects.filter(id=table["id"]).update(state=position.to_json())
    drew = post_move(table[0], table["id"], {"action": "draw"}, current.version)
    assert drew.status_code == 200, drew.content
    url = f"/api/v1/matches/{table['id']}/moves"
    for who in ("outsider", "anonymous", 1):
        response = table[who].get(url)
        assert response.status_code == 200 and "no-store" in response["Cache-Control"]
        (entry,) = response.json()
        assert entry["action"] == "draw" and entry["drawn"] is None and entry["drawn_count"] == 1
        assert "KH" not in response.content.decode()
    assert table[0].get(url).json()[0]["drawn"] == ["KH"]  # the drawer sees its card
    end_deal_by_last_card(table["id"], a.id, 0)
    for who in ("outsider", "anonymous", 1):
        entries = table[who].get(url, {"deal": 1}).json()
        assert entries[0]["drawn"] == ["KH"]  # the deal is over: every draw is shown


NO_SPECTATOR_ROUTES = (
    "/state",
    "/state?after_version=0",
    "/moves",
    "/events",
    "/deals/1",
    "/deals/1/replay",
    "/deals/2",
)


@pytest.mark.parametrize("who", ["outsider", "anonymous"])
def test_a_match_without_spectators_refuses_everyone_at_no_seat(watched, who):
    """Every route of its play and of its deals, while the deal is played and once it is over
    (its seed, hands and draws then): the summary of the match alone is public."""
    table = watched("none")
    base = f"/api/v1/matches/{table['id']}"
    for stage in ("live", "over"):
        if stage == "over":
            end_deal_by_last_card(table["id"], table["players"][0].id, 0)
            assert table[0].get(base + "/deals/1").json()["seed"]  # the seats see it all
        for suffix in NO_SPECTATOR_ROUTES:
            response = table[who].get(base + suffix)
            assert response.status_code == 403, (stage, suffix, response.content)
            assert response.json()["code"] == "spectators_not_allowed"
        # The seats are not spectators; the match itself stays public.
        assert table[1].get(base + "/moves").status_code == 200
        assert table[1].get(base + "/deals/1").status_code == 200
        assert table[who].get(base).status_code == 200


def test_a_bad_token_is_401_even_where_a_spectator_is_welcome(watched, api):
    table = watched()
    api.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")
    for suffix in ("/state", "/moves", "/events", "/deals/1/replay"):
        response = api.get(f"/api/v1/matches/{table['id']}{suffix}")
        assert response.status_code == 401 and response.json()["code"] == "not_authenticated"


def sse_events(response) -> list[tuple[str, dict]]:
    text = b"".join(response.streaming_content).decode()
    found = []
    for block in text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in lines:
            found.append((lines["event"], json.loads(lines["data"])))
    return found


@pytest.mark.parametrize("who", ["outsider", "anonymous"])
def test_a_spectator_stream_under_wsgi_sends_the_public_view(watched, who):
    table = watched()
    response = table[who].get(f"/api/v1/matches/{table['id']}/events")
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    (kind, view), closing = sse_events(response)
    assert kind == "state" and view["you"] is None and view["hand"] == []
    assert view["hand_counts"] == [7, 7]
    assert closing == ("reconnect", {"reason": "poll"})


def test_the_scanner_flags_a_hand_card_shown_to_a_spectator(watched):
    """Control: a spectator's body with a card of any hand, or of the stock, is a leak (so the
    scanner does check every spectator response of the suite)."""
    table = watched()
    live = engine.State.from_json(Match.objects.get(id=table["id"]).state)
    seat_player = str(table["players"][0].id)
    path = f"/api/v1/matches/{table['id']}/state"
    own = {"deal": 1, "hand": [live.hands[0][0].code]}
    assert scan_body(path, own, json.dumps(own), seat_player) == []
    assert scan_body(path, own, json.dumps(own), None)  # anonymous: no hand is its own
    stock = {"deal": 1, "top_card": live.stock[0].code}
    assert scan_body(path, stock, json.dumps(stock), None)
    replay = f"/api/v1/matches/{table['id']}/deals/1/replay"
    hands = {"positions": [{"state": {"hands": [[live.hands[1][0].code]]}}]}
    assert scan_body(replay, hands, json.dumps(hands), None)


def test_tables_sharing_their_deals_have_no_spectators_while_one_plays(make_player, client_for):
    """A duplicate round's tables play the same deals: what is played at one is the hidden
    hands of the other, so nobody at no seat watches either until every table has finished."""
    import secrets

    from games.services import match_create

    key = secrets.token_hex(32)
    (a, ta), (b, tb), (_, tc) = make_player(), make_player(), make_player()
    first = match_create(player=a, seats=2, bots=["greedy"], deals=1, seed_key=key)
    second = match_create(player=b, seats=2, bots=["greedy"], deals=1, seed_key=key)
    outsider, at_other_table = client_for(tc), client_for(tb)
    for who in (outsider, at_other_table):
        for suffix in ("/state", "/moves", "/events"):
            response = who.get(f"/api/v1/matches/{first.id}{suffix}")
            assert response.status_code == 403, (suffix, response.content)
            assert response.json()["code"] == "spectators_not_allowed"
        replay = who.get(f"/api/v1/matches/{first.id}/deals/1/replay")
        assert replay.status_code == 409 and replay.json()["code"] == "deal_not_over"
    assert client_for(ta).get(f"/api/v1/matches/{first.id}/state").json()["you"] == 0
    # Once no table plays a shared deal any more, the tables may be watched again.
    Match.objects.filter(id__in=[first.id, second.id]).update(status=Match.Status.FINISHED)
    assert outsider.get(f"/api/v1/matches/{first.id}/state").status_code == 200
