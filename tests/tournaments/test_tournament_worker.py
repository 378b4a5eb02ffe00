"""A bots-only tournament run by a real Celery worker on Redis: the bot turns and every
`tournaments.advance` (sent by games.signals.match_settled when a match settles) go through the
broker; nothing runs in-process after the start."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection

from games.models import Match
from players.services import bot_player_get_or_create
from tournaments.models import Round, Tournament
from tournaments.services import tournament_create, tournament_start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


@pytest.fixture
def start_worker(settings):
    from pisyedili_api.celery import app

    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not broker.startswith("redis://"):
        pytest.skip("needs CELERY_BROKER_URL=redis://… (make test sets it)")
    suffix = uuid.uuid4().hex[:8]
    bots_queue, default_queue = f"test-bots-{suffix}", f"test-default-{suffix}"
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": broker,
        "CELERY_BOT_QUEUE": bots_queue,
        # tournaments.advance goes to the worker's default queue: one no other worker reads.
        "CELERY_TASK_DEFAULT_QUEUE": default_queue,
    }
    settings.CELERY_BOT_QUEUE = bots_queue
    settings.CELERY_TASK_ALWAYS_EAGER = False
    assert not app.conf.task_always_eager
    processes: list[subprocess.Popen[bytes]] = []

    def start() -> subprocess.Popen[bytes]:
        processes.append(
            subprocess.Popen(
                [
                    str(Path(sys.executable).with_name("celery")),
                    "-A",
                    "pisyedili_api",
                    "worker",
                    "-Q",
                    f"{bots_queue},{default_queue}",
                    "-P",
                    "solo",
                    "--without-gossip",
                    "--without-mingle",
                    "-l",
                    "warning",
                ],
                env=env,
                cwd=Path(__file__).resolve().parents[2],
            )
        )
        return processes[-1]

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=30)


def test_worker_plays_every_round_and_advances(make_player, start_worker):
    organizer, _ = make_player()
    bots = [bot_player_get_or_create(strategy="greedy", ordinal=i) for i in range(1, 5)]
    tournament = tournament_create(
        organizer=organizer,
        name="On the worker",
        format="round_robin",
        table_size=2,
        players=[b.id for b in bots],
        deals=1,
    )
    tournament_start(tournament_id=tournament.id, player=organizer)
    # Before a worker runs, the first bot turns wait in Redis: nothing is played in-process.
    time.sleep(0.5)
    assert Tournament.objects.get(id=tournament.id).current_round == 1
    assert not Match.objects.filter(tournament_table__tournament=tournament, move_count__gt=0)
    worker = start_worker()
    deadline = time.monotonic() + 180
    while Tournament.objects.get(id=tournament.id).status != "finished":
        assert worker.poll() is None, "the worker died"
        assert time.monotonic() < deadline, "the worker did not finish the tournament"
        time.sleep(0.2)
    rounds = Round.objects.filter(tournament=tournament).order_by("number")
    assert [r.number for r in rounds] == [1, 2, 3]
    assert all(r.finished_at is not None for r in rounds)
    finished = Match.objects.filter(tournament_table__tournament=tournament, status="finished")
    assert finished.count() == 6
