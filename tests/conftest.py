"""Fixtures for the Django tests (engine tests need none of this).

Every test runs against the database of DATABASE_URL (PostgreSQL under `make test`; the plugin
tests/backing_services.py starts a throwaway server when none answers). The settings are
pisyedili_api/settings_test.py: bot turns run in-process (Celery eager) unless a test starts a
real worker; every response body goes through the hidden-information scanner of
tests/leakscan.py.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

_counter = itertools.count()

# The tests of a directory that starts servers or a browser carry its marker, so that
# `make test-fast` can leave them out (-m "not browser and not live and not integration and not
# tools"; a few modules elsewhere carry `live` or `tools` themselves).
_DIRECTORY_MARKERS = {"browser": "browser", "live": "live", "integration": "integration"}


@pytest.hookimpl(tryfirst=True)  # before xdist's, which reads the groups, whatever the arguments
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        parts = item.path.relative_to(config.rootpath).parts
        if len(parts) > 2 and parts[0] == "tests" and parts[1] in _DIRECTORY_MARKERS:
            item.add_marker(_DIRECTORY_MARKERS[parts[1]])
    browser_modules = sorted({item.path for item in items if item.get_closest_marker("browser")})
    for item in items:
        if item.get_closest_marker("browser"):
            # The browser modules in two halves, each run on one worker, one module after
            # another: a worker's Chromium, Playwright, server and database (tests/browser/
            # conftest.py) start once for its half, not again after every other test it runs.
            half = browser_modules.index(item.path) % 2
            item.add_marker(pytest.mark.xdist_group(f"browser-{'ab'[half]}"))
        elif _has_module_fixture(item):
            # So do the tests of a module fixture of the suite's own (servers, Celery workers, a
            # migrated database, rows): it is set up once, not once on every worker that one of
            # the module's tests lands on.
            item.add_marker(pytest.mark.xdist_group(f"module-{item.nodeid.split('::')[0]}"))
        elif "live" in getattr(item, "fixturenames", ()):
            # The tests on the kept pair of servers (tests/live/conftest.py `live`) run on one
            # worker, one after another: one pair serves them all.
            item.add_marker(pytest.mark.xdist_group("live-pair"))


def _has_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(
        definitions[-1].scope == "module" and definitions[-1].baseid.startswith("tests")
        for definitions in info.name2fixturedefs.values()
    )


@pytest.hookimpl(tryfirst=True)  # before the test's fixtures are torn down
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    from tests.helpers import record_next_test

    record_next_test(nextitem)


@pytest.fixture(scope="session")
def django_db_setup(
    django_test_environment: None,
    django_db_blocker: Any,
    django_db_modify_db_settings: None,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """pytest-django's test database, but migrated once a run, not once a worker: under xdist on
    PostgreSQL the first worker to come migrates a template database, and each worker's own
    database is a copy of it (CREATE DATABASE … TEMPLATE, as Django's parallel runner clones
    one), a fraction of a second instead of a 4 s migration. One process, or SQLite: as
    pytest-django makes it."""
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    from tests.helpers import database_exists, template_database, template_database_lock

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None or connection.vendor != "postgresql":
        with django_db_blocker.unblock():
            config = setup_databases(verbosity=0, interactive=False)
        yield
        with django_db_blocker.unblock():
            teardown_databases(config, verbosity=0)
        return
    original = connection.settings_dict["NAME"]
    name = connection.settings_dict["TEST"]["NAME"]  # the worker's (pytest-django's suffix)
    template = template_database(name.removesuffix(f"_{worker}"))
    with django_db_blocker.unblock(), template_database_lock(tmp_path_factory):
        with connection._nodb_cursor() as cursor:
            missing = not database_exists(cursor, template)
        if missing:
            connection.settings_dict["TEST"]["NAME"] = template
            connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
            connection.settings_dict["TEST"]["NAME"] = name
            connection.close()
        with connection._nodb_cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
            cursor.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    settings.DATABASES["default"]["NAME"] = connection.settings_dict["NAME"] = name
    yield
    # Every test of the worker has run: its database goes even while a server it started is
    # still letting go of its connections (FORCE), and the template with it (made again by a
    # worker that still needs it).
    connection.close()
    with (
        django_db_blocker.unblock(),
        template_database_lock(tmp_path_factory),
        connection._nodb_cursor() as cursor,
    ):
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        cursor.execute(f'DROP DATABASE IF EXISTS "{template}"')
    settings.DATABASES["default"]["NAME"] = connection.settings_dict["NAME"] = original


@pytest.fixture(scope="session", autouse=True)
def _session_setup() -> Iterator[None]:
    _empty_tables_by_delete()
    _one_middleware_chain_for_every_client()
    yield


def _one_middleware_chain_for_every_client() -> None:
    """Django's test client loads the whole middleware chain again for every client made, and
    WhiteNoise's part of it indexes every static file: tens of milliseconds a client, several
    clients a test. Here the clients of one kind (sync or async, CSRF checked or not) share
    the chain built by the first, built again after any change of settings (Django's
    setting_changed signal: the `settings` fixture, override_settings) but the cache's key
    prefix that every test changes (_own_cache_keys), which no middleware reads when built."""
    from django.core.signals import setting_changed
    from django.test.client import AsyncClientHandler, ClientHandler

    chains: dict[tuple[type, bool, bool], dict[str, Any]] = {}
    parts = (
        "_view_middleware",
        "_template_response_middleware",
        "_exception_middleware",
        "_middleware_chain",
    )

    def forget(*, setting: str, **kwargs: Any) -> None:
        if setting != "CACHES":
            chains.clear()

    setting_changed.connect(forget, weak=False)

    for handler_class in (ClientHandler, AsyncClientHandler):
        build = handler_class.load_middleware

        def load_once(self: Any, is_async: bool = False, build: Any = build) -> None:
            key = (type(self), is_async, bool(self.enforce_csrf_checks))
            if key not in chains:
                build(self, is_async)
                chains[key] = {part: getattr(self, part) for part in parts}
            else:
                self.__dict__.update(chains[key])

        handler_class.load_middleware = load_once  # type: ignore[method-assign]


def _empty_tables_by_delete() -> None:
    """After a `django_db(transaction=True)` test, Django's flush TRUNCATEs every table and then
    makes the content types and permissions again (post_migrate): 1.5–4 s a test on PostgreSQL.
    Here every table but those two (which the flush would make again as they are) is emptied
    by DELETE in one transaction, its foreign keys checked at the commit (Django's are
    deferrable): the same rows left, in a few milliseconds. Any other backend, or a table
    that refuses, gets Django's flush."""
    from django.db import DatabaseError, connections, transaction
    from django.test import TransactionTestCase

    kept = {"django_content_type", "auth_permission"}
    flush = TransactionTestCase._fixture_teardown

    def delete_every_row(self: TransactionTestCase) -> None:
        for alias in self._databases_names(include_mirrors=False):
            connection = connections[alias]
            if connection.vendor != "postgresql" or self.available_apps is not None:
                flush(self)
                return
            tables = set(connection.introspection.django_table_names(only_existing=True))
            try:
                with transaction.atomic(using=alias), connection.cursor() as cursor:
                    cursor.execute("SET CONSTRAINTS ALL DEFERRED")
                    for table in sorted(tables - kept):
                        cursor.execute(f"DELETE FROM {connection.ops.quote_name(table)}")
            except DatabaseError:
                flush(self)
                return

    TransactionTestCase._fixture_teardown = delete_every_row  # type: ignore[method-assign]


@contextlib.contextmanager
def _cache_keys_of_its_own() -> Iterator[None]:
    import uuid

    from django.conf import settings
    from django.test import override_settings

    default = {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    with override_settings(CACHES={**settings.CACHES, "default": default}):
        yield


@pytest.fixture(autouse=True)
def _own_cache_keys() -> Iterator[None]:
    """Throttle and lockout counters live in the cache, the shared Redis under `make test`: each
    test gets a key prefix of its own, so it starts from no counts and never reads or writes
    anyone else's keys (nothing is ever flushed; the keys expire with their windows)."""
    with _cache_keys_of_its_own():
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
    from tests.helpers import client_with

    return client_with


@pytest.fixture
def commits_in_place(db: Any) -> Iterator[None]:
    """tests.helpers.commits_run_in_place around one test."""
    from tests.helpers import commits_run_in_place

    with commits_run_in_place():
        yield


@pytest.fixture(scope="module")
def module_rows(django_db_setup: Any, django_db_blocker: Any) -> Iterator[None]:
    """One transaction around a module's tests, for rows that several of them read and that
    cost seconds to make (whole matches played, their deals analysed), made once by a
    module-scoped fixture that asks for this one (inside tests.helpers.commits_run_in_place
    where commits matter). Each test of the module then runs in a savepoint of it
    (pytest-django's `db`), so what a test changes is undone for the next; the whole is rolled
    back at the module's end. Only for modules whose tests need no commit of their own (no
    transaction=True)."""
    from django.db import transaction

    with django_db_blocker.unblock(), _cache_keys_of_its_own():
        outer = transaction.atomic()
        outer._from_testcase = True  # type: ignore[attr-defined]  # as the test's own blocks
        outer.__enter__()
        try:
            yield
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


class Migrations:
    """The test database moved to a migration state (`to`), for a migration's test."""

    def to(self, targets: list[tuple[str, str]]) -> Any:
        """Migrate to `targets` (forwards or backwards); the apps of that state."""
        from django.db import connection
        from django.db.migrations.executor import MigrationExecutor

        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(targets)
        return executor.loader.project_state(targets).apps

    def to_the_end(self) -> None:
        from django.db import connection
        from django.db.migrations.executor import MigrationExecutor

        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.fixture
def migrations() -> Iterator[Migrations]:
    """Going back to a migration unapplies every later one that depends on it (of any app):
    the database is migrated to the latest state again after the test, whatever it did."""
    done = Migrations()
    yield done
    done.to_the_end()
