"""The one task seam (pisyedili_api/tasks.py): every task of both apps is named after the
service it runs, takes its options from one decorator and its time limits from the app, is
routed by CELERY_TASK_ROUTES; both sweepers follow one policy; a send never fails the request
that committed, even with the broker down."""

from __future__ import annotations

import inspect
import logging

import pytest
from django.db import OperationalError

import games.services
import tournaments.services
from games import tasks as games_tasks
from pisyedili_api import tasks as seam
from pisyedili_api.celery import app
from tournaments import tasks as tournament_tasks

APPS = {
    "games": (games_tasks, games.services),
    "tournaments": (tournament_tasks, tournaments.services),
}
BEAT = {"games.sweep", "games.expire_turns", "games.queue_pair", "tournaments.sweep"}


def app_tasks():
    """Every task the two apps register (Celery's own tasks aside)."""
    app.loader.import_default_modules()
    return {name: task for name, task in app.tasks.items() if name.split(".")[0] in APPS}


def test_every_task_is_named_after_its_service_or_its_beat_job():
    registered = app_tasks()
    assert set(registered) >= BEAT | {"games.deal_score", "tournaments.tournament_advance"}
    for name, task in registered.items():
        app_label, word = name.split(".")
        module, services = APPS[app_label]
        function = task.run.__name__
        assert inspect.getmodule(task.run) is module, name
        if name in BEAT or name == "games.noop":
            assert function == word, name
        else:
            # deal_score ↔ games.deal_score ↔ deal_score_task
            assert function == f"{word}_task", name
            assert callable(getattr(services, word)), name


def test_one_decorator_one_policy_and_the_app_s_time_limits():
    for name, task in app_tasks().items():
        assert task.soft_time_limit is None and task.time_limit is None, name
        if name == "games.noop":
            continue  # changes nothing; bench/bot_latency.py awaits its result
        assert task.acks_late and task.reject_on_worker_lost and task.ignore_result, name
        if name in BEAT:
            # Both sweepers and the turn clock: the next beat is their retry.
            assert not getattr(task, "autoretry_for", ()), name
        else:
            assert OperationalError in task.autoretry_for and task.max_retries == 5, name
            assert task.retry_backoff and task.retry_jitter, name
    assert (app.conf.task_soft_time_limit, app.conf.task_time_limit) == (20, 30)


def test_the_beat_schedule_has_one_style_and_sends_no_queue():
    schedule = app.conf.beat_schedule
    assert {e["task"] for e in schedule.values()} == BEAT
    for entry in schedule.values():
        assert set(entry["options"]) == {"expires"}  # the queue comes from the routes
    sweeps = [e for e in schedule.values() if e["task"].endswith(".sweep")]
    assert len({(e["schedule"], e["options"]["expires"]) for e in sweeps}) == 1


def test_queues_come_from_the_routes(settings):
    router = app.amqp.router
    queue = {name: router.route({}, name, (), {})["queue"].name for name in app_tasks()}
    assert queue["games.match_play_bot_turn"] == queue["games.match_play_overdue_turn"] == "bots"
    assert queue["games.deal_score"] == queue["games.match_settle"] == "scoring"
    assert queue["tournaments.tournament_advance"] == queue["tournaments.sweep"] == "scoring"
    assert set(settings.CELERY_TASK_QUEUE_SETTINGS) == set(app_tasks())  # none left unrouted
    # Read when sent: a process may point a queue elsewhere at run time.
    settings.CELERY_BOT_QUEUE = "bots-elsewhere"
    assert router.route({}, "games.match_play_bot_turn", (), {})["queue"].name == "bots-elsewhere"
    # An explicit queue still wins (a test delivering a message to a chosen worker).
    assert router.route({"queue": "mine"}, "games.deal_score", (), {})["queue"].name == "mine"


@pytest.fixture
def broker_down(settings, monkeypatch):
    """This process's Celery app pointed at a Redis that does not answer (nothing listens on
    port 1), its connection pools dropped and put back afterwards."""
    down = "redis://127.0.0.1:1/0"
    monkeypatch.setenv("CELERY_BROKER_URL", down)
    settings.CELERY_BROKER_URL = down
    settings.CELERY_TASK_ALWAYS_EAGER = False
    saved = app._pool, app.amqp._producer_pool
    app._pool = app.amqp._producer_pool = None
    yield
    app._pool, app.amqp._producer_pool = saved


@pytest.mark.django_db(transaction=True)
def test_a_send_with_the_broker_down_is_logged_and_the_commit_stands(broker_down, caplog):
    """The send gives up within the publish retry policy, logs, and never raises into the
    transaction that committed; the sweeper sends the work again later."""
    from django.db import transaction

    from players.models import Player

    with caplog.at_level(logging.ERROR, logger="pisyedili_api.tasks"):
        with transaction.atomic():
            Player.objects.create(username="still-here")
            seam.send_on_commit("games.deal_score", "m", 1)
            assert "could not send" not in caplog.text  # nothing is sent before the commit
        assert Player.objects.filter(username="still-here").exists()
    assert "could not send games.deal_score('m', 1)" in caplog.text


def _embedded_process(script: str, **env: str) -> str:
    """`script` in a fresh process of the embedded default (no broker, no database setting;
    `env`: settings of its own), what it printed."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    environ = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "DATABASE_"))}
    environ |= {"DJANGO_SETTINGS_MODULE": "pisyedili_api.settings", "DJANGO_DEBUG": "1", **env}
    completed = subprocess.run(
        [sys.executable, "-c", script],
        cwd=Path(__file__).resolve().parents[2],
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.strip()


def test_a_process_that_only_sends_by_name_finds_the_task_in_the_embedded_default():
    """A web process imports no tasks module of its own accord: the first in-process send by
    name imports them (else every bot turn would fail with an unknown task)."""
    printed = _embedded_process(
        "import django, sys; django.setup()\n"
        "assert 'games.tasks' not in sys.modules\n"
        "from pisyedili_api import tasks\n"
        "print(tasks._task('tournaments.tournament_advance').name)\n"
    )
    assert printed == "tournaments.tournament_advance"


def test_threads_that_send_by_name_at_once_all_find_the_task():
    """Request threads of a fresh web process send a bot turn at about the same moment (two
    people's moves, a bot's answer): one starts, seven more come while it imports the tasks;
    each finds the task."""
    printed = _embedded_process(
        "import django, threading, time; django.setup()\n"
        "from pisyedili_api import tasks\n"
        "found = []\n"
        "def send():\n"
        "    try:\n"
        "        found.append(tasks._task('games.match_play_bot_turn').name)\n"
        "    except Exception as error:\n"
        "        found.append(repr(error))\n"
        "threads = [threading.Thread(target=send) for _ in range(8)]\n"
        "threads[0].start()\n"
        "time.sleep(0.02)\n"
        "[thread.start() for thread in threads[1:]]\n"
        "[thread.join() for thread in threads]\n"
        "print('\\n'.join(found))\n"
    )
    assert printed.splitlines() == ["games.match_play_bot_turn"] * 8, printed


def test_a_send_asks_for_no_result_and_subscribes_to_none_with_a_result_backend(settings):
    """No caller of `send` awaits a result. With a result backend set (CELERY_RESULT_BACKEND,
    as bench/bot_latency.py runs), the message says so and the sender subscribes to no result
    channel: Celery's default would subscribe before the message goes out and unsubscribe when
    the handle is let go, on every bot turn and deal sent, and the confirmations would pile up
    unread on the sender's result connection."""
    import json
    import uuid

    import redis

    broker = settings.CELERY_BROKER_URL
    assert broker.startswith("redis://"), "the suite runs against Redis"
    queue = f"test-no-result-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(broker)
    try:
        printed = _embedded_process(
            "import django; django.setup()\n"
            "from pisyedili_api import tasks\n"
            "from pisyedili_api.celery import app\n"
            "tasks.send('games.deal_score', 'm', 1)\n"
            "print(type(app.backend).__name__, app.backend.result_consumer._pubsub is None)\n",
            CELERY_BROKER_URL=broker,
            CELERY_RESULT_BACKEND=broker,
            CELERY_SCORING_QUEUE=queue,
        )
        assert printed.split() == ["RedisBackend", "True"]  # no result channel
        message = json.loads(client.rpop(queue))
        assert message["headers"]["task"] == "games.deal_score"
        assert message["headers"]["ignore_result"] is True
        assert client.llen(queue) == 0
    finally:
        client.delete(queue)
