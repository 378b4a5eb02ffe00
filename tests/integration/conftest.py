"""Fixtures of the integration tests: `stack`, a real Celery worker and beat (workers.py)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from .workers import Stack, redis_start


@pytest.fixture(scope="module")
def stack(django_db_setup: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A worker and beat for the module, on the test database (committed rows only: the tests
    use transactional databases) and Redis; the test process sends to their queues."""
    from django.conf import settings
    from django.db import connection

    from pisyedili_api.celery import app

    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not broker.startswith("redis://"):
        pytest.skip("needs CELERY_BROKER_URL=redis://… (make test sets it)")
    redis_start()
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    if not db["ENGINE"].endswith("postgresql"):
        pytest.skip("needs DATABASE_URL=postgres://… (make test sets it)")
    running = Stack(url, broker, tmp_path_factory.mktemp("celery"))
    saved = {
        name: getattr(settings, name)
        for name in ("CELERY_TASK_ALWAYS_EAGER", "CELERY_BOT_QUEUE", "CELERY_SCORING_QUEUE")
    }
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BOT_QUEUE = running.bot_queue
    settings.CELERY_SCORING_QUEUE = running.scoring_queue
    assert not app.conf.task_always_eager
    running.start_worker()
    running.start_beat()
    try:
        yield running
    finally:
        running.stop()
        for name, value in saved.items():
            setattr(settings, name, value)
        redis_start()  # whatever a test did to it
