"""Fixtures of the integration tests: `stack`, a real Celery worker and beat on a Redis of
their own (workers.py)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.backing_services import PrivateRedis

from .workers import Stack


def _celery_broker(url: str) -> None:
    """Point this process's Celery app at `url`: Celery reads CELERY_BROKER_URL from the
    environment before the settings, and keeps its connection pools until they are dropped."""
    from django.conf import settings

    from pisyedili_api.celery import app

    os.environ["CELERY_BROKER_URL"] = settings.CELERY_BROKER_URL = url
    # Dropped, not closed: kombu keeps each URL's pools in a registry of its own, and the
    # suite's pool must still be open when the module switches back to it.
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture(scope="module")
def stack(django_db_setup: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A worker and beat for the module, on the test database (committed rows only: the tests
    use transactional databases) and a private Redis on a free port, which the tests may stop
    and start; the test process sends to their Redis and queues."""
    from django.conf import settings
    from django.db import connection

    from pisyedili_api.celery import app

    db = connection.settings_dict
    if not db["ENGINE"].endswith("postgresql"):
        pytest.skip("needs DATABASE_URL=postgres://… (make test sets it)")
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    redis = PrivateRedis().start()
    running = Stack(url, redis, tmp_path_factory.mktemp("celery"))
    saved_env = os.environ.get("CELERY_BROKER_URL")
    saved = {
        name: getattr(settings, name)
        for name in (
            "CELERY_BROKER_URL",
            "CELERY_TASK_ALWAYS_EAGER",
            "CELERY_BOT_QUEUE",
            "CELERY_SCORING_QUEUE",
            "CELERY_ANALYSIS_QUEUE",
        )
    }
    _celery_broker(redis.url)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BOT_QUEUE = running.bot_queue
    settings.CELERY_SCORING_QUEUE = running.scoring_queue
    settings.CELERY_ANALYSIS_QUEUE = running.analysis_queue
    assert not app.conf.task_always_eager
    assert app.connection_for_write().port == redis.port
    running.start_worker()
    running.start_beat()
    try:
        yield running
    finally:
        running.stop()
        redis.stop()
        for name, value in saved.items():
            setattr(settings, name, value)
        _celery_broker(saved["CELERY_BROKER_URL"])
        if saved_env is None:
            os.environ.pop("CELERY_BROKER_URL", None)
        else:
            os.environ["CELERY_BROKER_URL"] = saved_env


@pytest.fixture(autouse=True)
def _settled_before_flush(request: pytest.FixtureRequest) -> Any:
    """A test of the `stack` ends only once its worker has finished the tasks the test left it,
    before its database is flushed (set up after the database, so torn down before it)."""
    if "stack" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("transactional_db")
    running = request.getfixturevalue("stack")
    yield
    running.settle()
