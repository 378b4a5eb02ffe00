"""Match routes of docs/api.md: create, join, list, detail, state, moves, deal reveal."""

from __future__ import annotations

import json
import time

import pytest

from games import engine
from games.models import Deal, IdempotencyRecord, Match, Move, ScoreEntry
from tests.helpers import create_match, play_until, post_move, state

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_humans(make_player, client_for):
    (a, ta), (b, tb) = make_player("ana"), make_player("bob")
    ca, cb = client_for(ta), client_for(tb)
    match = create_match(ca)
    joined = cb.post(f"/api/v1/matches/{match['id']}/join")
    assert joined.status_code == 200
    return {"id": match["id"], 0: ca, 1: cb, "players": (a, b)}


def test_create_against_bots_fills_seats_in_order_and_starts(make_player, client_for):
    player, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=4, bots=["greedy", "random", "greedy"], deals=2)
    assert match["status"] == "active" and match["current_deal"] == 1 and match["deals_total"] == 2
    seats = match["seats"]
    assert seats[0]["player"]["id"] == str(player.id) and not seats[0]["player"]["is_bot"]
    assert all(s["player"]["is_bot"] for s in seats[1:])
    assert len({s["player"]["id"] for s in seats}) == 4  # two greedy bots are two players
    assert match["rules"]["deals_per_match"] == 2 and match["rules"]["draw_policy"] == "free"
    view = state(client, match["id"])
    # deal 1 is opened by seat 0, the creator; no bot moved before the human.
    assert view["turn"] == 0 and view["you"] == 0 and view["phase"] == "opening"
    assert len(view["hand"]) == 7 and view["hand_counts"] == [7, 7, 7, 7]
    assert view["commitment"] == Deal.objects.get(match_id=match["id"], number=1).commitment


def test_waiting_match_has_open_seats_and_join_starts_it(make_player, client_for):
    (_, ta), (b, tb) = make_player(), make_player()
    match = create_match(client_for(ta), seats=3, bots=["random"])
    assert match["status"] == "waiting" and match["current_deal"] is None
    assert match["seats"][2]["player"] is None
    waiting_view = state(client_for(ta), match["id"])
    assert waiting_view["status"] == "waiting" and waiting_view["hand"] == []
    move = post_move(client_for(ta), match["id"], {"action": "draw"}, waiting_view["version"])
    assert move.status_code == 409 and move.json()["code"] == "match_not_active"
    joined = client_for(tb).post(f"/api/v1/matches/{match['id']}/join")
    assert joined.status_code == 200
    assert joined.json()["status"] == "active"
    assert joined.json()["seats"][2]["player"]["id"] == str(b.id)


def test_join_full_or_started_match_is_match_full(two_humans, make_player, client_for):
    _, tc = make_player()
    r = client_for(tc).post(f"/api/v1/matches/{two_humans['id']}/join")
    assert r.status_code == 409 and r.json()["code"] == "match_full"
    again = two_humans[1].post(f"/api/v1/matches/{two_humans['id']}/join")
    assert again.status_code == 200  # joining a match you sit in changes nothing


def test_join_unknown_match_is_not_found(make_player, client_for):
    _, token = make_player()
    r = client_for(token).post("/api/v1/matches/00000000-0000-0000-0000-000000000000/join")
    assert r.status_code == 404 and r.json() == {"code": "not_found", "message": "No such match."}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seats": 2, "rules": {"no_such_option": 1}}, "rules"),
        ({"seats": 2, "rules": {"draw_policy": "sometimes"}}, "rules"),
        ({"seats": 2, "rules": "free"}, "rules"),
        ({"seats": 1}, "seats"),
        ({"seats": 8}, "seats"),
        ({"seats": 7}, "seats"),  # max_players is 6 unless the rules say 7
        ({"seats": 2, "bots": ["greedy", "greedy"]}, "bots"),
        ({"seats": 3, "bots": ["grandmaster"]}, "bots"),
        ({"seats": 2, "deals": 0}, "deals"),
        ({}, "seats"),
    ],
)
def test_create_bad_bodies_are_invalid_and_create_nothing(make_player, client_for, body, field):
    _, token = make_player()
    r = client_for(token).post("/api/v1/matches", body, format="json")
    assert r.status_code == 400, r.content
    assert r.json()["code"] == "invalid" and field in r.json()["detail"]
    assert Match.objects.count() == 0


def test_deals_wins_over_the_rule_option_deals_per_match(make_player, client_for):
    _, token = make_player()
    match = create_match(client_for(token), deals=3, rules={"deals_per_match": 5})
    assert match["deals_total"] == 3 and match["rules"]["deals_per_match"] == 3


def test_seven_seats_with_max_players_seven(make_player, client_for):
    _, token = make_player()
    match = create_match(
        client_for(token), seats=7, bots=["random"] * 6, rules={"max_players": 7, "hand_size": 7}
    )
    assert match["status"] == "active" and len(match["seats"]) == 7


def test_state_is_per_seat_and_no_store(two_humans):
    v0 = two_humans[0].get(f"/api/v1/matches/{two_humans['id']}/state")
    v1 = two_humans[1].get(f"/api/v1/matches/{two_humans['id']}/state")
    assert "no-store" in v0["Cache-Control"] and "no-store" in v1["Cache-Control"]
    a, b = v0.json(), v1.json()
    assert a["you"] == 0 and b["you"] == 1
    assert not set(a["hand"]) & set(b["hand"])
    assert a["legal_moves"] and not b["legal_moves"]  # only the seat on turn gets legal moves
    assert all(
        m["action"] == "play" and m["card"].endswith("C")
        for m in a["legal_moves"]
        if m["action"] == "play"
    )
    assert set(a) >= {
        "match",
        "version",
        "status",
        "deal",
        "deals_total",
        "phase",
        "you",
        "turn",
        "dealer",
        "direction",
        "hand",
        "hand_counts",
        "top_card",
        "active_suit",
        "pending_sevens",
        "draws_this_turn",
        "stock_count",
        "totals",
        "commitment",
        "legal_moves",
    }
    assert a["top_card"] is None and a["active_suit"] is None


def test_move_returns_the_view_after_it_and_bumps_version(two_humans):
    mid, client = two_humans["id"], two_humans[0]
    before = state(client, mid)
    move = before["legal_moves"][0]
    r = post_move(client, mid, move, before["version"])
    assert r.status_code == 200 and "no-store" in r["Cache-Control"]
    after = r.json()
    assert after["version"] == before["version"] + 1
    if move["action"] == "play":
        assert after["top_card"] == move["card"] and after["turn"] == 1
    else:  # an opener without a club draws until they hold one
        assert len(after["hand"]) == len(before["hand"]) + 1 and after["turn"] == 0
    assert Move.objects.filter(match_id=mid).count() == 1


def test_stale_version_changes_nothing(two_humans):
    mid, client = two_humans["id"], two_humans[0]
    view = state(client, mid)
    r = post_move(client, mid, view["legal_moves"][0], view["version"] - 1)
    assert r.status_code == 409
    assert r.json()["code"] == "stale_version"
    assert r.json()["detail"] == {"current_version": view["version"]}
    assert state(client, mid) == view


def test_not_your_turn(two_humans):
    mid = two_humans["id"]
    view = state(two_humans[1], mid)
    r = post_move(two_humans[1], mid, {"action": "draw"}, view["version"])
    assert r.status_code == 409 and r.json()["code"] == "not_your_turn"
    assert state(two_humans[1], mid) == view


def test_illegal_move_lists_legal_moves(two_humans):
    mid, client = two_humans["id"], two_humans[0]
    view = state(client, mid)
    # the opener holding a club may not draw... unless they hold none; a card not in hand
    # is never legal.
    other_hand = state(two_humans[1], mid)["hand"]
    r = post_move(client, mid, {"action": "play", "card": other_hand[0]}, view["version"])
    assert r.status_code == 422
    assert r.json()["code"] == "illegal_move"
    assert r.json()["detail"]["legal_moves"] == view["legal_moves"]
    assert "no-store" in r["Cache-Control"]  # the caller's own moves, as their view
    assert state(client, mid) == view
    # The card by its symbol, as a person reads it ("10♥"), not by its code ("10H").
    shown = other_hand[0][:-1] + {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[other_hand[0][-1]]
    assert r.json()["message"] == f"{shown} is not in your hand."


def test_an_illegal_move_names_the_rule_that_forbids_it(two_humans):
    """The opener plays a card that is not a club (or, holding only clubs, passes): the 422
    says why, names the rule in its message and in `detail.rule`, in the caller's language."""
    mid, client = two_humans["id"], two_humans[0]
    view = state(client, mid)
    assert view["phase"] == "opening" and view["turn"] == view["you"]
    not_a_club = [c for c in view["hand"] if not c.endswith("C")]
    if not_a_club:
        body, rule = {"action": "play", "card": not_a_club[0]}, "R-10"
        english, turkish = "the first card must be a club (R-10).", "ilk kart sinek olmalı (R-10)."
    else:
        body, rule = {"action": "pass"}, "R-10"
        english = "you hold a club: play it (R-10)."  # only clubs in hand: a pass is told so
        turkish = "elinde sinek var: onu oyna (R-10)."
    r = post_move(client, mid, body, view["version"])
    assert r.status_code == 422, r.content
    assert r.json()["detail"] == {"legal_moves": view["legal_moves"], "rule": rule}
    assert r.json()["message"] == english
    tr = client.post(
        f"/api/v1/matches/{mid}/moves",
        {**body, "version": view["version"]},
        format="json",
        HTTP_ACCEPT_LANGUAGE="tr",
    )
    assert tr.status_code == 422 and tr.json()["message"] == turkish
    assert state(client, mid) == view


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"action": "fly", "version": 1}, 400, "invalid_move"),
        ({"action": "play", "card": "1Z", "version": 1}, 400, "invalid_move"),
        ({"action": "play", "card": 7, "version": 1}, 400, "invalid_move"),
        ({"action": "play", "card": "7H", "suit": "S", "version": 1}, 400, "invalid_move"),
        ({"action": "play", "version": 1}, 400, "invalid_move"),
        ({"action": "draw", "card": "7H", "version": 1}, 400, "invalid_move"),
        ({"action": "play", "card": "JH", "suit": "X", "version": 1}, 400, "invalid_move"),
        ({"action": "draw"}, 400, "invalid"),
        ({"action": "draw", "version": "1"}, 400, "invalid"),
        ({"action": "draw", "version": True}, 400, "invalid"),
        ({"action": "draw", "version": -1}, 400, "invalid"),
        ([{"action": "draw", "version": 1}], 400, "invalid"),
    ],
)
def test_bad_move_bodies_are_documented_errors_and_change_nothing(two_humans, body, status, code):
    mid, client = two_humans["id"], two_humans[0]
    view = state(client, mid)
    r = client.post(f"/api/v1/matches/{mid}/moves", body, format="json")
    assert r.status_code == status, r.content
    assert r.json()["code"] == code and r.json()["message"]
    assert state(client, mid) == view and not Move.objects.filter(match_id=mid).exists()


@pytest.mark.parametrize(
    ("raw", "content_type"),
    [
        (b"{not json", "application/json"),
        (b"", "application/json"),
        (b"NaN", "application/json"),
        (b"[" * 60_000, "application/json"),  # nested deeper than any parser recurses
        (b'{"action": "draw", "version": 1}', "text/plain"),
    ],
)
def test_malformed_bodies(two_humans, raw, content_type):
    mid, client = two_humans["id"], two_humans[0]
    view = state(client, mid)
    r = client.generic("POST", f"/api/v1/matches/{mid}/moves", raw, content_type=content_type)
    assert r.status_code in (400, 415)
    assert r.json()["code"] in ("invalid", "unsupported_media_type")
    assert state(client, mid) == view


def test_body_over_64_kb_is_refused(two_humans):
    mid, client = two_humans["id"], two_humans[0]
    view = state(client, mid)
    raw = (json.dumps({"action": "draw", "version": view["version"], "pad": "x" * 70_000})).encode()
    r = client.generic("POST", f"/api/v1/matches/{mid}/moves", raw, content_type="application/json")
    assert r.status_code == 400 and r.json()["code"] == "invalid" and "body" in r.json()["detail"]
    assert state(client, mid) == view


@pytest.mark.parametrize("key", ["", "k" * 256, "\x00", "key\x00", "tab\tkey", "\x7f", "nbsp\xa0"])
def test_bad_idempotency_keys_are_invalid_and_change_nothing(two_humans, key):
    mid, client = two_humans["id"], two_humans[0]
    view = state(client, mid)
    r = post_move(client, mid, view["legal_moves"][0], view["version"], HTTP_IDEMPOTENCY_KEY=key)
    assert r.status_code == 400, r.content
    assert r.json()["code"] == "invalid" and "Idempotency-Key" in r.json()["detail"]
    assert state(client, mid) == view and not IdempotencyRecord.objects.exists()


def test_idempotency_key_replays_first_response(two_humans):
    mid, client = two_humans["id"], two_humans[0]
    view = state(client, mid)
    move = view["legal_moves"][0]
    first = post_move(client, mid, move, view["version"], HTTP_IDEMPOTENCY_KEY="k-1")
    again = post_move(client, mid, move, view["version"], HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json()
    assert Move.objects.filter(match_id=mid).count() == 1
    different = {"action": "pass"} if move == {"action": "draw"} else {"action": "draw"}
    other = post_move(client, mid, different, view["version"], HTTP_IDEMPOTENCY_KEY="k-1")
    assert other.status_code == 422 and other.json()["code"] == "idempotency_mismatch"
    # The key is per player: the other seat may use the same key for its own move. Seat 0 goes
    # on (a draw leaves it on turn) until seat 1 is on turn.
    for step in range(60):
        view0 = state(client, mid)
        if view0["turn"] != 0:
            break
        moved = post_move(client, mid, view0["legal_moves"][0], view0["version"])
        assert moved.status_code == 200, (step, moved.json())
    view1 = state(two_humans[1], mid)
    assert view1["turn"] == 1
    before = Move.objects.filter(match_id=mid).count()
    own = post_move(
        two_humans[1], mid, view1["legal_moves"][0], view1["version"], HTTP_IDEMPOTENCY_KEY="k-1"
    )
    assert own.status_code == 200 and Move.objects.filter(match_id=mid).count() == before + 1


@pytest.mark.usefixtures("commits_in_place")  # a deal with no draw: the next is dealt on commit
def test_move_log_shows_drawn_cards_only_to_the_drawer_until_the_deal_is_over(two_humans):
    mid = two_humans["id"]

    # Play until someone draws, then compare both logs.
    def drew(view):
        return Move.objects.filter(match_id=mid, action="draw").exists()

    play_until({0: two_humans[0], 1: two_humans[1]}, mid, drew)
    draw = Move.objects.filter(match_id=mid, action="draw").order_by("seq").first()
    if draw is None:
        pytest.skip(
            "the deals ended without a draw"
        )  # pragma: no cover - first-legal play draws soon
    drawer, other = two_humans[draw.seat], two_humans[1 - draw.seat]
    deal_over = Deal.objects.get(match_id=mid, number=draw.deal_number).status == "over"
    mine = {
        m["seq"]: m
        for m in drawer.get(f"/api/v1/matches/{mid}/moves?deal={draw.deal_number}").json()
    }
    theirs = {
        m["seq"]: m
        for m in other.get(f"/api/v1/matches/{mid}/moves?deal={draw.deal_number}").json()
    }
    assert (
        mine[draw.seq]["drawn"] == draw.drawn
        and mine[draw.seq]["drawn_count"] == len(draw.drawn) >= 1
    )
    assert theirs[draw.seq]["drawn_count"] == len(draw.drawn)
    assert theirs[draw.seq]["drawn"] == (draw.drawn if deal_over else None)


def test_each_logged_move_tells_its_version_and_the_public_table_after_it(two_humans):
    """A client told a later version plays each move out from its entry: the entry's `after`
    is the public view of the match at the entry's `version` (no card of a hand)."""
    mid = two_humans["id"]
    seen: dict[int, dict] = {}
    for _ in range(8):
        view = state(two_humans[0], mid)
        public = {key: view[key] for key in PUBLIC_FACTS}
        seen[view["version"]] = public
        if view["status"] != "active":
            break
        client = two_humans[view["turn"]]
        own = state(client, mid)
        assert post_move(client, mid, own["legal_moves"][0], own["version"]).status_code == 200
    view = state(two_humans[0], mid)
    seen[view["version"]] = {key: view[key] for key in PUBLIC_FACTS}
    entries = two_humans[1].get(f"/api/v1/matches/{mid}/moves").json()
    assert len(entries) >= 8
    versions = [e["version"] for e in entries]
    assert versions == list(range(versions[0], versions[0] + len(entries)))
    for entry in entries:
        assert set(entry["after"]) == set(PUBLIC_FACTS)
        assert entry["after"] == seen[entry["version"]], entry["seq"]


@pytest.mark.usefixtures("commits_in_place")  # deals are scored on commit
def test_each_logged_move_tells_what_it_did_by_the_rules(two_humans, api):
    """The move log's `effect` (and the replay's, rebuilt from the seed) says what each move did,
    and every view says what a draw takes now (`penalty_cards`): a client works no rule out."""
    mid = two_humans["id"]
    clients = {0: two_humans[0], 1: two_humans[1]}
    views: list[dict] = []
    play_until(clients, mid, lambda v: views.append(v) or False)
    for view in views:
        assert view["penalty_cards"] == 3 * view["pending_sevens"], view["version"]
    entries = two_humans[0].get(f"/api/v1/matches/{mid}/moves").json()
    kinds = set()
    for deal in sorted({e["deal"] for e in entries}):
        log = [e for e in entries if e["deal"] == deal]
        replay = api.get(f"/api/v1/matches/{mid}/deals/{deal}/replay").json()
        assert [p["move"]["effect"] for p in replay["positions"][1:]] == [e["effect"] for e in log]
        # The deal's first play opens it; a draw or pass before it did nothing.
        first = next(i for i, e in enumerate(log) if e["action"] == "play")
        assert log[first]["effect"]["kind"] == "opening"
        assert all(e["effect"]["kind"] == "none" for e in log[:first])
        before = None
        for entry in log:
            effect, after, seat = entry["effect"], entry["after"], entry["seat"]
            kinds.add(effect["kind"])
            assert after["penalty_cards"] == 3 * after["pending_sevens"]
            if effect["kind"] == "seven":
                assert entry["card"][:-1] == "7" and effect["cards"] == after["penalty_cards"] > 0
            elif effect["kind"] == "penalty":
                assert entry["action"] == "draw" and effect["cards"] == before["penalty_cards"] > 0
            elif effect["kind"] == "skip":  # R-24 between two: the 8's player moves again
                assert entry["card"][:-1] == "8" and effect["seat"] == 1 - seat
                assert after["turn"] == seat
            elif effect["kind"] == "suit":
                assert entry["card"][:-1] == "J" and effect["suit"] == after["active_suit"]
            elif effect["kind"] == "again":
                assert entry["card"][:-1] == "A" and after["turn"] == seat
            elif effect["kind"] == "shed":
                assert entry is log[-1] and after["hand_counts"][seat] == 0
            else:
                assert effect == {"kind": "none", "seat": None, "suit": None, "cards": 0} or (
                    effect["kind"] == "opening" and entry is log[first]
                )
                if entry["action"] == "play" and entry is not log[first]:
                    assert entry["card"][:-1] not in ("7", "8", "J", "A"), entry
            before = after
    assert {"opening", "none"} <= kinds


PUBLIC_FACTS = (
    "dealer", "phase", "turn", "direction", "hand_counts", "top_card", "active_suit",
    "pending_sevens", "penalty_cards", "draws_this_turn", "stock_count",
)  # fmt: skip


@pytest.mark.django_db
@pytest.mark.usefixtures(
    "commits_in_place"
)  # deals are scored on commit: in place (conftest.commits_in_place)
def test_a_full_match_between_humans_scores_every_deal(two_humans):
    mid = two_humans["id"]
    final = play_until({0: two_humans[0], 1: two_humans[1]}, mid, lambda v: False)
    assert (
        final["status"] == "finished"
        and final["phase"] == "match_over"
        and final["legal_moves"] == []
    )
    match = Match.objects.get(id=mid)
    detail = two_humans[0].get(f"/api/v1/matches/{mid}").json()
    assert detail["finished_at"] and len(detail["deals"]) == 4
    assert all(d["status"] == "over" for d in detail["deals"])
    totals = [sum(d["penalties"][s] for d in detail["deals"]) for s in range(2)]
    assert [s["total"] for s in detail["seats"]] == totals == match.totals == final["totals"]
    assert [s["place"] for s in detail["seats"]] == engine.match_places(totals)
    assert ScoreEntry.objects.filter(match=match).count() == 8
    for entry in ScoreEntry.objects.filter(match=match):
        assert entry.penalty == (0 if entry.won else entry.hand_penalty * entry.multiplier) or (
            entry.penalty == entry.hand_penalty
        )
    a, b = two_humans["players"]
    a.refresh_from_db(), b.refresh_from_db()
    assert a.matches == b.matches == 1 and a.deals_played == 4
    assert a.penalty_points == totals[0] and b.penalty_points == totals[1]
    assert a.wins + b.wins >= 1
    assert (a.rating_mu, a.rating_sigma) != (25.0, 25.0 / 3.0)


@pytest.mark.django_db
@pytest.mark.usefixtures(
    "commits_in_place"
)  # deals are scored on commit: in place (conftest.commits_in_place)
def test_deal_reveal_hides_seed_until_the_deal_is_over_then_replays(two_humans, api):
    mid = two_humans["id"]
    live = api.get(f"/api/v1/matches/{mid}/deals/1")
    assert live.status_code == 200
    body = live.json()
    assert body["seed"] is None and body["hands_at_start"] is None and body["moves"] is None
    assert body["result"] is None and len(body["commitment"]) == 64
    play_until({0: two_humans[0], 1: two_humans[1]}, mid, lambda v: v["deal"] > 1)
    over = api.get(f"/api/v1/matches/{mid}/deals/1").json()
    seed = bytes.fromhex(over["seed"])
    assert engine.commitment(seed) == over["commitment"] == body["commitment"]
    rules = engine.Rules.from_json(Match.objects.get(id=mid).rules)
    start = engine.new_deal(rules, 2, over["opener"], seed)
    assert [[c.code for c in h] for h in start.hands] == over["hands_at_start"]
    moves = [
        engine.Move.from_json({k: m[k] for k in ("action", "card", "suit") if m[k] is not None})
        for m in over["moves"]
    ]
    final = engine.replay(rules, 2, over["opener"], seed, moves)
    assert list(final.result.penalties) == over["result"]["penalties"]
    assert all(m["drawn"] is not None for m in over["moves"])
    # The cards left card by card: each seat's final hand, its penalties summing to the hand's.
    assert body["cards_left"] is None
    assert [[c["card"] for c in hand] for hand in over["cards_left"]] == [
        [c.code for c in h] for h in final.hands
    ]
    assert [sum(c["points"] for c in hand) for hand in over["cards_left"]] == over["result"][
        "hand_penalties"
    ]
    assert api.get(f"/api/v1/matches/{mid}/deals/99").status_code == 404


def test_long_poll_waits_for_a_newer_version(two_humans):
    mid, client = two_humans["id"], two_humans[1]
    view = state(client, mid)
    started = time.monotonic()
    r = client.get(f"/api/v1/matches/{mid}/state?after_version={view['version']}&wait=0.4")
    waited = time.monotonic() - started
    assert r.status_code == 200 and r.json()["version"] == view["version"] and waited >= 0.4
    started = time.monotonic()
    r = client.get(f"/api/v1/matches/{mid}/state?after_version={view['version'] - 1}&wait=5")
    assert r.status_code == 200 and time.monotonic() - started < 1


@pytest.mark.parametrize(
    "query",
    [
        "wait=26&after_version=1",
        "wait=-1&after_version=1",
        "after_version=x",
        "after_version=-3",
        # Not a number of seconds, though float() reads them: nan passes every bound.
        "wait=nan&after_version=1",
        "wait=NaN&after_version=1",
        "wait=inf&after_version=1",
        "wait=-nan&after_version=1",
    ],
)
def test_long_poll_bad_query_is_invalid(two_humans, query):
    started = time.monotonic()
    r = two_humans[0].get(f"/api/v1/matches/{two_humans['id']}/state?{query}")
    assert r.status_code == 400 and r.json()["code"] == "invalid", r.content
    assert list(r.json()["detail"]) == [query.split("&")[0].split("=")[0]], r.json()
    assert time.monotonic() - started < 1


def test_match_list_is_public_newest_first_and_filtered(two_humans, make_player, client_for, api):
    player, token = make_player()
    newest = create_match(client_for(token), seats=3)
    listing = api.get("/api/v1/matches")
    assert listing.status_code == 200
    ids = [m["id"] for m in listing.json()["results"]]
    assert ids[:2] == [newest["id"], two_humans["id"]]
    waiting = api.get("/api/v1/matches?status=waiting").json()["results"]
    assert [m["id"] for m in waiting] == [newest["id"]]
    mine = api.get(f"/api/v1/matches?player={player.id}").json()["results"]
    assert [m["id"] for m in mine] == [newest["id"]]
    first = api.get("/api/v1/matches?limit=1").json()
    assert len(first["results"]) == 1 and first["next"]
    second = api.get(first["next"]).json()
    assert [m["id"] for m in second["results"]] == [two_humans["id"]]


@pytest.mark.parametrize(
    "query",
    [
        "limit=0",
        "limit=1000000",
        "limit=-5",
        "limit=abc",
        "status=lost",
        "player=not-a-uuid",
        "cursor=%%%",
        "cursor=bm90LWEtY3Vyc29y",
    ],
)
def test_match_list_bad_queries_are_invalid(api, db, query):
    r = api.get(f"/api/v1/matches?{query}")
    assert r.status_code == 400, r.content
    assert r.json()["code"] == "invalid"


def test_moves_list_bad_deal_is_invalid(two_humans):
    r = two_humans[0].get(f"/api/v1/matches/{two_humans['id']}/moves?deal=0")
    assert r.status_code == 400 and r.json()["code"] == "invalid"
