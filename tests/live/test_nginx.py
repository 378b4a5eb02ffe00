"""Debian's nginx in front of two uvicorn processes, with the deployment's own nginx config
(deploy/nginx.conf, its upstream servers and listen port replaced by free ports of the test):
a move through nginx reaches streams and WebSockets on either process, passed through as they
come; and a rolling restart of the two processes (one at a time, SIGTERM) under play loses and
repeats nothing: every move lands once, every stream through nginx comes back by itself (its
ticket, Last-Event-ID) and shows every version once, and every `me` event comes once.

Without nginx (/usr/sbin/nginx, apt package `nginx`) the tests are skipped, except under CI=true.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from tests import leakscan
from tests.httpclient import http

from .conftest import ROOT, Servers, free_port
from .sse import Event, Stream
from .test_streams import Player, _table
from .ws import Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]

NGINX = os.environ.get("NGINX", "/usr/sbin/nginx")
CONFIG = ROOT / "deploy" / "nginx.conf"


class Nginx:
    """nginx (not a daemon) on a free port, in front of `upstreams` (host:port each)."""

    def __init__(self, upstreams: list[str], folder: Path):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        folder.mkdir(parents=True, exist_ok=True)
        site = CONFIG.read_text()
        servers = "".join(f"    server {u} max_fails=0;\n" for u in upstreams)
        site, count = re.subn(r"(    server \S+ max_fails=0;\n)+", servers, site)
        assert count == 1, "deploy/nginx.conf: no upstream servers to replace"
        site, count = re.subn(r"listen 8000;", f"listen 127.0.0.1:{self.port};", site)
        assert count == 1, "deploy/nginx.conf: no `listen 8000;`"
        self.access_log = folder / "access.log"
        site, count = re.subn(r"/var/log/nginx/access\.log", str(self.access_log), site)
        assert count == 1, "deploy/nginx.conf: no access_log"
        # The streams' own error log (errors only when critical: a request line holds a ticket).
        self.stream_errors = folder / "stream-error.log"
        site, count = re.subn(r"/var/log/nginx/error\.log crit", f"{self.stream_errors} crit", site)
        assert count == 1, "deploy/nginx.conf: no error_log for the streams"
        (folder / "site.conf").write_text(site)
        user = "user root;\n" if os.geteuid() == 0 else ""
        temp = "".join(
            f"    {kind}_temp_path {folder / kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (folder / "nginx.conf").write_text(
            f"{user}daemon off;\nworker_processes 1;\npid {folder / 'nginx.pid'};\n"
            f"error_log {folder / 'error.log'} warn;\n"
            "events { worker_connections 1024; }\n"
            f"http {{\n    access_log off;\n{temp}    include {folder / 'site.conf'};\n}}\n"
        )
        command = [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf")]
        command += ["-e", str(folder / "error.log")]
        check = subprocess.run([*command, "-t"], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        self.log = folder / "error.log"
        deadline = time.monotonic() + 10
        while True:
            assert self.proc.poll() is None, self.log.read_text()
            try:
                http.get(f"{self.base}/api/v1/bots", timeout=2)
                return
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.1)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGQUIT)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def front(live_env: dict[str, str], tmp_path: Path) -> Iterator[tuple[Nginx, Servers]]:
    """Two uvicorn processes of their own (a test restarts them) and nginx in front."""
    if not os.access(NGINX, os.X_OK) or shutil.which(NGINX) is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"no nginx at {NGINX} (CI=true: apt-get install -y nginx)")
        pytest.skip(f"no nginx at {NGINX} (apt-get install -y nginx)")
    servers = Servers({**live_env, "NUM_PROXIES": "1"}, 2, tmp_path / "uvicorn")
    nginx = Nginx([b.removeprefix("http://") for b in servers.bases], tmp_path / "nginx")
    try:
        yield nginx, servers
    finally:
        nginx.stop()
        servers.stop()


def _ticket(player: Player, base: str, path: str) -> str:
    issued = player.post(base, "/api/v1/auth/stream-ticket", {"path": path})
    assert issued.status_code == 200, issued.text
    return str(issued.json()["ticket"])


def test_a_move_through_nginx_reaches_streams_on_both_processes(front: Any) -> None:
    nginx, servers = front
    one, two = servers.bases
    a, b, match_id = _table(nginx.base)
    path = f"/api/v1/matches/{match_id}/events"
    direct = [b.stream(base, path) for base in (one, two)]  # a process each
    proxied = Stream(f"{nginx.base}{path}?ticket={_ticket(a, nginx.base, path)}")
    socket = Socket(f"ws://127.0.0.1:{nginx.port}{path}", b.headers)
    assert socket.status == 101
    for stream in (*direct, proxied):
        assert isinstance(stream.next(), Event)
    assert socket.next().event == "state"  # type: ignore[union-attr]
    for _ in range(3):
        state = a.get(nginx.base, f"/api/v1/matches/{match_id}/state").json()
        mover = a if state["turn"] == 0 else b
        state = mover.get(nginx.base, f"/api/v1/matches/{match_id}/state").json()
        body = {**state["legal_moves"][0], "version": state["version"]}
        started = time.monotonic()
        moved = mover.post(nginx.base, f"/api/v1/matches/{match_id}/moves", body)
        assert moved.status_code == 200, moved.text
        version = moved.json()["version"]
        for stream in (*direct, proxied):
            event = stream.next()
            assert isinstance(event, Event) and int(event.id or 0) == version
        message = socket.next()
        assert message is not None and message.id == version  # type: ignore[union-attr]
        # Passed through as it comes, not held in nginx's buffers.
        assert time.monotonic() - started < 5
    # Through nginx the client's address is the one nginx saw (NUM_PROXIES=1).
    assert proxied.next(timeout=5, heartbeats=True) == ": heartbeat"
    # The links the API writes name the address the client used, port included.
    _table(nginx.base)
    page = a.get(nginx.base, "/api/v1/matches?limit=1").json()
    assert page["next"].startswith(f"{nginx.base}/api/v1/matches?"), page["next"]
    # No log holds a stream ticket: nginx's access log, nor uvicorn's (a WebSocket's line).
    Socket(f"ws://127.0.0.1:{nginx.port}{path}?ticket={_ticket(a, nginx.base, path)}").close()
    logged = nginx.access_log.read_text()
    assert f"GET {path} HTTP/1.1" in logged and "ticket=" not in logged, logged
    written = [log.read_text(errors="replace") for log in servers.log_dir.glob("*.log")]
    assert any(f"WebSocket {path}" in text for text in written), written
    assert not any("ticket=ey" in text for text in written)


class Follower:
    """A client of one stream through nginx that comes back as EventSource does: after
    `reconnect`, the end of the response or a lost connection, the same URL (its ticket) with
    Last-Event-ID; a new ticket when refused. Every event is scanned for hidden information."""

    def __init__(self, player: Player, base: str, path: str):
        self.player, self.base, self.path = player, base, path
        self.events: list[Event] = []
        self.reconnects = 0
        self.refusals: list[int] = []
        self.last_id: str | None = None
        self.done = threading.Event()
        self._stop = threading.Event()
        self._ticket = _ticket(player, base, path)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set() and not self.done.is_set():
            url = f"{self.base}{self.path}?ticket={self._ticket}"
            headers = {"Last-Event-ID": self.last_id} if self.last_id else {}
            viewer = leakscan.viewer_of(url, headers)
            try:
                timeout = httpx.Timeout(10, read=30)
                with http.stream("GET", url, headers=headers, timeout=timeout) as response:
                    if response.status_code != 200:
                        self.refusals.append(response.status_code)
                        if response.status_code == 401:
                            self._ticket = _ticket(self.player, self.base, self.path)
                        time.sleep(0.5)
                        continue
                    fields: dict[str, str] = {}
                    for line in response.iter_lines():
                        if line == "" and "data" in fields:
                            self._got(url, viewer, fields)
                            fields = {}
                        elif line and not line.startswith(":"):
                            name, _, value = line.partition(":")
                            fields[name] = value.removeprefix(" ")
                        if self._stop.is_set() or self.done.is_set():
                            return
            except httpx.HTTPError:
                pass
            self.reconnects += 1
            time.sleep(0.2)

    def _got(self, url: str, viewer: str | None, fields: dict[str, str]) -> None:
        event = Event(
            fields.get("event", "message"), orjson.loads(fields["data"]), fields.get("id")
        )
        if "id" in fields:
            self.last_id = fields["id"]
        if event.event in ("reconnect", "ready"):
            return
        from django.db import connection

        try:
            leakscan.VIOLATIONS.extend(leakscan.scan_event(url, event.data, viewer))
        finally:
            connection.close()  # this thread's own: a waiting client holds none
        self.events.append(event)
        if event.event == "close":
            self.done.set()

    def shown(self) -> int:
        """The last version shown (-1: none yet)."""
        ids = [int(e.id) for e in self.events if e.event == "state" and e.id]
        return ids[-1] if ids else -1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(35)


def _post_move(player: Player, base: str, match_id: str, body: dict[str, Any]) -> tuple[Any, int]:
    """The move POSTed through nginx until it is answered (a lost connection or a 502 while a
    process stops is sent again with the same Idempotency-Key: exactly once); the answer and
    the tries it took."""
    headers = {**player.headers, "Idempotency-Key": str(uuid.uuid4())}
    url = f"{base}/api/v1/matches/{match_id}/moves"
    for tries in range(1, 21):
        try:
            response = http.post(url, json=body, headers=headers, timeout=20)
        except httpx.HTTPError:
            time.sleep(0.3)
            continue
        if response.status_code in (502, 503, 504):
            time.sleep(0.3)
            continue
        return response, tries
    raise AssertionError("the move was never answered")


def test_a_rolling_restart_under_play_loses_and_repeats_nothing(front: Any) -> None:
    nginx, servers = front
    base = nginx.base
    a, b = Player(base), Player(base)
    # As many deals as a match may have: play outlasts both restarts however fast it goes, and
    # the people end the match by resigning once both processes were restarted under play.
    created = a.post(base, "/api/v1/matches", {"seats": 2, "deals": 20, "spectators": "public"})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    assert b.post(base, f"/api/v1/matches/{match_id}/join").status_code == 200
    path = f"/api/v1/matches/{match_id}/events"
    followers = [Follower(a, base, path), Follower(b, base, path)]
    mine = Follower(a, base, "/api/v1/me/events")
    restarted: list[float] = []  # seconds from SIGTERM to the exit
    windows: list[tuple[float, float]] = []  # from SIGTERM to the process answering again
    answered: list[float] = []  # when each move was answered

    def answered_since(since: float) -> int:
        return sum(1 for t in answered if t > since)

    # Servers.start_on adds the new process to its own list; keep it where the old one was.
    def restart_one(i: int) -> None:
        proc = servers.procs[i]
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        restarted.append(time.monotonic() - started)
        port = int(servers.bases[i].rsplit(":", 1)[1])
        again = Servers(servers.env, 0, servers.log_dir / f"again{i}")
        again.start_on(port)
        servers.procs[i] = again.procs[0]
        windows.append((started, time.monotonic()))

    def roll() -> None:
        # Each process is stopped once play is under way (three moves answered since the last
        # restart ended), so every restart happens mid-match at any pace of play.
        since = 0.0
        for i in range(len(servers.procs)):
            deadline = time.monotonic() + 60
            while answered_since(since) < 3 and time.monotonic() < deadline:
                time.sleep(0.05)
            restart_one(i)
            since = windows[-1][1]

    roller = threading.Thread(target=roll)
    roller.start()
    moves = tries = 0
    made: list[int] = []
    try:
        while roller.is_alive() or (windows and answered_since(windows[-1][1]) < 3):
            state = a.get(base, f"/api/v1/matches/{match_id}/state").json()
            assert state["status"] == "active", state["status"]  # 20 deals outlast the restarts
            mover = a if state["turn"] == 0 else b
            view = mover.get(base, f"/api/v1/matches/{match_id}/state").json()
            if not view["legal_moves"]:  # a deal is over: the next one is being dealt
                time.sleep(0.1)
                continue
            body = {**view["legal_moves"][0], "version": view["version"]}
            answer, took = _post_move(mover, base, match_id, body)
            assert answer.status_code == 200, answer.text
            moves, tries = moves + 1, tries + took
            answered.append(time.monotonic())
            if answer.json()["phase"] != "deal_over":
                # A deal's last move is followed at once by its scoring (and the next deal): a
                # stream may show that later version for both (docs/api.md).
                made.append(answer.json()["version"])
            # Every follower shows this version before the next move.
            deadline = time.monotonic() + 15
            while not all(f.shown() >= answer.json()["version"] for f in followers):
                assert time.monotonic() < deadline, [f.events[-1:] for f in followers]
                time.sleep(0.02)
    finally:
        roller.join(60)
    assert len(restarted) == 2 and all(s < 5 for s in restarted), restarted
    for down, up in windows:  # play went on through each restart, on the other process
        assert any(down <= t <= up for t in answered), (windows, answered[-3:])
    log = a.get(base, f"/api/v1/matches/{match_id}/moves").json()
    assert len(log) == moves, (len(log), moves)  # each move once, retries included
    # Both people resign: the match is abandoned, and every stream shows it to its end.
    assert a.post(base, f"/api/v1/matches/{match_id}/resign").status_code == 200
    assert b.post(base, f"/api/v1/matches/{match_id}/resign").status_code == 200
    final = a.get(base, f"/api/v1/matches/{match_id}/state").json()
    assert final["status"] == "abandoned", final["status"]
    for follower in followers:
        assert follower.done.wait(15), "no close after the match"
        follower.stop()
        states = [int(e.id or 0) for e in follower.events if e.event == "state"]
        # Every version once, in order, up to the final one, across both restarts.
        assert states == sorted(set(states)) and states[-1] == final["version"], states
        assert set(made) <= set(states), (made, states)
        assert follower.reconnects >= 1, follower.reconnects  # its process was stopped
    mine.stop()
    seqs = [int(e.id or 0) for e in mine.events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs  # each `me` event once
    assert any(e.event == "your_turn" for e in mine.events)
    # The streams that came back through nginx while a process was down wrote no ticket into
    # its error logs (a request line is written whole into each error nginx logs).
    for log in (nginx.log, nginx.stream_errors):
        text = log.read_text(errors="replace") if log.exists() else ""
        assert "ticket=" not in text, text[-2000:]
