"""Secrecy across the tables of a duplicate round: while table B still plays deal 1, nothing any
viewer gets from any route or event tells anything about deal 1 beyond what that viewer saw at
their own table. Table A has finished deal 1 (and plays deal 2); every GET route of the API and
every event log is then read as each entrant, an outsider and an anonymous client.

The scan (tests/leakscan.py's ideas, applied to a deal shared by two tables):
- the seed of deal 1 appears nowhere;
- in a part of a body about deal 1 (a `deal: 1` member, or the `…/deals/1` route), a viewer seated
  at that table sees only the cards of their own observation there: their hand at the start, the
  cards they drew, the cards played face up at that table and the first top card; a viewer not
  seated there sees no card at all; a tournament route has no card at all;
- the public summary of table A shows no result of deal 1 and no total that counts it.
A table over counts in the standings (`matches`) only once the other has finished too.
Once table B has finished deal 1, the reveal of both tables shows the one seed (its commitment
shared), and the same hands seat by seat.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pytest

from games import engine
from games.models import Deal, Match, Move
from games.serializers import match_view
from live.hub import me_log
from live.streams import _match_read
from tournaments.models import Table

from .helpers import accept_all

pytestmark = pytest.mark.django_db(transaction=True)

CARD_RE = re.compile(r"^(?:[2-9]|10|[JQKA])[CDHS]$")


def _cards(body: Any, wanted: int, context: int | None = None) -> list[str]:
    """Card-like strings of `body` in a part about deal `wanted` (context None: unknown)."""
    found: list[str] = []
    if isinstance(body, dict):
        deal = body.get("deal")
        if isinstance(deal, int) and not isinstance(deal, bool):
            context = deal
        for value in body.values():
            found += _cards(value, wanted, context)
    elif isinstance(body, list):
        for value in body:
            found += _cards(value, wanted, context)
    elif isinstance(body, str) and CARD_RE.match(body) and context in (None, wanted):
        found.append(body)
    return found


def _seen_at_table(match: Match, seat: int, number: int) -> set[str]:
    """What seat `seat` of `match` legitimately saw of deal `number` there."""
    deal = Deal.objects.get(match=match, number=number)
    seen = set(deal.hands_at_start[seat])
    state = engine.new_deal(
        engine.Rules.from_json(match.rules), match.seat_count, deal.opener, bytes(deal.seed)
    )
    seen.update(c.code for c in state.pile)
    for move in Move.objects.filter(match=match, deal_number=number):
        if move.card:
            seen.add(move.card)
        if move.seat == seat:
            seen.update(move.drawn)
    return seen


def _play_one(client_of: dict[str, Any], match: Match) -> None:
    """The person on turn at `match` plays their first legal move, through the API."""
    match.refresh_from_db()
    turn = match.state["turn"]
    client = client_of[match.seat_players[turn]]
    state = client.get(f"/api/v1/matches/{match.id}/state").json()
    assert state["turn"] == state["you"] and state["legal_moves"], state
    body = {**state["legal_moves"][0], "version": state["version"]}
    response = client.post(f"/api/v1/matches/{match.id}/moves", body, format="json")
    assert response.status_code == 200, response.content


def _two_tables(
    make_player: Any, client_for: Any, **body: Any
) -> tuple[str, Match, Match, dict[str, Any]]:
    """A duplicate tournament of four people at two 2-seat tables (`body`: more of its
    fields), started: its id, its tables A and B, and each entrant's client by player id."""
    _organizer, organizer_token = make_player()
    people = [make_player() for _ in range(4)]
    created = client_for(organizer_token).post(
        "/api/v1/tournaments",
        {
            "name": "Duplicate tables",
            "players": [str(p.id) for p, _ in people],
            "format": "duplicate",
            "table_size": 2,
            "turn_seconds": 3600,
            **body,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    tid = created.json()["id"]
    accept_all(tid)
    assert client_for(organizer_token).post(f"/api/v1/tournaments/{tid}/start").status_code == 200
    a, b = [t.match for t in Table.objects.filter(tournament_id=tid).order_by("number")]
    return tid, a, b, {str(p.id): client_for(t) for p, t in people}


def test_nothing_of_a_deal_another_table_still_plays_reaches_any_viewer(
    make_player, client_for, api
):
    tid, a, b, client_of = _two_tables(make_player, client_for, deals=2)

    # Table A plays deal 1 to its end (and deals 2); table B plays two moves of deal 1.
    while Match.objects.get(id=a.id).current_deal == 1:
        _play_one(client_of, a)
    a.refresh_from_db()
    assert a.current_deal == 2 and a.status == "active"
    for _ in range(2):
        _play_one(client_of, b)
    b.refresh_from_db()
    assert b.current_deal == 1 and b.live_deal.status == "active"
    seed = bytes(Deal.objects.get(match=a, number=1).seed).hex()
    assert seed == bytes(b.live_deal.seed).hex()  # the same deal at both tables

    _outsider, outsider_token = make_player()
    viewers: dict[str, Any] = {"anonymous": api, "outsider": client_for(outsider_token)}
    viewers.update(client_of)
    routes = [
        "/api/v1/matches",
        "/api/v1/matches?status=active",
        "/api/v1/leaderboard",
        "/api/v1/leaderboards",
        "/api/v1/bots",
        "/api/v1/players/me",
        "/api/v1/tournaments",
        f"/api/v1/tournaments/{tid}",
        f"/api/v1/tournaments/{tid}/standings",
        f"/api/v1/tournaments/{tid}/standings.csv",
        f"/api/v1/tournaments/{tid}/standings?format=csv",
        f"/api/v1/tournaments/{tid}/tables",
        f"/api/v1/tournaments/{tid}/tables?mine=true",
    ]
    for person in client_of:
        routes += [f"/api/v1/players/{person}", f"/api/v1/players/{person}/history"]
    for match in (a, b):
        routes += [
            f"/api/v1/matches/{match.id}",
            f"/api/v1/matches/{match.id}/state",
            f"/api/v1/matches/{match.id}/moves",
            f"/api/v1/matches/{match.id}/moves?deal=1",
            f"/api/v1/matches/{match.id}/deals/1",
            f"/api/v1/matches/{match.id}/deals/2",
        ]
    problems: list[str] = []
    scanned = 0
    for name, client in viewers.items():
        for route in routes:
            response = client.get(route)
            assert response.status_code < 500, (route, response.content)
            raw = response.content.decode()
            scanned += 1
            if seed in raw:
                problems.append(f"{name} {route}: the seed of deal 1")
            if response.status_code >= 400 or not raw:
                continue
            if not response["Content-Type"].startswith("application/json"):
                if any(CARD_RE.match(cell) for cell in re.split(r"[,\r\n]", raw)):
                    problems.append(f"{name} {route}: a card in a CSV")
                continue
            body = json.loads(raw)
            match = next((m for m in (a, b) if str(m.id) in route), None)
            if match is None:
                if _cards(body, 1):
                    problems.append(f"{name} {route}: cards {_cards(body, 1)}")
                continue
            seat = match.seat_players.index(name) if name in match.seat_players else None
            context = 1 if route.endswith("/deals/1") else None
            cards = _cards(body, 1, context)
            if seat is None:
                if cards:
                    problems.append(f"{name} {route}: cards {cards} of another table")
                continue
            if match.id == b.id:
                continue  # the live deal of the viewer's own table: tests/leakscan.py scans it
            extra = set(cards) - _seen_at_table(match, seat, 1)
            if extra:
                problems.append(f"{name} {route}: {sorted(extra)} unseen at their table")
    # Events: the match stream sends each seat's view (live.streams), the me log ids only.
    for match in (a, b):
        for seat, player in enumerate(match.seat_players):
            row, state = _match_read(match.id)  # what the stream renders (_seat_render)
            view = match_view(row, seat, state)
            raw = json.dumps(view, default=str)
            scanned += 1
            if seed in raw:
                problems.append(f"stream of {player}: the seed")
            if match.id == a.id:
                extra = set(_cards(view, 1)) - _seen_at_table(match, seat, 1)
                if extra:
                    problems.append(f"stream of {player} at A: {sorted(extra)}")
    for player in client_of:
        _, logged = me_log(player, 0)
        raw = json.dumps(logged)
        scanned += 1
        if seed in raw or _cards(logged, 1):
            problems.append(f"me events of {player}: {raw[:200]}")
    assert scanned > 100
    assert not problems, problems[:10]

    # Deal 1 of table A, over there but live at B: no result, no total counting it, no reveal.
    summary = api.get(f"/api/v1/matches/{a.id}").json()
    first = next(d for d in summary["deals"] if d["number"] == 1)
    assert first["status"] == "over" and first["winners"] == [] and first["penalties"] == []
    assert [s["total"] for s in summary["seats"]] == [0, 0]
    # Nor do the players' public counters: a deal shared with a table still in it counts once
    # every table has finished the whole round's deals (games.services.scoring).
    for player in a.seat_players:
        stats = api.get(f"/api/v1/players/{player}").json()["stats"]
        assert stats["deals_played"] == 0 and stats["penalty_points"] == 0, stats
        assert stats["luck_deals"] == 0, stats  # deal 1's luck is analysed, and held back
        assert stats["skill_deals"] == 0 and stats["mean_skill"] is None, stats
    reveal = api.get(f"/api/v1/matches/{a.id}/deals/1").json()
    assert reveal["seed"] is None and reveal["hands_at_start"] is None
    assert reveal["moves"] is None and reveal["result"] is None
    assert reveal["commitment"] == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    for player in a.seat_players:
        moves = client_of[player].get(f"/api/v1/matches/{a.id}/moves?deal=1").json()
        seat = a.seat_players.index(player)
        hidden = [m for m in moves if m["action"] == "draw" and m["seat"] != seat]
        assert all(m["drawn"] is None for m in hidden)

    # B finishes deal 1: now both tables reveal it, the same deal, checkable by anyone.
    while Match.objects.get(id=b.id).current_deal == 1:
        _play_one(client_of, b)
    reveals = [api.get(f"/api/v1/matches/{m.id}/deals/1").json() for m in (a, b)]
    assert [r["seed"] for r in reveals] == [seed, seed]
    assert reveals[0]["commitment"] == reveals[1]["commitment"]
    assert reveals[0]["hands_at_start"] == reveals[1]["hands_at_start"]
    assert all(r["result"] is not None and r["moves"] for r in reveals)
    summary = api.get(f"/api/v1/matches/{a.id}").json()
    first = next(d for d in summary["deals"] if d["number"] == 1)
    assert first["penalties"] == reveals[0]["result"]["penalties"]
    assert [s["total"] for s in summary["seats"]] == first["penalties"]


def test_a_finished_table_counts_in_the_standings_only_once_every_table_of_its_round_has(
    make_player, client_for, api
):
    tid, a, b, client_of = _two_tables(make_player, client_for, deals=1, rounds=1)
    while Match.objects.get(id=a.id).status == "active":
        _play_one(client_of, a)
    assert Match.objects.get(id=a.id).status == "finished"
    _play_one(client_of, b)

    def counted() -> dict[str, tuple[int, int, int]]:
        rows = api.get(f"/api/v1/tournaments/{tid}/standings").json()["results"]
        return {
            r["player"]["id"]: (r["matches"], r["deals_played"], r["head_to_head"]) for r in rows
        }

    # Table A is over, table B still plays the same deal: A counts nowhere yet.
    assert set(counted().values()) == {(0, 0, 0)}, counted()
    while Match.objects.get(id=b.id).status == "active":
        _play_one(client_of, b)
    assert all(matches == 1 and deals == 1 for matches, deals, _ in counted().values())
