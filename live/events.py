"""An event of a stream, as a value: its name, its id (None: none) and its data, one JSON
document (bytes, rendered once).

The streams (live.streams) yield these; each transport frames them its own way
(live.transports: a Server-Sent Events block, a WebSocket text message), and keeps its framing
on the event, so that an event that goes to many streams (a seat's view shared by its streams,
the public view by every spectator) is rendered and framed once per process, whatever the
number of its streams.
"""

from __future__ import annotations

from typing import Any

from pisyedili_api.renderers import JSONRenderer

_render = JSONRenderer().render


class Event:
    """One event: `name`, `id` and `data` (JSON bytes); `sse` and `ws` are its frames, made by
    live.transports on first use."""

    __slots__ = ("data", "id", "name", "sse", "ws")

    def __init__(self, name: str, data: bytes, id: int | None = None) -> None:
        self.name = name
        self.data = data
        self.id = id
        self.sse: bytes | None = None
        self.ws: str | None = None

    @classmethod
    def of(cls, name: str, data: Any, id: int | None = None) -> Event:
        """The event `name` whose data is `data` rendered as the API renders a body."""
        return cls(name, _render(data), id)

    def __repr__(self) -> str:
        return f"Event({self.name!r}, {self.data!r}, id={self.id!r})"


# Every LIVE_HEARTBEAT_SECONDS without an event: keeps proxies from closing an idle stream (SSE:
# a comment line; WebSocket: `{"event": "heartbeat"}`).
HEARTBEAT = Event("heartbeat", b"null")

# `reconnect` ends a stream that the client is to open again at once, resuming from the last
# event id it saw (EventSource does so by itself after `retry` ms; a ticket is good for it):
# the process is stopping (`restart`), the live tier's Redis is out of reach (`unavailable`),
# a stream through Django's test client, which cannot wait, has sent what is new (`poll`), or
# the caller's seat changed (`seat`: they left theirs, or a spectator took one; a view is never
# rendered for a seat its caller no longer holds, and the new opening's checks decide what they
# may see). A WebSocket is closed instead: 1012 (service restart) for the first, 1013 (try
# again later) for the others.
RECONNECT_RESTART = Event.of("reconnect", {"reason": "restart"})
RECONNECT_UNAVAILABLE = Event.of("reconnect", {"reason": "unavailable"})
RECONNECT_POLL = Event.of("reconnect", {"reason": "poll"})
RECONNECT_SEAT = Event.of("reconnect", {"reason": "seat"})
