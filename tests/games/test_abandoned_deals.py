"""A deal still being played when its match stops (every person resigned, or deleted their
account) is closed as `abandoned` (docs/api.md, `deals[]` of `<match>`): final, never scored,
counted as no deal played; nobody plays it any more, so its seed, hands, draws, replay and
move analysis are shown as a finished deal's, and for a deal that tables of a duplicate round
share only once every table has finished it. Nothing of it is shown before."""

from __future__ import annotations

import hashlib
import secrets

import pytest

from games import engine
from games.models import Deal, DealAnalysis, DealLuck, Match, Move, ScoreEntry
from games.selectors import deal_problems
from games.services import match_create
from players.models import BoardEntry, Player, RatingHistory
from players.services import bot_player_get_or_create
from tests.helpers import create_match, post_move, state

# Bots, scoring, settlement and the analysis task run on commit: in place, inside the test's
# transaction (conftest.commits_in_place).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("commits_in_place")]


def _deal_routes(match_id: str, number: int = 1) -> dict[str, str]:
    base = f"/api/v1/matches/{match_id}"
    return {
        "deal": f"{base}/deals/{number}",
        "replay": f"{base}/deals/{number}/replay",
        "analysis": f"{base}/deals/{number}/analysis",
    }


def _play_some(client, match_id: str, moves: int) -> dict:
    """The person (seat 0) plays up to `moves` moves of deal 1 against the bot (never its end)."""
    view = state(client, match_id)
    for _ in range(moves):
        if view["turn"] != view["you"] or len(view["hand"]) <= 2:
            break
        response = post_move(client, match_id, view["legal_moves"][-1], view["version"])
        assert response.status_code == 200, response.content
        view = state(client, match_id)
    assert view["status"] == "active" and view["deal"] == 1 and view["phase"] != "deal_over"
    return view


def test_resigning_against_bots_mid_deal_closes_the_deal_and_shows_it_as_finished(
    make_player, client_for, api
):
    player, token = make_player()
    seat = client_for(token)
    match = create_match(seat, seats=2, bots=["greedy"], deals=2)
    routes = _deal_routes(match["id"])
    _play_some(seat, match["id"], 3)
    deal = Deal.objects.get(match_id=match["id"], number=1)
    seed = bytes(deal.seed).hex()

    # While it is played: no seed, no hands, no replay, no analysis, for the seat or anyone.
    for who in (seat, api):
        reveal = who.get(routes["deal"]).json()
        assert reveal["status"] == "active" and reveal["seed"] is None
        assert reveal["hands_at_start"] is None and reveal["moves"] is None
        replay = who.get(routes["replay"])
        assert replay.status_code == 409 and replay.json()["code"] == "deal_not_over"
        assert replay.json()["detail"] == {
            "available": "when the deal is over",
            "deal_status": "active",
        }
        assert seed not in replay.content.decode()
    analysis = seat.get(routes["analysis"])
    assert analysis.status_code == 409 and analysis.json()["code"] == "deal_not_over"
    assert analysis.json()["detail"]["available"] == "when the deal is over"
    deals_before = Player.objects.get(id=player.id).deals_played

    resigned = seat.post(f"/api/v1/matches/{match['id']}/resign")
    assert resigned.status_code == 200, resigned.content
    assert resigned.json()["status"] == "abandoned"
    assert resigned.json()["deals"] == [
        {"number": 1, "status": "abandoned", "winners": [], "reason": None, "penalties": []}
    ]
    summary = api.get(f"/api/v1/matches/{match['id']}").json()
    assert summary["deals"][0]["status"] == "abandoned"
    deal.refresh_from_db()
    assert deal.status == Deal.Status.ABANDONED and deal.finished_at is not None
    assert deal.result is None and deal.scored_at is None

    # Nobody plays it any more: it is shown as a finished deal, to anyone (a public match).
    live = Match.objects.get(id=match["id"]).state
    logged = list(Move.objects.filter(match_id=match["id"], deal_number=1).order_by("seq"))
    assert logged
    for who in (seat, api):
        reveal = who.get(routes["deal"]).json()
        assert reveal["status"] == "abandoned" and reveal["seed"] == seed
        assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == reveal["commitment"]
        assert reveal["hands_at_start"] == deal.hands_at_start
        assert [m["seq"] for m in reveal["moves"]] == [m.seq for m in logged]
        assert all(m["drawn"] is not None for m in reveal["moves"])
        # No end, no score: no result, no cards left, no luck, for good.
        assert reveal["result"] is None and reveal["cards_left"] is None
        assert reveal["luck"] is None
        log = who.get(f"/api/v1/matches/{match['id']}/moves").json()
        assert all(m["drawn"] is not None for m in log)

        response = who.get(routes["replay"])
        assert response.status_code == 200, response.content
        replay = response.json()
        assert replay["seed"] == seed and replay["hands_at_start"] == deal.hands_at_start
        assert replay["result"] is None
        positions = replay["positions"]
        assert len(positions) == len(logged) + 1
        assert positions[0]["state"]["hands"] == deal.hands_at_start
        last = positions[-1]["state"]
        # It ends where it stopped: the engine's position is the one the match held.
        assert last["phase"] != "deal_over" and last["turn"] is not None
        assert last["hands"] == live["hands"]

    # Its move analysis: computed as a finished deal's, over the decisions before it stopped
    # (its task runs on commit here); for anyone now that the match is over.
    first = seat.get(routes["analysis"])
    assert first.status_code == 202 and first.json() == {"status": "pending"}
    ready = api.get(routes["analysis"])
    assert ready.status_code == 200, ready.content
    body = ready.json()
    assert body["status"] == "ready"
    assert {d["seq"] for d in body["decisions"]} <= {m.seq for m in logged if m.seat == 0}
    assert DealAnalysis.objects.get(deal=deal).status == DealAnalysis.Status.READY

    # It counts as no deal played: no score, no luck, no deal on the player's counters or
    # boards, while the match is settled (places, ratings) as an abandoned match always was.
    assert not ScoreEntry.objects.filter(deal=deal).exists()
    assert not DealLuck.objects.filter(deal=deal).exists() and deal.luck_attempts == 0
    after = Player.objects.get(id=player.id)
    assert after.deals_played == deals_before and after.matches == 1
    assert RatingHistory.objects.get(match_id=match["id"], player=player).place == 2
    boards = BoardEntry.objects.filter(player=player).values_list("deals_played", flat=True)
    assert boards and set(boards) == {0}
    # And it replays from its seed as stored (manage.py verify_deals).
    assert deal_problems(Deal.objects.select_related("match").get(id=deal.id)) == []


def test_a_deal_over_as_the_match_is_abandoned_is_scored_and_not_abandoned(make_player, client_for):
    from tests.helpers import end_deal_by_last_card

    player, token = make_player()
    seat = client_for(token)
    match = create_match(seat, seats=2, bots=["greedy"], deals=3)
    # Deal 1 ends: scored on commit here, deal 2 dealt; its scoring is as it always was.
    end_deal_by_last_card(match["id"], player.id, seat=0)
    resigned = seat.post(f"/api/v1/matches/{match['id']}/resign").json()
    assert resigned["status"] == "abandoned"
    assert [(d["number"], d["status"]) for d in resigned["deals"]] == [
        (1, "over"),
        (2, "abandoned"),
    ]
    assert ScoreEntry.objects.filter(match_id=match["id"]).count() == 2  # deal 1's only
    assert [s["total"] for s in resigned["seats"]] == [0, 144]


def test_deleting_the_account_mid_deal_closes_the_deal(make_player, client_for):
    player, token = make_player()
    seat = client_for(token)
    match = create_match(seat, seats=3, bots=["greedy", "random"], deals=2)
    deleted = seat.post("/api/v1/auth/account/delete", {"password": "s3cret-pass"}, format="json")
    assert deleted.status_code == 204, deleted.content
    assert Match.objects.get(id=match["id"]).status == Match.Status.ABANDONED
    assert Deal.objects.get(match_id=match["id"], number=1).status == Deal.Status.ABANDONED


def test_a_table_that_stops_keeps_a_shared_deal_hidden_until_every_table_has_finished_it(
    make_player, client_for, api
):
    """Two tables of a duplicate round (one seed source, as tournaments._round_start makes
    them): Ana's stops in deal 1 (she resigns; a table without a tournament row is not played
    out by its bots), Bob's plays deal 1 on. Ana's deal 1 is closed, but its seed is the one
    Bob is playing: nothing of it is shown until Bob's table has finished it."""
    (ana, ana_token), (bob, bob_token) = make_player(), make_player()
    ana_api, bob_api = client_for(ana_token), client_for(bob_token)
    key = secrets.token_hex(32)
    tables = {}
    for person, ordinal in ((ana, 1), (bob, 2)):
        bot = bot_player_get_or_create(strategy="greedy", ordinal=ordinal)
        tables[person.id] = match_create(
            player=person, seats=2, seated=[person, bot], deals=1, seed_key=key
        )
    a, b = str(tables[ana.id].id), str(tables[bob.id].id)
    assert Match.objects.get(id=a).status == Match.Status.ACTIVE
    seed = bytes(Deal.objects.get(match_id=b, number=1).seed).hex()
    assert bytes(Deal.objects.get(match_id=a, number=1).seed).hex() == seed  # one deal

    assert ana_api.post(f"/api/v1/matches/{a}/resign").json()["status"] == "abandoned"
    assert Deal.objects.get(match_id=a, number=1).status == Deal.Status.ABANDONED
    assert Deal.objects.get(match_id=b, number=1).status == Deal.Status.ACTIVE
    routes = _deal_routes(a)
    waiting = {
        "available": "when every table of the round has finished the deal",
        "deal_status": "abandoned",
    }
    for who in (ana_api, bob_api, api):
        reveal = who.get(routes["deal"])
        assert reveal.status_code == 200 and reveal.json()["status"] == "abandoned"
        assert reveal.json()["seed"] is None and reveal.json()["hands_at_start"] is None
        replay = who.get(routes["replay"])
        assert replay.status_code == 409 and replay.json()["detail"] == waiting
        for url in (routes["deal"], routes["replay"], f"/api/v1/matches/{a}/moves"):
            assert seed not in who.get(url).content.decode()
    analysis = ana_api.get(routes["analysis"])
    assert analysis.status_code == 409 and analysis.json()["detail"] == waiting
    # The stopped table's results wait too: it is not settled while Bob's table plays.
    assert Match.objects.get(id=a).settled_at is None

    # Bob plays deal 1 (his match) to its end: every table has finished the deal.
    view = state(bob_api, b)
    for _ in range(2000):
        if view["status"] != "active":
            break
        response = post_move(bob_api, b, view["legal_moves"][-1], view["version"])
        assert response.status_code == 200, response.content
        view = state(bob_api, b)
    assert view["status"] == "finished"
    for who in (ana_api, api):
        replay = who.get(routes["replay"])
        assert replay.status_code == 200, replay.content
        assert replay.json()["seed"] == seed and replay.json()["result"] is None
        assert who.get(routes["deal"]).json()["seed"] == seed
    assert ana_api.get(routes["analysis"]).status_code in (200, 202)
    # The last table to finish has the stopped one settled with it.
    assert Match.objects.get(id=a).settled_at is not None
    assert Match.objects.get(id=b).settled_at is not None


def test_the_replay_of_an_abandoned_deal_is_rebuilt_by_the_engine(make_player, client_for, api):
    """Each position of an abandoned deal's replay follows from the one before by the move the
    log holds, as for a finished deal."""
    _, token = make_player()
    seat = client_for(token)
    match = create_match(seat, seats=2, bots=["random"], deals=1)
    _play_some(seat, match["id"], 4)
    seat.post(f"/api/v1/matches/{match['id']}/resign")
    replay = api.get(_deal_routes(match["id"])["replay"]).json()
    current = Match.objects.get(id=match["id"])
    deal = Deal.objects.get(match=current, number=1)
    position = engine.new_deal(
        engine.Rules.from_json(current.rules), 2, deal.opener, bytes(deal.seed)
    )
    for step in replay["positions"][1:]:
        move = step["move"]
        body = {k: move[k] for k in ("action", "card", "suit") if move[k] is not None}
        position = engine.apply(position, engine.Move.from_json(body), move["seat"])
        assert step["state"]["hands"] == [[c.code for c in h] for h in position.hands]
    assert not position.is_over
