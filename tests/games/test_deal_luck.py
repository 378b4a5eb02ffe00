"""Luck and skill per seat (docs/api.md "Luck and move analysis"): after each scored deal
games.deal_luck stores every seat's expected deal score and `luck = expected − penalty`, and its
luck-adjusted score and skill from the decisions (`deal_skill`), with K, the bot, the view
and the seeds; the deal reveal and the player's stats show both, the boards rank by the mean
`skill`, a lost task is re-sent by the sweeper and a task run twice counts once. Tasks run
in-process (test settings)."""

from __future__ import annotations

import io

import pytest

from games import engine
from games.engine.analysis import REFERENCE_BOT, deal_skill, expected_deal_scores
from games.models import Deal, DealLuck, Match, Move, ScoreEntry
from games.services import analysis as analysis_service
from games.services import scoring
from games.services.lifecycle import match_create
from games.tasks import deal_luck_task, match_settle_task, sweep
from players.models import BoardEntry, Player
from players.services import bot_player_get_or_create, player_register
from tests.helpers import client_with, commits_run_in_place, create_match, play_to_the_end

# The tasks run on commit: in place, inside the test's transaction
# (conftest.commits_in_place).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("commits_in_place")]


@pytest.fixture(scope="module")
def _finished_once(module_rows):
    """Played once for the module (conftest.module_rows): each test reads it in a savepoint."""
    with commits_run_in_place():
        player, token = player_register(username="luck-person", password="s3cret-pass")
        match = create_match(client_with(token), seats=2, bots=["greedy"], deals=2)
        play_to_the_end(client_with(token), match["id"])
    return player.id, token, match["id"]


@pytest.fixture
def finished(_finished_once, db):
    """A finished, settled match of two deals: a person against the greedy bot."""
    player_id, token, match_id = _finished_once
    return Player.objects.get(id=player_id), client_with(token), Match.objects.get(id=match_id)


def test_every_scored_deal_has_each_seats_luck_recorded_and_reproducible(finished, settings):
    _, _, match = finished
    for deal in Deal.objects.filter(match=match).order_by("number"):
        rows = list(DealLuck.objects.filter(deal=deal).order_by("seat"))
        assert [r.seat for r in rows] == [0, 1]
        scores = dict(ScoreEntry.objects.filter(deal=deal).values_list("seat", "penalty"))
        start = engine.new_deal(
            engine.Rules.from_json(match.rules), 2, deal.opener, bytes(deal.seed)
        )
        again = expected_deal_scores(start, k=rows[0].samples, bot=rows[0].bot, seed=rows[0].seed)
        for row in rows:
            assert row.penalty == scores[row.seat] == deal.result["penalties"][row.seat]
            assert row.luck == pytest.approx(row.expected - row.penalty)
            assert (row.samples, row.bot) == (settings.ANALYSIS_LUCK_SAMPLES, REFERENCE_BOT)
            assert row.seed == f"luck:{deal.commitment}"
            assert row.expected == pytest.approx(again.expected[row.seat])
            assert row.stderr == pytest.approx(again.stderr[row.seat])
            assert row.cpu_seconds > 0 and row.skill_cpu_seconds > 0
            assert row.counted_at is not None  # on the boards: the match is settled
            assert (row.skill_samples, row.skill_view) == (settings.ANALYSIS_SKILL_SAMPLES, "seat")
            assert row.skill_seed == f"skill:{deal.commitment}"


def engine_moves(log):
    """The engine's moves of a move log (the reveal's entries or Move rows)."""
    return [
        engine.Move.from_json({k: v for k, v in body.items() if v is not None})
        for body in ({"action": m["action"], "card": m["card"], "suit": m["suit"]} for m in log)
    ]


def test_the_stored_skill_is_deal_skill_recomputed_from_the_reveal(finished, api):
    """Anyone can rerun the skill of a deal from its reveal: the seed, the move log and the
    skill's K, view and seed; the stored rows are exactly that estimate."""
    _, _, match = finished
    rules = engine.Rules.from_json(match.rules)
    for number in (1, 2):
        body = api.get(f"/api/v1/matches/{match.id}/deals/{number}").json()
        start = engine.new_deal(rules, 2, body["opener"], bytes.fromhex(body["seed"]))
        luck = body["luck"]
        again = deal_skill(
            start,
            engine_moves(body["moves"]),
            k=luck["skill_samples"],
            bot=luck["bot"],
            view=luck["skill_view"],
            seed=luck["skill_seed"],
        )
        assert again.actual == tuple(body["result"]["penalties"])
        rows = list(DealLuck.objects.filter(match_id=match.id, deal__number=number))
        for row in sorted(rows, key=lambda r: r.seat):
            assert row.adjusted == again.adjusted[row.seat]
            assert row.skill == again.skill[row.seat]
            shown = luck["seats"][row.seat]
            assert (shown["adjusted"], shown["skill"]) == (
                round(again.adjusted[row.seat], 4),
                round(row.skill, 4),
            )
        # The person played the last legal move, not the reference bot's: it shows.
        assert again.effects and rows[0].skill != 0


def test_the_deal_reveal_shows_the_luck_once_the_deal_is_over(finished, api, make_player):
    _, _, match = finished
    body = api.get(f"/api/v1/matches/{match.id}/deals/1").json()
    rows = list(DealLuck.objects.filter(deal__match=match, deal__number=1).order_by("seat"))
    assert body["luck"]["samples"] == rows[0].samples
    assert body["luck"]["bot"] == "greedy" and body["luck"]["seed"] == rows[0].seed
    assert [s["luck"] for s in body["luck"]["seats"]] == [round(r.luck, 4) for r in rows]
    assert [s["penalty"] for s in body["luck"]["seats"]] == body["result"]["penalties"]
    assert [(s["adjusted"], s["skill"]) for s in body["luck"]["seats"]] == [
        (round(r.adjusted, 4), round(r.skill, 4)) for r in rows
    ]
    assert body["luck"]["skill_samples"] == rows[0].skill_samples
    assert body["luck"]["skill_view"] == "seat"
    assert body["luck"]["skill_seed"] == rows[0].skill_seed
    # A deal being played shows no luck.
    _, token = make_player()
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    live = create_match(client, seats=2, bots=["greedy"], deals=1)
    assert api.get(f"/api/v1/matches/{live['id']}/deals/1").json()["luck"] is None


def test_the_players_stats_show_mean_luck_the_luck_adjusted_score_and_mean_skill(finished, api):
    player, _, match = finished
    rows = list(DealLuck.objects.filter(match_id=match.id, seat=0))
    assert len(rows) == 2
    stats = api.get(f"/api/v1/players/{player.id}").json()["stats"]
    total = sum(r.luck for r in rows)
    assert stats["luck_deals"] == 2
    assert stats["luck_adjusted_score"] == pytest.approx(total, abs=1e-3)
    assert stats["mean_luck"] == pytest.approx(total / 2, abs=1e-3)
    skill = sum(r.skill for r in rows)
    assert stats["skill_deals"] == 2
    assert stats["mean_skill"] == pytest.approx(skill / 2, abs=1e-3)
    assert stats["mean_skill"] != stats["mean_luck"]  # two figures, not one twice


def test_skill_is_a_leaderboard_metric_with_its_count(finished, api):
    player, _, match = finished
    body = api.get("/api/v1/leaderboard", {"metric": "skill", "seats": 2}).json()
    by_player = {row["player"]["id"]: row for row in body["results"]}
    bot_id = match.seat_players[1]
    assert set(by_player) >= {str(player.id), bot_id}
    for seat, pid in enumerate(match.seat_players):
        skill = [r.skill for r in DealLuck.objects.filter(match_id=match.id, seat=seat)]
        row = by_player[pid]
        assert row["skill_deals"] == 2
        assert row["skill"] == pytest.approx(sum(skill) / 2, abs=1e-3)
    skills = [row["skill"] for row in body["results"]]
    assert skills == sorted(skills, reverse=True)  # highest first
    # Other metrics show the skill too.
    rated = api.get("/api/v1/leaderboard", {"seats": 2}).json()["results"]
    assert {r["player"]["id"]: r["skill_deals"] for r in rated}[str(player.id)] == 2


def test_a_luck_task_run_twice_counts_once(finished, api):
    player, _, match = finished
    assert deal_luck_task.apply(args=[str(match.id), 1]).get() is False
    assert DealLuck.objects.filter(match_id=match.id).count() == 4
    counters = Player.objects.get(id=player.id)
    assert (counters.luck_deals, counters.skill_deals) == (2, 2)
    entries = BoardEntry.objects.filter(player_id=player.id)
    assert entries.count() == 6 and all(e.skill_deals == 2 for e in entries)
    # Settling again (the task delivered twice) counts nothing more.
    assert match_settle_task.apply(args=[str(match.id)]).get() is False
    assert all(e.skill_deals == 2 for e in BoardEntry.objects.filter(player_id=player.id))


def test_lost_luck_is_resent_by_the_sweeper_and_counted_after_the_settlement(
    make_player, client_for, api, monkeypatch, settings
):
    """The luck messages are lost (the broker down when the deals were scored): the match
    settles with no skill; the sweep re-sends them, and the luck that comes after the
    settlement goes onto the boards."""
    sent = []

    def lossy(name, *args):
        if name == "games.deal_luck":
            sent.append(args)  # lost
        else:
            analysis_service.send_on_commit(name, *args)

    monkeypatch.setattr(scoring, "send_on_commit", lossy)
    player, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=2, bots=["greedy"], deals=2)
    play_to_the_end(client, match["id"])
    assert len(sent) == 2 and not DealLuck.objects.filter(match_id=match["id"]).exists()
    assert all(e.skill is None for e in BoardEntry.objects.filter(player_id=player.id))
    body = api.get("/api/v1/leaderboard", {"metric": "skill", "seats": 2}).json()
    assert str(player.id) not in {row["player"]["id"] for row in body["results"]}

    settings.GAMES_STUCK_SECONDS = -5  # everything counts as stuck
    settings.ANALYSIS_STUCK_SECONDS = -5
    counts = sweep.apply().get()
    assert counts["luck"] == 2
    rows = DealLuck.objects.filter(match_id=match["id"])
    assert rows.count() == 4 and not rows.filter(counted_at__isnull=True).exists()
    mine = [r.skill for r in rows.filter(seat=0)]
    assert all(r.skill_samples == settings.ANALYSIS_SKILL_SAMPLES for r in rows)
    entries = BoardEntry.objects.filter(player_id=player.id)
    assert all(e.skill_deals == 2 for e in entries)
    assert all(e.skill == pytest.approx(sum(mine) / 2) for e in entries)
    assert sweep.apply().get()["luck"] == 0  # nothing left to re-send


def test_luck_waiting_its_turn_on_the_queue_is_not_sent_again(finished, settings):
    """The analysis queue waits behind play: a deal's luck not yet begun is sent again only
    once it has waited ANALYSIS_STUCK_SECONDS, not at every sweep (the copies of a waiting
    backlog piled up on the queue)."""
    _, _, match = finished
    DealLuck.objects.filter(match_id=match.id, deal__number=1).delete()
    settings.GAMES_STUCK_SECONDS = -5  # the rest of the sweep: everything counts as stuck
    settings.ANALYSIS_STUCK_SECONDS = 3600
    assert sweep.apply().get()["luck"] == 0
    assert not DealLuck.objects.filter(match_id=match.id, deal__number=1).exists()
    settings.ANALYSIS_STUCK_SECONDS = -5
    assert sweep.apply().get()["luck"] == 1
    assert DealLuck.objects.filter(match_id=match.id, deal__number=1).count() == 2


def test_the_sweeper_looks_back_only_analysis_sweep_hours(finished, settings):
    _, _, match = finished
    DealLuck.objects.filter(match_id=match.id, deal__number=1).delete()
    settings.GAMES_STUCK_SECONDS = -5
    settings.ANALYSIS_STUCK_SECONDS = -5
    settings.ANALYSIS_SWEEP_HOURS = 0  # a window that holds no scored deal
    assert sweep.apply().get()["luck"] == 0
    settings.ANALYSIS_SWEEP_HOURS = 1
    assert sweep.apply().get()["luck"] == 1
    assert DealLuck.objects.filter(match_id=match.id, deal__number=1).count() == 2


def test_an_unscored_deal_gets_no_luck(make_player, client_for):
    _, token = make_player()
    match = create_match(client_for(token), seats=2, bots=["greedy"], deals=1)
    assert analysis_service.deal_luck(match_id=match["id"], deal_number=1) is False
    assert analysis_service.deal_luck(match_id=match["id"], deal_number=9) is False
    assert not DealLuck.objects.filter(match_id=match["id"]).exists()


def test_a_luck_count_run_twice_counts_once(finished):
    from games.tasks import match_luck_count_task

    player, _, match = finished
    assert match_luck_count_task.apply(args=[str(match.id)]).get() == 0  # counted already
    DealLuck.objects.filter(match_id=match.id).update(counted_at=None)
    before = {e.id: e.skill_deals for e in BoardEntry.objects.filter(player_id=player.id)}
    assert match_luck_count_task.apply(args=[str(match.id)]).get() == 4
    assert match_luck_count_task.apply(args=[str(match.id)]).get() == 0
    after = {e.id: e.skill_deals for e in BoardEntry.objects.filter(player_id=player.id)}
    assert after == {entry_id: deals + 2 for entry_id, deals in before.items()}


def test_greedy_at_every_seat_has_a_skill_of_exactly_zero(make_player):
    """The reference bot's own decisions have no effect: whatever the cards (all luck), a deal
    the greedy bot plays at every seat gives each seat a skill of 0, no noise, while its luck
    (start-only) is not 0."""
    organizer, _ = make_player()
    for seats in (2, 4):
        bots = [bot_player_get_or_create(strategy="greedy", ordinal=i) for i in range(seats)]
        match = match_create(player=organizer, seats=seats, seated=bots, deals=2)
        rows = list(DealLuck.objects.filter(match_id=match.id))
        assert len(rows) == 2 * seats and Match.objects.get(id=match.id).settled_at
        assert Move.objects.filter(match_id=match.id).count() > 2 * seats
        assert all(r.skill == 0.0 and r.adjusted is not None for r in rows)
        assert any(r.luck != 0 for r in rows)
        for bot in bots:
            entries = BoardEntry.objects.filter(player_id=bot.id)
            assert entries and all(e.skill == 0.0 and e.skill_deals >= 2 for e in entries)


def test_the_skill_board_orders_by_the_mean_skill(finished, api):
    """The board follows the mean skill: the same deals counted again with the two seats'
    skills traded (their luck unchanged) swap the order."""
    from games.tasks import match_luck_count_task

    player, _, match = finished
    seats = [str(player.id), match.seat_players[1]]

    def order() -> list[str]:
        board = api.get("/api/v1/leaderboard", {"metric": "skill", "seats": 2}).json()
        ids = [row["player"]["id"] for row in board["results"]]
        return sorted(seats, key=ids.index)

    def mean(seat: int) -> float:
        return sum(r.skill for r in DealLuck.objects.filter(match_id=match.id, seat=seat)) / 2

    first = order()
    assert mean(seats.index(first[0])) > mean(seats.index(first[1]))
    traded = {
        row.id: DealLuck.objects.get(deal_id=row.deal_id, seat=1 - row.seat).skill
        for row in DealLuck.objects.filter(match_id=match.id)
    }
    for row_id, skill in traded.items():
        DealLuck.objects.filter(id=row_id).update(skill=skill, counted_at=None)
    BoardEntry.objects.filter(player_id__in=seats).update(skill_deals=0, skill_sum=0.0, skill=None)
    assert match_luck_count_task.apply(args=[str(match.id)]).get() == 4
    assert order() == first[::-1]
    assert mean(seats.index(first[1])) > mean(seats.index(first[0]))


def test_a_deal_without_a_skill_counts_in_the_luck_only(finished, api):
    """A row estimated before the skill was (its skill fields empty): the reveal shows null
    skill figures, the stats and the boards count its luck and not its skill."""
    player, _, match = finished
    DealLuck.objects.filter(match_id=match.id, deal__number=1).update(
        adjusted=None, skill=None, skill_samples=None, skill_view="", skill_seed="", counted_at=None
    )
    before = {e.id: (e.skill_deals, e.skill) for e in BoardEntry.objects.filter(player=player)}
    from games.tasks import match_luck_count_task

    assert match_luck_count_task.apply(args=[str(match.id)]).get() == 2
    after = {e.id: (e.skill_deals, e.skill) for e in BoardEntry.objects.filter(player=player)}
    assert after == before  # nothing to add to the skill
    luck = api.get(f"/api/v1/matches/{match.id}/deals/1").json()["luck"]
    assert (luck["skill_samples"], luck["skill_view"], luck["skill_seed"]) == (None, None, None)
    assert all(s["adjusted"] is None and s["skill"] is None for s in luck["seats"])
    assert all(isinstance(s["luck"], float) for s in luck["seats"])


def _as_before_the_skill(match, *, counted: bool) -> dict[int, list[float]]:
    """The match's luck rows as games.deal_luck stored them before the skill existed (no skill
    figures; on the boards already if `counted`), and its players' skill counters as
    players/0007 left them (from zero); the skill each row had, by deal."""
    rows = DealLuck.objects.filter(match_id=match.id).order_by("deal__number", "seat")
    had: dict[int, list[float]] = {}
    for row in rows.select_related("deal"):
        had.setdefault(row.deal.number, []).append(row.skill)
    rows.update(
        adjusted=None,
        skill=None,
        skill_samples=None,
        skill_view="",
        skill_seed="",
        skill_cpu_seconds=None,
        **({} if counted else {"counted_at": None}),
    )
    Player.objects.filter(id__in=match.seat_players).update(skill_deals=0, skill_sum=0.0)
    BoardEntry.objects.filter(player_id__in=match.seat_players).update(
        skill_deals=0, skill_sum=0.0, skill=None
    )
    return had


def _skill_counters(match) -> list[tuple[int, float, set[tuple[int, float | None]]]]:
    return [
        (
            (p := Player.objects.get(id=pid)).skill_deals,
            round(p.skill_sum, 6),
            {
                (e.skill_deals, None if e.skill is None else round(e.skill, 6))
                for e in BoardEntry.objects.filter(player_id=pid)
            },
        )
        for pid in match.seat_players
    ]


def test_backfill_skill_gives_old_deals_their_skill_where_their_luck_counted(finished):
    from django.core.management import call_command

    _, _, match = finished
    counted = _skill_counters(match)
    had = _as_before_the_skill(match, counted=True)
    assert _skill_counters(match) != counted
    out = io.StringIO()
    call_command("backfill_skill", stdout=out)
    assert out.getvalue().strip().endswith("2 deals given their skill")
    for deal, skills in had.items():
        rows = DealLuck.objects.filter(match_id=match.id, deal__number=deal).order_by("seat")
        assert [r.skill for r in rows] == pytest.approx(skills)  # the same seeds: the same skill
        assert all(r.skill_view == "seat" and r.skill_seed.startswith("skill:") for r in rows)
    assert _skill_counters(match) == counted  # the stats and the boards, as if never wiped
    out = io.StringIO()
    call_command("backfill_skill", stdout=out)
    assert out.getvalue().strip() == "0 deals given their skill"
    assert _skill_counters(match) == counted


def test_backfill_skill_of_rows_not_on_the_boards_yet_leaves_the_boards_to_the_count(finished):
    from games.services import deal_skill_backfill
    from games.tasks import match_luck_count_task

    _, _, match = finished
    counted = _skill_counters(match)
    _as_before_the_skill(match, counted=False)
    assert deal_skill_backfill(match_id=match.id, deal_number=1) is True
    assert deal_skill_backfill(match_id=match.id, deal_number=1) is False
    assert deal_skill_backfill(match_id=match.id, deal_number=2) is True
    stats_only = _skill_counters(match)
    assert [c[:2] for c in stats_only] == [c[:2] for c in counted]  # the stats: at once
    assert all(boards == {(0, None)} for _, _, boards in stats_only)  # the boards: not yet
    assert match_luck_count_task.apply(args=[str(match.id)]).get() == 4
    assert _skill_counters(match) == counted
