"""What the browser tests drive: the uvicorn server of the web client, people made through the
HTTP API, and the clicks of the table (the data-testid names of the web client, README "Play in
your browser")."""

from __future__ import annotations

import contextlib
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.httpclient import http

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "s3cret-pass"
WIDTHS = {"phone": 375, "desktop": 1280}
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
CARD = re.compile(r"^(?:[2-9]|10|[JQKA])[CDHS]$")


def spectators_served() -> bool:
    """The spectators' view and the deal replay (GET …/deals/{n}/replay) are in this checkout."""
    from django.urls import NoReverseMatch, reverse

    try:
        reverse("deal-replay", kwargs={"match_id": uuid.uuid4(), "number": 1})
    except NoReverseMatch:
        return False
    return True


class Server:
    """`uvicorn live.asgi:application` on one port, which it keeps across restarts."""

    def __init__(self, env: dict[str, str], port: int, log_dir: Path):
        self.env = env
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.log_dir = log_dir
        self.starts = 0
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.starts += 1
        log = open(self.log_dir / f"uvicorn{self.starts}.log", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "live.asgi:application",
             "--host", "127.0.0.1", "--port", str(self.port), "--no-access-log",
             "--http", "live.asgi:HttpProtocol", "--timeout-graceful-shutdown", "2"],
            cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, f"uvicorn exited, see {log.name}"
            try:
                http.get(f"{self.base}/api/v1/bots", timeout=2)
                return
            except httpx.HTTPError:
                assert time.monotonic() < deadline, f"uvicorn did not start, see {log.name}"
                time.sleep(0.2)

    def terminate(self, limit: float = 10) -> float:
        """Stop the process as a deploy does (SIGTERM, a drain); the seconds it took to exit,
        which must be at most `limit`."""
        assert self.proc is not None and self.proc.poll() is None
        started = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(limit)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            raise AssertionError(f"uvicorn did not exit within {limit} s of SIGTERM") from None
        self.proc = None
        return time.monotonic() - started

    def stop(self) -> None:
        """Kill the process (a crash, not a drain): the browsers' streams break at once."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None


class Person:
    """A registered player who acts through the HTTP API (as another client would)."""

    def __init__(self, base: str, prefix: str = "br"):
        self.base = base
        self.name = f"{prefix}{uuid.uuid4().hex[:10]}"
        response = http.post(
            f"{base}/api/v1/auth/register", json={"username": self.name, "password": PASSWORD}
        )
        assert response.status_code == 201, response.text
        self.id: str = response.json()["id"]
        self.token: str = response.json()["token"]
        self.headers = {"Authorization": f"Token {self.token}"}

    def get(self, path: str) -> Any:
        response = http.get(f"{self.base}{path}", headers=self.headers, timeout=30)
        assert response.status_code == 200, f"GET {path}: {response.status_code} {response.text}"
        return response.json()

    def post(self, path: str, body: Any = None, status: int | None = None) -> httpx.Response:
        response = http.post(f"{self.base}{path}", json=body, headers=self.headers, timeout=30)
        if status is not None:
            assert response.status_code == status, f"POST {path}: {response.text}"
        return response

    def create(
        self, seats: int, bots: list[str], deals: int = 1, rules: dict[str, Any] | None = None
    ) -> str:
        body = {"seats": seats, "bots": bots, "deals": deals, "rules": rules or {}}
        return str(self.post("/api/v1/matches", body, status=201).json()["id"])

    def state(self, match_id: str) -> dict[str, Any]:
        return dict(self.get(f"/api/v1/matches/{match_id}/state"))

    def move(self, match_id: str) -> dict[str, Any]:
        """On its turn, its first legal play, else a pass (after a draw), else a draw."""
        state = self.state(match_id)
        legal = state["legal_moves"]
        assert state["turn"] == state["you"] and legal, state
        order = {"play": 0, "pass": 1}
        move = min(legal, key=lambda m: order.get(m["action"], 2))
        body = {**move, "version": state["version"]}
        return dict(self.post(f"/api/v1/matches/{match_id}/moves", body, status=200).json())

    def play_out(self, match_id: str, limit: int = 2000) -> None:
        """Its moves (`move`) on its turns until the match is over (the bots answer in-process)."""
        for _ in range(limit):
            state = self.state(match_id)
            if state["status"] == "finished":
                return
            if state["turn"] == state["you"] and state["legal_moves"]:
                self.move(match_id)
            else:
                time.sleep(0.05)
        raise AssertionError(f"match {match_id} did not finish")


def by_testid(page: Page | Locator, name: str) -> Locator:
    return page.locator(f'[data-testid="{name}"]')


def sign_in(page: Page, base: str, person: Person, route: str = "#/lobby") -> None:
    """The token kept as the client keeps it (localStorage), then the route opened."""
    page.goto(f"{base}/")
    page.evaluate(
        "([token, user]) => { localStorage.setItem('pisyedili.token', token);"
        " localStorage.setItem('pisyedili.user', user); }",
        [person.token, person.name],
    )
    page.goto(f"{base}/{route}")
    by_testid(page, "whoami").filter(has_text=person.name).wait_for()


def sign_up(page: Page, base: str, name: str) -> None:
    """Registration by the sign-up form."""
    page.goto(f"{base}/#/login")
    by_testid(page, "auth-username").fill(name)
    by_testid(page, "auth-password").fill(PASSWORD)
    by_testid(page, "auth-register").click()
    by_testid(page, "whoami").filter(has_text=name).wait_for()


# How often a wait below checks the page: on a timer, not on every animation frame (Playwright's
# default), which kept Chromium drawing frames for as long as a test waited.
POLL_MS = 50


def version(page: Page) -> int:
    return int(by_testid(page, "table").get_attribute("data-version") or -1)


def wait_version(page: Page, above: int, timeout: float = 20_000) -> None:
    page.wait_for_function(
        "v => Number(document.querySelector('[data-testid=table]')?.dataset.version) > v",
        arg=above,
        timeout=timeout,
        polling=POLL_MS,
    )


def wait_synced(page: Page, person: Person, match_id: str, timeout: float = 15) -> dict[str, Any]:
    """Until the table shows the match's version as the server has it at that moment; that
    state. The server is read again while waiting: a bot may move between a read and the
    page's drawing of it, and the page need not draw a version it was already past."""
    deadline = time.monotonic() + timeout
    while True:
        state = person.state(match_id)
        try:
            page.wait_for_function(
                "v => Number(document.querySelector('[data-testid=table]')?.dataset.version) === v",
                arg=state["version"],
                timeout=1000,
                polling=POLL_MS,
            )
            return state
        except PlaywrightTimeout:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"the table shows version {version(page)}; the server has {state['version']}"
                ) from None


def _clickable(card: Locator) -> Locator:
    if card.evaluate("e => e.tagName") == "BUTTON":
        return card
    return card.locator("button").first


def take_turn(page: Page, wait_ms: float = 8000) -> bool:
    """On this page's turn: click a legal card (naming its own suit after a Jack), else pass
    (after a draw), else draw; then wait for the table's next version. False when it is not its
    turn. A click the page swallowed (the table redrawn under it) leaves the version as it was:
    the caller's next round clicks again."""
    table = by_testid(page, "table")
    if table.get_attribute("data-status") != "active":
        return False
    if by_testid(page, "turn-indicator").get_attribute("data-your-turn") != "true":
        return False
    before = version(page)
    legal = by_testid(page, "hand").locator('[data-testid="card"][data-legal="true"]')
    draw, passing = by_testid(page, "draw-button"), by_testid(page, "pass-button")
    if legal.count():
        card = legal.first
        code = card.get_attribute("data-card") or ""
        _clickable(card).click()
        if code.startswith("J"):
            picker = by_testid(page, "suit-picker")
            try:
                picker.wait_for(state="visible", timeout=3000)
                by_testid(page, f"suit-{code[-1]}").click()
            except PlaywrightTimeout:  # no nomination needed (the opening card): the move was sent
                pass
    elif passing.count() and passing.is_enabled():
        passing.click()
    elif draw.count() and draw.is_enabled():
        draw.click()
    else:
        raise AssertionError(f"on turn with nothing to click at version {before}")
    with contextlib.suppress(PlaywrightTimeout):
        wait_version(page, before, timeout=wait_ms)
    return True


# What a failed wait says: the table as the page shows it beside the match as the server has it
# (read with the page's own token), so that a stalled server tells apart from a stalled page.
_TABLE_REPORT = """async () => {
  const table = document.querySelector('[data-testid=table]');
  const indicator = document.querySelector('[data-testid=turn-indicator]');
  const connection = document.querySelector('[data-testid=connection-status]');
  const shown = {
    version: table?.dataset.version, status: table?.dataset.status, busy: table?.dataset.busy,
    yourTurn: indicator?.dataset.yourTurn, connection: connection?.dataset.state,
  };
  const match = location.hash.split('/')[2];
  let server;
  try {
    const token = localStorage.getItem('pisyedili.token');
    const answer = await fetch(`/api/v1/matches/${match}/state`,
      { headers: { Authorization: `Token ${token}` } });
    const state = await answer.json();
    server = { status: answer.status, version: state.version, turn: state.turn, you: state.you,
      phase: state.phase, match_status: state.status };
  } catch (error) {
    server = String(error);
  }
  return JSON.stringify({ shown, server });
}"""


def table_report(page: Page) -> str:
    """The table as the page shows it and the match as the server has it, for a failure's
    message."""
    try:
        return str(page.evaluate(_TABLE_REPORT))
    except Exception as exc:  # the page itself is gone: say so
        return f"version {version(page)} (no report: {exc})"


def move_by_click(page: Page, tries: int = 3, wait_ms: float = 20_000) -> None:
    """One move of this page's seat by clicks (clicked again if swallowed), once the table shows
    its turn: the bots' replies may still be arriving when the caller last saw the table."""
    before = version(page)
    for _ in range(tries):
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(
                "() => document.querySelector('[data-testid=turn-indicator]')"
                "?.dataset.yourTurn === 'true'",
                timeout=wait_ms,
                polling=POLL_MS,
            )
        assert take_turn(page), f"not this page's turn: {table_report(page)}"
        if version(page) > before:
            return
    raise AssertionError(f"no move after {tries} clicks at version {before}")


def play_to_end(pages: list[Page], timeout: float = 150, each_step: Any = None) -> None:
    """Clicks on whichever page is on turn until every table shows the match finished;
    `each_step(page)` after each move of a page, given that page."""
    deadline = time.monotonic() + timeout
    while True:
        if all(by_testid(p, "table").get_attribute("data-status") == "finished" for p in pages):
            return
        assert time.monotonic() < deadline, "the match did not finish in time"
        moved = False
        for page in pages:
            if take_turn(page):
                moved = True
                if each_step is not None:
                    each_step(page)
        if not moved:
            pages[0].wait_for_timeout(100)


def card_text(code: str) -> str:
    """How a card reads in words on the page: 7♠, 10♥."""
    return code[:-1] + SUIT_SYMBOLS[code[-1]]
