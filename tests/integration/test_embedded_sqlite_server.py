"""The embedded default under several players at once: `make run`'s server (uvicorn on a
SQLite file, Celery tasks and the live hub in-process) with client threads registering,
creating matches against bots and posting keyed moves, each sent several times at once. No
answer is a 5xx (SQLite's "database is locked" was a 500), and every keyed move is applied
exactly once."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests

from tests.backing_services import free_port, wait_serving
from tests.helpers import make_run_environment

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = 6
MOVES_PER_PLAYER = 12
COPIES = 4  # each keyed move is sent this many times at once


@contextlib.contextmanager
def embedded(tmp_path: Path, **settings: str) -> Iterator[tuple[str, Path, Path]]:
    """`make run`'s commands (migrate, then uvicorn with the ASGI application) on a SQLite file
    of its own; one process, in `make run`'s environment (tests.helpers.make_run_environment:
    its throttles, none of the test run's raised rates) and `settings` over it. The API's base
    URL, the database file, the server's log."""
    database = tmp_path / "db.sqlite3"
    env = make_run_environment(
        DJANGO_SETTINGS_MODULE="pisyedili_api.settings",
        DJANGO_SECRET_KEY="insecure-development-key-of-make-run",
        DATABASE_URL=f"sqlite:///{database}",
        **settings,
    )
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    port = free_port()
    log = open(tmp_path / "runserver.log", "wb")  # noqa: SIM115
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "uvicorn", "live.asgi:application"),
            *("--host", "127.0.0.1", "--port", str(port), "--loop", "uvloop"),
            *("--http", "live.asgi:HttpProtocol", "--no-access-log"),
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}/api/v1"
    try:
        wait_serving(server, f"{base}/bots", tmp_path / "runserver.log")
        yield base, database, tmp_path / "runserver.log"
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


@pytest.fixture
def embedded_server(tmp_path):
    """The embedded server (`embedded`) with the move throttle raised: here each player's keyed
    moves are sent COPIES times at once, and every copy counts."""
    with embedded(tmp_path, THROTTLE_MATCH_MOVE="100000/sec") as server:
        yield server


def test_concurrent_players_get_no_5xx_and_keyed_moves_apply_once(embedded_server):
    base, database, log = embedded_server
    statuses: Counter[int] = Counter()
    lock = threading.Lock()
    sent: dict[str, list[str]] = {}  # match id -> keys of its human moves

    def call(method: str, path: str, token: str | None = None, **kw) -> requests.Response:
        headers = {**kw.pop("headers", {}), "Connection": "close"}
        if token:
            headers["Authorization"] = f"Token {token}"
        response = requests.request(method, base + path, headers=headers, timeout=60, **kw)
        with lock:
            statuses[response.status_code] += 1
        return response

    def post_move(args: tuple[str, str, dict, str]) -> requests.Response:
        match_id, token, body, key = args
        path = f"/matches/{match_id}/moves"
        return call("POST", path, token, json=body, headers={"Idempotency-Key": key})

    def play(n: int) -> None:
        name = f"sqlite{n}_{uuid.uuid4().hex[:6]}"
        registered = call(
            "POST", "/auth/register", json={"username": name, "password": "s3cret-pass"}
        )
        assert registered.status_code == 201, registered.text
        token = registered.json()["token"]
        created = call("POST", "/matches", token, json={"seats": 2, "bots": ["random"], "deals": 1})
        assert created.status_code == 201, created.text
        match_id = created.json()["id"]
        keys = sent.setdefault(match_id, [])
        view = call("GET", f"/matches/{match_id}/state", token).json()
        with ThreadPoolExecutor(max_workers=COPIES) as copies:
            for _ in range(MOVES_PER_PLAYER):
                if view["status"] != "active":
                    break
                if view["turn"] != 0:
                    view = call("GET", f"/matches/{match_id}/state", token).json()
                    continue
                key = uuid.uuid4().hex
                body = {**view["legal_moves"][-1], "version": view["version"]}
                keys.append(key)
                answers = list(copies.map(post_move, [(match_id, token, body, key)] * COPIES))
                assert all(a.status_code < 500 for a in answers), [a.text for a in answers]
                assert [a.status_code for a in answers] == [200] * COPIES, [a.text for a in answers]
                assert len({a.content for a in answers}) == 1  # the replay is the first answer
                view = answers[0].json()

    with ThreadPoolExecutor(max_workers=PLAYERS) as players:
        list(players.map(play, range(PLAYERS)))

    assert not [s for s in statuses if s >= 500], (statuses, log.read_text()[-3000:])
    with sqlite3.connect(database) as db:
        for match_id, keys in sent.items():
            match = uuid.UUID(match_id).hex
            human_moves = db.execute(
                "SELECT count(*) FROM games_move WHERE match_id = ? AND seat = 0 AND NOT by_bot",
                (match,),
            ).fetchone()[0]
            assert human_moves == len(keys), (match_id, human_moves, len(keys))
            seqs = [
                row[0]
                for row in db.execute(
                    "SELECT seq FROM games_move WHERE match_id = ? ORDER BY seq", (match,)
                )
            ]
            assert seqs == list(range(1, len(seqs) + 1))
        all_keys = [key for keys in sent.values() for key in keys]
        records = db.execute(
            f"SELECT count(*) FROM games_idempotencyrecord WHERE key IN "
            f"({','.join('?' * len(all_keys))})",
            all_keys,
        ).fetchone()[0]
        assert records == len(all_keys)
    assert sum(statuses.values()) >= PLAYERS * (2 + MOVES_PER_PLAYER)
