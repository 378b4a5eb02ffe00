"""Fixtures for the Django tests (engine tests need none of this).

Every test runs against the database of DATABASE_URL (PostgreSQL under `make test`; the plugin
tests/backing_services.py starts a throwaway server when none answers). The settings are
pisyedili_api/settings_test.py: bot turns run in-process (Celery eager) unless a test starts a
real worker; every response body goes through the hidden-information scanner of
tests/leakscan.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest

_counter = itertools.count()


@pytest.fixture(scope="session", autouse=True)
def _session_setup() -> Iterator[None]:
    # The live server answers 50 concurrent requests in the race tests: a deeper accept queue.
    from django.core.servers.basehttp import WSGIServer

    WSGIServer.request_queue_size = 256
    yield


@pytest.fixture(autouse=True)
def _own_cache_keys() -> Iterator[None]:
    """Throttle and lockout counters live in the cache, the shared Redis under `make test`: each
    test gets a key prefix of its own, so it starts from no counts and never reads or writes
    anyone else's keys (nothing is ever flushed; the keys expire with their windows)."""
    import uuid

    from django.conf import settings
    from django.test import override_settings

    default = {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    with override_settings(CACHES={**settings.CACHES, "default": default}):
        yield


@pytest.fixture(autouse=True)
def _no_leaks(request: pytest.FixtureRequest) -> Iterator[None]:
    from tests.leakscan import VIOLATIONS

    VIOLATIONS.clear()
    yield
    found = list(VIOLATIONS)
    VIOLATIONS.clear()
    assert not found, f"hidden information leaked: {found[:5]}"


@pytest.fixture
def api() -> Any:
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def make_player(db: Any) -> Callable[..., Any]:
    """Register a player through the service; returns (player, token)."""
    from players.services import player_register

    def make(name: str | None = None) -> Any:
        name = name or f"player{next(_counter)}"
        return player_register(username=name, password="s3cret-pass", display_name=name.title())

    return make


@pytest.fixture
def client_for() -> Callable[[str], Any]:
    from rest_framework.test import APIClient

    def make(token: str) -> Any:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        return client

    return make
