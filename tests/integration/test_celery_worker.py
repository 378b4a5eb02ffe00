"""Bot turns played by a real Celery worker on Redis (not in-process), over HTTP, live server."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection

from games.models import Move

from .live import register

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


@pytest.fixture
def start_worker(settings):
    from pisyedili_api.celery import app

    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not broker.startswith("redis://"):
        pytest.skip("needs CELERY_BROKER_URL=redis://… (make test sets it)")
    queue = f"test-bots-{uuid.uuid4().hex[:8]}"  # never shared with another worker
    db = connection.settings_dict
    env = {
        **os.environ,
        # The deployment's settings (docs/operations.md "Settings"), not the test suite's (which
        # run every task in-process).
        "DJANGO_SETTINGS_MODULE": "pisyedili_api.settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": broker,
        "CELERY_BOT_QUEUE": queue,
        "CELERY_SCORING_QUEUE": queue,
    }
    celery = Path(sys.executable).with_name("celery")
    settings.CELERY_BOT_QUEUE = queue
    settings.CELERY_SCORING_QUEUE = queue  # deal scoring runs on the worker too
    settings.CELERY_TASK_ALWAYS_EAGER = False
    assert not app.conf.task_always_eager
    processes = []

    def start(**env_extra: str):
        processes.append(
            subprocess.Popen(
                [
                    str(celery),
                    "-A",
                    "pisyedili_api",
                    "worker",
                    "-Q",
                    queue,
                    "-P",
                    "solo",
                    "--without-gossip",
                    "--without-mingle",
                    "-l",
                    "warning",
                ],
                env={**env, **env_extra},
                cwd=Path(__file__).resolve().parents[2],
            )
        )
        return processes[-1]

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=30)


def test_worker_answers_for_the_bots_until_the_match_ends(live_server, start_worker):
    _, human = register(live_server.url)
    match = human.post(
        "/api/v1/matches", {"seats": 3, "bots": ["greedy", "random"], "deals": 1}
    ).json()
    view = human.state(match["id"])
    # Before any worker runs, the bot turn waits in Redis: nothing happens in-process.
    while view["turn"] == 0:
        response = human.post(
            f"/api/v1/matches/{match['id']}/moves",
            {**view["legal_moves"][-1], "version": view["version"]},
        )
        assert response.status_code == 200, response.text
        view = response.json()
    # The move reply says a bot is on turn and has not moved (`pending_bot_turns`, a field of
    # the reply only); the state read a second later is still that view: no worker, no move.
    assert view.pop("pending_bot_turns") is True
    time.sleep(1.0)
    assert human.state(match["id"]) == view
    worker = start_worker()
    deadline = time.monotonic() + 240
    while view["status"] == "active":
        assert time.monotonic() < deadline, "the worker did not finish the match"
        if view["turn"] != 0:
            # Bots are on turn: wait for the worker's move with the long-poll.
            view = human.state(match["id"], f"?after_version={view['version']}&wait=10")
            continue
        response = human.post(
            f"/api/v1/matches/{match['id']}/moves",
            {**view["legal_moves"][-1], "version": view["version"]},
        )
        assert response.status_code == 200, response.text
        view = response.json()
        assert worker.poll() is None, "the worker died"
    assert view["status"] == "finished"
    bot_moves = Move.objects.filter(match_id=match["id"], by_bot=True)
    assert set(bot_moves.values_list("seat", flat=True)) == {1, 2}
    seqs = list(
        Move.objects.filter(match_id=match["id"]).order_by("seq").values_list("seq", flat=True)
    )
    assert seqs == list(range(1, len(seqs) + 1))


def test_a_worker_whose_connection_was_cut_plays_the_next_bot_turn(live_server, start_worker):
    """A worker's tasks use its persistent connection unchecked (pisyedili_api.celery): when
    that connection died meanwhile (its server process ended, as in a restart of PostgreSQL),
    the bot's task fails on it and is retried on a new one; the bot still answers."""
    name = f"test-worker-{uuid.uuid4().hex[:8]}"
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}?application_name={name}"
    start_worker(DATABASE_URL=url, CONN_MAX_AGE="600")
    _, human = register(live_server.url)
    match = human.post("/api/v1/matches", {"seats": 2, "bots": ["greedy"], "deals": 5}).json()

    def bot_answers(view: dict) -> dict:
        """The person moves until the bot is on turn; then the view once the bot's turn is over
        (a turn may be several moves, a draw then a play: each its own task)."""
        while view["turn"] == 0 and view["status"] == "active":
            response = human.post(
                f"/api/v1/matches/{match['id']}/moves",
                {**view["legal_moves"][-1], "version": view["version"]},
            )
            assert response.status_code == 200, response.text
            view = response.json()
        assert view["status"] == "active"
        deadline = time.monotonic() + 60
        while view["turn"] != 0 and view["status"] == "active":
            assert time.monotonic() < deadline, "the bot did not answer"
            view = human.state(match["id"], f"?after_version={view['version']}&wait=10")
        return view

    view = bot_answers(human.state(match["id"]))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
            [name],
        )
        assert cursor.fetchall() == [(True,)]  # the worker kept its one connection open
    before = Move.objects.filter(match_id=match["id"], by_bot=True).count()
    bot_answers(view)
    assert Move.objects.filter(match_id=match["id"], by_bot=True).count() > before
