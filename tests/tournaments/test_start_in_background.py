"""A tournament's start never plays in the request: with no broker (tasks in-process, as here
and in the embedded default) the bot turns a start or a next round sends run on the background
thread of games.tasks.in_background. The background pool is held busy while the request runs,
so "returned before anything was played" is checked on the database, not by a timing."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from django.conf import settings

from games.models import Match, Move
from games.tasks import background_submit, background_wait
from players.services import bot_player_get_or_create
from tournaments.models import Round, Tournament
from tournaments.services import tournament_create, tournament_start
from tournaments.tasks import enqueue_advance

pytestmark = pytest.mark.django_db(transaction=True)  # the tasks run after commit


@pytest.fixture
def background_held() -> Iterator[threading.Event]:
    """Every background thread waits on this event until the test sets it."""
    release = threading.Event()
    for _ in range(settings.EMBEDDED_TASK_THREADS):
        background_submit(release.wait, 60)
    yield release
    release.set()


def test_start_answers_before_a_bot_moves_and_the_tournament_still_finishes(
    make_player, client_for, background_held
):
    _, token = make_player()
    client = client_for(token)
    created = client.post(
        "/api/v1/tournaments",
        {
            "name": "Bots",
            "bots": ["greedy"] * 4,
            "format": "round_robin",
            "table_size": 2,
            "deals": 1,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    tournament_id = created.json()["id"]
    started = client.post(f"/api/v1/tournaments/{tournament_id}/start")
    assert started.status_code == 200, started.content
    assert started.json()["status"] == "running" and started.json()["current_round"] == 1
    # The request has returned: round 1 is dealt, and no bot has moved yet.
    matches = Match.objects.filter(tournament_table__tournament_id=tournament_id)
    assert matches.count() == 2 and all(m.status == "active" for m in matches)
    assert not Move.objects.filter(deal__match__in=matches).exists()
    tables = client.get(f"/api/v1/tournaments/{tournament_id}/tables").json()["rounds"]
    assert [t["status"] for t in tables[0]["tables"]] == ["active", "active"]

    background_held.set()
    assert background_wait(120)
    tournament = Tournament.objects.get(id=tournament_id)
    assert tournament.status == "finished" and tournament.current_round == 3
    matches = Match.objects.filter(tournament_table__tournament_id=tournament_id)
    assert matches.count() == 6 and not matches.exclude(status="finished").exists()
    assert not matches.filter(settled_at=None).exists()


def test_the_next_round_is_dealt_and_played_off_the_sender(make_player, background_held):
    """tournaments.advance, sent when a round's last match settles (perhaps in the request of a
    person's last move), runs on the background thread too: the sender returns at once."""
    organizer, _ = make_player()
    bots = [bot_player_get_or_create(strategy="greedy", ordinal=i) for i in range(1, 5)]
    tournament = tournament_create(
        organizer=organizer,
        name="Two rounds",
        format="swiss",
        table_size=2,
        players=[b.id for b in bots],
        deals=1,
        rounds=2,
    )
    tournament_start(tournament_id=tournament.id, player=organizer)
    Match.objects.filter(tournament_table__round__number=1).update(status="finished")
    enqueue_advance(str(tournament.id))
    assert Round.objects.filter(tournament=tournament).count() == 1  # not advanced here
    background_held.set()
    assert background_wait(120)
    tournament.refresh_from_db()
    assert tournament.status == "finished" and tournament.current_round == 2
    assert Match.objects.filter(tournament_table__round__number=2).count() == 2
