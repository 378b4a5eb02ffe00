"""Tournaments played to the end in-process (bot turns and tournaments.advance run eagerly, after
commit, on the background thread of games.tasks.in_background): standings recounted from
ScoreEntry rows, CSV, the advance task's idempotency."""

from __future__ import annotations

import csv
import io
import threading
from collections import defaultdict

import pytest
from django.db import connection

from games.models import Match, ScoreEntry
from games.tasks import background_wait
from players.models import Player
from players.services import bot_player_get_or_create
from tournaments.models import Round, Table, Tournament
from tournaments.pairing import pairs_of
from tournaments.services import tournament_advance, tournament_create, tournament_start
from tournaments.tasks import tournament_advance_task

from .helpers import accept_all

pytestmark = pytest.mark.django_db(transaction=True)  # bots and the advance task run on commit


def recount(tournament: Tournament) -> dict[str, dict[str, int]]:
    """Standings straight from the ScoreEntry rows and the stored byes (module doc of selectors)."""
    entrants = {str(p) for p in tournament.entrants.values_list("player_id", flat=True)}
    totals: dict[str, dict[str, int]] = {
        p: {"penalty": 0, "deals_won": 0, "deals_played": 0, "byes": 0} for p in entrants
    }
    seat_totals: dict[int, list[int]] = defaultdict(list)
    for table in Table.objects.filter(tournament=tournament).select_related("round", "match"):
        per_seat: dict[int, int] = defaultdict(int)
        for entry in ScoreEntry.objects.filter(match=table.match):
            per_seat[entry.seat] += entry.penalty
            player = str(entry.player_id)
            if player in entrants:
                totals[player]["penalty"] += entry.penalty
                totals[player]["deals_won"] += entry.won
                totals[player]["deals_played"] += 1
        seat_totals[table.round.number] += per_seat.values()
    for rnd in Round.objects.filter(tournament=tournament):
        seats = seat_totals[rnd.number]
        for player in rnd.byes:
            totals[player]["byes"] += 1
            totals[player]["penalty"] += round(sum(seats) / len(seats) + 1e-9)
    return totals


def assert_standings_match_recount(api, tournament: Tournament) -> list[dict]:
    response = api.get(f"/api/v1/tournaments/{tournament.id}/standings")
    assert response.status_code == 200
    results = response.json()["results"]
    expected = recount(tournament)
    assert {r["player"]["id"] for r in results} == set(expected)
    for row in results:
        want = expected[row["player"]["id"]]
        got = {key: row[key] for key in want}
        assert got == want, row
    keys = [(r["penalty"], -r["deals_won"], -r["head_to_head"]) for r in results]
    assert keys == sorted(keys)
    for before, after in zip(results, results[1:], strict=False):
        same = (before["penalty"], before["deals_won"], before["head_to_head"]) == (
            after["penalty"],
            after["deals_won"],
            after["head_to_head"],
        )
        assert (after["rank"] == before["rank"]) == same
    return results


def test_bots_only_round_robin_plays_to_the_end(make_player, client_for, api):
    organizer, token = make_player()
    client = client_for(token)
    bots = [bot_player_get_or_create(strategy="greedy", ordinal=i) for i in range(1, 6)]
    created = client.post(
        "/api/v1/tournaments",
        {
            "name": "Five greedy bots",
            "players": [str(b.id) for b in bots],
            "format": "round_robin",
            "table_size": 2,
            "deals": 1,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["status"] == "draft" and body["rounds_total"] == 5 and body["current_round"] == 0
    started = client.post(f"/api/v1/tournaments/{body['id']}/start")
    assert started.status_code == 200, started.content
    assert background_wait(120)
    tournament = Tournament.objects.get(id=body["id"])
    # The bots played every round in-process; each settled match enqueued tournaments.advance.
    assert tournament.status == "finished" and tournament.current_round == 5
    assert tournament.finished_at is not None
    tables = list(Table.objects.filter(tournament=tournament).select_related("match"))
    assert len(tables) == 10 and all(t.match.status == "finished" for t in tables)
    met = [pair for t in tables for pair in pairs_of(t.match.seat_players)]
    assert sorted(map(sorted, met)) == sorted(map(sorted, pairs_of(str(b.id) for b in bots)))
    assert sorted(p for r in Round.objects.filter(tournament=tournament) for p in r.byes) == sorted(
        str(b.id) for b in bots
    )
    results = assert_standings_match_recount(api, tournament)
    assert all(r["matches"] == 4 and r["byes"] == 1 for r in results)

    # CSV: the same rows, in the same order.
    for url in (
        f"/api/v1/tournaments/{tournament.id}/standings.csv",
        f"/api/v1/tournaments/{tournament.id}/standings?format=csv",
    ):
        response = api.get(url)
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/csv")
        rows = list(csv.DictReader(io.StringIO(response.content.decode())))
        assert [r["player_id"] for r in rows] == [r["player"]["id"] for r in results]
        assert [int(r["penalty"]) for r in rows] == [r["penalty"] for r in results]
        assert [int(r["rank"]) for r in rows] == [r["rank"] for r in results]
        assert rows[0]["is_bot"] == "true" and rows[0]["display_name"].startswith("greedy bot")
    # Once finished, advancing again changes nothing.
    assert tournament_advance(tournament_id=tournament.id) is False


def test_swiss_with_filler_bots_plays_to_the_end(make_player, api):
    organizer, _ = make_player()
    entrants = [bot_player_get_or_create(strategy="random", ordinal=i) for i in range(1, 9)]
    tournament = tournament_create(
        organizer=organizer,
        name="Eight at tables of three",
        format="swiss",
        table_size=3,
        players=[b.id for b in entrants],
        deals=1,
        fill_bots="greedy",
        rounds=2,
    )
    tournament_start(tournament_id=tournament.id, player=organizer)
    assert background_wait(120)
    tournament.refresh_from_db()
    assert tournament.status == "finished" and tournament.current_round == 2
    entrant_ids = {str(b.id) for b in entrants}
    for rnd in Round.objects.filter(tournament=tournament):
        assert rnd.byes == []
        matches = [t.match for t in rnd.tables.select_related("match")]
        assert len(matches) == 3  # 3 + 3 + (2 entrants + 1 greedy bot)
        fillers = [p for m in matches for p in m.seat_players if p not in entrant_ids]
        assert len(fillers) == 1
        assert all(Player.objects.get(id=p).strategy == "greedy" for p in fillers)
    met = [
        pair
        for t in Table.objects.filter(tournament=tournament).select_related("match")
        for pair in pairs_of(p for p in t.match.seat_players if p in entrant_ids)
    ]
    assert len(met) == len(set(met)), "no repeat opponents in round 2"
    results = assert_standings_match_recount(api, tournament)
    assert all(r["matches"] == 2 for r in results)


def test_advance_twice_has_effect_once(make_player):
    """People at the tables: nothing plays by itself. Finish round 1 by hand, then advance twice
    (in a row, and from two threads at once): round 2 is started exactly once."""
    organizer, _ = make_player()
    people = [make_player()[0] for _ in range(4)]
    tournament = tournament_create(
        organizer=organizer,
        name="People",
        format="round_robin",
        table_size=2,
        players=[p.id for p in people],
        deals=1,
    )
    accept_all(tournament.id)
    tournament_start(tournament_id=tournament.id, player=organizer)
    assert tournament_advance(tournament_id=tournament.id) is False  # round 1 still playing
    Match.objects.filter(tournament_table__round__number=1).update(status="finished")

    assert tournament_advance(tournament_id=tournament.id) is True
    assert tournament_advance_task.apply(args=(str(tournament.id),)).get() is False
    tournament.refresh_from_db()
    assert tournament.current_round == 2
    assert Round.objects.filter(tournament=tournament).count() == 2
    assert Table.objects.filter(tournament=tournament).count() == 4

    Match.objects.filter(tournament_table__round__number=2).update(status="finished")
    outcomes: list[bool] = []
    barrier = threading.Barrier(2)

    def run() -> None:
        barrier.wait()
        try:
            outcomes.append(tournament_advance(tournament_id=tournament.id))
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == [False, True]
    assert Round.objects.filter(tournament=tournament).count() == 3
    assert Table.objects.filter(tournament=tournament).count() == 6


def test_a_cancelled_tournaments_round_is_closed_when_its_matches_end(make_player):
    """Cancelled while round 1 plays: the round's matches play on; when they end, the round has
    its finish time, and no round 2 starts."""
    from tournaments.services import tournament_cancel

    organizer, _ = make_player()
    people = [make_player()[0] for _ in range(4)]
    tournament = tournament_create(
        organizer=organizer,
        name="Called off",
        format="swiss",
        table_size=2,
        players=[p.id for p in people],
        deals=1,
        rounds=2,
    )
    accept_all(tournament.id)
    tournament_start(tournament_id=tournament.id, player=organizer)
    tournament_cancel(tournament_id=tournament.id, player=organizer)
    assert tournament_advance(tournament_id=tournament.id) is False  # round 1 still playing
    Match.objects.filter(tournament_table__round__number=1).update(status="finished")
    assert tournament_advance(tournament_id=tournament.id) is True
    assert tournament_advance(tournament_id=tournament.id) is False
    tournament.refresh_from_db()
    assert tournament.status == "cancelled" and tournament.current_round == 1
    rounds = list(Round.objects.filter(tournament=tournament))
    assert len(rounds) == 1 and rounds[0].finished_at is not None


def test_sweep_advances_a_round_whose_advance_was_lost(make_player):
    """No match_settled (the matches are finished by hand here): the beat sweep advances."""
    from tournaments.tasks import sweep

    organizer, _ = make_player()
    people = [make_player()[0] for _ in range(4)]
    tournament = tournament_create(
        organizer=organizer,
        name="Swept",
        format="swiss",
        table_size=2,
        players=[p.id for p in people],
        deals=1,
        rounds=2,
    )
    assert sweep.apply().get() == 0  # a draft is not running
    accept_all(tournament.id)
    tournament_start(tournament_id=tournament.id, player=organizer)
    assert sweep.apply().get() == 0  # round 1 is being played
    Match.objects.filter(tournament_table__round__number=1).update(status="finished")
    assert sweep.apply().get() == 1
    assert sweep.apply().get() == 0
    tournament.refresh_from_db()
    assert tournament.current_round == 2 and tournament.status == "running"
    Match.objects.filter(tournament_table__round__number=2).update(status="finished")
    assert sweep.apply().get() == 1
    tournament.refresh_from_db()
    assert tournament.status == "finished"
