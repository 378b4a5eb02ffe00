"""The moves' throttle (games.apis.MoveRateThrottle, THROTTLE_MATCH_MOVE): a token's moves at
the same moment never pass more than its rate, the count is in the throttle cache's Redis where
every web process sees it, and a Redis that does not answer counts nothing."""

from __future__ import annotations

import secrets
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings
from rest_framework.throttling import SimpleRateThrottle

from games.apis import MoveRateThrottle, _counter
from players.auth import DeferredPlayer

needs_redis = pytest.mark.skipif(
    settings.CACHES["default"]["BACKEND"] != "django_redis.cache.RedisCache",
    reason="needs the Redis stack",
)


@pytest.fixture
def five_a_minute(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"match_move": "5/min"})
    yield


def _token() -> DeferredPlayer:
    return DeferredPlayer(secrets.token_hex(32))  # a token of its own: a count of its own


def test_moves_at_the_same_moment_pass_no_more_than_the_rate(five_a_minute: None) -> None:
    caller, start = _token(), threading.Barrier(16)
    passed: list[bool] = []
    refused_waits: list[float] = []

    def move() -> None:
        throttle = MoveRateThrottle(caller)
        start.wait()
        allowed = throttle.allow_request(None, None)
        passed.append(allowed)
        if not allowed:
            refused_waits.append(throttle.wait())

    threads = [threading.Thread(target=move) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert passed.count(True) == 5, passed
    assert len(refused_waits) == 11 and all(0 < wait <= 60 for wait in refused_waits)
    assert MoveRateThrottle(_token()).allow_request(None, None)  # another token's own count


@needs_redis
def test_the_count_is_in_the_throttle_caches_redis(five_a_minute: None) -> None:
    import redis

    caller = _token()
    assert MoveRateThrottle(caller).allow_request(None, None)
    cache: dict[str, Any] = settings.CACHES["default"]
    raw = redis.Redis.from_url(cache["LOCATION"])
    keys = [k.decode() for k in raw.scan_iter(match=f"*{cache['KEY_PREFIX']}*match_move*")]
    assert any(caller.throttle_ident in key for key in keys), keys


@needs_redis
def test_a_redis_that_does_not_answer_counts_nothing(
    five_a_minute: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:  # a port that no one listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cache = {**settings.CACHES["default"], "LOCATION": f"redis://127.0.0.1:{port}/0"}
    with override_settings(CACHES={**settings.CACHES, "default": cache}):
        caller = _token()
        assert all(MoveRateThrottle(caller).allow_request(None, None) for _ in range(8))
    _counter.cache_clear()  # its connections to the port
