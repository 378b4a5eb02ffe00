"""Standings tie-breaks on scripted results: total penalty, then deals won, then head-to-head;
players equal on all three share a rank; a match, its head-to-head and a bye count once they are
over, a scored deal at once. Scores are written as ScoreEntry rows (what settlement writes),
matches marked finished, and the round advanced by the service."""

from __future__ import annotations

import csv
import io

import pytest

from games.models import Match, ScoreEntry
from tournaments.models import Table
from tournaments.selectors import tournament_standings
from tournaments.services import tournament_advance, tournament_create, tournament_start

from .helpers import accept_all

pytestmark = pytest.mark.django_db


def finish_round(tournament, number: int, scores: dict[str, tuple[int, bool]]) -> None:
    """Score deal 1 of every match of round `number` as `scores[name] = (penalty, won)`, mark
    the matches finished and advance the tournament."""
    score_deal(tournament, number, scores)
    for table in Table.objects.filter(tournament=tournament, round__number=number):
        Match.objects.filter(id=table.match_id).update(status="finished")
    tournament_advance(tournament_id=tournament.id)


def score_deal(tournament, number: int, scores: dict[str, tuple[int, bool]]) -> None:
    """Score deal 1 of every match of round `number` as `scores[name] = (penalty, won)`; the
    matches play on."""
    for table in Table.objects.filter(tournament=tournament, round__number=number):
        match = table.match
        deal = match.deals.get(number=1)
        for seat, player in enumerate(
            match.seats.order_by("seat").values_list("player__username", flat=True)
        ):
            penalty, won = scores[player]
            ScoreEntry.objects.create(
                deal=deal,
                match=match,
                seat=seat,
                player_id=match.seat_players[seat],
                penalty=penalty,
                hand_penalty=penalty,
                multiplier=1,
                won=won,
            )


def test_penalty_then_deals_won_then_head_to_head(make_player, api):
    organizer, _ = make_player()
    a, b, c, d = (make_player(name)[0] for name in ("tb_a", "tb_b", "tb_c", "tb_d"))
    tournament = tournament_create(
        organizer=organizer,
        name="Tie-breaks",
        format="round_robin",
        table_size=2,
        players=[a.id, b.id, c.id, d.id],
        deals=1,
    )
    accept_all(tournament.id)
    tournament_start(tournament_id=tournament.id, player=organizer)
    # Circle method on [a, b, c, d]: a–d, b–c; then a–c, b–d; then a–b, c–d.
    finish_round(
        tournament,
        1,
        {"tb_a": (0, True), "tb_d": (10, False), "tb_b": (0, True), "tb_c": (10, False)},
    )
    standings = tournament_standings(tournament)
    assert [(r["player"]["display_name"], r["rank"]) for r in standings] == [
        ("Tb_A", 1),  # a and b: 0 penalty, 1 deal won, never met: a shared rank
        ("Tb_B", 1),
        ("Tb_C", 3),
        ("Tb_D", 3),
    ]
    finish_round(
        tournament,
        2,
        {"tb_a": (15, False), "tb_c": (0, True), "tb_b": (0, True), "tb_d": (10, False)},
    )
    finish_round(
        tournament,
        3,
        {"tb_a": (0, True), "tb_b": (15, False), "tb_c": (0, True), "tb_d": (10, False)},
    )
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    standings = tournament_standings(tournament)
    summary = [
        (r["rank"], r["player"]["display_name"], r["penalty"], r["deals_won"], r["head_to_head"])
        for r in standings
    ]
    assert summary == [
        (1, "Tb_C", 10, 2, 0),
        (2, "Tb_A", 15, 2, 1),  # a and b: 15 penalty, 2 deals won each; a beat b in round 3
        (3, "Tb_B", 15, 2, -1),
        (4, "Tb_D", 30, 0, 0),
    ]
    response = api.get(f"/api/v1/tournaments/{tournament.id}/standings.csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == [
        "rank",
        "player_id",
        "display_name",
        "is_bot",
        "matches",
        "byes",
        "deals_played",
        "deals_won",
        "penalty",
        "head_to_head",
    ]
    assert rows[1:] == [
        ["1", str(c.id), "Tb_C", "false", "3", "0", "3", "2", "10", "0"],
        ["2", str(a.id), "Tb_A", "false", "3", "0", "3", "2", "15", "1"],
        ["3", str(b.id), "Tb_B", "false", "3", "0", "3", "2", "15", "-1"],
        ["4", str(d.id), "Tb_D", "false", "3", "0", "3", "0", "30", "0"],
    ]


def test_a_bye_scores_the_round_mean_once_the_round_is_over(make_player):
    organizer, _ = make_player()
    players = [make_player(f"bye_{i}")[0] for i in range(3)]
    tournament = tournament_create(
        organizer=organizer,
        name="Byes",
        format="round_robin",
        table_size=2,
        players=[p.id for p in players],
        deals=1,
    )
    accept_all(tournament.id)
    tournament_start(tournament_id=tournament.id, player=organizer)
    # Circle method on [p0, p1, p2, –]: p0 sits out round 1, p1 plays p2.
    table = Table.objects.get(tournament=tournament, round__number=1)
    assert sorted(table.match.seat_players) == sorted(str(p.id) for p in players[1:])
    before = {r["player"]["id"]: r for r in tournament_standings(tournament)}
    # While the round is played, the bye neither counts nor scores.
    assert before[str(players[0].id)]["byes"] == 0 and before[str(players[0].id)]["penalty"] == 0
    finish_round(tournament, 1, {"bye_1": (0, True), "bye_2": (7, False)})
    after = {r["player"]["id"]: r for r in tournament_standings(tournament)}
    # Mean of the seats that played: (0 + 7) / 2 = 3.5, rounded half up to 4; no deal counted.
    assert after[str(players[0].id)]["byes"] == 1
    assert after[str(players[0].id)]["penalty"] == 4
    assert after[str(players[0].id)]["deals_played"] == 0
    assert after[str(players[0].id)]["matches"] == 0  # seated in round 2, just started


def test_a_match_counts_in_the_standings_once_it_is_finished(make_player, api):
    """`matches` and `head_to_head` count finished matches only, in the JSON standings and the
    CSV alike; the deals a match being played has scored count at once (docs/api.md)."""
    organizer, _ = make_player()
    a, b, c, d = (make_player(name)[0] for name in ("fm_a", "fm_b", "fm_c", "fm_d"))
    tournament = tournament_create(
        organizer=organizer,
        name="Finished matches",
        format="round_robin",
        table_size=2,
        players=[a.id, b.id, c.id, d.id],
        deals=2,
    )
    accept_all(tournament.id)
    tournament_start(tournament_id=tournament.id, player=organizer)

    def columns(*names: str) -> dict[str, tuple[int, ...]]:
        """Each player's `names` columns, from the JSON standings and from the CSV (equal)."""
        url = f"/api/v1/tournaments/{tournament.id}/standings"
        rows = api.get(url).json()["results"]
        found = {r["player"]["display_name"]: tuple(r[n] for n in names) for r in rows}
        text = api.get(f"{url}.csv").content.decode()
        in_csv = {
            r["display_name"]: tuple(int(r[n]) for n in names)
            for r in csv.DictReader(io.StringIO(text))
        }
        assert in_csv == found
        return found

    def finish_round(number: int) -> None:
        """The round's matches finished, and the tournament told (the next round dealt)."""
        for table in Table.objects.filter(tournament=tournament, round__number=number):
            Match.objects.filter(id=table.match_id).update(status="finished")
        tournament_advance(tournament_id=tournament.id)

    # Round 1 (a–d, b–c) has just been dealt: nobody has finished a match.
    assert columns("matches", "deals_played") == {
        name: (0, 0) for name in ("Fm_A", "Fm_B", "Fm_C", "Fm_D")
    }
    score_deal(
        tournament,
        1,
        {"fm_a": (0, True), "fm_d": (10, False), "fm_b": (0, True), "fm_c": (10, False)},
    )
    # A deal scored: it counts; the matches play on, so they do not.
    assert columns("matches", "deals_played", "deals_won", "penalty") == {
        "Fm_A": (0, 1, 1, 0),
        "Fm_B": (0, 1, 1, 0),
        "Fm_C": (0, 1, 0, 10),
        "Fm_D": (0, 1, 0, 10),
    }
    finish_round(1)
    assert {m for m, *_ in columns("matches").values()} == {1}
    # Round 2 (a–c, b–d), one deal in: a and c are tied (10 penalty, 1 deal won), and c leads
    # their match 0 to 10; no head-to-head until that match is over.
    score_deal(
        tournament,
        2,
        {"fm_a": (10, False), "fm_c": (0, True), "fm_b": (0, True), "fm_d": (10, False)},
    )
    assert columns("matches", "penalty", "deals_won", "head_to_head") == {
        "Fm_A": (1, 10, 1, 0),
        "Fm_B": (1, 0, 2, 0),
        "Fm_C": (1, 10, 1, 0),
        "Fm_D": (1, 20, 0, 0),
    }
    finish_round(2)
    assert columns("matches", "head_to_head") == {
        "Fm_A": (2, -1),
        "Fm_B": (2, 0),
        "Fm_C": (2, 1),
        "Fm_D": (2, 0),
    }


def test_csv_quotes_a_display_name_a_spreadsheet_would_run(make_player, api):
    organizer, _ = make_player()
    from players.services import player_register

    evil, _ = player_register(
        username="formula", password="s3cret-pass", display_name='=HYPERLINK("x")'
    )
    other, _ = make_player()
    tournament = tournament_create(
        organizer=organizer,
        name="CSV",
        format="round_robin",
        table_size=2,
        players=[evil.id, other.id],
    )
    response = api.get(f"/api/v1/tournaments/{tournament.id}/standings.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert {r["display_name"] for r in rows} == {'\'=HYPERLINK("x")', other.display_name}
    json_names = api.get(f"/api/v1/tournaments/{tournament.id}/standings").json()["results"]
    assert '=HYPERLINK("x")' in {r["player"]["display_name"] for r in json_names}


def test_a_resigned_seat_forfeits_its_match_in_the_standings(make_player):
    """Its bot plays on (and here goes out at once), but the seat counts the highest penalty at
    its table in every deal of the match and no deal won, and loses head-to-head at an equal
    total: resigning never ranks better than playing on (docs/rules.md, Resign)."""
    organizer, _ = make_player()
    a, b = (make_player(name)[0] for name in ("rs_a", "rs_b"))
    tournament = tournament_create(
        organizer=organizer,
        name="Forfeits",
        format="round_robin",
        table_size=2,
        players=[a.id, b.id],
        deals=1,
    )
    accept_all(tournament.id)
    tournament_start(tournament_id=tournament.id, player=organizer)
    table = Table.objects.get(tournament=tournament, round__number=1)
    resigner = table.match.seat_players.index(str(a.id))
    Match.objects.filter(id=table.match_id).update(resigned=[resigner])
    finish_round(tournament, 1, {"rs_a": (0, True), "rs_b": (12, False)})
    standings = tournament_standings(tournament)
    summary = [
        (r["rank"], r["player"]["display_name"], r["penalty"], r["deals_won"], r["head_to_head"])
        for r in standings
    ]
    assert summary == [(1, "Rs_B", 12, 0, 1), (2, "Rs_A", 12, 0, -1)]
