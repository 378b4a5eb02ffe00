"""Soak: the production stack for a bounded time, under players, hostile clients and faults.

Starts everything it uses itself (bench/stack.py), in a temporary directory, on free ports,
and removes it at exit (also on Ctrl-C): a private PostgreSQL (fsync off, but commits stay
synchronous, so a crash of the server process loses no acknowledged commit), a private
redis-server, uvicorn (`--workers` processes), Celery workers and beat. It never connects
to another PostgreSQL or Redis.

Clients, each a thread with its own player:
  - players against bots: 2..4 seats, `random` and `greedy` bots, 1..2 deals;
  - pairs of people sharing a match (one creates, the other joins; some with a turn clock);
    every move is a legal move from `state`'s legal_moves, posted with an Idempotency-Key and
    retried with the same key after a connection error or a 5xx (an idempotent retry), and now
    and then posted twice on purpose (the repeat must answer the first response); every other
    player (`--socket-share`) sends its moves on the match's WebSocket instead, its token in
    `Authorization` as a native app sends it (opened again after whatever ends it, a move
    without an answer sent again with its key), and its repeats on the route;
  - hostile clients: malformed and wrongly typed bodies, huge values, forged base64 cursors on
    every list endpoint, bad tokens and headers, and bursts of wrong passwords on /auth/token.
Each player also holds its own event stream (`GET /me/events`) and the stream of the match it
plays open throughout, alternately as Server-Sent Events (token header) and as WebSockets (a
stream ticket, as a browser opens them), reconnecting with `Last-Event-ID` whatever ends a
connection, and every event is counted (bench/watchers.py: none repeated, out of order,
skipped or lost; every match watch ends on the match's version; `--no-streams`: none).
A probe thread plays its own match against a bot throughout; a fault's recovery time is the
time from the fault until a probe round (GET /bots, GET /players/me, moves until the turn
passes, and the bot's reply or the next deal, both a worker's) that started after the fault
succeeds.

Faults, on a schedule drawn from --seed, each kind in turn: SIGKILL a Celery worker (restarted
2 s later, as a supervisor would), SIGKILL a uvicorn worker (its supervisor starts another), restart
Redis, restart PostgreSQL (immediate stop: crash recovery on start). A 5xx or a connection error
counts inside a fault window when the request overlaps [fault start, recovery].

At the end: moves lost (a 2xx answer whose move is not in the move log) and moves applied
twice (a row in the move log beyond the acknowledged moves), per (match, seat) against the
database, every acknowledged key's idempotency record, every move re-sent on purpose under one
outcome (the same answer, another, or none within RETRY_SECONDS), work left unscored or
unsettled, `manage.py verify_deals`, the streams' events against the match versions and the
players' event logs; then a table of the targets. Exit status 1 if one is missed.

    .venv/bin/python bench/soak.py                        # 10 minutes, 16 clients, seed 1
    .venv/bin/python bench/soak.py --minutes 3 --clients 12 --seed 7 --logs /tmp/soak-logs
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import math
import os
import random
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
import requests
from stack import PY, ROOT, Stack
from watchers import Watchers
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

API = "/api/v1"
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# The longest match the server allows (MAX_DEALS_PER_MATCH): the probe and the hostile client
# keep one going for the whole run.
LONG_MATCH_DEALS = 20
# Time a client keeps re-sending one move (same key) before it gives up on it.
RETRY_SECONDS = 45
# A match with no new version for this long is abandoned (and counted).
STALL_SECONDS = 120
T0 = time.monotonic()


def now() -> float:
    """Seconds since the harness started."""
    return time.monotonic() - T0


# ---- the stack's logs ----


def tracebacks(stack: Stack) -> dict[tuple[str, str], tuple[int, str]]:
    """Distinct 500s in the web tier's log (Django logs "Internal Server Error: <path>" and the
    traceback): (route, exception type) -> (times, the project's frames and the error).
    Database and broker connection errors are left out: those are the faults'."""
    lines = (stack.dir / "web.log").read_text(errors="replace").splitlines()
    found: dict[tuple[str, str], tuple[int, str]] = {}
    for i, line in enumerate(lines):
        if not line.startswith("Internal Server Error: "):
            continue
        end = _traceback_end(lines, i + 1)
        last = lines[end - 1] if end > i + 1 else ""
        kind = last.split(":", 1)[0]
        if kind.endswith(("OperationalError", "InterfaceError")):
            continue
        key = (UUID_RE.sub("{id}", line.split(": ", 1)[1]), kind)
        if key not in found:
            ours = [
                f"{frame}\n{lines[n + 1]}"
                for n, frame in enumerate(lines[i + 1 : end], i + 1)
                if frame.strip().startswith(f'File "{ROOT}') and "/.venv/" not in frame
            ]
            found[key] = (0, "\n".join([*ours[-4:], last]))
        found[key] = (found[key][0] + 1, found[key][1])
    return found


def _traceback_end(lines: list[str], start: int) -> int:
    """The index after the traceback (chained ones included) that begins at lines[start]."""
    i = start
    while i < len(lines) and i < start + 400:
        line = lines[i]
        i += 1
        if line and not line.startswith((" ", "Traceback", "During handling", "The above")):
            rest = [x for x in lines[i : i + 3] if x.strip()]
            if not rest or not rest[0].startswith(("During handling", "The above")):
                return i  # the last exception of the chain
    return i


# ---- what the clients see ----


@dataclass
class Event:
    """A 5xx or a connection error, for sorting into fault windows at the end."""

    role: str
    status: str
    started: float
    ended: float
    method: str
    route: str
    body: str


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: Counter[tuple[str, str]] = Counter()
        self.failures: list[Event] = []
        self.unjson_4xx: Counter[tuple[str, str, int]] = Counter()
        self.unjson_example: dict[tuple[str, str, int], str] = {}
        self.counts: Counter[str] = Counter()

    def add(self, role: str, status: str, started: float, method: str, route: str, body: str):
        with self.lock:
            self.statuses[(role, status)] += 1
            if status == "error" or status.startswith("5"):
                self.failures.append(Event(role, status, started, now(), method, route, body))

    def count(self, name: str, n: int = 1) -> None:
        with self.lock:
            self.counts[name] += n


@dataclass
class Ack:
    """A move the server answered 2xx (or whose key the database shows applied)."""

    match: str
    seat: int
    key: str
    version: int
    action: str
    card: str | None
    suit: str | None
    answered_version: int | None
    at: float = 0.0  # when the 2xx came


@dataclass
class Ledger:
    """Every move a client got a 2xx for, every seat it took, every move left unanswered."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    acks: list[Ack] = field(default_factory=list)
    unanswered: list[Ack] = field(default_factory=list)
    seats: dict[tuple[str, int], str] = field(default_factory=dict)  # (match, seat) -> player

    def add(self, bucket: list[Ack], ack: Ack) -> None:
        with self.lock:
            bucket.append(ack)


class Windows:
    """Fault windows [start, recovered] (recovered None while open)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.faults: list[dict[str, Any]] = []

    def open(self, kind: str) -> dict[str, Any]:
        fault = {"kind": kind, "start": now(), "down": 0.0, "recovered": None}
        with self.lock:
            self.faults.append(fault)
        return fault

    def inside(self, event: Event, end: float) -> bool:
        with self.lock:
            return any(
                event.ended >= f["start"] and event.started <= (f["recovered"] or end)
                for f in self.faults
            )


class Client:
    """One HTTP session of one role; every answer is counted in `stats`."""

    def __init__(self, base: str, role: str, stats: Stats, stop: threading.Event) -> None:
        self.base, self.role, self.stats, self.stop = base, role, stats, stop
        self.session = requests.Session()
        # Behind a TLS proxy in production: say so, in case the settings redirect plain HTTP.
        self.session.headers["X-Forwarded-Proto"] = "https"
        self.token: str | None = None
        self.player_id: str | None = None

    def call(
        self, method: str, path: str, *, auth: bool = True, **kw: Any
    ) -> requests.Response | None:
        headers = dict(kw.pop("headers", {}))
        if auth and self.token and "Authorization" not in headers:
            headers["Authorization"] = f"Token {self.token}"
        route = UUID_RE.sub("{id}", path.split("?")[0])
        started = now()
        try:
            response = self.session.request(
                method, self.base + API + path, headers=headers, timeout=(3, 20), **kw
            )
        except (requests.RequestException, ValueError) as exc:
            self.stats.add(self.role, "error", started, method, route, type(exc).__name__)
            return None
        status = str(response.status_code)
        self.stats.add(self.role, status, started, method, route, response.text[:300])
        if 400 <= response.status_code < 600 and not _json_error(response):
            key = (method, route, response.status_code)
            with self.stats.lock:
                self.stats.unjson_4xx[key] += 1
                sent = f"Authorization {headers.get('Authorization', '')[:24]!r}"
                self.stats.unjson_example.setdefault(key, f"{sent}: {response.text[:60]!r}")
        return response

    def connect_counted(self, route: str, status: str, started: float, body: str) -> None:
        """A stream's or a WebSocket's opening (bench/watchers.py), counted as a request of
        the role `stream` (`started`: time.monotonic())."""
        self.stats.add("stream", status, started - T0, "GET", route, body)

    def register(self) -> None:
        """A new player with a token; retried until it answers (a fault may be on)."""
        name = f"soak{uuid.uuid4().hex[:12]}"
        password = secrets.token_urlsafe(16)
        body = {"username": name, "password": password, "display_name": name}
        while not self.stop.is_set():
            r = self.call("POST", "/auth/register", json=body, auth=False)
            if r is not None and r.status_code == 201:
                self.token, self.player_id = r.json()["token"], r.json()["id"]
                self.username, self.password = name, password
                return
            if r is not None and r.status_code == 400 and "username" in r.text:
                # An earlier attempt created it before its answer was lost: log in instead.
                t = self.call("POST", "/auth/token", json=body, auth=False)
                if t is not None and t.status_code == 200:
                    self.token, self.username, self.password = t.json()["token"], name, password
                    me = self.call("GET", "/players/me")
                    if me is not None and me.status_code == 200:
                        self.player_id = me.json()["id"]
                        return
            wait = float(r.headers.get("Retry-After", 1)) if r is not None else 1.0
            self.stop.wait(min(wait, 5))
        raise SystemExit


def _json_error(response: requests.Response) -> bool:
    try:
        return isinstance(response.json().get("code"), str)
    except (ValueError, AttributeError):
        return False


def pick(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A random legal move, mostly a play (keeps deals short)."""
    plays = [m for m in legal if m["action"] == "play"]
    return rng.choice(plays if plays and rng.random() < 0.85 else legal)


class Player(Client):
    """Plays the matches it is seated in with legal moves, keyed, retried with the same key."""

    def __init__(
        self, base, role, stats, stop, ledger: Ledger, rng, resend_share: float,
        watchers: Watchers | None = None, on_socket: bool = False,
    ) -> None:  # fmt: skip
        super().__init__(base, role, stats, stop)
        self.ledger, self.rng, self.resend_share = ledger, rng, resend_share
        self.watchers = watchers
        # Moves sent on the match's WebSocket (SocketMoves) instead of POST …/moves.
        self.sockets: SocketMoves | None = SocketMoves(self) if on_socket else None

    def register(self) -> None:
        """A new player, then its own event stream held open (`--no-streams`: none)."""
        super().register()
        if self.watchers is not None:
            self.watchers.me(self)

    def state(self, match: str, after: int | None = None, wait: float = 0) -> dict | None:
        params = {} if after is None else {"after_version": after, "wait": wait}
        r = self.call("GET", f"/matches/{match}/state", params=params)
        return r.json() if r is not None and r.status_code == 200 else None

    def create(self, body: dict[str, Any]) -> str | None:
        """POST /matches until it answers; a lost answer leaves a waiting match behind."""
        deadline = time.monotonic() + RETRY_SECONDS
        while not self.stop.is_set() and time.monotonic() < deadline:
            r = self.call("POST", "/matches", json=body)
            if r is not None and r.status_code == 201:
                self.stats.count("matches created")
                return r.json()["id"]
            self.stop.wait(1)
        return None

    def seated(self, match: str, seat: int) -> None:
        with self.ledger.lock:
            self.ledger.seats[(match, seat)] = self.player_id or ""

    def post_move(
        self, match: str, body: dict[str, Any], key: str, route: bool = False
    ) -> tuple[Any, int]:
        """Send the move with its key (on the match's socket for a player that plays there,
        unless `route`; else POST) until it answers below 500, for RETRY_SECONDS at most:
        (the answer or None, the tries)."""
        deadline, delay, tries = time.monotonic() + RETRY_SECONDS, 0.2, 0
        while True:
            tries += 1
            if self.sockets is not None and not route:
                r: Any = self.sockets.send(match, body, key)
            else:
                r = self.call(
                    "POST", f"/matches/{match}/moves", json=body, headers={"Idempotency-Key": key}
                )
            if r is not None and r.status_code < 500:
                return r, tries
            if time.monotonic() > deadline:
                return None, tries
            time.sleep(delay)
            delay = min(delay * 2, 2.0)

    def move(self, match: str, view: dict[str, Any]) -> dict | None:
        """Post one legal move; the view after it, or None (then the caller reads state)."""
        chosen = pick(view["legal_moves"], self.rng)
        body = {**chosen, "version": view["version"]}
        key = uuid.uuid4().hex
        ack = Ack(match, view["you"], key, view["version"], chosen["action"],
                  chosen.get("card"), chosen.get("suit"), None)  # fmt: skip
        r, tries = self.post_move(match, body, key)
        if r is None:
            self.ledger.add(self.ledger.unanswered, ack)
            self.stats.count("moves never answered")
            return None
        if tries > 1:
            self.stats.count("moves retried after an error")
        if r.status_code != 200:
            self.stats.count(f"move answered {r.status_code} {_code(r)}")
            if tries > 1:  # it may have been applied by the lost attempt: the key decides
                self.ledger.add(self.ledger.unanswered, ack)
            return None
        answer = r.json()
        ack.answered_version, ack.at = answer["version"], now()
        self.ledger.add(self.ledger.acks, ack)
        if self.rng.random() < self.resend_share:
            # Sent again with its key (retried as a move is after an error), on the route for a
            # move sent on the socket: it must answer what the first answered. Every re-send is
            # counted under one outcome.
            self.stats.count("moves re-sent on purpose")
            again, _ = self.post_move(match, body, key, route=True)
            if again is None:
                self.stats.count("re-sent: never answered")
            elif again.status_code == 200 and again.json() == answer:
                self.stats.count("re-sent: same answer")
            else:
                self.stats.count("re-sent: different answer")
                with self.stats.lock:
                    self.stats.counts[f"re-sent: answered {again.status_code} {_code(again)}"] += 1
        return answer

    def play(self, match: str) -> None:
        """Until the match is over (or stalls for STALL_SECONDS, counted)."""
        try:
            self._play(match)
        finally:
            if self.sockets is not None:
                self.sockets.close()

    def _play(self, match: str) -> None:
        view = self.state(match)
        if view is not None:
            self.seated(match, view["you"])
        if self.watchers is not None:
            self.watchers.match(self, match)
        progress = time.monotonic()
        while not self.stop.is_set():
            if time.monotonic() - progress > STALL_SECONDS:
                self.stats.count("matches abandoned (no progress for 120 s)")
                return
            if view is None:
                self.stop.wait(0.5)
                view = self.state(match)
                continue
            if view["status"] == "finished":
                self.stats.count("matches played to the end (per seated client)")
                return
            if view["turn"] == view["you"] and view["legal_moves"]:
                self.stop.wait(self.rng.uniform(0.02, 0.2))  # a person thinks
                before = view["version"]
                view = self.move(match, view) or self.state(match)
                if view is not None and view["version"] != before:
                    progress = time.monotonic()
                continue
            seen = view["version"]
            polled = self.state(match, after=seen, wait=2)
            if polled is None:
                self.stop.wait(0.5)  # an error answered at once: do not spin on it
                continue
            view = polled
            if view["version"] != seen:
                progress = time.monotonic()


@dataclass
class SocketAnswer:
    """A move's answer on a match's WebSocket (`{"event": "move", "key", "status", "data"}`),
    read as a response: the route's status and body."""

    status_code: int
    data: Any

    def json(self) -> Any:
        return self.data


class SocketMoves:
    """A player's moves on the WebSocket of the match it plays (docs/api.md "Moves on the
    match's WebSocket"), its token in `Authorization` as a native client sends it: one socket,
    opened when a move is to be sent and again after whatever ended it (a fault, the server's
    `reconnect` close); a move whose answer did not come is sent again with its key, as on the
    route. Each answer is counted as a request (`WS …/moves`), a connection that failed as an
    error."""

    ROUTE = "/matches/{id}/moves (ws)"

    def __init__(self, player: Player) -> None:
        self.player = player
        self.match: str | None = None
        self.socket: Any = None
        self.opened = contextlib.ExitStack()
        self.opened_at = 0.0

    def _open(self, match: str) -> Any:
        if self.socket is not None and self.match == match:
            return self.socket
        self.close()
        owner = self.player
        url = owner.base.replace("http://", "ws://") + f"{API}/matches/{match}/events"
        self.socket = self.opened.enter_context(connect(
            url, open_timeout=5, close_timeout=2, max_size=2**22,
            additional_headers={"X-Forwarded-Proto": "https",
                                "Authorization": f"Token {owner.token}"},
        ))  # fmt: skip
        self.match, self.opened_at = match, now()
        return self.socket

    def close(self) -> None:
        with contextlib.suppress(Exception):  # already broken
            self.opened.close()
        self.socket = None

    def send(self, match: str, body: dict[str, Any], key: str) -> SocketAnswer | None:
        """The move's answer, or None where the socket could not be opened or broke first
        (then it is closed: the next send opens another). A socket that broke is counted from
        its opening: a fault under it ended it, whenever the next move found out."""
        started = now()
        since = self.opened_at if self.socket is not None and self.match == match else started
        try:
            socket = self._open(match)
            socket.send(json.dumps({"type": "move", **body, "key": key}))
            deadline = time.monotonic() + 20
            while True:
                message = json.loads(socket.recv(timeout=max(0.1, deadline - time.monotonic())))
                if message.get("event") == "move" and message.get("key") == key:
                    break
        except (OSError, InvalidHandshake, ConnectionClosed, TimeoutError, ValueError) as exc:
            self.close()
            self.player.stats.add(self.player.role, "error", since, "WS", self.ROUTE,
                                  type(exc).__name__)  # fmt: skip
            return None
        status = int(message["status"])
        self.player.stats.add(self.player.role, str(status), started, "WS", self.ROUTE,
                              json.dumps(message["data"])[:300])  # fmt: skip
        self.player.stats.count("moves sent on a socket")
        return SocketAnswer(status, message["data"])


def _code(response: requests.Response) -> str:
    try:
        return str(response.json().get("code"))
    except (ValueError, AttributeError):
        return "?"


def bot_player(p: Player) -> None:
    p.register()
    while not p.stop.is_set():
        seats = p.rng.choice([2, 2, 3, 4])
        bots = [p.rng.choice(["random", "greedy"]) for _ in range(seats - 1)]
        match = p.create({"seats": seats, "bots": bots, "deals": p.rng.choice([1, 2])})
        if match is not None:
            p.play(match)


class Pair:
    """Two people sharing matches: the host creates, the guest joins."""

    def __init__(self, clock_share: float) -> None:
        self.matches: list[str] = []
        self.cond = threading.Condition()
        self.clock_share = clock_share

    def host(self, p: Player) -> None:
        p.register()
        while not p.stop.is_set():
            body: dict[str, Any] = {"seats": p.rng.choice([2, 2, 3]), "deals": 1}
            body["bots"] = ["greedy"] * (body["seats"] - 2)
            if p.rng.random() < self.clock_share:
                body["turn_seconds"] = 120  # a turn clock that never runs out in play
            match = p.create(body)
            if match is None:
                continue
            with self.cond:
                self.matches.append(match)
                self.cond.notify_all()
            p.play(match)

    def guest(self, p: Player) -> None:
        p.register()
        taken = 0
        while not p.stop.is_set():
            with self.cond:
                if len(self.matches) <= taken:
                    self.cond.wait(5)
                if len(self.matches) <= taken:
                    continue
                match, taken = self.matches[-1], len(self.matches)
            deadline = time.monotonic() + RETRY_SECONDS
            joined = False
            while not p.stop.is_set() and time.monotonic() < deadline:
                r = p.call("POST", f"/matches/{match}/join")
                if r is not None and r.status_code == 200:
                    joined = True
                    break
                if r is not None and r.status_code < 500:
                    # An earlier attempt may have seated us before its answer was lost.
                    joined = p.state(match) is not None
                    break
                p.stop.wait(1)
            if joined:
                p.play(match)


# ---- hostile clients ----


def b64(text: str | bytes) -> str:
    raw = text.encode() if isinstance(text, str) else text
    return base64.b64encode(raw).decode()


FORGED_CURSORS = [
    b64("p=garbage"),
    b64("o=999999999999999999999999"),
    b64("o=-1&r=1&p=x"),
    b64("r=1&p=2026-02-30T25:61:00"),
    b64("p=" + "9" * 300),
    b64("o=0&p=%00"),
    b64(bytes(range(256))),
    b64("v=1|999999999999999999999|00000000-0000-0000-0000-000000000000"),
    b64('{"value": 1e999, "id": "x"}'),
    "not base64 at all!",
    "====",
    "A" * 390,
]


class Hostile(Client):
    """Requests no client should send; each must answer a 4xx (never a 5xx)."""

    def __init__(self, base, role, stats, stop, rng, others: list[str]) -> None:
        super().__init__(base, role, stats, stop)
        self.rng, self.others = rng, others
        self.waiting: str | None = None
        self.active: str | None = None

    def run(self) -> None:
        self.register()
        self.waiting = self._create({"seats": 3})
        self.active = self._create({"seats": 2, "bots": ["random"], "deals": LONG_MATCH_DEALS})
        probes = [
            self.bad_bodies,
            self.bad_moves,
            self.forged_cursors,
            self.bad_queries,
            self.bad_auth,
            self.bad_tournaments,
        ]
        last_burst = time.monotonic()
        while not self.stop.is_set():
            if time.monotonic() - last_burst > 30:
                self.throttle_burst()
                last_burst = time.monotonic()
            self.rng.choice(probes)()
            self.stats.count("hostile probes")
            self.stop.wait(self.rng.uniform(0.05, 0.25))

    def _create(self, body: dict[str, Any]) -> str | None:
        for _ in range(30):
            r = self.call("POST", "/matches", json=body)
            if r is not None and r.status_code == 201:
                return r.json()["id"]
            self.stop.wait(1)
        return None

    def _raw(self, method: str, path: str, data: bytes | str, **kw: Any) -> None:
        headers = {"Content-Type": "application/json", **kw.pop("headers", {})}
        self.call(method, path, data=data, headers=headers, **kw)

    def bad_bodies(self) -> None:
        raw = self.rng.choice(
            [
                b'{"seats": 2,',
                b"[" * 3000 + b"]" * 3000,
                b'{"seats": 2, "rules": ' + b'{"a":' * 2000 + b"1" + b"}" * 2000 + b"}",
                b"\xff\xfe\x00",
                b"null",
                b'"seats"',
                b'{"seats": 2, "bots": ["' + b"x" * 70000 + b'"]}',
                b'{"seats": NaN}',
            ]
        )
        wrong = self.rng.choice(
            [
                {"seats": "two"},
                {"seats": 10**40},
                {"seats": 2, "deals": 1e308},
                {"seats": -(10**20)},
                {"seats": 2, "bots": "greedy"},
                {"seats": 2, "bots": [["greedy"]]},
                {"seats": 2, "bots": [None]},
                {"seats": 2, "rules": ["draw_policy"]},
                {"seats": 2, "rules": {"no_such_option": 1}},
                {"seats": 2, "rules": {"draw_policy": {"deep": [1] * 1000}}},
                {"seats": 2, "rules": {"deals_per_match": 10**30}},
                {"seats": 2, "turn_seconds": -5},
                {"seats": 2, "turn_seconds": 10**15},
                {"seats": 2, "turn_seconds": "soon"},
                {"seats": 2.5},
                {"seats": True},
                [],
            ]
        )
        if self.rng.random() < 0.4:
            self._raw("POST", "/matches", raw)
        else:
            self.call("POST", "/matches", json=wrong)
        register = self.rng.choice(
            [
                {"username": "a\u0000b", "password": secrets.token_urlsafe(12)},
                {"username": ["x"], "password": "y"},
                {"username": "x" * 10000, "password": "y" * 10000},
                {"username": f"h{uuid.uuid4().hex[:8]}", "password": "short"},
                {"username": None},
                {"username": "\ud800", "password": 5},
            ]
        )
        if self.rng.random() < 0.3:
            self.call("POST", "/auth/register", json=register, auth=False)

    def bad_moves(self) -> None:
        match = self.rng.choice(
            [m for m in (self.waiting, self.active) if m] or [str(uuid.uuid4())]
        )
        body = self.rng.choice(
            [
                {"action": "fly", "version": 0},
                {"action": "play", "card": "ZZ", "version": 0},
                {"action": "play", "card": "7H", "suit": "Q", "version": 0},
                {"action": "draw", "version": "x"},
                {"action": "draw", "version": 2**70},
                {"action": "draw", "version": -1},
                {"action": "draw"},
                {"action": ["draw"], "version": 0},
                {"action": "draw", "version": 1.5},
                {"action": "pass", "version": None},
            ]
        )
        headers = {}
        if self.rng.random() < 0.3:
            headers["Idempotency-Key"] = self.rng.choice(["k" * 300, "k" * 5000, "é" * 100, "k k"])
        self.call("POST", f"/matches/{match}/moves", json=body, headers=headers)
        if self.active and self.rng.random() < 0.3:
            # A legal move under a key too long to store, in its own match.
            r = self.call("GET", f"/matches/{self.active}/state")
            if r is not None and r.status_code == 200 and r.json()["legal_moves"]:
                view = r.json()
                move = {**view["legal_moves"][0], "version": view["version"]}
                key = self.rng.choice(["k" * 256, "k" * 4000])
                self.call(
                    "POST", f"/matches/{self.active}/moves", json=move,
                    headers={"Idempotency-Key": key},
                )  # fmt: skip
            elif r is not None and r.status_code == 200 and r.json()["status"] == "finished":
                self.active = self._create(
                    {"seats": 2, "bots": ["random"], "deals": LONG_MATCH_DEALS}
                )
        if self.others:
            other = self.rng.choice(self.others)
            self.call("POST", f"/matches/{other}/moves", json={"action": "draw", "version": 1})
            self.call("GET", f"/matches/{other}/state")

    def forged_cursors(self) -> None:
        cursor = self.rng.choice(FORGED_CURSORS)
        path = self.rng.choice(
            [
                "/matches",
                "/matches?status=finished",
                "/tournaments",
                "/leaderboard",
                "/leaderboard?metric=wins",
                "/leaderboard?metric=points",
                f"/players/{self.player_id}/history",
            ]
        )
        sep = "&" if "?" in path else "?"
        self.call("GET", path + sep, params={"cursor": cursor}, auth=self.rng.random() < 0.5)

    def bad_queries(self) -> None:
        match = self.active or str(uuid.uuid4())
        path = self.rng.choice(
            [
                "/matches?limit=0",
                "/matches?limit=abc",
                "/matches?limit=99999999999999999999999",
                "/matches?status=bogus",
                "/matches?player=not-a-uuid",
                f"/matches?player={uuid.uuid4()}",
                "/leaderboard?metric=bogus",
                "/leaderboard?period=year",
                "/leaderboard?seats=99",
                "/leaderboard?seats=-1",
                "/leaderboard?limit=100000",
                "/leaderboard?around=me",
                "/leaderboard?humans_only=maybe",
                "/leaderboard?ruleset=%00",
                f"/matches/{uuid.uuid4()}",
                f"/matches/{uuid.uuid4()}/state",
                f"/matches/{match}/deals/99999999999999999999",
                f"/matches/{match}/deals/0",
                f"/matches/{match}/deals/70000",
                f"/matches/{match}/state?after_version=-1",
                f"/matches/{match}/state?after_version=99999999999999999999&wait=0",
                f"/matches/{match}/state?wait=1e9",
                f"/matches/{match}/state?wait=nan",
                f"/matches/{match}/moves?deal=abc",
                f"/matches/{match}/moves?deal=99999999999999999999",
                f"/players/{uuid.uuid4()}",
                "/players/not-a-uuid",
                f"/tournaments/{uuid.uuid4()}/standings.csv",
                "/tournaments?status=bogus",
            ]
        )
        self.call("GET", path, auth=self.rng.random() < 0.7)
        if self.rng.random() < 0.2:
            self.call("POST", f"/matches/{uuid.uuid4()}/join")
            if self.waiting:
                self.call("POST", f"/matches/{self.waiting}/join")  # seated already
            self.call("DELETE", f"/matches/{match}")
            self.call("PUT", "/auth/token", json={})

    def bad_auth(self) -> None:
        value = self.rng.choice(
            [
                "Token " + "a" * 5000,
                "Token abc\x00def",
                "Token ",
                "Token",
                "Bearer " + secrets.token_hex(20),
                f"Token {secrets.token_hex(20)}",
                f"Token {self.token} extra",
                "Basic " + b64("a:b"),
            ]
        )
        self.call(
            "GET", self.rng.choice(["/players/me", "/matches"]), headers={"Authorization": value}
        )

    def bad_tournaments(self) -> None:
        body = self.rng.choice(
            [
                {"name": "x", "players": ["not-a-uuid"], "format": "swiss", "table_size": 2},
                {"name": "x", "players": [], "bots": ["greedy"], "format": "cup", "table_size": 9},
                {"name": "x" * 10000, "players": [], "format": "league", "table_size": 2},
                {"name": "x", "players": [str(uuid.uuid4())] * 3, "format": "round_robin",
                 "table_size": 2},
                {"name": None},
                {"name": "x", "players": {"a": 1}, "format": "swiss", "table_size": "2"},
            ]
        )  # fmt: skip
        self.call("POST", "/tournaments", json=body)
        self.call("POST", f"/tournaments/{uuid.uuid4()}/start")

    def throttle_burst(self) -> None:
        """Wrong passwords on /auth/token: for our own username, a made-up one, random XFF.
        Bounded (each attempt hashes a password, which costs CPU the others need)."""
        sent = throttled = 0
        for i in range(30):
            if self.stop.is_set():
                break
            user = self.username if i % 2 == 0 else f"nobody{self.rng.randrange(10**6)}"
            headers = {}
            if i % 3 == 0:
                headers["X-Forwarded-For"] = f"10.{i}.{self.rng.randrange(256)}.{i}"
            r = self.call(
                "POST", "/auth/token", json={"username": user, "password": "wrong-pass-1"},
                headers=headers, auth=False,
            )  # fmt: skip
            sent += 1
            throttled += r is not None and r.status_code == 429
        self.stats.count("throttle probes sent", sent)
        self.stats.count("throttle probes answered 429", throttled)


# ---- the recovery probe and the faults ----


class Probe(Player):
    """Rounds of GET /bots, GET /players/me, a move and the bot's reply, one after the other;
    `rounds` holds (started, ended) of every round that succeeded."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.rounds: list[tuple[float, float]] = []
        self.match: str | None = None
        self.ready = threading.Event()

    def run(self) -> None:
        self.register()
        while not self.stop.is_set():
            started = now()
            if self.round():
                self.rounds.append((started, now()))
                self.ready.set()
            self.stop.wait(0.2)

    def _ok(self, path: str) -> bool:
        r = self.call("GET", path)
        return r is not None and r.status_code == 200

    def _my_turn(self, limit: float) -> dict | None:
        """The probe's view once it is on turn (a new match if the last one finished)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and not self.stop.is_set():
            if self.match is None:
                r = self.call(
                    "POST",
                    "/matches",
                    json={"seats": 2, "bots": ["greedy"], "deals": LONG_MATCH_DEALS},
                )
                if r is None or r.status_code != 201:
                    return None
                self.match = r.json()["id"]
                self.seated(self.match, 0)
            view = self.state(self.match)
            if view is None:
                return None
            if view["status"] == "finished":
                self.match = None
                continue
            if view["turn"] == view["you"] and view["legal_moves"]:
                return view
            if self.state(self.match, after=view["version"], wait=1) is None:
                self.stop.wait(0.2)
        return None

    def round(self) -> bool:
        """GET /bots, GET /players/me, moves until the turn passes (a draw keeps it), then the
        worker's share: the bot's reply, or the next deal once this one is scored."""
        if not (self._ok("/bots") and self._ok("/players/me")):
            return False
        for _ in range(12):
            view = self._my_turn(5)
            if view is None or self.match is None:
                return False
            answer = self._move(view)
            if answer is None:
                return False
            if answer["turn"] != answer["you"]:
                break
        else:
            return False
        after = self._my_turn(5)
        return after is not None and after["version"] > answer["version"]

    def _move(self, view: dict[str, Any]) -> dict | None:
        assert self.match is not None
        move, key = pick(view["legal_moves"], self.rng), uuid.uuid4().hex
        r = self.call(
            "POST", f"/matches/{self.match}/moves", json={**move, "version": view["version"]},
            headers={"Idempotency-Key": key},
        )  # fmt: skip
        ack = Ack(self.match, view["you"], key, view["version"], move["action"],
                  move.get("card"), move.get("suit"), None)  # fmt: skip
        if r is None or r.status_code != 200:
            if r is None or r.status_code >= 500:  # perhaps applied: the key will tell
                self.ledger.add(self.ledger.unanswered, ack)
            return None
        # Keyed and acknowledged: in the ledger like everyone's moves.
        answer = r.json()
        ack.answered_version, ack.at = answer["version"], now()
        self.ledger.add(self.ledger.acks, ack)
        return answer

    def recovered_after(self, start: float) -> float | None:
        for started, ended in list(self.rounds):
            if started >= start:
                return ended
        return None


FAULTS = ["celery_worker_kill", "web_worker_kill", "redis_restart", "postgres_restart"]


def inject(stack: Stack, kind: str, fault: dict[str, Any], rng: random.Random) -> None:
    started = time.monotonic()
    if kind == "celery_worker_kill":
        node = rng.choice(sorted(stack.workers))
        stack.worker_kill(node)
        time.sleep(2)  # a supervisor's restart delay
        stack.worker(node)
    elif kind == "web_worker_kill":
        pids = stack.web_children()
        if pids:
            os.kill(rng.choice(pids), signal.SIGKILL)
    elif kind == "redis_restart":
        stack.redis_stop()
        time.sleep(2)
        stack.redis_start()
    elif kind == "postgres_restart":
        stack.pg_stop("immediate")
        time.sleep(2)
        stack.pg_start()
    fault["down"] = time.monotonic() - started


def fault_schedule(duration: float, rng: random.Random) -> list[tuple[float, str]]:
    """Fault times in (warm-up, end - quiet tail), each kind in turn in a seeded order, spaced
    about 45 s (at least one of each kind)."""
    warmup, tail = 20.0, 30.0
    span = max(duration - warmup - tail, 10.0)
    count = max(len(FAULTS), int(span // 45))
    kinds: list[str] = []
    while len(kinds) < count:
        round_ = FAULTS[:]
        rng.shuffle(round_)
        kinds += round_
    gap = span / count
    return [(warmup + i * gap + rng.uniform(0, gap * 0.3), kinds[i]) for i in range(count)]


def run_faults(
    stack: Stack, schedule: list[tuple[float, str]], windows: Windows, probe: Probe,
    stop: threading.Event, t_start: float, rng: random.Random,
) -> None:  # fmt: skip
    for at, kind in schedule:
        if stop.wait(max(0.0, t_start + at - now())):
            return
        fault = windows.open(kind)
        print(f"  {fault['start']:7.1f} s  fault: {kind}", flush=True)
        inject(stack, kind, fault, rng)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not stop.is_set():
            ended = probe.recovered_after(fault["start"])
            if ended is not None:
                fault["recovered"] = ended
                print(
                    f"  {ended:7.1f} s  recovered from {kind} in {ended - fault['start']:.1f} s",
                    flush=True,
                )
                break
            time.sleep(0.2)
        if fault["recovered"] is None:
            fault["recovered"] = now()
            fault["failed"] = True
            print(f"  {now():7.1f} s  NOT recovered from {kind} within 120 s", flush=True)


# ---- the end: the database against the ledger ----


def lcs(a: list[tuple], b: list[tuple]) -> int:
    """Length of the longest common subsequence of two move lists."""
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def compare(stack: Stack, ledger: Ledger) -> dict[str, Any]:
    """Per (match, seat): the person's moves in the move log against the acknowledged ones (plus
    unanswered ones whose key the database shows applied), in order."""
    with stack.connect() as conn:
        records = {
            (str(player), key, str(match)): response
            for player, key, match, response in conn.execute(
                "SELECT player_id, key, match_id, response FROM games_idempotencyrecord"
            )
        }
        rows: dict[tuple[str, int], list[tuple]] = {}
        for match, seat, action, card, suit in conn.execute(
            "SELECT match_id, seat, action, card, suit FROM games_move "
            "WHERE NOT by_bot ORDER BY match_id, seq"
        ):
            rows.setdefault((str(match), seat), []).append((action, card or None, suit or None))
    result: dict[str, Any] = Counter()
    result["missing"] = []
    for (match, seat), player in ledger.seats.items():
        expected = [a for a in ledger.acks if (a.match, a.seat) == (match, seat)]
        missing = 0
        for ack in expected:
            response = records.get((player, ack.key, match))
            if response is None:
                missing += 1
                result["missing"].append(ack)
            elif json.loads(response)["version"] != ack.answered_version:
                result["records answering another version"] += 1
        applied = [
            a for a in ledger.unanswered
            if (a.match, a.seat) == (match, seat) and (player, a.key, match) in records
        ]  # fmt: skip
        result["unanswered, applied"] += len(applied)
        moves = sorted(expected + applied, key=lambda a: a.version)
        wanted = [(a.action, a.card, a.suit) for a in moves]
        stored = rows.get((match, seat), [])
        common = lcs(wanted, stored)
        result["acknowledged"] += len(expected)
        result["acknowledged keys without a record"] += missing
        # A lost move shows as a missing row, a missing record or both: count it once.
        result["lost"] += max(len(wanted) - common, missing)
        result["applied twice"] += len(stored) - common
    result["unanswered"] = len(ledger.unanswered)
    return result


def drain(stack: Stack, seconds: float) -> tuple[int, int]:
    """Wait until no deal is over but unscored and no match finished but unsettled (workers and
    the sweeper catch up after the faults); what is left after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        with stack.connect() as conn:
            unscored = conn.execute(
                "SELECT count(*) FROM games_deal WHERE status = 'over' AND scored_at IS NULL"
            ).fetchone()[0]
            unsettled = conn.execute(
                "SELECT count(*) FROM games_match WHERE status = 'finished' AND settled_at IS NULL"
            ).fetchone()[0]
        if (unscored == 0 and unsettled == 0) or time.monotonic() > deadline:
            return unscored, unsettled
        time.sleep(1)


def verify_deals(stack: Stack) -> tuple[int, str]:
    done = subprocess.run(
        [str(PY), "manage.py", "verify_deals"], cwd=ROOT, env=stack.env,
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    lines = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode, "\n".join(lines[-5:])


# ---- the report ----

MOVE_FIGURES = [
    "acknowledged",
    "unanswered",
    "unanswered, applied",
    "acknowledged keys without a record",
    "records answering another version",
]


def stream_snapshot(
    stack: Stack, watchers: Watchers
) -> tuple[dict[str, int], dict[str, dict[int, str]]]:
    """What the watches are checked against (bench/watchers.py), taken before they stop: each
    match's version in the database, each watching player's log in the soak's Redis."""
    with stack.connect() as conn:
        versions = {str(m): v for m, v in conn.execute("SELECT id, version FROM games_match")}
    url = stack.env.get("LIVE_REDIS_URL") or stack.env["CELERY_BROKER_URL"]
    prefix = stack.env.get("LIVE_CHANNEL_PREFIX", "pisyedili")
    client = redis.Redis.from_url(url)
    logs: dict[str, dict[int, str]] = {}
    for watch in watchers.tally.watches:
        player = watch.owner.player_id
        if watch.kind == "me" and player and player not in logs:
            rows = client.zrange(f"{prefix}:me:{player}:log", 0, -1, withscores=True)
            logs[player] = {int(score): raw.decode() for raw, score in rows}
    client.close()
    return versions, logs


STREAM_PROBLEMS = [
    "events repeated",
    "events out of order",
    "me events skipped",
    "me events lost",
    "me events replaced (another under their id)",
    "match watches short of the version",
    "match watches closed off their last id",
    "state events off their id",
]


def stream_report(watchers: Watchers) -> list[tuple[str, Any, bool]]:
    """The live clients' figures; their targets."""
    counts = watchers.tally.counts
    print("\nevent streams and WebSockets (bench/watchers.py)")
    for name, value in sorted(counts.items()):
        if name not in STREAM_PROBLEMS:
            print(f"  {name:<56}{value:>8}")
    events = sum(v for k, v in counts.items() if k.startswith("events: "))
    print(f"  {'events counted in all':<56}{events:>8}")
    if watchers.tally.examples:
        print("  what went wrong (first 12):")
        for text in watchers.tally.examples:
            print(f"    {text}")
    watches = len(watchers.tally.watches)
    crashed = sum(v for k, v in counts.items() if k.startswith("watch crashed"))
    targets: list[tuple[str, Any, bool]] = [
        (f"streams: {name}", counts[name], counts[name] == 0) for name in STREAM_PROBLEMS
    ]
    targets.append(("watches that crashed (harness)", f"{crashed}/{watches}", crashed == 0))
    return targets


def report(
    args: argparse.Namespace, stack: Stack, stats: Stats, windows: Windows,
    moves: dict[str, Any], left: tuple[int, int], verified: tuple[int, str], end: float,
    roles: Counter[str], watchers: Watchers | None,
) -> bool:  # fmt: skip
    print("\nrequests by status")
    role_names = ["player", "hostile", "probe", "stream"]
    statuses = sorted({s for _, s in stats.statuses}, key=lambda s: (s == "error", s))
    print(f"  {'status':<8}" + "".join(f"{r:>10}" for r in role_names) + f"{'total':>10}")
    for status in statuses:
        counts = [stats.statuses[(r, status)] for r in role_names]
        label = "conn-err" if status == "error" else status
        print(f"  {label:<8}" + "".join(f"{c:>10}" for c in counts) + f"{sum(counts):>10}")
    total = sum(stats.statuses.values())
    print(f"  {'all':<8}{'':>30}{total:>10}   ({total / end:.1f} requests/s)")

    inside = [e for e in stats.failures if windows.inside(e, end)]
    outside = [e for e in stats.failures if not windows.inside(e, end)]
    five_in = [e for e in inside if e.status != "error"]
    five_out = [e for e in outside if e.status != "error"]
    errors_out = [e for e in outside if e.status == "error"]

    print("\nfaults (recovery: a probe round started after the fault succeeded)")
    print(
        f"  {'fault':<22}{'at s':>8}{'down s':>8}{'recovered s':>13}"
        f"{'5xx in':>8}{'conn-err in':>13}"
    )
    for f in windows.faults:
        span = [
            e for e in stats.failures
            if e.ended >= f["start"] and e.started <= (f["recovered"] or end)
        ]  # fmt: skip
        recovered = f["recovered"] - f["start"] if f["recovered"] is not None else float("nan")
        mark = " (NOT recovered)" if f.get("failed") else ""
        print(
            f"  {f['kind']:<22}{f['start']:8.1f}{f['down']:8.1f}{recovered:13.1f}"
            f"{sum(e.status != 'error' for e in span):8d}"
            f"{sum(e.status == 'error' for e in span):13d}{mark}"
        )
        routes = Counter(f"{e.method} {e.route} {e.status}" for e in span)
        if routes:
            print("      " + ", ".join(f"{r}: {n}" for r, n in routes.most_common(4)))

    print("\ncounts")
    for name, value in sorted(stats.counts.items()):
        print(f"  {name:<48}{value:>8}")
    for name in MOVE_FIGURES:
        print(f"  {'moves: ' + name:<48}{moves.get(name, 0):>8}")
    if stats.unjson_4xx:
        print("  error answers without a JSON code (method route status: n):")
        for key, n in stats.unjson_4xx.most_common(8):
            method, route, status = key
            print(f"    {method} {route} {status}: {n}  e.g. {stats.unjson_example[key]}")

    if five_out or errors_out:
        print("\n5xx and connection errors outside the fault windows (first 12)")
        for e in (five_out + errors_out)[:12]:
            print(
                f"  {e.ended:7.1f} s  {e.role:<8}{e.status:<6}{e.method} {e.route}"
                f"  {e.body[:160]!r}"
            )
        routes = Counter((e.role, e.method, e.route, e.status) for e in five_out + errors_out)
        for (role, method, route, status), n in routes.most_common(10):
            kinds = Counter(
                e.body[:60] if status == "error" else "" for e in five_out + errors_out
                if (e.role, e.method, e.route, e.status) == (role, method, route, status)
            )  # fmt: skip
            why = ", ".join(k for k, _ in kinds.most_common(3) if k)
            print(f"  by route: {role} {method} {route} {status}: {n}  {why}")
    logged = tracebacks(stack)
    if logged:
        print("\n500s in the web log, other than connection errors (route, times, traceback)")
        for (route, _), (times, text) in sorted(logged.items(), key=lambda kv: -kv[1][0]):
            print(f"\n  {route}: {times} x\n    " + text.replace("\n", "\n    "))

    if moves["missing"]:
        print("\nacknowledged moves with no idempotency record (first 10)")
        for ack in moves["missing"][:10]:
            before = [f for f in windows.faults if f["start"] <= ack.at]
            last = (
                f"; last fault {before[-1]['kind']} at {before[-1]['start']:.1f} s"
                if before
                else ""
            )
            print(
                f"  {ack.at:7.1f} s  match {ack.match} seat {ack.seat} key {ack.key} "
                f"{ack.action} {ack.card or ''} (version {ack.version}){last}"
            )

    print(f"\nverify_deals (exit {verified[0]}):\n  " + verified[1].replace("\n", "\n  "))
    stream_targets = stream_report(watchers) if watchers is not None else []

    resent = stats.counts["moves re-sent on purpose"]
    unaccounted = resent - sum(
        stats.counts[f"re-sent: {o}"] for o in ("same answer", "different answer", "never answered")
    )
    recovered_all = all(not f.get("failed") for f in windows.faults)
    worst = max((f["recovered"] - f["start"] for f in windows.faults), default=0.0)
    targets = [
        ("5xx outside fault windows", len(five_out), len(five_out) == 0),
        ("moves lost", moves.get("lost", 0), moves.get("lost", 0) == 0),
        ("moves applied twice", moves.get("applied twice", 0), moves.get("applied twice", 0) == 0),
        ("re-sent moves answered differently", stats.counts["re-sent: different answer"],
         stats.counts["re-sent: different answer"] == 0),
        ("re-sent moves not counted under an outcome", unaccounted, unaccounted == 0),
        (f"faults recovered (worst {worst:.1f} s, limit 120 s)",
         f"{sum(not f.get('failed') for f in windows.faults)}/{len(windows.faults)}",
         recovered_all and len(windows.faults) > 0),
        ("deals over, unscored / matches finished, unsettled", f"{left[0]} / {left[1]}",
         left == (0, 0)),
        ("verify_deals: deals with differences", verified[0], verified[0] == 0),
        *stream_targets,
    ]  # fmt: skip
    print(
        f"\ntargets ({args.minutes:g} min, {args.clients} clients: {roles['player']} vs bots, "
        f"{roles['pair']} in pairs, {roles['hostile']} hostile; seed {args.seed})"
    )
    for name, value, met in targets:
        print(f"  {name:<56}{value!s:>10}   {'met' if met else 'MISSED'}")
    print(f"  (outside the windows, also {len(errors_out)} connection errors; in them, "
          f"{len(five_in)} 5xx and {len(inside) - len(five_in)} connection errors)")  # fmt: skip
    return all(met for _, _, met in targets)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10, help="how long clients play")
    parser.add_argument("--clients", type=int, default=16, help="client threads (min 6)")
    parser.add_argument("--seed", type=int, default=1, help="faults, matches and moves")
    parser.add_argument("--web-workers", type=int, default=2, help="uvicorn --workers")
    parser.add_argument("--celery-workers", type=int, default=2, help="workers, -c 1 each")
    parser.add_argument("--resend-share", type=float, default=0.05, help="moves sent twice")
    parser.add_argument(
        "--socket-share", type=float, default=0.5,
        help="players that send their moves on the match's WebSocket",
    )  # fmt: skip
    parser.add_argument(
        "--clock-share", type=float, default=0.3, help="pair matches with a turn clock"
    )
    parser.add_argument("--no-faults", action="store_true", help="a baseline without faults")
    parser.add_argument(
        "--no-streams", action="store_true", help="no event streams or WebSockets held open"
    )
    parser.add_argument("--logs", type=Path, help="copy the services' logs here at the end")
    args = parser.parse_args()
    args.clients = max(args.clients, 6)
    rng = random.Random(args.seed)

    stack = Stack("soak", database="pisyedili_soak", fsync=False)
    # Ctrl-C and SIGTERM both unwind through the `finally` that stops the stack.
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)  # also where the shell started us with it ignored
    ok = False
    try:
        print(f"starting the stack in {stack.dir} ...", flush=True)
        # docs/operations.md's commands: uvicorn, `--web-workers` processes; Celery workers
        # (-c 1 each here) and beat.
        stack.services_start()
        stack.uvicorn(args.web_workers)
        for index in range(args.celery_workers):
            stack.worker(f"soak{index}")
        stack.beat_start()
        stack.wait_web(seconds=30)
        print(
            f"PostgreSQL 15 :{stack.pg_port} (fsync off), Redis :{stack.redis_port}, uvicorn "
            f"{args.web_workers} workers :{stack.web_port}, "
            f"{args.celery_workers} Celery workers (prefork -c 1), beat",
            flush=True,
        )
        ok = soak(args, stack, rng)
    except KeyboardInterrupt:
        print("\ninterrupted: stopping the stack", flush=True)
    finally:
        stack.stop(args.logs)
    return 0 if ok else 1


INTERRUPTED = threading.Event()


def interrupt(signum: int, frame: Any) -> None:
    INTERRUPTED.set()
    raise KeyboardInterrupt


def soak(args: argparse.Namespace, stack: Stack, rng: random.Random) -> bool:
    stats, ledger, windows, stop = Stats(), Ledger(), Windows(), threading.Event()
    halt = threading.Event()  # the watches', set once the stack has caught up
    watchers = None if args.no_streams else Watchers(halt)
    hostile_n = max(1, args.clients // 8)
    pairs_n = max(1, (args.clients - hostile_n) // 4)
    players_n = args.clients - hostile_n - 2 * pairs_n
    roles = Counter(player=players_n, pair=2 * pairs_n, hostile=hostile_n)

    def seeded() -> random.Random:
        return random.Random(rng.randrange(2**32))

    threads: list[threading.Thread] = []
    others: list[str] = []
    made = Counter[str]()

    def player() -> Player:
        """The next player; every so many (--socket-share) sends its moves on the socket."""
        n = made["players"]
        made["players"] += 1
        on_socket = math.floor((n + 1) * args.socket_share) > math.floor(n * args.socket_share)
        return Player(
            stack.base, "player", stats, stop, ledger, seeded(), args.resend_share, watchers,
            on_socket,
        )  # fmt: skip

    for _ in range(players_n):
        threads.append(threading.Thread(target=guard(bot_player, player()), daemon=True))
    for _ in range(pairs_n):
        pair = Pair(args.clock_share)
        for method in (pair.host, pair.guest):
            threads.append(threading.Thread(target=guard(method, player()), daemon=True))
        others_source = pair  # hostile clients poke at the pairs' matches
    for _ in range(hostile_n):
        h = Hostile(stack.base, "hostile", stats, stop, seeded(), others)
        threads.append(threading.Thread(target=guard(Hostile.run, h), daemon=True))
    probe = Probe(stack.base, "probe", stats, stop, ledger, seeded(), 0.0)
    threads.append(threading.Thread(target=guard(Probe.run, probe), daemon=True))

    for thread in threads:
        thread.start()
    probe.ready.wait(60)
    t_start = now()
    duration = args.minutes * 60
    schedule = [] if args.no_faults else fault_schedule(duration, random.Random(args.seed))
    print(f"{len(threads)} client threads playing for {args.minutes:g} min; "
          f"{len(schedule)} faults scheduled", flush=True)  # fmt: skip
    faults = threading.Thread(
        target=run_faults, args=(stack, schedule, windows, probe, stop, t_start, rng), daemon=True
    )
    faults.start()
    try:
        while now() < t_start + duration:
            time.sleep(min(5.0, t_start + duration - now()))
            others[:] = others_source.matches[-20:]
    finally:
        stop.set()
        # Interrupted: no figures follow, so do not wait for the clients' last answers.
        patience = 5 if INTERRUPTED.is_set() else RETRY_SECONDS + 30
        faults.join(timeout=patience)
        for thread in threads:
            thread.join(timeout=patience)
    end = now()
    print(f"clients stopped at {end:.1f} s; waiting for scoring and settlement ...", flush=True)
    left = drain(stack, 60)
    if watchers is not None:
        versions, logs = stream_snapshot(stack, watchers)
        time.sleep(5)  # the last events on their way
        halt.set()
        watchers.join(timeout=10 if INTERRUPTED.is_set() else 60)
        watchers.check(versions, logs)
    moves = compare(stack, ledger)
    verified = verify_deals(stack)
    return report(args, stack, stats, windows, moves, left, verified, end, roles, watchers)


def guard(target: Any, client: Client) -> Any:
    """A client thread that dies says why (the soak goes on without it)."""

    def run() -> None:
        try:
            target(client)
        except SystemExit:
            pass
        except Exception as exc:  # noqa: BLE001 (a harness bug must not hide the figures)
            client.stats.count(f"client crashed: {type(exc).__name__}: {exc}"[:80])

    return run


if __name__ == "__main__":
    sys.exit(main())
