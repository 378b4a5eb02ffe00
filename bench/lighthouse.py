"""Lighthouse scores of the web client: the lobby, the table during a match and a deal's replay,
each signed in, with Lighthouse's mobile settings (a phone's screen, simulated slow 4G and CPU).

Starts the ASGI server (uvicorn, as `make run`) on a scratch PostgreSQL database of its own
(DATABASE_URL's name + `_lighthouse`), registers a player through the API, starts a match
against two bots (the table) and plays a one-deal match to its end (the replay). The player's
session is the web client's own: its token in localStorage, written into a Chromium profile
that each page's run starts from a fresh copy of (an empty cache every time; Lighthouse's own
storage reset is off, or it would sign the player out). Lighthouse is the pinned npm package of
web/package.json (`make node-tools`), run against Debian's Chromium through CHROME_PATH: no
browser is downloaded. Prints accessibility, best practices and performance per page against
the targets (≥ 95, ≥ 95, ≥ 90), and what each page lost points on.

    make lighthouse
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pisyedili .venv/bin/python bench/lighthouse.py
    bench/lighthouse.py --port 8123 --keep /tmp/lighthouse   # the JSON reports kept there
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import requests
from common import bench_database_url, drop_database, free_port, reset_database, wait_until_up

ROOT = Path(__file__).resolve().parent.parent
LIGHTHOUSE = ROOT / "web" / "node_modules" / ".bin" / "lighthouse"
CHROMIUM = os.environ.get("CHROME_PATH") or os.environ.get("CHROMIUM") or "/usr/bin/chromium"
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu"]
# Lighthouse's categories and this project's targets (issue: "measured by Lighthouse").
TARGETS = {"accessibility": 95, "best-practices": 95, "performance": 90}
PASSWORD = "lighthouse-pass-1"


class Player:
    """A registered player acting through the HTTP API."""

    def __init__(self, base: str):
        self.api = f"{base}/api/v1"
        self.name = f"lh{uuid.uuid4().hex[:10]}"
        answer = requests.post(
            f"{self.api}/auth/register",
            json={"username": self.name, "password": PASSWORD},
            timeout=30,
        )
        answer.raise_for_status()
        self.token = answer.json()["token"]
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {self.token}"

    def call(self, method: str, path: str, body: Any = None) -> Any:
        answer = self.session.request(method, f"{self.api}{path}", json=body, timeout=60)
        while answer.status_code == 429:  # the server's throttle: wait as it says
            time.sleep(float(answer.headers.get("Retry-After") or 1))
            answer = self.session.request(method, f"{self.api}{path}", json=body, timeout=60)
        if answer.status_code >= 400:
            sys.exit(f"{method} {path}: {answer.status_code} {answer.text}")
        return answer.json()

    def play_out(self, match_id: str) -> None:
        """Its first legal play, else a pass, else a draw, on each of its turns to the end."""
        for _ in range(3000):
            state = self.call("GET", f"/matches/{match_id}/state")
            if state["status"] != "active":
                return
            if state["turn"] != state["you"] or not state["legal_moves"]:
                time.sleep(0.05)
                continue
            order = {"play": 0, "pass": 1}
            move = min(state["legal_moves"], key=lambda m: order.get(m["action"], 2))
            self.call("POST", f"/matches/{match_id}/moves", {**move, "version": state["version"]})
        sys.exit(f"match {match_id} did not finish")


def start_server(database: str, port: int, logs: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "CELERY_BROKER_URL": "",  # tasks and bots inside the requests, live events in-process
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "LIVE_REDIS_URL": "",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50),
        "THROTTLE_AUTH": "1000/min",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    log = open(logs / "uvicorn.log", "wb")  # noqa: SIM115
    return subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "live.asgi:application", "--host", "127.0.0.1",
         "--port", str(port), "--loop", "uvloop", "--http", "live.asgi:HttpProtocol",
         "--no-access-log", "--ws-per-message-deflate", "false",
         "--timeout-graceful-shutdown", "2"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip


def signed_in_profile(base: str, player: Player, folder: Path) -> None:
    """A Chromium profile whose localStorage holds the player's session, as the web client
    keeps it after a sign-in; only a JSON answer of the origin is loaded (nothing cached)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(folder), executable_path=CHROMIUM, args=[*CHROME_FLAGS, "--no-first-run"]
        )
        page = context.new_page()
        page.goto(f"{base}/api/v1/bots")
        page.evaluate(
            "([token, user]) => { localStorage.setItem('pisyedili.token', token);"
            " localStorage.setItem('pisyedili.user', user); }",
            [player.token, player.name],
        )
        context.close()
    for cache in ("Default/Cache", "Default/Code Cache"):
        shutil.rmtree(folder / cache, ignore_errors=True)


def lighthouse(url: str, profile: Path, work: Path, name: str) -> dict[str, Any]:
    """One Lighthouse run (mobile, the default) from a fresh copy of the profile; its report."""
    copy = work / f"profile-{name}"
    report = work / f"{name}.json"
    flags = " ".join([*CHROME_FLAGS, f"--user-data-dir={copy}"])
    command = [
        str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={report}",
        f"--only-categories={','.join(TARGETS)}", "--disable-storage-reset",
        f"--chrome-flags={flags}", "--max-wait-for-load=30000",
    ]  # fmt: skip
    env = {**os.environ, "CHROME_PATH": CHROMIUM, "NO_UPDATE_NOTIFIER": "1"}
    for attempt in (1, 2):  # once more after a failed recording (NO_NAVSTART now and then)
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(profile, copy)
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode == 0 and report.exists():
            break
        print(f"  lighthouse failed on {url} (attempt {attempt}): {done.stderr[-300:]}")
    else:
        sys.exit(f"lighthouse failed twice on {url}")
    shutil.rmtree(copy, ignore_errors=True)
    return dict(json.loads(report.read_text()))


def lost_points(report: dict[str, Any]) -> list[str]:
    """The weighted audits of each category that did not pass, with their weight."""
    lines = []
    for key, category in report["categories"].items():
        for ref in category["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if ref["weight"] > 0 and audit["score"] is not None and audit["score"] < 1:
                value = audit.get("displayValue") or ""
                score = f"{audit['score']:.2f}, weight {ref['weight']}"
                lines.append(f"    {key}: {ref['id']} ({score}) {value}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: free)")
    parser.add_argument("--keep", type=Path, help="keep the JSON reports in this folder")
    parser.add_argument("--only", nargs="+", choices=["lobby", "table", "replay"], help="pages")
    args = parser.parse_args()
    if not LIGHTHOUSE.exists():
        sys.exit(f"no {LIGHTHOUSE.relative_to(ROOT)}: run `make node-tools` (npm ci in web/)")
    if not os.access(CHROMIUM, os.X_OK):
        sys.exit(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    current = urlparse(os.environ.get("DATABASE_URL", "postgres:///pisyedili")).path.lstrip("/")
    database = bench_database_url(f"{current or 'pisyedili'}_lighthouse", "bench/lighthouse.py")
    reset_database(database)
    work = Path(tempfile.mkdtemp(prefix="lighthouse-"))
    port = args.port or free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(database, port, work)
    try:
        wait_until_up(base, 30)
        player = Player(base)
        live = player.call("POST", "/matches", {"seats": 3, "bots": ["greedy", "random"]})
        finished = player.call("POST", "/matches", {"seats": 2, "bots": ["random"], "deals": 1})
        player.play_out(finished["id"])
        profile = work / "profile"
        signed_in_profile(base, player, profile)
        pages = [
            ("lobby", f"{base}/#/lobby"),
            ("table", f"{base}/#/match/{live['id']}"),
            ("replay", f"{base}/#/replay/{finished['id']}/1"),
        ]
        print(f"Lighthouse {lighthouse_version()} (mobile) against {CHROMIUM}, server {base}")
        print(f"{'page':8} " + " ".join(f"{k:>15}" for k in TARGETS) + "  targets")
        met_all = True
        for name, url in pages:
            if args.only and name not in args.only:
                continue
            report = lighthouse(url, profile, work, name)
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                shutil.copy(work / f"{name}.json", args.keep / f"{name}.json")
            scores = {k: round(100 * (report["categories"][k]["score"] or 0)) for k in TARGETS}
            met = all(scores[k] >= target for k, target in TARGETS.items())
            met_all &= met
            row = " ".join(f"{scores[k]:>10} ≥ {TARGETS[k]:>2}" for k in TARGETS)
            print(f"{name:8} {row}  {'met' if met else 'NOT met'}", flush=True)
            for line in lost_points(report):
                print(line)
        print("every target met" if met_all else "some targets not met")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
        drop_database(database)
        shutil.rmtree(work, ignore_errors=True)


def lighthouse_version() -> str:
    package = ROOT / "web" / "node_modules" / "lighthouse" / "package.json"
    return str(json.loads(package.read_text())["version"])


if __name__ == "__main__":
    main()
