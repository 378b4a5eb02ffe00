"""A web process that is stopped (SIGTERM, as a deploy does; Ctrl-C's SIGINT the same) loses
nobody: it stops accepting, every event stream gets `reconnect` and ends, every WebSocket is
closed with 1012, a waiting long-poll answers at once, and the process exits well within
`--timeout-graceful-shutdown`. Its clients come back to another process (or to it, started
again) with the same stream ticket and `Last-Event-ID`, and miss nothing and see nothing twice.
"""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.httpclient import http

from .conftest import Servers
from .sse import Event, Stream
from .test_streams import _move, _table
from .ws import Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]


def _ws(base: str) -> str:
    return base.replace("http://", "ws://", 1)


def _ticket(player: Any, base: str, path: str) -> str:
    issued = player.post(base, "/api/v1/auth/stream-ticket", {"path": path})
    assert issued.status_code == 200, issued.text
    return str(issued.json()["ticket"])


def _until_end(stream: Stream, timeout: float = 10) -> list[Event]:
    """The events `stream` sends until it ends (heartbeats left out)."""
    got: list[Event] = []
    deadline = time.monotonic() + timeout
    while (item := stream.next(timeout=max(0.1, deadline - time.monotonic()))) is not None:
        if isinstance(item, Event):
            got.append(item)
    return got


def _stopped(proc: Any, sig: int, limit: float) -> float:
    """Send `sig` to `proc`; the seconds it took to exit (at most `limit`)."""
    started = time.monotonic()
    proc.send_signal(sig)
    proc.wait(limit)
    return time.monotonic() - started


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_process_tells_every_client_to_reconnect_and_exits(
    live: Any, tmp_path: Path, sig: int
) -> None:
    one, _ = live.bases
    a, b, match_id = _table(one)
    stopping = Servers(live.env, 1, tmp_path)
    try:
        (base,) = stopping.bases
        path = f"/api/v1/matches/{match_id}/events"
        ticket = _ticket(a, one, path)
        by_ticket = Stream(f"{base}{path}?ticket={ticket}")
        first = by_ticket.next()
        assert isinstance(first, Event) and first.event == "state"
        by_header = b.stream(base, path)
        assert isinstance(by_header.next(), Event)
        mine = a.stream(base, "/api/v1/me/events")
        lobby = Stream(f"{base}/api/v1/lobby/events")
        socket = Socket(f"{_ws(base)}{path}", b.headers)
        assert socket.status == 101 and socket.next().event == "state"  # type: ignore[union-attr]
        polled: dict[str, Any] = {}

        def poll() -> None:
            query = f"?after_version={first.data['version']}&wait=25"
            polled["answer"] = a.get(base, f"/api/v1/matches/{match_id}/state{query}")

        poller = threading.Thread(target=poll)
        poller.start()
        time.sleep(1)  # every client is waiting
        seconds = _stopped(stopping.procs[0], sig, limit=10)
        assert seconds < 5, seconds  # --timeout-graceful-shutdown 10: nobody held it up
        for stream in (by_ticket, by_header, mine, lobby):
            ended = _until_end(stream)
            assert ended and ended[-1].event == "reconnect", (stream.url, ended)
            assert ended[-1].data == {"reason": "restart"} and ended[-1].id is None
        assert socket.next() is None and socket.close_code == 1012
        poller.join(5)
        answer = polled["answer"]
        assert answer.status_code == 200, answer.text
        assert answer.json()["version"] == first.data["version"]  # as it is, at once
        with pytest.raises(httpx.ConnectError):
            http.get(f"{base}/api/v1/bots", timeout=2)  # no longer accepting

        # The same ticket and Last-Event-ID on the other process: nothing repeated ...
        again = Stream(f"{one}{path}?ticket={ticket}", {"Last-Event-ID": first.id or ""})
        assert again.status == 200
        assert again.next(timeout=3, heartbeats=True) == ": heartbeat"
        # ... nothing missed.
        moved = _move(one, [a, b], match_id)
        event = again.next()
        assert isinstance(event, Event) and event.event == "state"
        assert int(event.id or 0) == moved["version"]
    finally:
        stopping.stop()


def test_a_ticket_reopens_its_stream_after_its_process_restarted(live: Any, tmp_path: Path) -> None:
    one, _ = live.bases
    a, b, match_id = _table(one)
    first_process = Servers(live.env, 1, tmp_path / "first")
    (base,) = first_process.bases
    port = base.rsplit(":", 1)[1]
    path = f"/api/v1/matches/{match_id}/events"
    ticket = _ticket(a, base, path)
    stream = Stream(f"{base}{path}?ticket={ticket}")
    seen = stream.next()
    assert isinstance(seen, Event)
    _stopped(first_process.procs[0], signal.SIGTERM, limit=10)
    assert _until_end(stream)[-1].event == "reconnect"
    moved = _move(one, [a, b], match_id)  # while no process serves that port
    again = Servers({**live.env}, 0, tmp_path / "second")
    try:
        again.start_on(int(port))
        resumed = Stream(f"{base}{path}?ticket={ticket}", {"Last-Event-ID": seen.id or ""})
        assert resumed.status == 200
        event = resumed.next()
        assert isinstance(event, Event) and int(event.id or 0) == moved["version"]
        refused = http.get(f"{base}/api/v1/me/events?ticket={ticket}")
        assert refused.status_code == 401 and refused.json()["code"] == "not_authenticated"
    finally:
        again.stop()
        first_process.stop()
