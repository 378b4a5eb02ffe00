"""Fixtures of the integration tests: `stack`, a real Celery worker and beat on a Redis of
their own (workers.py); `live_server`, the web tier as deployed (uvicorn live.asgi) on
the test database, in place of pytest-django's WSGI server."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
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


class _NoSettings:
    """pytest-django's live-server helper switches these around each test; a server in a
    process of its own reads its settings from its environment instead."""

    def enable(self) -> None:
        pass

    def disable(self) -> None:
        pass


class WebServer:
    """uvicorn live.asgi on a free port, started as the deployment starts it
    (tests/live/conftest.py Servers); `url` as pytest-django's live server gives it."""

    def __init__(self, servers: Any) -> None:
        self.servers = servers
        self.url = servers.bases[0]
        self._live_server_modified_settings = _NoSettings()

    def stop(self) -> None:
        self.servers.stop()


@pytest.fixture
def live_server(
    request: pytest.FixtureRequest, django_db_setup: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WebServer]:
    """The web tier for one test, with the test process's Celery settings as they are once the
    test's worker fixtures (`stack`, `start_worker`) have set them: where its tasks go, or
    whether they run inside the request. Its live events' channel is the workers' (the
    environment's LIVE_CHANNEL_PREFIX): a worker's move wakes the server's long-polls."""
    from django.conf import settings
    from django.db import connection

    from tests.live.conftest import Servers

    for name in ("stack", "start_worker"):
        if name in request.fixturenames:
            request.getfixturevalue(name)
    db = connection.settings_dict
    if not db["ENGINE"].endswith("postgresql"):
        pytest.skip("needs DATABASE_URL=postgres://… (make test sets it)")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "pisyedili_api.settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL or "",
        "CELERY_TASK_ALWAYS_EAGER": "1" if settings.CELERY_TASK_ALWAYS_EAGER else "0",
        "CELERY_BOT_QUEUE": settings.CELERY_BOT_QUEUE,
        "CELERY_SCORING_QUEUE": settings.CELERY_SCORING_QUEUE,
        "CELERY_ANALYSIS_QUEUE": settings.CELERY_ANALYSIS_QUEUE,
        "EMBEDDED_BEAT": "0",
        # In-process tasks run in the request (as the test process runs them): no pool of
        # processes of its own that would outlive the server on the test database.
        "EMBEDDED_ANALYSIS_IN_BACKGROUND": "0",
        "DATABASE_POOL_MAX": "8",
        # Throttle counters of its own, as each test's in the test process (conftest).
        "CACHE_KEY_PREFIX": f"test-live-{uuid.uuid4().hex}",
        # Passwords hashed as the suite's own settings hash them (settings_test): PBKDF2 takes
        # about 0.36 s of CPU a hash, and a registration or a login (schemathesis sends many)
        # is one.
        "DJANGO_PASSWORD_HASHERS": ",".join(settings.PASSWORD_HASHERS),
        "PYTHONUNBUFFERED": "1",
    }
    server = WebServer(Servers(env, 1, tmp_path_factory.mktemp("uvicorn")))
    try:
        yield server
    finally:
        server.stop()
