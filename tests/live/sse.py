"""A Server-Sent Events reader for the live tests: a thread parses one stream into a queue.

Every event is scanned for hidden information (tests/leakscan.py) as the viewer that opened the
stream, as it arrives (the scanner compares with the database now); a leak fails the test
(tests/conftest.py `_no_leaks`). `close_all()` stops the streams a test left open."""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from tests import leakscan
from tests.httpclient import http

_OPEN: list[Stream] = []


@dataclass
class Event:
    event: str
    data: Any
    id: str | None


@dataclass
class Stream:
    """`GET url` as an event stream; `status` once the response has started."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    status: int | None = None
    body: bytes = b""
    items: queue.Queue[Event | str | None] = field(default_factory=queue.Queue)
    ready: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._viewer: str | None = leakscan.viewer_of(self.url, self.headers)
        _OPEN.append(self)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self.ready.wait(20), f"no response from {self.url}"

    def _run(self) -> None:
        try:
            timeout = httpx.Timeout(30, read=60)
            with http.stream("GET", self.url, headers=self.headers, timeout=timeout) as response:
                self.status = response.status_code
                if response.status_code != 200:
                    self.body = response.read()
                    self.ready.set()
                    return
                self.ready.set()
                event: dict[str, Any] = {}
                for line in response.iter_lines():
                    if self._stop.is_set():
                        return
                    if line.startswith(":"):
                        self.items.put(line)  # a comment: the heartbeat
                    elif line == "":
                        if "data" in event:
                            item = Event(
                                event.get("event", "message"),
                                orjson.loads(event["data"]),
                                event.get("id"),
                            )
                            self._scan(item)
                            self.items.put(item)
                        event = {}
                    else:
                        name, _, value = line.partition(":")
                        event[name] = value[1:] if value.startswith(" ") else value
        except httpx.HTTPError:
            pass
        finally:
            self.ready.set()
            self.items.put(None)  # the end of the stream

    def _scan(self, item: Event) -> None:
        if self._stop.is_set():
            return  # the test is done with this stream (its rows may be gone)
        from django.db import connection

        try:
            leakscan.VIOLATIONS.extend(leakscan.scan_event(self.url, item.data, self._viewer))
        except Exception as exc:
            if not self._stop.is_set():
                leakscan.VIOLATIONS.append(f"{self.url}: scanner failed: {exc!r}")
        finally:
            # This thread's own connection, closed at once: a waiting stream holds none (the
            # live tests count the database's connections).
            connection.close()

    def next(self, timeout: float = 10, *, heartbeats: bool = False) -> Event | str | None:
        """The next event (None: the stream ended); heartbeats are skipped unless asked for."""
        while True:
            item = self.items.get(timeout=timeout)
            if isinstance(item, str) and not heartbeats:
                continue
            return item

    def close(self) -> None:
        self._stop.set()


def close_all() -> None:
    """Stop every stream opened so far (at the end of each test)."""
    while _OPEN:
        _OPEN.pop().close()
