"""Server-Sent Events and the long-poll on the process's hub (games.events), under ASGI.

`GET /api/v1/matches/{id}/events` (a seat): an event `state` whose data is the seat's view (the
body of `GET …/state`) and whose `id` is the match version, after every version change; `close`
once the match is over. `GET /api/v1/me/events`: `your_turn`, `match_started` and
`match_finished` of any of the caller's matches, `id` = the caller's own event sequence.

What a resume guarantees (`Last-Event-ID`, which EventSource sends on reconnect by itself):
- match stream: a view is a snapshot, so versions are not replayed one by one. If the match is
  past the given version, the current view comes at once; after that every version change
  comes as a newer view. The client never sees a version twice and always ends on the newest;
  several changes in quick succession may arrive as one view of the latest.
- me stream: every event after the given sequence, in order, each once, from the player's log
  (the last LIVE_ME_LOG events, kept LIVE_ME_TTL s). When the log no longer reaches back that far
  (or the sequence is unknown), a `resync` event says so: re-read your matches.

Every LIVE_HEARTBEAT_SECONDS a comment line (`: heartbeat`) keeps proxies from closing an idle
stream. A stream that falls LIVE_QUEUE_SIZE events behind gets `close` (`slow_reader`) and ends.
A player may hold LIVE_STREAMS_PER_PLAYER streams at once (429 `throttled` beyond).

The views are async and do their few blocking steps (authentication, reading the match) on the
hub's small thread pool (events.run_blocking): a waiting client holds no thread and no
database connection. pisyedili_api.asgi serves them; under a WSGI server they answer 501.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils.cache import patch_cache_control
from rest_framework.exceptions import APIException

from pisyedili_api.errors import ApplicationError, error_body, exception_handler
from pisyedili_api.renderers import JSONRenderer
from players.models import Player
from players.tickets import stream_player

from . import events
from .models import Match
from .selectors import _match_and_seat, match_read, state_view

_render = JSONRenderer().render


def _error(exc: Exception) -> HttpResponse:
    """The API's JSON error body (pisyedili_api.errors) for a view outside DRF."""
    if isinstance(exc, ApplicationError):
        return JsonResponse(error_body(exc.code, exc.message, exc.detail), status=exc.status)
    response = exception_handler(exc, {})
    if response is None:
        raise exc
    out = HttpResponse(_render(response.data), status=response.status_code)
    out["Content-Type"] = "application/json"
    for name, value in response.items():
        out[name] = value
    return out


def _event(event: str, data: Any, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return head.encode() + f"event: {event}\ndata: ".encode() + _render(data) + b"\n\n"


_HEARTBEAT = b": heartbeat\n\n"


def _last_event_id(request: HttpRequest) -> int | None:
    """`Last-Event-ID` (or `last_event_id` in the query, for a first connect): 400 unless a
    non-negative integer."""
    raw = request.headers.get("Last-Event-ID") or request.GET.get("last_event_id")
    if raw is None or raw == "":
        return None
    if not raw.isdigit():
        message = "Last-Event-ID must be a non-negative integer."
        raise ApplicationError("invalid", message, {"Last-Event-ID": [message]})
    return int(raw)


def _needs_asgi(request: HttpRequest) -> HttpResponse | None:
    if isinstance(request, ASGIRequest):
        return None
    return JsonResponse(
        error_body("server_error", "Streams need the ASGI server (README, Live play)."),
        status=501,
    )


def _streaming(body: AsyncIterator[bytes]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(body, content_type="text/event-stream")
    patch_cache_control(response, no_store=True, private=True)
    response["X-Accel-Buffering"] = "no"  # nginx: pass events through as they come
    return response


def _seat_view(match_id: UUID, seat: int) -> tuple[int, str, dict[str, Any]] | None:
    match = match_read(match_id)
    if match is None:
        return None
    return match.version, match.status, state_view(match, seat)


async def _with_slot(player: Player, body: AsyncIterator[bytes]) -> HttpResponse:
    """Stream `body` in one of the player's stream slots; 429 when they hold them all."""
    hub = events.hub()
    slot = await hub.slot_take(str(player.id))
    if slot is None:
        limit = settings.LIVE_STREAMS_PER_PLAYER
        return _error(ApplicationError("throttled", f"At most {limit} open streams per player."))

    async def held() -> AsyncIterator[bytes]:
        try:
            async for chunk in body:
                yield chunk
                if chunk is _HEARTBEAT:
                    await hub.slot_refresh(str(player.id), slot)
        finally:
            await hub.slot_give_back(str(player.id), slot)

    return _streaming(held())


async def match_events(request: HttpRequest, match_id: UUID) -> HttpResponse:
    """`GET /api/v1/matches/{id}/events`: the caller's seat view after every version change."""
    if (refused := _needs_asgi(request)) is not None:
        return refused
    try:
        after = _last_event_id(request)
        player = await events.run_blocking(stream_player, request)
        _, seat = await events.run_blocking(_match_and_seat, match_id, player)
    except (ApplicationError, APIException) as exc:
        return _error(exc)
    return await _with_slot(player, _match_stream(match_id, seat, after))


async def _match_stream(match_id: UUID, seat: int, after: int | None) -> AsyncIterator[bytes]:
    heartbeat = settings.LIVE_HEARTBEAT_SECONDS
    async with events.hub().watch(match=str(match_id)) as waiter:
        yield b"retry: 2000\n\n"  # EventSource: reconnect after 2 s
        while True:
            # Read after the waiter is registered: a change committed from here on is queued.
            found = await events.run_blocking(_seat_view, match_id, seat)
            if found is None:
                yield _event("close", {"reason": "not_found"})
                return
            version, status, view = found
            if after is None or version > after:
                yield _event("state", view, version)
                after = version
            if status == Match.Status.FINISHED:
                yield _event("close", {"reason": "match_over", "version": version})
                return
            while True:
                message = await waiter.get(heartbeat)
                if waiter.dropped:
                    yield _event("close", {"reason": "slow_reader"})
                    return
                if message is None:
                    yield _HEARTBEAT
                elif message.get("resync") or message["version"] > after:
                    break


async def me_events(request: HttpRequest) -> HttpResponse:
    """`GET /api/v1/me/events`: the caller's turns and matches started or finished."""
    if (refused := _needs_asgi(request)) is not None:
        return refused
    try:
        after = _last_event_id(request)
        player = await events.run_blocking(stream_player, request)
    except (ApplicationError, APIException) as exc:
        return _error(exc)
    return await _with_slot(player, _me_stream(str(player.id), after))


async def _me_stream(player: str, after: int | None) -> AsyncIterator[bytes]:
    hub = events.hub()
    heartbeat = settings.LIVE_HEARTBEAT_SECONDS
    async with hub.watch(player=player) as waiter:
        yield b"retry: 2000\n\n"
        sent, chunks = await _me_catch_up(hub, player, after)
        for chunk in chunks:
            yield chunk
        while True:
            message = await waiter.get(heartbeat)
            if waiter.dropped:
                yield _event("close", {"reason": "slow_reader"})
                return
            if message is None:
                yield _HEARTBEAT
            elif message.get("resync") or message["seq"] > sent + 1:
                # Something was lost on the way: the log has it.
                sent, chunks = await _me_catch_up(hub, player, sent)
                for chunk in chunks:
                    yield chunk
            elif message["seq"] == sent + 1:
                sent = message["seq"]
                yield _event(message["type"], message, sent)
            # seq <= sent: read from the log already


async def _me_catch_up(hub: events.Hub, player: str, after: int | None) -> tuple[int, list[bytes]]:
    """The events of `player`'s log after sequence `after` (None: none, start from now), and
    the sequence reached; `resync` when the log cannot tell what came after `after`."""
    seq, logged = await hub.me_log(player, after or 0)
    if after is None:
        return seq, [_event("ready", {"seq": seq}, seq)]
    if after > seq or (seq > after and (not logged or logged[0]["seq"] != after + 1)):
        return seq, [_event("resync", {"seq": seq}, seq)]
    return seq if not logged else logged[-1]["seq"], [
        _event(e["type"], e, e["seq"]) for e in logged
    ]


async def match_state_long_poll(request: HttpRequest, match_id: UUID) -> HttpResponse:
    """`GET …/state?after_version=N&wait=S` under ASGI (pisyedili_api.asgi routes only waiting
    requests here): the answer of games.apis.MatchStateApi, awaited on the hub instead of in a
    thread that holds a database connection."""
    from .apis import MatchStateApi

    try:
        filters = MatchStateApi.FilterSerializer(data=request.GET)
        filters.is_valid(raise_exception=True)
        after = filters.validated_data.get("after_version")
        wait = filters.validated_data.get("wait", 0)
        # As the DRF route authenticates: the configured classes only, no stream ticket.
        player = await events.run_blocking(stream_player, request, tickets=False)
        async with events.hub().watch(match=str(match_id)) as waiter:
            match, seat = await events.run_blocking(_match_and_seat, match_id, player)
            if after is not None and wait > 0 and match.version <= after:
                await _wait_for_version(waiter, after, wait)
                match = await events.run_blocking(match_read, match_id) or match
        view = await events.run_blocking(state_view, match, seat)
    except (ApplicationError, APIException) as exc:
        return _error(exc)
    response = HttpResponse(_render(view), content_type="application/json")
    patch_cache_control(response, no_store=True, private=True)
    return response


async def _wait_for_version(waiter: events.Waiter, after: int, wait: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while (remaining := deadline - loop.time()) > 0:
        message = await waiter.get(remaining)
        if message is None or waiter.dropped or message.get("resync"):
            return
        if message["version"] > after:
            return
