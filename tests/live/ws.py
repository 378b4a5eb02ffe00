"""A WebSocket reader for the live tests (the streams' WebSocket form, live.asgi).

As tests/live/sse.py for event streams: every message is scanned for hidden information
(tests/leakscan.py) as the viewer that opened the socket, as it arrives; a leak fails the test.
A refused handshake keeps its HTTP status and body. `sse.close_all()` closes the sockets a test
left open too."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import orjson
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from tests import leakscan

from . import sse


@dataclass
class Message:
    event: str
    data: Any
    id: int | None
    # A move's answer (event `move`): the key sent, the route's status, a 429's Retry-After.
    key: Any = None
    status: int | None = None
    retry_after: int | None = None


class Socket:
    """`url` (ws://…) opened with `headers` (and an `Origin`, as a browser sends); `status` is
    101 once open, else the refusal's HTTP status with its JSON `body`."""

    def __init__(self, url: str, headers: dict[str, str] | None = None, origin: str | None = None):
        self.url = url
        self.body: Any = None
        self.close_code: int | None = None
        self._viewer = leakscan.viewer_of(url, headers or {})
        self._ws: ClientConnection | None = None
        self.passed: list[Message] = []  # events read while waiting for a move's answer
        self._open = ExitStack()
        try:
            self._ws = self._open.enter_context(
                connect(
                    url,
                    additional_headers=headers,
                    origin=origin,  # type: ignore[arg-type]
                    proxy=None,
                    open_timeout=20,
                    # As a browser: every message read off the socket as it comes (no
                    # back-pressure while a test plays on), and no pings of the client's own
                    # (the server sends heartbeats) that a busy machine could time out.
                    max_queue=None,
                    ping_interval=None,
                )
            )
            self.status = 101
        except InvalidStatus as exc:
            self.status = exc.response.status_code
            self.body = orjson.loads(exc.response.body or b"null")
        sse._OPEN.append(self)  # type: ignore[arg-type]

    def next(self, timeout: float = 10, *, heartbeats: bool = False) -> Message | str | None:
        """The next message (None: the server closed the socket, `close_code` set); heartbeats
        are skipped unless asked for."""
        assert self._ws is not None, f"{self.url} was refused: {self.status} {self.body}"
        while True:
            try:
                raw = self._ws.recv(timeout)
            except ConnectionClosed as exc:
                self.close_code = exc.rcvd.code if exc.rcvd is not None else None
                return None
            message = orjson.loads(raw)
            if message["event"] == "heartbeat":
                assert set(message) == {"event"}, message
                if heartbeats:
                    return "heartbeat"
                continue
            if message["event"] == "move":
                assert {"event", "key", "status", "data"} <= set(message), message
                assert set(message) <= {"event", "key", "status", "data", "retry_after"}, message
            else:
                assert set(message) <= {"event", "id", "data"}, message
            item = Message(
                message["event"],
                message.get("data"),
                message.get("id"),
                message.get("key"),
                message.get("status"),
                message.get("retry_after"),
            )
            leakscan.VIOLATIONS.extend(leakscan.scan_event(self.url, item.data, self._viewer))
            return item

    def send(self, message: Any) -> None:
        """`message` as one JSON text message (str and bytes are sent as they are)."""
        assert self._ws is not None, f"{self.url} was refused: {self.status} {self.body}"
        self._ws.send(
            message if isinstance(message, str | bytes) else orjson.dumps(message).decode()
        )

    def answer(self, timeout: float = 20) -> Message:
        """The next answer to a move (`move`), the stream's events before it set aside in
        `passed`."""
        while True:
            item = self.next(timeout)
            assert isinstance(item, Message), f"no answer: {item!r} (close {self.close_code})"
            if item.event == "move":
                return item
            self.passed.append(item)

    def close(self) -> None:
        self._open.close()
