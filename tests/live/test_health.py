"""`GET /api/v1/health` (pisyedili_api.health): 200 while the process serves, with its live
tier's state; `"live": "waiting"` (still 200) while its Redis is down or hangs and `ok` once it
is back; 503 `unavailable` while its database does not answer (as every route that reads it)
and 200 once it does. The faults are a private Redis and a private PostgreSQL that these tests
start and stop (never the suite's), under a uvicorn process of their own."""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from rest_framework.test import APIClient

from tests.backing_services import PrivatePostgres, PrivateRedis
from tests.httpclient import http

from .conftest import Servers

pytestmark = pytest.mark.timeout(240)


@pytest.mark.django_db
def test_health_answers_without_a_token_and_is_never_cached(settings: Any) -> None:
    settings.LIVE_REDIS_URL = ""
    for headers in ({}, {"HTTP_AUTHORIZATION": "Token not-a-token"}):
        response = APIClient().get("/api/v1/health", **headers)
        assert response.status_code == 200, response.content
        assert response.json() == {"status": "ok", "database": "ok", "live": "in_process"}
        assert response["Cache-Control"] == "no-store"
    # With a Redis to listen to and no hub listening in this process: waiting, still 200.
    settings.LIVE_REDIS_URL = "redis://127.0.0.1:1/0"
    response = APIClient().get("/api/v1/health")
    assert response.status_code == 200 and response.json()["live"] == "waiting"
    refused = APIClient().post("/api/v1/health", {}, format="json")
    assert refused.status_code == 405 and refused.json()["code"] == "method_not_allowed"
    settings.ALLOWED_HOSTS = ["testserver"]
    elsewhere = APIClient().get("/api/v1/health", HTTP_HOST="elsewhere.example")
    assert elsewhere.status_code == 400 and elsewhere.json()["code"] == "invalid"


def _health(base: str) -> httpx.Response:
    return http.get(f"{base}/api/v1/health", timeout=15)


def _until(check: Callable[[], bool], within: float, what: str) -> None:
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


@pytest.fixture
def private_server(
    live_env: dict[str, str], tmp_path: Path
) -> Iterator[tuple[PrivatePostgres, PrivateRedis, str]]:
    """A private PostgreSQL and Redis, started, and one web process on them (the database
    holds no table: the health route reads none)."""
    postgres, redis = PrivatePostgres().start(), PrivateRedis().start()
    env = {
        **live_env,
        "DATABASE_URL": postgres.url,
        "LIVE_REDIS_URL": redis.url,
        "LIVE_CHANNEL_PREFIX": f"test-health-{uuid.uuid4().hex[:12]}",
    }
    server: Servers | None = None
    try:
        server = Servers(env, 1, tmp_path)
        yield postgres, redis, server.bases[0]
    finally:
        if server is not None:
            server.stop()
        redis.stop()
        postgres.remove()


@pytest.mark.django_db
def test_health_follows_redis_and_the_database_going_and_coming_back(
    private_server: tuple[PrivatePostgres, PrivateRedis, str], tmp_path: Path
) -> None:
    postgres, redis, base = private_server
    _until(lambda: _health(base).json().get("live") == "ok", 10, "never listening")
    assert _health(base).json() == {"status": "ok", "database": "ok", "live": "ok"}

    redis.stop()
    _until(lambda: _health(base).json().get("live") == "waiting", 10, "Redis gone unseen")
    response = _health(base)
    assert response.status_code == 200, response.text  # every route but new streams serves
    assert response.json() == {"status": "ok", "database": "ok", "live": "waiting"}
    redis.start()
    _until(lambda: _health(base).json().get("live") == "ok", 15, "Redis back unseen")
    # A Redis that hangs (here stopped by a signal) keeps the hub's connection open: it does
    # not answer, and new streams wait for it; the health says so, then ok once it answers.
    assert redis.process is not None
    os.kill(redis.process.pid, signal.SIGSTOP)
    try:
        response = _health(base)
        assert response.status_code == 200 and response.json()["live"] == "waiting", response.text
    finally:
        os.kill(redis.process.pid, signal.SIGCONT)
    _until(lambda: _health(base).json().get("live") == "ok", 15, "Redis answering unseen")

    postgres.stop("immediate")
    response = _health(base)
    assert response.status_code == 503, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["retry-after"] == "5"
    body = response.json()
    assert body["code"] == "unavailable" and body["message"], body
    assert body["detail"] == {"database": "unavailable", "live": "ok"}, body
    started = time.monotonic()
    assert _health(base).status_code == 503
    assert time.monotonic() - started < 12  # within the pool's wait for a connection
    # Every other route that reads the database answers so too, not 500 (a client retries a
    # 503 as Retry-After says), and the log says it once, not a traceback a request.
    for _ in range(3):
        other = http.get(f"{base}/api/v1/matches", timeout=15)
        assert other.status_code == 503, other.text
        assert other.json()["code"] == "unavailable" and other.headers["retry-after"] == "5"
    log = (tmp_path / "uvicorn0.log").read_text(errors="replace")
    assert log.count("database unavailable: requests are answered 503") == 1, log[-3000:]
    assert "Service Unavailable" not in log and "server_error" not in log
    postgres.start()
    _until(lambda: _health(base).status_code == 200, 30, "the database back unseen")
    assert _health(base).json() == {"status": "ok", "database": "ok", "live": "ok"}
