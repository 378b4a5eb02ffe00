"""A waiting stream holds nothing of what it sent (live.transports, live.streams._held): the
event it sent last, its frame and the message that carried it are let go once sent, so an idle
stream's memory does not grow with the size of its last view (bench/live.py: MB per 1,000 idle
streams)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import AsyncGenerator, MutableMapping
from typing import Any

import pytest

from live import hub
from live.events import Event
from live.streams import _held
from live.transports import send_sse, send_ws


class _Tracked(Event):
    __slots__ = ("__weakref__",)


async def _one_then_wait() -> AsyncGenerator[Event, None]:
    """One large event, then a wait as an idle stream's (cancelled at the end)."""
    yield _Tracked("state", b'{"hand": "' + b"x" * 50_000 + b'"}', 1)
    await asyncio.Event().wait()


async def _sent_then_released(transport: str) -> bool:
    """Whether the event is gone once sent, while the stream waits for the next."""
    sent = asyncio.Event()
    seen: list[weakref.ref[Event]] = []
    bodies: list[Any] = []
    gone = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await gone.wait()
        return {"type": "http.disconnect" if transport == "sse" else "websocket.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        if message.get("body", b"").startswith(b"id: 1") or "hand" in message.get("text", ""):
            bodies.append(len(message.get("body") or message["text"]))
            sent.set()

    async def tracked() -> AsyncGenerator[Event, None]:
        async for event in _one_then_wait():
            seen.append(weakref.ref(event))
            yield event
            del event

    slot = await hub.hub().slot_take("idle-memory-test", 5)
    assert slot is not None
    events = _held("idle-memory-test", slot, tracked())
    if transport == "sse":
        start = {"type": "http.response.start", "status": 200, "headers": []}
        task = asyncio.ensure_future(send_sse(start, events, receive, send))
    else:
        task = asyncio.ensure_future(send_ws(events, receive, send))
    await asyncio.wait_for(sent.wait(), 5)
    for _ in range(5):  # the stream now waits for its next event
        await asyncio.sleep(0)
    gc.collect()
    released = bool(seen) and seen[0]() is None
    gone.set()
    await asyncio.wait_for(task, 5)
    assert bodies and bodies[0] > 50_000
    return released


@pytest.mark.parametrize("transport", ["sse", "websocket"])
def test_a_waiting_stream_holds_no_event_it_sent(transport: str, settings: Any) -> None:
    settings.LIVE_REDIS_URL = ""  # the in-process hub: its slots, no Redis
    assert asyncio.run(_sent_then_released(transport))
