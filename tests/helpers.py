"""Small helpers shared by the Django tests."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def client_with(token: str) -> Any:
    """An API client that sends `token`."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@contextlib.contextmanager
def commits_run_in_place() -> Iterator[None]:
    """`transaction.on_commit` callbacks run where the commit would be, inside the test's own
    transaction (rolled back at the end, no flush): when the outermost block of the code under
    test exits without error, or at once when the code registers one outside any block of its
    own (autocommit). For tests that need what commits trigger (scoring, bot turns, events) but
    not a second connection: one that needs another connection or thread to see the rows keeps
    `django_db(transaction=True)`."""
    from django.db import connections, transaction
    from django.db.backends.base.base import BaseDatabaseWrapper

    def only_the_tests_blocks(connection: BaseDatabaseWrapper) -> bool:
        return all(getattr(block, "_from_testcase", False) for block in connection.atomic_blocks)

    def run_hooks(connection: BaseDatabaseWrapper) -> None:
        while connection.run_on_commit:
            _, func, robust = connection.run_on_commit.pop(0)
            if robust:
                try:
                    func()
                except Exception:  # noqa: BLE001 — as Django's robust hooks: logged, not raised
                    import logging

                    logging.getLogger("django.db.backends.base").exception(
                        "Error calling %s in on_commit() (in place).", func
                    )
            else:
                func()

    atomic_exit = transaction.Atomic.__exit__
    on_commit = BaseDatabaseWrapper.on_commit

    def exit_then_commit_hooks(self: Any, exc_type: Any, exc: Any, tb: Any) -> Any:
        result = atomic_exit(self, exc_type, exc, tb)
        connection = transaction.get_connection(self.using)
        if exc_type is None and not connection.needs_rollback and only_the_tests_blocks(connection):
            run_hooks(connection)
        return result

    def on_commit_in_place(self: BaseDatabaseWrapper, func: Any, robust: bool = False) -> None:
        on_commit(self, func, robust)
        if self.in_atomic_block and only_the_tests_blocks(self):
            run_hooks(self)

    transaction.Atomic.__exit__ = exit_then_commit_hooks  # type: ignore[method-assign]
    BaseDatabaseWrapper.on_commit = on_commit_in_place  # type: ignore[method-assign]
    try:
        yield
    finally:
        transaction.Atomic.__exit__ = atomic_exit  # type: ignore[method-assign]
        BaseDatabaseWrapper.on_commit = on_commit  # type: ignore[method-assign]
        for connection in connections.all(initialized_only=True):
            connection.run_on_commit.clear()


def race(*calls: Any) -> list[str | None]:
    """Run `calls` in threads released at once, each on its own database connection (closed
    after); each one's outcome: "ok" or the code of the ApplicationError it raised."""
    import threading

    from django.db import connection

    from pisyedili_api.errors import ApplicationError

    start, results = threading.Barrier(len(calls)), [None] * len(calls)

    def run(index: int, call: Any) -> None:
        try:
            start.wait()
            call()
            results[index] = "ok"
        except ApplicationError as exc:
            results[index] = exc.code
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def create_match(client: Any, **body: Any) -> dict[str, Any]:
    response = client.post("/api/v1/matches", {"seats": 2, **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def state(client: Any, match_id: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/matches/{match_id}/state")
    assert response.status_code == 200, response.content
    return response.json()


def post_move(
    client: Any, match_id: str, move: dict[str, Any], version: int, **headers: Any
) -> Any:
    return client.post(
        f"/api/v1/matches/{match_id}/moves", {**move, "version": version}, format="json", **headers
    )


def play_until(
    clients: dict[int, Any], match_id: str, done: Any, limit: int = 2000
) -> dict[str, Any]:
    """Seated clients (by seat) play their first legal move until `done(view)` or the match ends.
    A deal's end is scored on commit, which then deals the next one: in a test's transaction
    only with `commits_in_place` (a deal over and not scored by the next read fails at once)."""
    view = state(next(iter(clients.values())), match_id)
    for _ in range(limit):
        if view["status"] != "active" or done(view):
            return view
        if view["turn"] is None:  # deal over: scored on commit, then the next deal is dealt
            over = view["version"]
            view = state(next(iter(clients.values())), match_id)
            assert view["version"] != over, (
                f"deal {view['deal']} is over and was not scored: commits do not run here"
                " (the commits_in_place fixture runs them)"
            )
            continue
        if view["you"] != view["turn"]:
            view = state(clients[view["turn"]], match_id)
        response = post_move(
            clients[view["turn"]], match_id, view["legal_moves"][0], view["version"]
        )
        assert response.status_code == 200, response.content
        view = response.json()
    raise AssertionError("the match did not get there")


def end_deal_by_last_card(match_id: Any, player_id: Any, seat: int) -> None:
    """Script the live deal so that `seat` (two seats) holds only 7D on a 9D and the other seat
    keeps JS 7C 3H (R-31: 144 points), then play the 7D for `player_id` through the service: the
    deal is over, its scoring sent on commit."""
    from games import engine
    from games.models import Match
    from games.serializers import move_reply
    from games.services import match_apply_move

    current = Match.objects.get(id=match_id)
    hands = ["JS 7C 3H", "JS 7C 3H"]
    hands[seat] = "7D"
    position = engine.deal_from_codes(
        hands=hands,
        top="9D",
        stock=["2C", "4C"],
        turn=seat,
        rules=engine.Rules.from_json(current.rules),
        phase="play",
    )
    Match.objects.filter(id=match_id).update(state=position.to_json())
    match_apply_move(
        match_id=match_id,
        player_id=player_id,
        move=engine.Move.from_json({"action": "play", "card": "7D"}),
        version=current.version,
        reply=move_reply,
    )


# The settings of the test run's environment that `make run` would not have: the services and
# the keys the suite uses, and its raised rates (pisyedili_api.settings_test).
NOT_MAKE_RUN = (
    "DJANGO_",
    "DATABASE_URL",
    "CELERY_",
    "GAMES_",
    "TOURNAMENT_",
    "LIVE_",
    "CACHE_",
    "THROTTLE_",
)


def make_run_environment(**settings: str) -> dict[str, str]:
    """The environment of a server or shell the tests start as `make run` (the embedded
    default): this process's without NOT_MAKE_RUN, and `settings` over it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(NOT_MAKE_RUN)}
    env.update(settings)
    return env


def embedded_shell(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    """`script` run by `manage.py shell` on the embedded default (`make run`: SQLite, tasks
    in-process, its development key), in a fresh process on a copy of the project with
    `make_run_environment()`; migrated first."""
    root = Path(__file__).resolve().parents[1]
    project = tmp_path / "project"
    project.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("pisyedili_api", "games", "players", "tournaments"):
        shutil.copytree(root / name, project / name, ignore=ignore)
    shutil.copy(root / "manage.py", project / "manage.py")
    env = make_run_environment()
    env["PYTHONPATH"] = str(project)  # the copy, not the installed checkout
    env["DJANGO_SECRET_KEY"] = "insecure-development-key-of-make-run"  # as `make run` passes
    manage = [sys.executable, str(project / "manage.py")]
    subprocess.run([*manage, "migrate", "-v", "0"], cwd=project, env=env, check=True, timeout=120)
    return subprocess.run(
        [*manage, "shell", "-c", script],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def play_to_the_end(client: Any, match_id: Any, limit: int = 2000) -> dict[str, Any]:
    """The caller's last legal move, again and again, until the match is no longer active."""
    view = state(client, match_id)
    for _ in range(limit):
        if view["status"] != "active":
            return view
        response = post_move(client, match_id, view["legal_moves"][-1], view["version"])
        assert response.status_code == 200, response.content
        view = state(client, match_id)
    raise AssertionError("the match did not finish")


def template_database(test_database: str) -> str:
    """The run's migrated template of the worker databases (tests/conftest.py
    `django_db_setup`), named from the test database's name before pytest-django's suffix."""
    return f"{test_database}_template"


def database_exists(cursor: Any, name: str) -> bool:
    """Whether the PostgreSQL server of `cursor` (any DB-API cursor on any of its databases)
    has a database `name`: the template check of tests/conftest.py and tests/browser/conftest.py."""
    cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
    return cursor.fetchone() is not None


@contextlib.contextmanager
def template_database_lock(tmp_path_factory: Any) -> Iterator[None]:
    """Held by a worker that makes, copies or drops the template (an exclusive lock of the
    run's workers, processes of one machine, in the run's temporary directory)."""
    import fcntl

    path = tmp_path_factory.getbasetemp().parent / "test-database-template.lock"
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


# The test this worker runs after the one being torn down (None: none follows), recorded by
# tests/conftest.py's pytest_runtest_teardown: what a fixture keeps across consecutive tests
# (the live servers, Playwright's Chromium) it stops in its teardown unless the next one needs it.
_following: dict[str, Any] = {}


def record_next_test(item: Any) -> None:
    _following["item"] = item


def next_test() -> Any:
    """The test this worker runs next (a pytest Item), or None."""
    return _following.get("item")
