"""The transports of a stream: each frames the stream's events (live.events.Event) its own way.

- Server-Sent Events (`text/event-stream`): `id: …` (where the event has one), `event: …` and
  one `data: …` line per event, a comment line for the heartbeat, `retry: 2000` first (the
  EventSource's reconnect delay). By hand: the format is four lines of the WHATWG spec, and a
  library's response class (sse-starlette's) would bring a task group and a ping task per
  stream, where an idle stream here keeps its generator and its waiter only.
- WebSocket: one JSON text message per event, `{"event", "id", "data"}` (`id` only where the
  event has one), `{"event": "heartbeat"}`; `reconnect` closes the socket instead (1012 when
  the process is stopping, 1013 otherwise), and the end of the stream closes it with 1000. A
  match's socket also takes moves (live.streams.MatchSocketMoves), answered one at a time.

Each sends until the stream ends or the client goes away (`send_until_gone`), and closes the
stream's generator either way (its slot given back, its waiter gone).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any

import orjson
from starlette.types import Receive, Send

from .events import HEARTBEAT, RECONNECT_RESTART, Event

# What a stream's WebSocket form answers to one message from the client (text or bytes): the
# text of the message sent back.
SocketAnswer = Callable[[str | bytes], Awaitable[str]]

SSE_RETRY = b"retry: 2000\n\n"  # EventSource: reconnect after 2 s
_SSE_HEARTBEAT = b": heartbeat\n\n"
_WS_HEARTBEAT = '{"event":"heartbeat"}'


def sse_frame(event: Event) -> bytes:
    """`event` as a text/event-stream block (kept on the event: framed once)."""
    if event.sse is None:
        if event is HEARTBEAT:
            event.sse = _SSE_HEARTBEAT
        else:
            head = b"id: %d\n" % event.id if event.id is not None else b""
            event.sse = head + b"event: " + event.name.encode() + b"\ndata: " + event.data + b"\n\n"
    return event.sse


def sse_body(events: Iterable[Event]) -> Iterable[bytes]:
    """A whole (non-waiting) text/event-stream body of `events` (Django's test client)."""
    yield SSE_RETRY
    for event in events:
        yield sse_frame(event)


def ws_frame(event: Event) -> str:
    """`event` as a WebSocket text message (kept on the event: framed once)."""
    if event.ws is None:
        if event is HEARTBEAT:
            event.ws = _WS_HEARTBEAT
        else:
            head = b'{"event":' + orjson.dumps(event.name)
            if event.id is not None:
                head += b',"id":%d' % event.id
            event.ws = (head + b',"data":' + event.data + b"}").decode()
    return event.ws


async def send_sse(
    start: Any, events: AsyncGenerator[Event, None], receive: Receive, send: Send
) -> None:
    """Send `start` (the response's status and headers), then `events` as text/event-stream
    until they end or the client goes away (uvicorn's `receive` answers `http.disconnect`).
    The headers are not kept once sent: a stream may wait for hours."""
    first = [start, {"type": "http.response.body", "body": SSE_RETRY, "more_body": True}]
    del start

    async def messages() -> AsyncIterator[Any]:
        while first:
            yield first.pop(0)
        async for event in events:
            message = {"type": "http.response.body", "body": sse_frame(event), "more_body": True}
            del event  # not held while the stream waits for the next
            yield message
            del message
        yield {"type": "http.response.body", "body": b"", "more_body": False}

    await send_until_gone(events, messages(), receive(), send)


async def send_ws(
    events: AsyncGenerator[Event, None],
    receive: Receive,
    send: Send,
    answer: SocketAnswer | None = None,
) -> None:
    """Accept, then send `events` as WebSocket messages until they end (then close, 1000;
    after a `reconnect`, 1012 or 1013) or the client goes away. Each message the client sends
    gets `answer`'s text back, one message at a time (a match socket's moves); with no
    `answer` (the me and lobby sockets) it is read and ignored."""

    # Held while a message is answered: the socket is not closed under an answer on its way
    # (the move that ends a match is answered before the socket's close).
    answering = asyncio.Lock()

    async def until_disconnect() -> None:
        while (message := await receive())["type"] != "websocket.disconnect":
            if answer is not None and message["type"] == "websocket.receive":
                text = message.get("text")
                async with answering:
                    reply = await answer(text if text is not None else message.get("bytes") or b"")
                    await send({"type": "websocket.send", "text": reply})

    async def messages() -> AsyncIterator[Any]:
        yield {"type": "websocket.accept"}
        close = 1000
        async for event in events:
            if event.name == "reconnect":
                close = 1012 if event is RECONNECT_RESTART else 1013
                break
            message = {"type": "websocket.send", "text": ws_frame(event)}
            del event  # not held while the socket waits for the next
            yield message
            del message
        await answering.acquire()  # never given back: nothing is answered after the close
        yield {"type": "websocket.close", "code": close}

    await send_until_gone(events, messages(), until_disconnect(), send)


async def send_until_gone(
    events: AsyncGenerator[Event, None],
    messages: AsyncIterator[Any],
    gone: Awaitable[Any],
    send: Send,
) -> None:
    """Send `messages` (made of a stream's `events`) until they end or `gone` is done (the
    client went away), which cancels this task; `events` is closed either way."""
    task = asyncio.current_task()
    assert task is not None
    sending = True

    def on_gone(_: object) -> None:
        if sending:
            task.cancel()

    left = asyncio.ensure_future(gone)
    left.add_done_callback(on_gone)
    try:
        async for message in messages:
            await send(message)
            del message  # not held while the stream waits for the next
    except asyncio.CancelledError:
        if not left.done() or left.cancelled():
            raise  # not the client: the server is stopping
        task.uncancel()
    except OSError:  # uvicorn's ClientDisconnected: the connection is gone (a server's close)
        pass
    finally:
        sending = False
        left.cancel()
        aclose = getattr(messages, "aclose", None)
        if aclose is not None:
            await aclose()
        await events.aclose()


async def ws_refuse(
    scope: Mapping[str, Any],
    send: Send,
    status: int,
    body: bytes,
    headers: Iterable[tuple[bytes, bytes]] = (),
) -> None:
    """Refuse a WebSocket handshake with an API error (`status`, its JSON `body`, and
    `headers`: WWW-Authenticate, Retry-After), where the server can answer the handshake with
    an HTTP response (the ASGI extension `websocket.http.response`: uvicorn's); else with the
    close before the accept that ASGI defines (the server answers 403)."""
    if "websocket.http.response" not in (scope.get("extensions") or {}):
        await send({"type": "websocket.close"})
        return
    start = {"type": "websocket.http.response.start", "status": status}
    await send({**start, "headers": [(b"content-type", b"application/json"), *headers]})
    await send({"type": "websocket.http.response.body", "body": body})
