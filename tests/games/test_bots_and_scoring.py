"""Bot seats (every bot of the engine), deal scoring, match end and the R-32 extra deal."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import engine
from games.engine.bots import BOTS, Bot
from games.engine.history import deal_log, seen_by
from games.models import Deal, Match, Move, ScoreEntry
from games.services import match_play_bot_turn
from games.services import moves as moves_service
from players.models import Player
from tests.helpers import create_match, post_move, state

# Bots run on commit: in place, inside the test's transaction
# (conftest.commits_in_place).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("commits_in_place")]


def play_as_human(client, match_id, limit=1000):
    view = state(client, match_id)
    for _ in range(limit):
        if view["status"] != "active":
            return view
        assert view["turn"] == 0, "bots answer before the human's response returns"
        response = post_move(client, match_id, view["legal_moves"][-1], view["version"])
        assert response.status_code == 200, response.content
        view = state(client, match_id)
    raise AssertionError("the match did not finish")


@pytest.mark.parametrize("strategy", sorted(BOTS))
def test_every_bot_fills_a_seat_and_plays_a_whole_match(make_player, client_for, strategy):
    player, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=2, bots=[strategy], deals=1)
    final = play_as_human(client, match["id"])
    assert final["status"] == "finished" and final["phase"] == "match_over"
    assert Move.objects.filter(match_id=match["id"], by_bot=True, seat=1).exists()
    assert not Move.objects.filter(match_id=match["id"], by_bot=True, seat=0).exists()
    bot = Player.objects.get(id=match["seats"][1]["player"]["id"])
    assert bot.is_bot and bot.strategy == strategy and bot.matches >= 1


def test_four_seats_one_human_three_bots(make_player, client_for):
    _, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=4, bots=["greedy", "random", "greedy"], deals=2)
    final = play_as_human(client, match["id"])
    assert final["status"] == "finished"
    m = Match.objects.get(id=match["id"])
    assert m.current_deal == 2 and ScoreEntry.objects.filter(match=m).count() == 8
    # deal 2 is opened by seat 1 (a bot), so the bots played before the human could.
    deal2 = Deal.objects.get(match=m, number=2)
    assert deal2.opener == 1
    assert Move.objects.filter(match=m, deal_number=2).order_by("seq").first().seat == 1
    seqs = list(Move.objects.filter(match=m).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    # One version step at the start, one per move, one per deal scored (next deal or the end).
    assert m.version == 1 + len(seqs) + 2


def test_bot_turn_task_is_idempotent(make_player, client_for):
    _, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=2, bots=["greedy"], deals=1)
    view = state(client, match["id"])
    # A human on turn: the task does nothing, whatever the version.
    assert match_play_bot_turn(match_id=match["id"], version=view["version"]) is False
    response = post_move(client, match["id"], view["legal_moves"][0], view["version"])
    assert response.status_code == 200
    moves = Move.objects.filter(match_id=match["id"]).count()
    # The bot already answered in-process; replaying the old task is a no-op.
    assert match_play_bot_turn(match_id=match["id"], version=view["version"] + 1) is False
    assert Move.objects.filter(match_id=match["id"]).count() == moves


def _force_live_state(match_id, state):
    Match.objects.filter(id=match_id).update(state=state.to_json())


def _two_people_at(make_player, client_for, hands, top, stock, deals, rules=None):
    """Two people at a new match of `deals` deals (and `rules`) whose live deal is forced to
    `hands`, `top` and `stock`, seat 0 on turn in phase play: seat 0's client, the match (as
    created) and the position."""
    _, ta = make_player()
    _, tb = make_player()
    ca, cb = client_for(ta), client_for(tb)
    match = create_match(ca, deals=deals, **({"rules": rules} if rules else {}))
    assert cb.post(f"/api/v1/matches/{match['id']}/join").status_code == 200
    game_rules = engine.Rules.from_json(Match.objects.get(id=match["id"]).rules)
    position = engine.deal_from_codes(
        hands=hands, top=top, stock=stock, turn=0, rules=game_rules, phase="play"
    )
    _force_live_state(match["id"], position)
    return ca, match, position


def test_extra_deal_breaks_a_shared_lowest_total(make_player, client_for):
    # Seat 0 draws the last stock card: both hands are then worth 28, both win with
    # 0 each, the lowest total is shared, so another deal follows (R-32 extra_deal).
    ca, match, _ = _two_people_at(
        make_player,
        client_for,
        ["5H 3S", "10C 9D 9H"],
        "9S",
        ["7D"],
        deals=1,
        rules={"match_tiebreak": "extra_deal"},
    )
    view = state(ca, match["id"])
    assert {"action": "draw"} in view["legal_moves"]
    response = post_move(ca, match["id"], {"action": "draw"}, view["version"])
    assert response.status_code == 200, response.content
    # The move's answer shows the deal over with its result; games.score_deal (on commit,
    # in-process here) then deals the extra deal.
    assert response.json()["phase"] == "deal_over" and response.json()["deal"] == 1
    assert response.json()["result"]["reason"] == "stock_exhausted"
    m = Match.objects.get(id=match["id"])
    deal1 = Deal.objects.get(match=m, number=1)
    assert deal1.result["reason"] == "stock_exhausted" and deal1.scored_at is not None
    assert m.status == "active" and m.deals_total == 2 and m.current_deal == 2
    after = state(ca, match["id"])
    assert (
        after["deal"] == 2 and after["deals_total"] == 2 and after["version"] == view["version"] + 2
    )


def test_the_move_that_ends_a_deal_closes_it_in_its_one_guarded_write(make_player, client_for):
    """R-28: the move that ends the deal writes its Move row, the match's final state and the
    Deal's close (status, result, final state) together; on PostgreSQL in the one statement
    guarded by the version read, as every move (docs/architecture.md "A move, end to end",
    step 5), with no lock taken. Its answer shows the deal over; the deal is scored on commit."""
    ca, match, position = _two_people_at(
        make_player, client_for, ["7D", "10C 9H 4S"], "9D", ["2C", "4C", "6S"], deals=2
    )
    view = state(ca, match["id"])
    with CaptureQueriesContext(connection) as captured:
        response = post_move(ca, match["id"], {"action": "play", "card": "7D"}, view["version"])
    assert response.status_code == 200, response.content
    assert response.json()["phase"] == "deal_over" and response.json()["deal"] == 1
    result = response.json()["result"]
    assert result["reason"] == "shed" and result["winners"] == [0]
    deal1 = Deal.objects.get(match_id=match["id"], number=1)
    assert deal1.status == Deal.Status.OVER and deal1.result["reason"] == "shed"
    assert engine.State.from_json(deal1.final_state).hands[1] == position.hands[1]
    assert deal1.scored_at is not None  # games.deal_score, on commit (in-process here)
    assert Move.objects.filter(match_id=match["id"], deal_number=1).count() == 1
    if connection.vendor == "postgresql":
        statements = [
            q["sql"]
            for q in captured.captured_queries
            if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))
        ]
        (at,) = [i for i, s in enumerate(statements) if s.startswith("WITH updated AS (UPDATE")]
        read, write = statements[at - 1 : at + 1]
        assert at == 1 and read.startswith("SELECT") and "FOR UPDATE" not in read
        assert '"games_move"' in write and 'UPDATE "games_deal"' in write


def test_shared_tiebreak_ends_with_shared_first_place(make_player, client_for):
    ca, match, _ = _two_people_at(
        make_player, client_for, ["5H 3S", "10C 9D 9H"], "9S", ["7D"], deals=1
    )
    view = state(ca, match["id"])
    assert post_move(ca, match["id"], {"action": "draw"}, view["version"]).status_code == 200
    detail = ca.get(f"/api/v1/matches/{match['id']}").json()
    assert detail["status"] == "finished"
    assert [s["place"] for s in detail["seats"]] == [1, 1]
    entries = list(ScoreEntry.objects.filter(match_id=match["id"]).order_by("seat"))
    assert [(e.penalty, e.hand_penalty, e.won) for e in entries] == [(0, 28, True), (0, 28, True)]


def test_shed_win_scores_with_multiplier_and_cards_left(make_player, client_for):
    _, ta = make_player()
    _, tb = make_player()
    ca, cb = client_for(ta), client_for(tb)
    match = create_match(ca, deals=1)
    assert cb.post(f"/api/v1/matches/{match['id']}/join").status_code == 200
    rules = engine.Rules.from_json(Match.objects.get(id=match["id"]).rules)
    # R-31 example: last card 7D; a hand of JS 7C 3H scores (25+20+3)×3 = 144.
    position = engine.deal_from_codes(
        hands=["7D", "JS 7C 3H"], top="9D", stock=["2C", "4C"], turn=0, rules=rules, phase="play"
    )
    _force_live_state(match["id"], position)
    view = state(ca, match["id"])
    assert (
        post_move(ca, match["id"], {"action": "play", "card": "7D"}, view["version"]).status_code
        == 200
    )
    loser = ScoreEntry.objects.get(match_id=match["id"], seat=1)
    assert (loser.penalty, loser.hand_penalty, loser.multiplier) == (144, 48, 3)
    assert sorted(loser.cards_left) == sorted(["JS", "7C", "3H"])
    assert ca.get(f"/api/v1/matches/{match['id']}").json()["seats"][1]["total"] == 144


def test_a_bot_that_reads_the_log_gets_the_deal_as_its_seat_saw_it(
    make_player, client_for, monkeypatch
):
    """The bot turn gives a log-reading bot the live deal's moves as its seat sees them (the
    cards of its own draws, the count of the others'), replayed from the deal's seed."""
    seen = []

    def spy(observation, rng, history):
        seen.append((observation, history))
        return BOTS["greedy"].policy(observation, rng, history)

    monkeypatch.setitem(BOTS, "expert", Bot("expert", "spy", spy, reads_history=True))
    _, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=2, bots=["expert"], deals=1)
    play_as_human(client, match["id"])
    assert seen
    m = Match.objects.get(id=match["id"])
    deal = Deal.objects.get(match=m, number=1)
    rows = list(Move.objects.filter(match=m, deal_number=1).order_by("seq"))
    moves = [
        engine.Move.from_json(
            {
                "action": r.action,
                **({"card": r.card} if r.card else {}),
                **({"suit": r.suit} if r.suit else {}),
            }
        )
        for r in rows
    ]
    rules = engine.Rules.from_json(m.rules)
    full = deal_log(rules, 2, deal.opener, bytes(deal.seed), moves)
    assert [e.drawn for e in full] == [tuple(engine.cards(r.drawn)) for r in rows]
    for observation, history in seen:
        assert history == seen_by(full[: len(history)], 1)
        assert all(not e.drawn for e in history if e.seat == 0)
        counts = list(history[0].before.hand_counts) if history else None
        assert counts is None or counts == [rules.hand_size] * 2
        assert observation.you == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the guarded write is PostgreSQL's")
@pytest.mark.parametrize("deal_ends", [False, True])
def test_a_bot_turn_overtaken_between_its_read_and_its_write_writes_nothing(
    make_player, client_for, monkeypatch, deal_ends
):
    """A bot turn reads the match without the lock and thinks holding none; its move is
    written only if the match is still at the version it read (docs/architecture.md "A move,
    end to end", step 8), the deal's close with it where the move ends the deal. The same turn
    run again lands between the two: the first writes nothing and answers "done"."""
    _, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=2, bots=["greedy"], deals=1)
    rules = engine.Rules.from_json(Match.objects.get(id=match["id"]).rules)
    hands = ["5H 3S 9C", "7D"] if deal_ends else ["5H 3S 9C", "4D 10D KC"]
    position = engine.deal_from_codes(
        hands=hands, top="9D", stock=["2C", "4C", "6S"], turn=1, rules=rules, phase="play"
    )
    _force_live_state(match["id"], position)
    version = Match.objects.get(id=match["id"]).version
    calls: list[bool] = []
    apply = engine.apply
    chosen: list[str] = []
    bot_of = moves_service.get_bot

    def counted(strategy):  # each bot's choice the turns make
        chosen.append(strategy)
        return bot_of(strategy)

    monkeypatch.setattr(moves_service, "get_bot", counted)

    def overtaking(*args, **kwargs):  # the first call only: the overtaking turn's is the second
        calls.append(True)
        if len(calls) == 1:
            calls.append(match_play_bot_turn(match_id=match["id"], version=version))
        return apply(*args, **kwargs)

    monkeypatch.setattr(engine, "apply", overtaking)
    moved = match_play_bot_turn(match_id=match["id"], version=version)
    monkeypatch.undo()
    moves = list(Move.objects.filter(match_id=match["id"]).values_list("seat", "card", "by_bot"))
    assert moved is False and calls[1] is True  # the overtaking turn moved; this one not
    assert chosen == ["greedy", "greedy"]
    assert len(moves) == 1 and moves[0][0] == 1 and moves[0][2] is True
    written = Match.objects.get(id=match["id"])
    deal = Deal.objects.get(match_id=match["id"], number=1)
    if deal_ends:
        assert moves == [(1, "7D", True)]
        assert deal.status == Deal.Status.OVER and deal.result["reason"] == "shed"
        assert deal.final_state == written.state
        assert engine.State.from_json(written.state).is_over
    else:
        assert deal.status == Deal.Status.ACTIVE and deal.result is None
    # The move's version; where it ended the deal, games.deal_score's (on commit) after it.
    assert written.version == version + (2 if deal_ends else 1)
