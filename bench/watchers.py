"""The soak's live clients (bench/soak.py): event streams and WebSockets held open through the
faults, every event counted as every move is.

A watch is one stream as a client sees it across its connections: a match's events
(`GET …/matches/{id}/events`, ids = the match's versions) or the player's own (`GET …/me/events`,
ids = the player's event sequence), as Server-Sent Events with the token in `Authorization`,
or as a WebSocket opened with a stream ticket (as a browser opens it). Whatever ends a
connection (the event `reconnect`, the close codes 1012 and 1013, a broken connection, a
refusal while a fault lasts), the watch connects again with `Last-Event-ID` = the last id seen,
as EventSource does (a WebSocket with `last_event_id`), and gets a new ticket when its ticket is
refused. docs/api.md "Live events" is what it holds the server to:

- every id on a watch is new and greater than the one before (none repeated, none out of
  order); a `me` watch's ids follow one another (n, n+1, …) unless a `resync` says that the
  log no longer reaches back (counted apart: the client is told);
- a match's watch ends on the match's last version (`close` `match_over` with it), or, when the
  soak stops first, on its version in the database;
- a `me` watch holds, at the end, every event of the player's log (in the soak's Redis) after
  its last `ready` or `resync`, each as the log has it: an event the log holds and the watch
  never got, or got another event under its id, is lost.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

import requests
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import connect

API = "/api/v1"
# A connection with nothing (no event, no heartbeat) for this long is dropped and opened again
# (the heartbeat comes every LIVE_HEARTBEAT_SECONDS, 15).
READ_TIMEOUT = 40.0


class Owner(Protocol):
    """What a watch needs of its player's client (bench/soak.py's Player)."""

    base: str
    token: str | None
    player_id: str | None
    stop: threading.Event

    def call(self, method: str, path: str, **kw: Any) -> requests.Response | None: ...

    def connect_counted(self, route: str, status: str, started: float, body: str) -> None: ...


@dataclass
class Tally:
    """Every watch's figures, for the report."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    counts: Counter[str] = field(default_factory=Counter)
    watches: list[Watch] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)

    def count(self, name: str, n: int = 1) -> None:
        with self.lock:
            self.counts[name] += n

    def problem(self, name: str, text: str) -> None:
        with self.lock:
            self.counts[name] += 1
            if len(self.examples) < 12:
                self.examples.append(f"{name}: {text}")


class Watch:
    """One stream of one player, held open until its match is over or `halt` is set."""

    def __init__(
        self, owner: Owner, tally: Tally, halt: threading.Event, kind: str, transport: str,
        match: str | None = None,
    ) -> None:  # fmt: skip
        self.owner, self.tally, self.halt = owner, tally, halt
        self.kind, self.transport, self.match = kind, transport, match
        self.path = f"{API}/matches/{match}/events" if kind == "match" else f"{API}/me/events"
        self.last: int | None = None  # the last id seen
        self.base_seq: int | None = None  # me: the sequence of the last ready / resync
        self.got: dict[int, dict[str, Any]] = {}  # me: id -> event data since base_seq
        self.final: int | None = None  # match: the version of `close` `match_over`
        self.ticket: str | None = None
        self.connections = 0
        with tally.lock:
            tally.watches.append(self)

    def __repr__(self) -> str:
        return f"{self.kind} {self.transport} {self.match or self.owner.player_id}"

    # ---- one event ----

    def event(self, name: str, id_: int | None, data: Any) -> str | None:
        """Count one event; "done" when the stream is over for good, "again" when the client
        is to connect again, else None."""
        tally = self.tally
        tally.count(f"events: {self.kind} {name}")
        if name == "close":
            reason = data.get("reason") if isinstance(data, dict) else None
            if reason == "match_over" and self.kind == "match":
                self.final = data.get("version")
                return "done"
            tally.count(f"closed by the server: {reason}")
            return "again"
        if name == "reconnect":
            tally.count(f"reconnect asked: {data.get('reason')}")
            return "again"
        if id_ is None:
            return None  # talk, resigned: no id
        if self.kind == "me" and name in ("ready", "resync"):
            if name == "resync":
                tally.count("me: resync (the client is told to re-read)")
            self.base_seq, self.last, self.got = id_, id_, {}
            return None
        if self.last is not None:
            if id_ == self.last or (self.kind == "me" and id_ in self.got):
                tally.problem("events repeated", f"{self!r} id {id_} after {self.last}")
            elif id_ < self.last:
                tally.problem("events out of order", f"{self!r} id {id_} after {self.last}")
            elif self.kind == "me" and id_ > self.last + 1:
                tally.problem("me events skipped", f"{self!r} id {id_} after {self.last}")
        if self.kind == "match" and isinstance(data, dict) and data.get("version") != id_:
            tally.problem("state events off their id", f"{self!r} id {id_}")
        if self.kind == "me":
            self.got[id_] = data
        self.last = id_ if self.last is None else max(self.last, id_)
        return None

    # ---- connections ----

    def run(self) -> None:
        delay = 0.5
        while not self.halt.is_set():
            if self.kind == "match" and self.final is not None:
                return
            ended = self.sse() if self.transport == "sse" else self.websocket()
            self.tally.count(f"connections ended: {ended}")
            if ended == "done":
                return
            if ended.startswith(("refused", "error")):
                self.halt.wait(delay)  # as EventSource's retry (2 s) or a client's backoff
                delay = min(delay * 2, 4.0)
            else:
                delay = 0.5

    def _headers(self) -> dict[str, str]:
        headers = {"X-Forwarded-Proto": "https"}
        if self.last is not None:
            headers["Last-Event-ID"] = str(self.last)
        return headers

    def _refused(self, status: int, started: float, body: str) -> str:
        self.owner.connect_counted(f"{self.transport} {self.kind} events", str(status), started,
                                   body)  # fmt: skip
        if status == 401 and self.transport == "ws":
            self.ticket = None  # expired (or its token revoked): ask again
            self.tally.count("tickets refused (asked again)")
        if status == 404 and self.kind == "match":
            self.final = -1
            return "done"
        return f"refused {status}"

    def sse(self) -> str:
        owner = self.owner
        headers = {**self._headers(), "Authorization": f"Token {owner.token}"}
        started = time.monotonic()
        try:
            r = requests.get(
                owner.base + self.path, headers=headers, stream=True, timeout=(3, READ_TIMEOUT)
            )
        except requests.RequestException as exc:
            owner.connect_counted(f"sse {self.kind} events", "error", started, type(exc).__name__)
            return "error: connect"
        if r.status_code != 200:
            body = r.text[:300]
            r.close()
            return self._refused(r.status_code, started, body)
        owner.connect_counted(f"sse {self.kind} events", "200", started, "")
        self.connections += 1
        r.encoding = "utf-8"  # SSE is UTF-8 (iter_lines would give bytes without it)
        name, id_, data = "message", None, []
        try:
            for line in r.iter_lines(chunk_size=None, decode_unicode=True):
                if line == "":
                    if data:
                        outcome = self.event(name, id_, json.loads("\n".join(data)))
                        if outcome is not None:
                            return outcome
                    name, id_, data = "message", None, []
                elif line.startswith(":"):
                    self.tally.count("heartbeats")
                elif line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("id:"):
                    id_ = int(line[3:].strip())
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip(" "))
                if self.halt.is_set():
                    return "halted"
        except (requests.RequestException, ValueError) as exc:
            return f"error: {type(exc).__name__}"
        finally:
            r.close()
        return "eof"

    def websocket(self) -> str:
        owner = self.owner
        if self.ticket is None:
            r = owner.call("POST", "/auth/stream-ticket", json={"path": self.path})
            if r is None or r.status_code != 200:
                return "error: no ticket"
            self.ticket = r.json()["ticket"]
        url = owner.base.replace("http://", "ws://") + self.path + f"?ticket={self.ticket}"
        if self.last is not None:
            url += f"&last_event_id={self.last}"
        started = time.monotonic()
        try:
            socket = connect(
                url, additional_headers={"X-Forwarded-Proto": "https"}, open_timeout=5,
                close_timeout=2, max_size=2**22,
            )  # fmt: skip
        except InvalidStatus as exc:
            body = exc.response.body.decode(errors="replace")[:300] if exc.response.body else ""
            return self._refused(exc.response.status_code, started, body)
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            owner.connect_counted(f"ws {self.kind} events", "error", started, type(exc).__name__)
            return "error: connect"
        owner.connect_counted(f"ws {self.kind} events", "101", started, "")
        self.connections += 1
        with socket:
            while not self.halt.is_set():
                try:
                    message = json.loads(socket.recv(timeout=READ_TIMEOUT))
                except ConnectionClosed as exc:
                    code = exc.rcvd.code if exc.rcvd is not None else 1006
                    return f"ws closed {code}"
                except TimeoutError:
                    return "error: read timeout"
                if message.get("event") == "heartbeat":
                    self.tally.count("heartbeats")
                    continue
                outcome = self.event(message["event"], message.get("id"), message.get("data"))
                if outcome is not None:
                    return outcome
        return "halted"


class Watchers:
    """Starts the watches of the soak's players, alternating SSE and WebSocket."""

    def __init__(self, halt: threading.Event) -> None:
        self.halt = halt
        self.tally = Tally()
        self.threads: list[threading.Thread] = []
        self.turn = 0
        self.lock = threading.Lock()

    def _transport(self) -> str:
        with self.lock:
            self.turn += 1
            return "sse" if self.turn % 2 else "ws"

    def _start(self, watch: Watch) -> None:
        thread = threading.Thread(target=self._guarded, args=(watch,), daemon=True)
        with self.lock:
            self.threads.append(thread)
        thread.start()

    def _guarded(self, watch: Watch) -> None:
        try:
            watch.run()
        except Exception as exc:  # noqa: BLE001 (a harness bug must not hide the figures)
            self.tally.count(f"watch crashed: {type(exc).__name__}: {exc}"[:80])

    def me(self, owner: Owner) -> None:
        self._start(Watch(owner, self.tally, self.halt, "me", self._transport()))

    def match(self, owner: Owner, match: str) -> None:
        self._start(Watch(owner, self.tally, self.halt, "match", self._transport(), match))

    def join(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for thread in list(self.threads):
            thread.join(max(0.0, deadline - time.monotonic()))

    def check(self, versions: dict[str, int], logs: dict[str, dict[int, str]]) -> None:
        """At the end: each match watch against its match's version in the database, each me
        watch against its player's log (seq -> the event's JSON), both taken a few seconds
        before the watches stopped (what came after may or may not have reached them)."""
        tally = self.tally
        for watch in tally.watches:
            tally.count(f"watches: {watch.kind} {watch.transport}")
            if watch.kind == "match":
                if watch.final == -1:
                    continue
                version = versions.get(watch.match or "")
                if watch.final is not None and watch.final != watch.last:
                    tally.problem(
                        "match watches closed off their last id",
                        f"{watch!r} close {watch.final}, last id {watch.last}",
                    )
                if version is not None and (watch.last is None or watch.last < version):
                    tally.problem(
                        "match watches short of the version",
                        f"{watch!r} last id {watch.last}, the database {version}",
                    )
                continue
            log = logs.get(watch.owner.player_id or "", {})
            base = watch.base_seq if watch.base_seq is not None else 0
            for seq, raw in sorted(log.items()):
                if seq <= base:
                    continue
                tally.count("me events in the logs, checked")
                got = watch.got.get(seq)
                if got is None:
                    tally.problem("me events lost", f"{watch!r} seq {seq} {raw[:80]}")
                elif got != json.loads(raw):
                    tally.problem(
                        "me events replaced (another under their id)",
                        f"{watch!r} seq {seq}: got {got} for {raw[:80]}",
                    )
