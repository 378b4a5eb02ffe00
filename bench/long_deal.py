"""The long-deal attack against a person's bots: one deal of thousands of moves, then its luck
and an anonymous move analysis, while a person plays a greedy bot.

A long deal is allowed by the rules (`stock_exhausted: reshuffle`, `max_actions` up to
100,000: docs/rules.md §9), and its background work (the luck and skill after the deal, the move
analysis anyone may ask for once the match is over) costs play-outs per decision. This bench
checks that such a deal does not delay other people's bots (docs/api.md "Luck and move
analysis", Cost; docs/operations.md: the analysis queue on a worker of its own).

Starts what it measures itself, on free ports, and removes it at exit:
  - the full stack (default): a private PostgreSQL (fsync off) and redis-server (bench/stack.py),
    uvicorn (`--web-workers`), the worker `-Q bots,scoring,celery` and the analysis worker
    `chrt --idle 0 … -Q analysis` with the commands of docs/operations.md (each at Celery's default
    concurrency, one process per core), and beat (its sweeper re-sends lost background work);
  - `--embedded`: `make run`'s embedded default, one uvicorn process on a SQLite file with the
    tasks, beat and the analysis in-process (a spawned process at the lowest CPU priority).

The person plays 2-seat matches against the `greedy` bot throughout, thinking `--think` seconds
before each move; a bot reply is the time from the move's POST until the person is on turn
again (the long-poll `GET …/state?after_version=…`), the bot's moves and a new deal's start
(the worker's) included. Phases, one after the other in the same run:
  1. baseline: `--baseline` seconds with no attack;
  2. the attack's play: two accounts play one 2-seat match of one deal with `stock_exhausted:
     reshuffle` and `max_actions` = `--max-actions`, playing while more than 2 cards are in
     hand and drawing else, so that it runs to the bound, at up to `--attack-rate` moves per
     second (the move throttle is lifted, as in every bench);
  3. its background work: from the deal's end (its luck and skill are queued) an anonymous
     client asks `GET …/deals/1/analysis` every 3 s until it answers 200, for at least
     `--after` seconds and until both the luck and the analysis are stored or failed.
Printed: each phase's bot replies (n, p50, p90, max), the deal's length, the luck's and the
analysis's outcome, attempts and CPU, the workers' CPU; the target: the attack's bot reply p90
at most 2 × the baseline's, met or missed (exit status 1 when missed).

    .venv/bin/python bench/long_deal.py                         # about 5 minutes on 2 cores
    .venv/bin/python bench/long_deal.py --embedded              # make run's default
    .venv/bin/python bench/long_deal.py --max-actions 6000      # about 8 minutes
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import requests
from common import (
    ANALYSIS_PRIORITY,
    child_pids,
    cpu_seconds,
    free_port,
    percentile,
    wait_until_up,
)
from stack import PY, ROOT, Stack

API = "/api/v1"
T0 = time.monotonic()


def now() -> float:
    return time.monotonic() - T0


def live_cpu(pids: set[int]) -> float:
    """User + system CPU of `pids` so far, theirs alone: the named processes this bench times
    (one gone counts nothing, and an ended child's time is not its parent's)."""
    return cpu_seconds(pids, ended_children=False)


def tree(pid: int) -> set[int]:
    """`pid` and its descendants."""
    return {pid, *child_pids(pid, recursive=True)}


# ---- the two deployments ----


DEAL_SQL = (
    "SELECT d.luck_attempts, d.luck_failure, "
    " (SELECT count(*) FROM games_dealluck l WHERE l.deal_id = d.id), "
    " (SELECT max(l.cpu_seconds) FROM games_dealluck l WHERE l.deal_id = d.id), "
    " a.status, a.attempts, a.failure, a.samples, a.cpu_seconds "
    "FROM games_deal d LEFT JOIN games_dealanalysis a ON a.deal_id = d.id "
    "WHERE d.match_id = {p} AND d.number = 1"
)


class Full:
    """docs/operations.md's full stack on a private PostgreSQL and Redis (bench/stack.py)."""

    name = "full stack"

    def __init__(self, web_workers: int) -> None:
        self.stack = Stack("long-deal", database="pisyedili_long_deal", fsync=False)
        self.base = self.stack.base
        self.web_workers = web_workers

    def start(self) -> str:
        stack, cores = self.stack, os.cpu_count() or 1
        stack.services_start()
        stack.uvicorn(self.web_workers)
        stack.worker("play", "-Q", "bots,scoring,celery", concurrency=cores)
        stack.worker("analysis", "-Q", "analysis", idle=True, concurrency=cores)
        stack.beat_start()
        stack.wait_web(seconds=60)
        return (
            f"uvicorn {self.web_workers} workers :{stack.web_port}; celery -Q bots,scoring,celery "
            f"-c {cores}; {' '.join(ANALYSIS_PRIORITY)} celery -Q analysis -c {cores}; beat; "
            f"PostgreSQL 15 "
            f":{stack.pg_port} (fsync off), Redis :{stack.redis_port}"
        )

    def deal_row(self, match: str) -> tuple | None:
        with self.stack.connect() as conn:
            return conn.execute(DEAL_SQL.format(p="%s"), [match]).fetchone()

    def cpu(self) -> dict[str, float]:
        stack = self.stack
        assert stack.web is not None
        return {
            "web": live_cpu(tree(stack.web.pid)),
            "worker (bots, scoring)": live_cpu(tree(stack.workers["play"].pid)),
            "analysis worker": live_cpu(tree(stack.workers["analysis"].pid)),
            "postgres": live_cpu(tree(stack.pg_pid())),
        }

    def stop(self, logs: Path | None) -> None:
        self.stack.stop(logs)


class Embedded:
    """`make run`: one uvicorn process on a SQLite file, tasks and analysis in-process."""

    name = "embedded default (make run)"

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="pisyedili-long-deal-"))
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.db = self.dir / "db.sqlite3"
        inherited = {k: v for k, v in os.environ.items() if "://" not in v and ":5432" not in v}
        inherited = {
            k: v for k, v in inherited.items()
            if not k.startswith(("CELERY_", "LIVE_", "REDIS", "CACHE_", "DATABASE"))
        }  # fmt: skip
        self.env = {
            **inherited,
            "DATABASE_URL": f"sqlite:///{self.db}",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_DEBUG": "0",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "THROTTLE_MATCH_MOVE": "100000/sec",
            "PYTHONUNBUFFERED": "1",
        }
        self.web: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        subprocess.run(
            [str(PY), "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=self.env,
            check=True,
        )  # fmt: skip
        command = [str(PY.with_name("uvicorn")), "live.asgi:application"]
        command += ["--host", "127.0.0.1", "--port", str(self.port), "--loop", "uvloop"]
        command += ["--http", "live.asgi:HttpProtocol", "--no-access-log"]
        command += ["--no-proxy-headers", "--ws-ping-interval", "0"]
        command += ["--ws-per-message-deflate", "false", "--ws-max-size", "4096"]
        command += ["--timeout-graceful-shutdown", "10"]
        log = open(self.dir / "web.log", "ab")  # noqa: SIM115 (the child keeps it)
        self.web = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        wait_until_up(self.base, seconds=60)
        return f"uvicorn (one process, make run's options) :{self.port} on SQLite {self.db}"

    def deal_row(self, match: str) -> tuple | None:
        with sqlite3.connect(self.db, timeout=20) as conn:
            return conn.execute(DEAL_SQL.format(p="?"), [uuid.UUID(match).hex]).fetchone()

    def cpu(self) -> dict[str, float]:
        assert self.web is not None
        pids = tree(self.web.pid)
        children = pids - {self.web.pid}
        return {
            "web (tasks on its threads)": live_cpu({self.web.pid}),
            "analysis process": live_cpu(children),
        }

    def stop(self, logs: Path | None) -> None:
        if self.web is not None and self.web.poll() is None:
            os.killpg(self.web.pid, signal.SIGTERM)
            try:
                self.web.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.web.pid, signal.SIGKILL)
        if logs is not None:
            logs.mkdir(parents=True, exist_ok=True)
            (logs / "web.log").write_bytes((self.dir / "web.log").read_bytes())
        subprocess.run(["rm", "-rf", str(self.dir)], check=False)


# ---- the clients ----


class Client:
    def __init__(self, base: str) -> None:
        self.base = base
        self.session = requests.Session()
        self.errors = 0

    def call(self, method: str, path: str, **kw: Any) -> requests.Response:
        while True:
            try:
                return self.session.request(method, self.base + API + path, timeout=60, **kw)
            except requests.RequestException:
                self.errors += 1
                time.sleep(0.5)

    def register(self) -> None:
        name = f"ld{uuid.uuid4().hex[:12]}"
        r = self.call("POST", "/auth/register", json={"username": name, "password": "bench-pass-1"})
        r.raise_for_status()
        self.session.headers["Authorization"] = f"Token {r.json()['token']}"

    def state(self, match: str, after: int | None = None) -> dict[str, Any]:
        params = {} if after is None else {"after_version": after, "wait": 20}
        r = self.call("GET", f"/matches/{match}/state", params=params)
        r.raise_for_status()
        return r.json()


class Phases:
    """The phase now, and every bot reply with the phase its move was sent in."""

    def __init__(self) -> None:
        self.name = "warm-up"
        self.lock = threading.Lock()
        self.replies: list[tuple[str, float]] = []

    def add(self, phase: str, seconds: float) -> None:
        with self.lock:
            self.replies.append((phase, seconds))

    def of(self, *names: str) -> list[float]:
        with self.lock:
            return [s for p, s in self.replies if p in names]


def person(base: str, phases: Phases, stop: threading.Event, think: float, seed: int) -> None:
    """Plays the greedy bot, 2 seats, 20 deals a match; times each bot reply."""
    rng, me = random.Random(seed), Client(base)
    me.register()
    while not stop.is_set():
        r = me.call("POST", "/matches", json={"seats": 2, "bots": ["greedy"], "deals": 20})
        r.raise_for_status()
        match = r.json()["id"]
        view = me.state(match)
        while not stop.is_set() and view["status"] == "active":
            if view["turn"] != view["you"] or not view["legal_moves"]:
                view = me.state(match, after=view["version"])
                continue
            stop.wait(think)
            plays = [m for m in view["legal_moves"] if m["action"] == "play"]
            move = rng.choice(plays) if plays else view["legal_moves"][0]
            phase, started = phases.name, time.perf_counter()
            r = me.call(
                "POST", f"/matches/{match}/moves", json={**move, "version": view["version"]}
            )
            if r.status_code != 200:
                view = me.state(match)
                continue
            view = r.json()
            if view["turn"] == view["you"] or view["status"] != "active":
                continue  # still the person's turn (a draw), or the match is over
            while view["status"] == "active" and (
                view["turn"] != view["you"] or not view["legal_moves"]
            ):
                view = me.state(match, after=view["version"])
            phases.add(phase, time.perf_counter() - started)


def prolonging(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Play a card while more than 2 are in hand, else draw (and pass when the draw did not
    help): no hand empties, none grows for long, the pile feeds the reshuffles, and the deal
    runs to max_actions."""
    legal = view["legal_moves"]
    plays = [m for m in legal if m["action"] == "play"]
    passes = [m for m in legal if m["action"] == "pass"]
    draws = [m for m in legal if m["action"] == "draw"]
    if plays and (len(view["hand"]) > 2 or not (passes or draws)):
        return rng.choice(plays)
    return passes[0] if passes else draws[0]


class Attack:
    """Two accounts play the long deal; then the anonymous analysis request."""

    def __init__(self, base: str, max_actions: int, rate: float, seed: int) -> None:
        self.base, self.max_actions, self.rate = base, max_actions, rate
        self.rng = random.Random(seed)
        self.match: str | None = None
        self.moves = 0
        self.ended_at: float | None = None
        self.analysis: dict[str, Any] | None = None
        self.analysis_at: float | None = None
        self.asked = 0
        self.answers: dict[int, int] = {}

    def play(self, stop: threading.Event) -> None:
        host, guest = Client(self.base), Client(self.base)
        host.register()
        guest.register()
        rules = {"stock_exhausted": "reshuffle", "max_actions": self.max_actions}
        r = host.call("POST", "/matches", json={"seats": 2, "deals": 1, "rules": rules})
        r.raise_for_status()
        match = self.match = r.json()["id"]
        guest.call("POST", f"/matches/{match}/join").raise_for_status()
        views = {0: host.state(match), 1: guest.state(match)}
        clients = {views[0]["you"]: host, views[1]["you"]: guest}
        view = views[0] if views[0]["turn"] == views[0]["you"] else views[1]
        view = clients[view["turn"]].state(match)
        gap, next_at = 1.0 / self.rate, time.monotonic()
        while not stop.is_set() and view["status"] == "active":
            seat = view["turn"]
            if seat is None:  # the deal is over, its scoring ends the match
                view = host.state(match, after=view["version"])
                continue
            if view["you"] != seat or not view["legal_moves"]:
                view = clients[seat].state(match)
                continue
            next_at = max(next_at + gap, time.monotonic())
            time.sleep(max(0.0, next_at - gap - time.monotonic()))
            move = prolonging(view, self.rng)
            r = clients[seat].call(
                "POST", f"/matches/{match}/moves", json={**move, "version": view["version"]}
            )
            if r.status_code == 200:
                self.moves += 1
                view = r.json()
            else:
                view = clients[seat].state(match)
        self.ended_at = now()

    def ask_analysis(self, stop: threading.Event) -> None:
        """Anonymous, every 3 s (the per-client throttle is 30/min) until it answers 200."""
        anonymous = Client(self.base)
        while not stop.is_set():
            r = anonymous.call("GET", f"/matches/{self.match}/deals/1/analysis")
            self.asked += 1
            self.answers[r.status_code] = self.answers.get(r.status_code, 0) + 1
            if r.status_code == 200:
                self.analysis, self.analysis_at = r.json(), now()
                return
            stop.wait(3)


# ---- the run ----


def line(name: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return (
        f"  {name:<46}{len(ms):>7}{percentile(ms, 0.5):>10.0f}{percentile(ms, 0.9):>10.0f}"
        f"{max(ms, default=float('nan')):>10.0f}"
    )


def background_done(row: tuple | None) -> tuple[bool, bool]:
    """(the luck is stored or failed, the analysis is stored or failed) from DEAL_SQL's row."""
    if row is None:
        return False, False
    luck_attempts, luck_failure, lucks, _, status, *_ = row
    return bool(lucks or luck_failure), status in ("ready", "failed")


def run(args: argparse.Namespace, target: Full | Embedded) -> bool:
    phases, stop = Phases(), threading.Event()
    attack = Attack(target.base, args.max_actions, args.attack_rate, args.seed)
    people = [
        threading.Thread(
            target=person, args=(target.base, phases, stop, args.think, args.seed + i), daemon=True
        )
        for i in range(args.people)
    ]
    for thread in people:
        thread.start()
    time.sleep(args.warmup)  # the first requests of each process import and fill caches
    cpu = {"start": target.cpu()}
    phases.name = "baseline"
    print(f"{now():7.1f} s  baseline: {args.baseline:g} s, no attack", flush=True)
    time.sleep(args.baseline)
    cpu["baseline"] = target.cpu()

    phases.name = "play"
    started = now()
    print(f"{started:7.1f} s  attack: the long deal (max_actions {args.max_actions}, up to "
          f"{args.attack_rate:g} moves/s)", flush=True)  # fmt: skip
    player = threading.Thread(target=attack.play, args=(stop,), daemon=True)
    player.start()
    player.join(args.play_limit)
    if player.is_alive():
        print(f"{now():7.1f} s  the deal did not end within {args.play_limit:g} s", flush=True)
        stop.set()
        return False
    cpu["play"] = target.cpu()
    assert attack.match is not None
    phases.name = "background"
    ended = now()
    print(f"{ended:7.1f} s  the deal ended after {attack.moves} moves ({ended - started:.0f} s); "
          f"its luck is queued; an anonymous client asks for its analysis", flush=True)  # fmt: skip
    asker = threading.Thread(target=attack.ask_analysis, args=(stop,), daemon=True)
    asker.start()
    luck_at = analysis_at = None
    row = None
    while now() < ended + args.after_limit:
        row = target.deal_row(attack.match)
        luck, analysis = background_done(row)
        if luck and luck_at is None:
            luck_at = now()
            print(f"{luck_at:7.1f} s  luck and skill {'stored' if row and row[2] else 'failed'}"
                  f" ({luck_at - ended:.0f} s after the deal)", flush=True)  # fmt: skip
        if analysis and analysis_at is None:
            analysis_at = now()
            print(f"{analysis_at:7.1f} s  move analysis {row[4] if row else '?'} "
                  f"({analysis_at - ended:.0f} s after the deal)", flush=True)  # fmt: skip
        if luck and analysis and now() >= ended + args.after:
            break
        time.sleep(1)
    stop.set()
    cpu["background"] = target.cpu()
    for thread in [*people, asker]:
        thread.join(timeout=30)
    time.sleep(args.settle)  # the sweeper's next rounds: nothing may be sent again
    row = target.deal_row(attack.match)

    baseline = phases.of("baseline")
    attacked = phases.of("play", "background")
    print("\nbot replies (the person's move POST until the person is on turn again)")
    print(f"  {'phase':<46}{'n':>7}{'p50 ms':>10}{'p90 ms':>10}{'max ms':>10}")
    print(line("1. baseline, no attack", baseline))
    print(line("2. the long deal being played", phases.of("play")))
    print(line("3. its luck, skill and move analysis", phases.of("background")))
    print(line("2 + 3: the whole attack", attacked))

    print("\nthe long deal")
    print(f"  moves played                                  {attack.moves:>8}")
    if row is not None:
        luck_attempts, luck_failure, lucks, luck_cpu, status, attempts, failure, samples, acpu = row
        luck_text = f"stored ({lucks} seats, {luck_cpu:.1f} s CPU)" if lucks else "not stored"
        if luck_failure:
            luck_text = f"failed: {luck_failure[:60]}"
        print(f"  luck and skill: {luck_text}; attempts {luck_attempts}")
        cpu_text = f", {acpu:.1f} s CPU" if acpu is not None else ""
        samples_text = f", {samples} samples" if samples is not None else ""
        print(f"  move analysis: {status}{samples_text}{cpu_text}; attempts {attempts}"
              + (f"; {failure[:60]}" if failure else ""))  # fmt: skip
    answers = ", ".join(f"{n} × {code}" for code, n in sorted(attack.answers.items()))
    print(f"  anonymous analysis requests: {attack.asked} ({answers})")
    print("\nCPU seconds by process and phase")
    names = list(cpu["start"])
    print(f"  {'':<28}" + "".join(f"{p:>12}" for p in ("baseline", "play", "background")))
    for name in names:
        spent = [
            cpu[p][name] - cpu[q][name]
            for q, p in (("start", "baseline"), ("baseline", "play"), ("play", "background"))
        ]
        print(f"  {name:<28}" + "".join(f"{s:>12.1f}" for s in spent))
    seconds = [args.baseline, ended - started, now() - ended - args.settle]
    print(f"  {'(wall seconds)':<28}" + "".join(f"{s:>12.0f}" for s in seconds))

    base90 = percentile(baseline, 0.9)
    limit = 2 * base90
    print(f"\ntarget: a bot reply's p90 under the attack ≤ 2 × its p90 without "
          f"({limit * 1000:.0f} ms); {target.name}")  # fmt: skip
    checks = [
        ("the whole attack (2 + 3)", attacked),
        ("the deal being played (2)", phases.of("play")),
        ("its background work (3)", phases.of("background")),
    ]
    ok = True
    for name, values in checks:
        p90 = percentile(values, 0.9)
        met = bool(values) and p90 <= limit
        ok &= met
        print(f"  {name:<32} p90 {p90 * 1000:7.0f} ms  vs {limit * 1000:.0f} ms   "
              f"{'met' if met else 'MISSED'}  ({p90 / base90:.2f}×)")  # fmt: skip
    done = background_done(row)
    finished = done == (True, True)
    print(f"  luck and analysis stored or failed for good   {'met' if finished else 'MISSED'}")
    return ok and finished


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--embedded", action="store_true", help="make run's embedded default")
    parser.add_argument("--max-actions", type=int, default=3000, help="the long deal's bound")
    parser.add_argument("--attack-rate", type=float, default=50, help="attack moves per second")
    parser.add_argument("--baseline", type=float, default=45, help="seconds without the attack")
    parser.add_argument("--after", type=float, default=45,
                        help="seconds measured at least after the deal's end")  # fmt: skip
    parser.add_argument("--after-limit", type=float, default=150,
                        help="seconds at most after the deal's end")  # fmt: skip
    parser.add_argument("--play-limit", type=float, default=300, help="seconds for the deal")
    parser.add_argument("--warmup", type=float, default=8, help="seconds before the baseline")
    parser.add_argument("--settle", type=float, default=12,
                        help="seconds for the sweeper to show it sends nothing again")  # fmt: skip
    parser.add_argument("--people", type=int, default=1, help="people playing the greedy bot")
    parser.add_argument("--think", type=float, default=0.15, help="a person's think time, s")
    parser.add_argument("--web-workers", type=int, default=2, help="uvicorn --workers (full)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--logs", type=Path, help="copy the services' logs here at the end")
    args = parser.parse_args()

    target: Full | Embedded = Embedded() if args.embedded else Full(args.web_workers)
    signal.signal(signal.SIGTERM, interrupt)
    ok = False
    try:
        print(f"starting {target.name} ...", flush=True)
        print(target.start(), flush=True)
        ok = run(args, target)
    except KeyboardInterrupt:
        print("\ninterrupted: stopping", flush=True)
    finally:
        target.stop(args.logs)
    return 0 if ok else 1


def interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
