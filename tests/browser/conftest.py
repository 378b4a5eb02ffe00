"""The browser suite (`-m browser`): Debian's Chromium in its headless shell
(/usr/bin/chromium-headless-shell, apt package `chromium-headless-shell`: the same build without
the full browser's own interface processes, much less CPU a page), else its full browser
(/usr/bin/chromium) in headless mode, driven by Playwright for Python through
`executable_path` (Playwright's own browser download is never used) against one uvicorn server
(live.asgi, which also serves the web client of web/) on a database of the suite's own and the
shared Redis (as a client only) under a channel prefix of this run.

Without Chromium ($CHROMIUM, default the first of those two that is there) the suite is skipped,
except under CI=true where that is a failure. Without the web client (web/index.html) the tests
of the client are skipped.
Screenshots go to $BROWSER_ARTIFACTS (default tests/browser/artifacts/, git-ignored).
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import database_exists, next_test, template_database, template_database_lock
from tests.httpclient import http
from tests.live.conftest import free_port

from .harness import ROOT, Server, spectators_served

FULL_CHROMIUM = "/usr/bin/chromium"
CHROMIUM = os.environ.get("CHROMIUM") or next(
    (
        path
        for path in ("/usr/bin/chromium-headless-shell", FULL_CHROMIUM)
        if os.access(path, os.X_OK)
    ),
    FULL_CHROMIUM,
)
# The flags of a headless Chromium on a machine without outside network (no background fetches).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{reason} (CI=true: the browser suite must run)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    folder = Path(os.environ.get("BROWSER_ARTIFACTS") or ROOT / "tests" / "browser" / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# Playwright's driver and the Chromium it launched, kept from one browser test to the next on a
# worker and stopped after the last of a run of them (the `browser` fixture's teardown,
# tests.helpers.next_test): while Playwright's sync API runs, an event loop is set as running in
# the test process's thread, under which Django refuses synchronous queries and asyncio.run
# refuses to start, as the worker's other tests need.
_driver: dict[str, Any] = {}


def _chromium(path: str, package: str) -> Any:
    if path not in _driver:
        if not os.access(path, os.X_OK):
            _missing(f"no Chromium at {path} (apt-get install -y {package})")
        if "playwright" not in _driver:
            try:
                from playwright.sync_api import sync_playwright
            except ImportError:
                _missing("Playwright for Python is not installed (pip install -e '.[dev]')")
            _driver["playwright"] = sync_playwright().start()
        _driver[path] = _driver["playwright"].chromium.launch(
            executable_path=path, args=CHROMIUM_ARGS
        )
    return _driver[path]


def _stopped_unless_a_browser_test_follows() -> None:
    following = next_test()
    if following is not None and following.get_closest_marker("browser") is not None:
        return
    playwright = _driver.pop("playwright", None)
    for chromium in _driver.values():
        chromium.close()
    _driver.clear()
    if playwright is not None:
        playwright.stop()


@pytest.fixture
def browser() -> Iterator[Any]:
    yield _chromium(CHROMIUM, "chromium-headless-shell")
    _stopped_unless_a_browser_test_follows()


@pytest.fixture
def full_browser(browser: Any) -> Any:
    """Chromium's full browser, for the tests marked `full_chromium`: what the headless shell
    does not offer (its notification permission is always "denied"); stopped with `browser`."""
    return _chromium(FULL_CHROMIUM, "chromium")


@pytest.fixture(scope="session")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database of the suite's own, migrated (a copy of the run's template, or by
    `manage.py migrate`) and dropped at the end.
    The tests never use the ORM: under Playwright's sync API the test process runs an event
    loop, where Django refuses synchronous queries (pytest-django's test database included)."""
    import dj_database_url
    import psycopg

    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        pytest.skip("needs DATABASE_URL=postgres://…")
    config = dj_database_url.parse(url)
    base = os.environ.get("DJANGO_TEST_DATABASE_NAME") or f"test_{config['NAME']}"
    name = f"{base}_browser_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    server_url = f"postgres://{config['USER']}@{config['HOST']}:{config['PORT']}"
    admin = psycopg.connect(f"{server_url}/postgres", autocommit=True)
    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    template = template_database(base)
    # A copy of the run's migrated template where a worker has made it (tests/conftest.py),
    # else migrated here.
    with template_database_lock(tmp_path_factory):
        copied = database_exists(admin.cursor(), template)
        if copied:
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    try:
        if not copied:
            admin.execute(f'CREATE DATABASE "{name}"')
            migrate = subprocess.run(
                [sys.executable, "manage.py", "migrate", "--noinput"],
                cwd=ROOT,
                env={**os.environ, "DATABASE_URL": f"{server_url}/{name}", "CELERY_BROKER_URL": ""},
                capture_output=True,
                text=True,
            )
            assert migrate.returncode == 0, migrate.stdout + migrate.stderr
        yield f"{server_url}/{name}"
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def _vapid_key() -> str:
    import base64

    from cryptography.hazmat.primitives.asymmetric import ec

    value = ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value
    return base64.urlsafe_b64encode(value.to_bytes(32, "big")).rstrip(b"=").decode()


@pytest.fixture(scope="session")
def server(database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One web process for the suite (the restart test stops and starts it on its port)."""
    from django.conf import settings

    if not os.access(CHROMIUM, os.X_OK):
        _missing(f"no Chromium at {CHROMIUM} (apt-get install -y chromium-headless-shell)")

    redis_url = os.environ.get("CELERY_BROKER_URL", "")
    if not redis_url.startswith("redis://"):
        pytest.skip("needs CELERY_BROKER_URL=redis://…")
    prefix = f"test-browser-{uuid.uuid4().hex[:12]}"
    env = {
        **os.environ,
        "DATABASE_URL": database,
        # Bots answer inside the move request: no worker to start.
        "CELERY_BROKER_URL": "",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "LIVE_REDIS_URL": redis_url,
        "LIVE_CHANNEL_PREFIX": prefix,
        "LIVE_HEARTBEAT_SECONDS": "2",
        "DATABASE_POOL_MAX": "8",
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        # Web Push on (a key of this run's own): the account page's notifications.
        "WEB_PUSH_VAPID_PRIVATE_KEY": _vapid_key(),
        "PYTHONUNBUFFERED": "1",
    }
    live = Server(env, free_port(), tmp_path_factory.mktemp("uvicorn"))
    live.start()
    try:
        yield live
    finally:
        live.stop()
        import redis

        client = redis.Redis.from_url(redis_url)
        keys = list(client.scan_iter(f"{prefix}:*", count=10_000))
        if keys:
            client.delete(*keys)


@pytest.fixture(scope="module")
def with_beat(web_client: str, server: Server, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A second web process on the suite's database that runs the embedded beat, as `make run`
    does (the suite's own server does not): the beat pairs the queue, ends the waits and runs
    the turn clock. A module's own, so that no other module's tables meet a beat."""
    beat = Server(
        {**server.env, "EMBEDDED_BEAT": "1"}, free_port(), tmp_path_factory.mktemp("beat")
    )
    beat.start()
    try:
        yield beat.base
    finally:
        beat.stop()


@pytest.fixture(scope="session")
def web_client(server: Server) -> str:
    """The base URL of a server that serves the web client at `/`; every test but the
    other-origin page's needs it."""
    if not (ROOT / "web" / "index.html").exists():
        pytest.skip("the web client (web/index.html) is not in this checkout")
    index = http.get(f"{server.base}/", timeout=10)
    assert index.status_code == 200 and "text/html" in index.headers["content-type"], index.text
    return server.base


@pytest.fixture(scope="session")
def spectators() -> None:
    """The spectators' view and the deal replay (GET …/deals/{n}/replay) are served."""
    if not spectators_served():
        pytest.skip("the spectators' view and the deal replay are not in this checkout")


class Pages:
    """Browser contexts of one test (each its own storage, as separate people), closed after it.
    `console` collects every page's console errors and uncaught exceptions, `logs[page]` all
    of a page's console messages."""

    def __init__(self, browser: Any, artifacts: Path, test: str):
        self.browser = browser
        self.artifacts = artifacts
        self.test = test
        self.contexts: list[Any] = []
        self.console: list[str] = []
        self.logs: dict[Any, list[str]] = {}

    def new(
        self,
        width: int = 1280,
        height: int = 900,
        locale: str | None = None,
        pace: int = 30,
        timezone: str | None = None,
    ) -> Any:
        """A page in a context of its own; `locale` (e.g. "tr-TR") sets the browser's language
        (navigator.languages, Accept-Language), Chromium's own default otherwise; `pace` the
        milliseconds the table takes to play out one move (localStorage `pisyedili.pace`,
        web/app/views/table-play.js): short, so that the suite's matches go quickly."""
        options: dict[str, Any] = {"viewport": {"width": width, "height": height}}
        if locale is not None:
            options["locale"] = locale
        if timezone is not None:  # the browser's time zone ("America/Los_Angeles")
            options["timezone_id"] = timezone
        context = self.browser.new_context(**options)
        context.add_init_script(
            f"try {{ localStorage.setItem('pisyedili.pace', '{int(pace)}'); }} catch {{}}"
        )
        context.set_default_timeout(15_000)
        self.contexts.append(context)
        page = context.new_page()
        logs = self.logs.setdefault(page, [])

        def note(message: Any) -> None:
            logs.append(message.text)
            if message.type == "error":
                self.console.append(message.text)

        page.on("console", note)
        page.on("pageerror", lambda error: self.console.append(f"uncaught: {error}"))
        return page

    def shot(self, page: Any, name: str) -> Path:
        width = page.viewport_size["width"]
        path = self.artifacts / f"{self.test}-{name}-{width}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(artifacts: Path, request: pytest.FixtureRequest) -> Iterator[Pages]:
    full = request.node.get_closest_marker("full_chromium") is not None
    browser = request.getfixturevalue("full_browser" if full else "browser")
    opened = Pages(browser, artifacts, request.node.name.removeprefix("test_"))
    try:
        yield opened
    finally:
        failed = getattr(request.node, "rep_call", None)
        if failed is not None and failed.failed:
            for i, context in enumerate(opened.contexts):
                for j, page in enumerate(context.pages):
                    page.screenshot(path=str(artifacts / f"{opened.test}-failed-{i}-{j}.png"))
                    # In the failure's report (its captured output): what the page said last.
                    said = opened.logs.get(page, [])[-30:]
                    print(f"console of page {i}-{j}, last {len(said)}:", *said, sep="\n  ")
            if opened.console:
                print("errors and uncaught exceptions:", *opened.console[-30:], sep="\n  ")
        opened.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    # The call's outcome, for the `pages` fixture's screenshot of a failure.
    report = yield
    if report.when == "call":
        item.rep_call = report  # type: ignore[attr-defined]
    return report
