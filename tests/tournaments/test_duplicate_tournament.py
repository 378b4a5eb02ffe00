"""Duplicate tournaments (`format: duplicate`): entrant counts that do not fit are refused, every
table of a round plays the same deals (shared commitments, same hands seat by seat), and the
standings rank by matchpoints, recounted here from the ScoreEntry rows."""

from __future__ import annotations

import csv
import io
from collections import defaultdict

import pytest

from games.models import Deal, Match, ScoreEntry
from games.tasks import background_wait
from players.services import bot_player_get_or_create
from tournaments.models import Round, Table, Tournament
from tournaments.selectors import _matchpoints

pytestmark = pytest.mark.django_db(transaction=True)  # bots and the advance task run on commit


def _error(response, status: int) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    return body.get("error", body)


def _bots(strategies: list[str]) -> list[str]:
    count: dict[str, int] = defaultdict(int)
    ids = []
    for name in strategies:
        count[name] += 1
        ids.append(str(bot_player_get_or_create(strategy=name, ordinal=count[name]).id))
    return ids


@pytest.mark.parametrize(
    ("table_size", "entrants", "fits"),
    [(2, 6, "4, 8, 12"), (2, 2, "4, 8"), (3, 4, "9, 18, 27"), (4, 9, "16, 32")],
)
def test_an_entrant_count_that_does_not_fit_is_400_saying_what_fits(
    make_player, client_for, table_size, entrants, fits
):
    organizer, token = make_player()
    client = client_for(token)
    before = Tournament.objects.count()
    response = client.post(
        "/api/v1/tournaments",
        {
            "name": "Misfit",
            "players": _bots(["greedy"] * entrants),
            "format": "duplicate",
            "table_size": table_size,
            "deals": 1,
        },
        format="json",
    )
    if entrants < table_size:
        body = _error(response, 400)
        assert body["code"] == "invalid"
        return
    body = _error(response, 400)
    assert body["code"] == "invalid"
    assert f"multiple of {table_size * table_size}" in body["message"]
    assert fits in body["message"]
    assert Tournament.objects.count() == before


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"fill_bots": "greedy"}, "fill_bots"),
        ({"rules": {"match_tiebreak": "extra_deal"}}, "match_tiebreak"),
    ],
)
def test_filler_bots_and_extra_deals_are_refused(make_player, client_for, extra, field):
    organizer, token = make_player()
    response = client_for(token).post(
        "/api/v1/tournaments",
        {
            "name": "Dup",
            "players": _bots(["greedy"] * 4),
            "format": "duplicate",
            "table_size": 2,
            **extra,
        },
        format="json",
    )
    body = _error(response, 400)
    assert body["code"] == "invalid" and field in body["message"]
    # Named where the field is: a rule option under `rules`, as every refused option.
    named = body["detail"]["rules"] if field == "match_tiebreak" else body["detail"]
    assert list(named) == [field]


def test_a_decline_that_breaks_the_rotation_stops_the_start(make_player, client_for):
    organizer, token = make_player()
    people = [make_player() for _ in range(4)]
    created = client_for(token).post(
        "/api/v1/tournaments",
        {
            "name": "Four people",
            "players": [str(p.id) for p, _ in people],
            "format": "duplicate",
            "table_size": 2,
            "deals": 1,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    tid = created.json()["id"]
    for _, person_token in people[:3]:
        assert (
            client_for(person_token)
            .post(f"/api/v1/tournaments/{tid}/invitations/accept")
            .status_code
            == 200
        )
    assert (
        client_for(people[3][1]).post(f"/api/v1/tournaments/{tid}/invitations/decline").status_code
        == 200
    )
    body = _error(client_for(token).post(f"/api/v1/tournaments/{tid}/start"), 409)
    assert body["code"] == "not_enough_entrants" and "multiple of 4" in body["message"]
    assert Tournament.objects.get(id=tid).status == "draft"
    assert not Match.objects.filter(tournament_table__tournament_id=tid).exists()


def test_matchpoints_count_one_per_beaten_and_half_per_tie():
    assert _matchpoints([("a", 0), ("b", 0), ("c", 12)]) == {"a": 1.5, "b": 1.5, "c": 0.0}
    assert _matchpoints([("a", 7), ("b", 3)]) == {"a": 0.0, "b": 1.0}
    assert _matchpoints([("a", 5), ("b", 5), ("c", 5), ("d", 5)]) == {p: 1.5 for p in "abcd"}
    assert _matchpoints([("a", 4)]) == {"a": 0.0}


def _recount(tournament: Tournament) -> dict[str, float]:
    """Matchpoints straight from the ScoreEntry rows: per round, deal number and seat."""
    groups: dict[tuple[int, int, int], list[tuple[str, int]]] = defaultdict(list)
    for table in Table.objects.filter(tournament=tournament).select_related("round"):
        for entry in ScoreEntry.objects.filter(match_id=table.match_id).select_related("deal"):
            groups[(table.round.number, entry.deal.number, entry.seat)].append(
                (str(entry.player_id), entry.penalty)
            )
    points: dict[str, float] = defaultdict(float)
    for results in groups.values():
        for player, penalty in results:
            others = [p for q, p in results if q != player]
            points[player] += sum(
                1.0 if penalty < o else 0.5 if penalty == o else 0.0 for o in others
            )
    return dict(points)


@pytest.mark.parametrize(
    ("table_size", "strategies", "deals", "rounds"),
    [
        (2, ["greedy", "random", "greedy", "random"], 3, None),
        (3, ["greedy", "random", "greedy"] * 3, 1, 1),
    ],
)
def test_bots_only_duplicate_plays_the_same_deals_at_every_table(
    make_player, client_for, api, table_size, strategies, deals, rounds
):
    organizer, token = make_player()
    client = client_for(token)
    created = client.post(
        "/api/v1/tournaments",
        {
            "name": "Duplicate bots",
            "players": _bots(strategies),
            "format": "duplicate",
            "table_size": table_size,
            "deals": deals,
            **({"rounds": rounds} if rounds else {}),
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["format"] == "duplicate" and body["rounds_total"] == (rounds or table_size)
    assert client.post(f"/api/v1/tournaments/{body['id']}/start").status_code == 200
    assert background_wait(180)
    tournament = Tournament.objects.get(id=body["id"])
    assert tournament.status == "finished"

    tables_per_round = len(strategies) // table_size
    seeds_of_rounds = []
    for rnd in Round.objects.filter(tournament=tournament).order_by("number"):
        matches = [t.match for t in Table.objects.filter(round=rnd).select_related("match")]
        assert len(matches) == tables_per_round
        assert all(m.status == "finished" and m.seed_key == rnd.seed_key for m in matches)
        # Each entrant sits at one table of the round.
        seated = [p for m in matches for p in m.seat_players]
        assert len(set(seated)) == len(seated) == len(strategies)
        for number in range(1, deals + 1):
            reveals = [api.get(f"/api/v1/matches/{m.id}/deals/{number}").json() for m in matches]
            # Same commitment, same seed, same hands seat by seat at every table.
            assert len({r["commitment"] for r in reveals}) == 1
            assert len({r["seed"] for r in reveals}) == 1 and reveals[0]["seed"]
            assert all(r["hands_at_start"] == reveals[0]["hands_at_start"] for r in reveals)
            seeds_of_rounds.append(reveals[0]["seed"])
        assert rnd.matchpoints is not None
    # The rounds and the deals each play seeds of their own.
    assert len(set(seeds_of_rounds)) == len(seeds_of_rounds)

    expected = _recount(tournament)
    stored: dict[str, float] = defaultdict(float)
    for rnd in Round.objects.filter(tournament=tournament):
        for player, points in rnd.matchpoints.items():
            stored[player] += points
    assert stored == pytest.approx(expected)
    # Per deal and seat, the tables' results share T(T-1)/2 points.
    total = sum(expected.values())
    assert total == tournament.rounds_total * deals * table_size * (
        tables_per_round * (tables_per_round - 1) / 2
    )

    response = api.get(f"/api/v1/tournaments/{tournament.id}/standings")
    results = response.json()["results"]
    assert {r["player"]["id"]: r["matchpoints"] for r in results} == pytest.approx(expected)
    keys = [(-r["matchpoints"], r["penalty"], -r["deals_won"], -r["head_to_head"]) for r in results]
    assert keys == sorted(keys)
    penalties: dict[str, int] = defaultdict(int)
    for entry in ScoreEntry.objects.filter(match__tournament_table__tournament=tournament):
        penalties[str(entry.player_id)] += entry.penalty
    assert {r["player"]["id"]: r["penalty"] for r in results} == dict(penalties)

    rows = list(
        csv.DictReader(
            io.StringIO(
                api.get(f"/api/v1/tournaments/{tournament.id}/standings.csv").content.decode()
            )
        )
    )
    assert [r["player_id"] for r in rows] == [r["player"]["id"] for r in results]
    assert [float(r["matchpoints"]) for r in rows] == [r["matchpoints"] for r in results]
    assert Deal.objects.filter(match__tournament_table__tournament=tournament).count() == (
        tournament.rounds_total * tables_per_round * deals
    )
