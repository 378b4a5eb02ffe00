"""`GET /api/v1/matches/{id}/deals/{n}/analysis` (docs/api.md): 409 while the deal is played,
202 pending on the first request (its task runs in-process on commit here), then 200 with every
person's decisions valued from that seat's observation only; one row and one task per deal;
seats only until the match is finished; throttled per user; scanned by the leak scanner."""

from __future__ import annotations

import pytest
from rest_framework.throttling import SimpleRateThrottle

from games import engine
from games.engine.analysis import classify, move_values
from games.models import Deal, DealAnalysis, Match, Move
from games.services import analysis as analysis_service
from games.tasks import sweep
from players.models import Player
from players.services import player_register
from tests.helpers import client_with, commits_run_in_place, create_match, post_move, state
from tests.leakscan import scan_body

# The tasks run on commit: in place, inside the test's transaction
# (conftest.commits_in_place).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("commits_in_place")]


def play_until_deal(client, match_id, number, limit=2000):
    """The person (seat 0) plays its last legal move until deal `number` is live (or the end)."""
    view = state(client, match_id)
    for _ in range(limit):
        if view["status"] != "active" or view["deal"] == number:
            return view
        response = post_move(client, match_id, view["legal_moves"][-1], view["version"])
        assert response.status_code == 200, response.content
        view = state(client, match_id)
    raise AssertionError("the match did not get there")


@pytest.fixture(scope="module")
def _table_once(module_rows):
    """Played once for the module (conftest.module_rows): each test reads it in a savepoint."""
    with commits_run_in_place():
        player, token = player_register(username="analysis-seat", password="s3cret-pass")
        _, other_token = player_register(username="analysis-other", password="s3cret-pass")
        client = client_with(token)
        match = create_match(client, seats=2, bots=["greedy"], deals=2)
        view = play_until_deal(client, match["id"], 2)
    assert view["status"] == "active" and view["deal"] == 2
    return player.id, token, other_token, match["id"]


@pytest.fixture
def table(_table_once, db):
    """A person against the greedy bot, two deals: deal 1 over, deal 2 being played."""
    player_id, token, other_token, match_id = _table_once
    return {
        "id": match_id,
        "player": Player.objects.get(id=player_id),
        "seat": client_with(token),
        "other": client_with(other_token),
        "url": f"/api/v1/matches/{match_id}/deals/1/analysis",
    }


def test_a_live_deal_is_409_deal_not_over_naming_when(table):
    response = table["seat"].get(f"/api/v1/matches/{table['id']}/deals/2/analysis")
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "deal_not_over" and "once it is over" in body["message"]
    assert body["detail"]["available"] == "when the deal is over"
    assert not DealAnalysis.objects.exists()


def test_pending_then_ready_and_cached(table):
    first = table["seat"].get(table["url"])
    assert first.status_code == 202 and first.json() == {"status": "pending"}
    row = DealAnalysis.objects.get()
    assert row.status == "ready" and row.cpu_seconds > 0  # computed on commit (eager tasks)
    ready = table["seat"].get(table["url"])
    assert ready.status_code == 200
    body = ready.json()
    assert body["status"] == "ready" and body["samples"] == row.samples and body["bot"] == "greedy"
    assert body["thresholds"] == {
        "inaccuracy": 3.0,
        "mistake": 8.0,
        "blunder": 20.0,
        "significance_z": 2.0,
    }
    again = table["seat"].get(table["url"])
    assert again.json() == body
    assert DealAnalysis.objects.count() == 1
    assert DealAnalysis.objects.get().finished_at == row.finished_at  # computed once


def test_each_persons_decision_is_valued_from_its_observation(table, settings):
    table["seat"].get(table["url"])
    decisions = table["seat"].get(table["url"]).json()["decisions"]
    match = Match.objects.get(id=table["id"])
    deal = Deal.objects.get(match=match, number=1)
    rows = list(Move.objects.filter(match=match, deal_number=1).order_by("seq"))
    # Replay the deal: every decision of seat 0 (the person) with 2+ legal moves, and no other.
    rules = engine.Rules.from_json(match.rules)
    position = engine.new_deal(rules, 2, deal.opener, bytes(deal.seed))
    expected_seqs, observations = [], {}
    for index, row in enumerate(rows):
        observation = engine.observe(position, position.turn)
        if position.turn == 0 and len(observation.legal_moves) > 1:
            expected_seqs.append(row.seq)
            observations[row.seq] = (index, observation)
        body = {"action": row.action, "card": row.card, "suit": row.suit}
        position = engine.apply(
            position, engine.Move.from_json({k: v for k, v in body.items() if v})
        )
    assert [d["seq"] for d in decisions] == expected_seqs and expected_seqs
    for decision in decisions:
        row = next(r for r in rows if r.seq == decision["seq"])
        assert decision["seat"] == 0 and decision["by_bot"] is False
        assert decision["played"]["action"] == row.action
        assert decision["played"].get("card") == row.card
        values = [v["value"] for v in decision["values"]]
        assert len(values) >= 2
        assert decision["best_value"] == min(values)
        assert decision["loss"] == pytest.approx(decision["played_value"] - decision["best_value"])
        assert decision["verdict"] == classify(decision["loss"], decision["loss_stderr"])
    # Reproducible from the seat's observation alone (no hidden card), with K, bot and seed:
    # the K stored with the analysis (ANALYSIS_MOVE_SAMPLES, fewer for a long deal).
    stored = DealAnalysis.objects.get(deal=deal)
    assert 1 <= stored.samples <= settings.ANALYSIS_MOVE_SAMPLES
    first = decisions[0]
    index, observation = observations[first["seq"]]
    played = engine.Move.from_json(first["played"])
    again = move_values(
        observation,
        played,
        k=stored.samples,
        bot="greedy",
        seed=f"{analysis_service.moves_seed(deal)}:{index}",
    )
    assert [v for _, v in again.values] == pytest.approx([v["value"] for v in first["values"]])


def test_only_seats_before_the_match_is_finished_then_everyone(table, api, make_player):
    other = table["other"].get(table["url"])
    assert other.status_code == 403 and other.json()["code"] == "not_seated"
    anonymous = api.get(table["url"])
    assert anonymous.status_code == 401 and anonymous["WWW-Authenticate"] == "Token"
    assert not DealAnalysis.objects.exists()  # a refused request changes nothing
    play_until_deal(table["seat"], table["id"], 3)
    assert Match.objects.get(id=table["id"]).status == "finished"
    assert api.get(table["url"]).status_code == 202  # public once finished
    assert table["other"].get(table["url"]).status_code == 200


def test_a_finished_match_closed_to_spectators_is_refused_as_its_replay_is(table, api):
    """Its analysis, as every read of it, is for its seats: anyone else is told the match is
    closed to spectators (not that it is unfinished)."""
    play_until_deal(table["seat"], table["id"], 3)
    Match.objects.filter(id=table["id"]).update(spectators="none")
    for client in (table["other"], api):
        refused = client.get(table["url"])
        assert refused.status_code == 403, refused.content
        assert refused.json()["code"] == "spectators_not_allowed"
    assert not DealAnalysis.objects.exists()
    assert table["seat"].get(table["url"]).status_code == 202


def test_unknown_match_or_deal_is_404(table):
    missing = "/api/v1/matches/00000000-0000-0000-0000-000000000000/deals/1/analysis"
    assert table["seat"].get(missing).json()["code"] == "not_found"
    response = table["seat"].get(f"/api/v1/matches/{table['id']}/deals/9/analysis")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_a_raced_first_request_reads_the_winners_row_and_sends_no_second_task(table, monkeypatch):
    """Two first requests: the second's insert trips the named unique constraint after the
    first has committed its row; it answers with that row and sends nothing."""
    table["seat"].get(table["url"])
    existing = DealAnalysis.objects.get()
    sent = []
    monkeypatch.setattr(analysis_service, "send_on_commit", lambda *a: sent.append(a))
    # The read before the insert misses (the other request had not committed yet).
    real_filter = DealAnalysis.objects.filter
    misses = iter([True])

    def filter_once_missing(*args, **kwargs):
        queryset = real_filter(*args, **kwargs)
        return queryset.none() if next(misses, False) else queryset

    monkeypatch.setattr(DealAnalysis.objects, "filter", filter_once_missing)
    found = analysis_service.deal_analysis_request(
        match_id=table["id"], number=1, player=table["player"]
    )
    assert found.id == existing.id and sent == []
    assert DealAnalysis.objects.count() == 1


def test_the_analysis_route_is_throttled_per_user(table, monkeypatch):
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "deal_analysis": "2/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    assert table["seat"].get(table["url"]).status_code == 202
    assert table["seat"].get(table["url"]).status_code == 200
    third = table["seat"].get(table["url"])
    assert third.status_code == 429 and third.json()["code"] == "throttled"
    assert third["Retry-After"]
    # Another user has a count of their own.
    assert table["other"].get(table["url"]).status_code == 403


def test_a_lost_analysis_task_is_resent_by_the_sweeper(table, monkeypatch, settings):
    monkeypatch.setattr(analysis_service, "send_on_commit", lambda *a: None)  # lost
    assert table["seat"].get(table["url"]).status_code == 202
    assert DealAnalysis.objects.get().status == "pending"
    monkeypatch.undo()
    settings.GAMES_STUCK_SECONDS = -5  # everything counts as stuck
    settings.ANALYSIS_STUCK_SECONDS = -5
    assert sweep.apply().get()["analyses"] == 1
    assert DealAnalysis.objects.get().status == "ready"
    assert table["seat"].get(table["url"]).status_code == 200
    assert sweep.apply().get()["analyses"] == 0


def test_the_leak_scanner_scans_the_analysis_route(table):
    """A card hidden from the caller in the live deal, in an analysis body of that deal, is
    a violation; the same card in the analysis of a deal that is over is not."""
    match = Match.objects.get(id=table["id"])
    hidden = engine.State.from_json(match.state).hands[1][0].code
    body = {"status": "ready", "decisions": [{"played": {"action": "play", "card": hidden}}]}
    seat0 = str(table["player"].id)
    base = f"/api/v1/matches/{table['id']}/deals"
    assert scan_body(f"{base}/2/analysis", body, "", seat0)
    assert scan_body(f"{base}/1/analysis", body, "", seat0) == []


def test_a_shared_deal_is_analysed_only_once_every_table_has_finished_it(make_player, client_for):
    """Two tables of a duplicate round (one seed source): deal 1 is over at the first table and
    still being played at the second, so its analysis is 409 at the first too."""
    from games.services import match_create

    key = "ab" * 32
    (first, first_token), (second, _) = make_player(), make_player()
    bot = match_create(player=first, seats=2, bots=["greedy"], deals=2, seed_key=key)
    match_create(player=second, seats=2, bots=["greedy"], deals=2, seed_key=key)
    client = client_for(first_token)
    assert play_until_deal(client, str(bot.id), 2)["deal"] == 2
    response = client.get(f"/api/v1/matches/{bot.id}/deals/1/analysis")
    assert response.status_code == 409 and response.json()["code"] == "deal_not_over"
    assert "every table" in response.json()["detail"]["available"]
    assert not DealAnalysis.objects.exists()
