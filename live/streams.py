"""The event streams and the long-poll on the process's hub (live.hub).

`GET /api/v1/matches/{id}/events`: an event `state` whose data is the caller's view (the body
of `GET …/state`: a seat's own view, or the public view for a spectator, signed in or not, of a
`spectators: public` match) and whose `id` is the match version, after every version change;
`resigned` (no id) before the view of a version in which a seat's person resigned; `talk` (no
id) when a seat says a preset phrase (table talk); `close` once the match is over.
`GET /api/v1/me/events`: `your_turn`, `match_started`, `match_finished` and `match_cancelled`
of any of the caller's matches, and `tournament_round` (a round they play was dealt), `id` =
the caller's own event sequence. `GET /api/v1/lobby/events`: `lobby` for every
match that entered, changed in or left the lobby (public). All answer GET only (405 otherwise).

What a resume guarantees (`Last-Event-ID`, which EventSource sends on reconnect by itself):
- match stream: a view is a snapshot, so versions are not replayed one by one. If the match is
  past the given version, the current view comes at once; after that every version change
  comes as a newer view. The client never sees a version twice and always ends on the newest;
  several changes in quick succession may arrive as one view of the latest.
- me stream: every event after the given sequence, in order, each once, from the player's log
  (the last LIVE_ME_LOG events, kept LIVE_ME_TTL s). When the log no longer reaches back that far
  (or the sequence is unknown), a `resync` event says so: re-read your matches.

Every LIVE_HEARTBEAT_SECONDS a comment line (`: heartbeat`) keeps proxies from closing an idle
stream. A stream that falls LIVE_QUEUE_SIZE events behind gets `close` (`slow_reader`) and ends;
one whose API token is revoked (live.hub) gets `close` (`revoked`) and ends. When the
process is stopping (SIGTERM: live.hub, Hub.drain), every stream gets `reconnect` and ends,
and every waiting long-poll answers at once.
A player may hold LIVE_STREAMS_PER_PLAYER streams at once, an anonymous spectator's address
LIVE_STREAMS_PER_IP (429 `throttled` beyond); waiting long-polls have slots of their own
(LIVE_LONG_POLLS_PER_PLAYER, LIVE_LONG_POLLS_PER_IP).

Each stream is a generator of events (live.events.Event: values), which a transport frames
(live.transports: SSE or WebSocket). The views are async Django views: under live.asgi a view
checks the request and hands the stream's generator to the request's Opening (live.asgi sends
it, once Django has answered); through Django's test client it answers what is new at once.
Their few blocking steps (authentication, reading the match) run on the hub's small thread pool
(hub.run_blocking): a waiting client holds no thread and no database connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import orjson
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    JsonResponse,
    StreamingHttpResponse,
)
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.csrf import csrf_exempt
from rest_framework.exceptions import (
    APIException,
    AuthenticationFailed,
    NotAuthenticated,
)
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from games import engine
from games.events import version_after_move
from games.models import Match
from games.selectors import match_read, match_viewer_get, seat_of
from games.serializers import match_view, move_reply_state
from games.services import Held
from pisyedili_api import rawsql
from pisyedili_api.errors import (
    ERROR_CODES,
    ApplicationError,
    challenged,
    error_body,
    exception_handler,
    invalid,
)
from pisyedili_api.logfilters import Repeated
from pisyedili_api.parsers import BoundedJSONParser
from pisyedili_api.renderers import JSONRenderer
from players.auth import DeferredPlayer
from players.models import Player

from . import hub
from .events import (
    HEARTBEAT,
    RECONNECT_POLL,
    RECONNECT_RESTART,
    RECONNECT_SEAT,
    RECONNECT_UNAVAILABLE,
    Event,
)
from .tickets import StreamCaller, stream_caller
from .transports import SocketAnswer, sse_body

logger = logging.getLogger(__name__)
_render = JSONRenderer().render


# The 429 of a holder with every stream slot taken, by holder.
_PER_PLAYER = gettext_noop("At most %(limit)d open streams per player.")
_PER_ADDRESS = gettext_noop("At most %(limit)d open streams per address.")
# The same for waiting long-polls (slots of their own).
_POLLS_PER_PLAYER = gettext_noop("At most %(limit)d waiting long-polls per player.")
_POLLS_PER_ADDRESS = gettext_noop("At most %(limit)d waiting long-polls per address.")


# The Retry-After of a 429 for slots all taken: one frees when a stream or long-poll of the
# holder ends, which nothing here can tell the time of.
SLOTS_RETRY_AFTER = 5


def _error(exc: Exception) -> HttpResponse:
    """The API's JSON error body (pisyedili_api.errors) for a view outside DRF; a 429 with
    Retry-After, as every 429 of the API."""
    if isinstance(exc, ApplicationError):
        body = error_body(exc.code, exc.message, exc.detail)
        refused = challenged(JsonResponse(body, status=exc.status))
        if exc.status == 429:
            refused["Retry-After"] = str(SLOTS_RETRY_AFTER)
        return refused
    response = exception_handler(exc, {})
    if response is None:
        raise exc
    out = HttpResponse(
        _render(response.data), status=response.status_code, content_type="application/json"
    )
    for name in ("WWW-Authenticate", "Retry-After"):
        if name in response:
            out[name] = response[name]
    return out


# A new stream or long-poll while the live tier's Redis is down (or does not answer within
# hub.LIVE_REDIS_TIMEOUT): 503 `unavailable`, with Retry-After.
_UNAVAILABLE = gettext_noop("Live events are unavailable for a moment; retry later.")
UNAVAILABLE_RETRY_AFTER = 5


_REFUSED = Repeated(logger, "live tier: Redis is down; streams are refused (503)")


def _unavailable() -> HttpResponse:
    _REFUSED.warning()  # the hub logs the outage's traceback itself
    response = _error(ApplicationError("unavailable", _(_UNAVAILABLE)))
    response["Retry-After"] = str(UNAVAILABLE_RETRY_AFTER)
    return response


# An event id: ASCII digits only (str.isdigit also takes "²" and other scripts' digits), at most
# 18 of them (every id the server sends fits in a signed 64-bit integer).
_EVENT_ID = re.compile(r"[0-9]{1,18}")
_EVENT_ID_MAX = 10**18 - 1


def _last_event_id(request: HttpRequest) -> int | None:
    """`Last-Event-ID` (or `last_event_id` in the query, for a first connect): 400 naming the
    one sent unless a non-negative integer of at most 18 ASCII digits."""
    named, raw = "Last-Event-ID", request.headers.get("Last-Event-ID")
    if not raw:
        named, raw = "last_event_id", request.GET.get("last_event_id")
    if raw is None or raw == "":
        return None
    if not _EVENT_ID.fullmatch(raw):
        message = _("%(name)s must be a non-negative integer of at most 18 digits.") % {
            "name": named
        }
        raise ApplicationError("invalid", message, {named: [message]})
    return int(raw)


class Opening:
    """Where a stream's view hands over what it opened, when live.asgi serves it: the stream's
    events and, for a match's WebSocket, what answers the client's messages. live.asgi puts one
    in the request's ASGI scope (`OPENING`), calls Django's ASGI application (middleware,
    authentication, the view's refusals), and then serves the events itself over SSE or the
    WebSocket, keeping nothing of Django's request and response while the stream waits."""

    __slots__ = ("answer", "events", "poll")

    def __init__(self) -> None:
        self.events: AsyncGenerator[Event, None] | None = None
        self.answer: SocketAnswer | None = None
        # A waiting long-poll's wait (match_state_long_poll), awaited by live.asgi.
        # Given the waiter registered before the request's checks (None: none was).
        self.poll: Callable[[hub.Waiter | None], Awaitable[dict[str, Any]]] | None = None


# The ASGI scope key of a stream's Opening (an extension key of this application's own).
OPENING = "pisyedili.live.opening"


def _opening(request: HttpRequest) -> Opening | None:
    """The Opening of a stream served by live.asgi. None through Django's test client (WSGI,
    or an ASGI request of Django's own handler): there a stream cannot wait; it sends what is
    new and closes with `reconnect`, and EventSource would come back after `retry` ms, which
    makes it a poll every 2 s."""
    scope = getattr(request, "scope", None)
    return scope.get(OPENING) if isinstance(scope, dict) else None


async def _blocking(request: HttpRequest, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """`fn(*args)` on the hub's threads under live.asgi; otherwise in the request's own thread
    (and database connection), where the rest of that request runs."""
    if _opening(request) is not None:
        return await hub.run_blocking(fn, *args, **kwargs)
    return await sync_to_async(fn, thread_sensitive=True)(*args, **kwargs)


async def _nothing() -> AsyncIterator[bytes]:
    return
    yield


class EventStreamResponse(StreamingHttpResponse):
    """A `text/event-stream` response: its headers (and under Django's test client its whole
    body, `events` framed as SSE). Under live.asgi its body is empty: the events go to the
    stream's Opening, and live.asgi sends them once these headers are out."""

    def __init__(self, events: list[Event] | None = None) -> None:
        body = sse_body(events) if events is not None else _nothing()
        super().__init__(body, content_type="text/event-stream")
        patch_cache_control(self, no_store=True, private=True)
        self["X-Accel-Buffering"] = "no"  # nginx: pass events through as they come


def _get_only(request: HttpRequest) -> HttpResponse | None:
    """405 `method_not_allowed` (with `Allow: GET`) unless `request` is a GET."""
    if request.method == "GET":
        return None
    response = _error(ApplicationError("method_not_allowed", "Only GET opens a stream."))
    response["Allow"] = "GET"
    return response


def _stream_view(view: Callable[..., Awaitable[HttpResponseBase]]) -> Any:
    """A stream route's view (CSRF exempt: a header token or a ticket, never a cookie, as the
    DRF views): 405 unless a GET; 404 for a `format` but `json`; a refusal (a bad
    `Last-Event-ID`, the caller, the match) as the API's JSON error; 503 `unavailable` while
    the live tier's Redis is down."""

    @functools.wraps(view)
    async def refusing(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if (refusal := _get_only(request)) is not None:
            return refusal
        if request.GET.get("format") not in (None, "", "json"):  # as on every route
            return _error(ApplicationError("not_found"))
        try:
            return await view(request, *args, **kwargs)
        except (ApplicationError, APIException) as exc:
            return _error(exc)
        except hub.REDIS_DOWN:
            return _unavailable()

    return csrf_exempt(refusing)


# A match stream closes once its match can change no more: finished, abandoned by its people,
# or cancelled in the lobby.
_OVER = (Match.Status.FINISHED, Match.Status.ABANDONED, Match.Status.CANCELLED)

_Read = tuple[Match | None, engine.State | None]  # a match and its live deal, parsed once
_SeatEvent = tuple[int, bool, Event | None]  # version, over, the `state` event (None: none)


def _match_read(match_id: UUID) -> _Read:
    return _parsed(match_read(match_id))


def _parsed(match: Match | None) -> _Read:
    if match is None or not match.state:
        return match, None
    return match, engine.State.from_json(match.state)


def _seat_render(read: _Read, seat: int | None) -> _SeatEvent:
    """The `state` event of `seat` (None: the public view) of a read match; a match that is gone
    reads as over, with no event."""
    match, state = read
    if match is None:
        return -1, True, None
    return _state_event(match, match_view(match, seat, state))


def _state_event(match: Match, view: dict[str, Any]) -> _SeatEvent:
    """The `state` event of `view`, a view of `match` at its version."""
    return match.version, match.status in _OVER, Event.of("state", view, match.version)


def _seat_event(match_id: UUID, seat: int | None, viewer: str | None) -> _SeatEvent | None:
    """As _seat_render, read now (the stream under WSGI: one read, then the close); None when
    the caller `viewer` no longer holds `seat` (_seat_moved)."""
    read = _match_read(match_id)
    return None if _seat_moved(read, seat, viewer) else _seat_render(read, seat)


def _seat_moved(read: _Read, seat: int | None, viewer: str | None) -> bool:
    """Whether the caller `viewer` (a player's id, None: anonymous) holds another seat than
    `seat` (None: none) in the read match: they left it (a waiting table), or took one. A
    stream or a long-poll checked the caller for `seat` when it opened; it never renders a
    seat its caller no longer holds (whoever sits there now has their own hand)."""
    match = read[0]
    return match is not None and seat_of(match, viewer) != seat


@dataclass
class _Shared:
    """The read of a match that the message of version `wanted` started, and each seat's (and
    the public) event rendered from it."""

    wanted: int
    read: asyncio.Future[_Read]
    events: dict[int | None, _SeatEvent] = field(default_factory=dict)


def _async_read_plan() -> tuple[dict[str, Any], str] | None:
    """The connection parameters and the statement of _SharedReads' own PostgreSQL connection
    (as Django connects: its type adapters, so rows convert as the ORM's do); None when the
    database is not PostgreSQL."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)  # Django's sync cursor
    params["options"] = f"-c TimeZone={connection.timezone_name}"
    pk = connection.ops.quote_name(Match._meta.pk.column)
    return params, rawsql._select_sql(Match, f"{pk} = %s")


class _SharedReads:
    """One database read per match per version change per process, shared by every stream of
    that match that woke for it, and one rendering of each seat's view (and of the public view,
    for every spectator). A stream that woke for version V joins a read started after V's
    message arrived (so it sees V or later), or starts one; never another seat's rendering. A
    move written by this process is no read at all: its writer hands over the match as
    committed (`prime`, from `match_written`).

    The read goes over one PostgreSQL connection of the process's own, in autocommit, on the
    event loop (psycopg's async connection): no wait for a thread to take it and hand it back,
    two thread wake-ups per event on a busy process. A stream's own reads (its first, after a
    resync: `read`, not shared) take the same way. Without PostgreSQL, or when that connection
    fails, on the hub's threads. The rendering (the engine's observation and JSON, no
    database) runs on the loop too.

    A move another process wrote is no read either where this process holds the version
    before it: its message carries the move's public facts, and `advance` applies the move to
    that version as the writer did (games.events.version_after_move). A move that ends its
    deal changes more of the match than its deal (scores, the next deal) and is read."""

    def __init__(self) -> None:
        self.matches: dict[UUID, _Shared] = {}
        self._connection: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._plan: tuple[dict[str, Any], str] | None = None
        self._planned = False
        self._connecting: asyncio.Lock | None = None

    async def event(
        self, match_id: UUID, seat: int | None, viewer: str | None, wanted: int
    ) -> _SeatEvent | None:
        """The `state` event of `seat` (None: the public view) at version `wanted` or later;
        None when the caller `viewer` no longer holds `seat` then (_seat_moved)."""
        shared, found = await self._read(match_id, wanted)
        if _seat_moved(found, seat, viewer):
            return None
        rendered = shared.events.get(seat)
        if rendered is None:
            rendered = shared.events[seat] = _seat_render(found, seat)
        return rendered

    async def match(self, match_id: UUID, wanted: int) -> _Read:
        """The match at version `wanted` or later, and its live deal (a long-poll's answer)."""
        return (await self._read(match_id, wanted))[1]

    async def _read(self, match_id: UUID, wanted: int) -> tuple[_Shared, _Read]:
        shared = self.matches.get(match_id)
        if shared is None or shared.wanted < wanted:
            shared = self.matches[match_id] = _Shared(
                wanted, asyncio.ensure_future(self.read(match_id))
            )
        try:
            # shield: a stream whose client leaves does not cancel the others' read
            return shared, await asyncio.shield(shared.read)
        except Exception:
            if self.matches.get(match_id) is shared:
                del self.matches[match_id]  # a failed read is not kept for the next stream
            raise

    async def read(self, match_id: UUID) -> _Read:
        try:
            connection = await self._connect()
            if connection is not None:
                plan = self._plan
                assert plan is not None
                async with connection.cursor() as cursor:
                    await cursor.execute(plan[1], [match_id])
                    row = await cursor.fetchone()
                if row is None:
                    return None, None
                match = rawsql.from_row(Match, rawsql.concrete_names(Match), row)
                return match, engine.State.from_json(match.state) if match.state else None
        except Exception:
            logger.warning("live read connection lost; reading on the hub's threads", exc_info=True)
            await self._disconnect()
        return await hub.run_blocking(_match_read, match_id)  # type: ignore[no-any-return]

    async def _connect(self) -> Any:
        """This loop's connection (None without PostgreSQL), opened on first use."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop (tests): a new connection
            self._connection, self._loop, self._connecting = None, loop, asyncio.Lock()
        assert self._connecting is not None
        async with self._connecting:
            if self._connection is None or self._connection.closed:
                if not self._planned:
                    self._plan = await hub.run_blocking(_async_read_plan)
                    self._planned = True
                if self._plan is None:
                    return None
                import psycopg

                self._connection = await psycopg.AsyncConnection.connect(
                    **self._plan[0], autocommit=True
                )
        return self._connection

    async def _disconnect(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                await connection.close()
            except Exception:  # already broken
                logger.debug("live read connection close failed", exc_info=True)

    async def close(self) -> None:
        """At the process's shutdown (live.asgi lifespan)."""
        await self._disconnect()

    def prime(
        self, match_id: UUID, read: _Read, replies: dict[int, dict[str, Any]] | None = None
    ) -> None:
        """`read`, a match and its live deal as a writer of this process committed them (on
        the loop; see `match_written`) or as a waiting long-poll read them, is this process's
        read of that version, and `replies` (seat → the move's reply to it) that seat's
        `state` event. Kept only while a stream or long-poll of the match waits here, and
        never over a read of a later one."""
        match = read[0]
        if match is None or not hub.hub().matches.get(str(match_id)):
            return
        shared = self.matches.get(match_id)
        if shared is not None and shared.wanted >= match.version:
            return
        done: asyncio.Future[_Read] = asyncio.get_running_loop().create_future()
        done.set_result(read)
        shared = self.matches[match_id] = _Shared(match.version, done)
        for seat, reply in (replies or {}).items():
            shared.events[seat] = _state_event(match, move_reply_state(reply))

    def advance(self, message: dict[str, Any]) -> None:
        """Hold the version of a match's `message` (on the loop, before its streams wake),
        made from the version before it, held here (read or written), and the move the message
        carries (`move`: the seat, the move, and the turn deadline where the match has a turn
        clock). Nothing where this process holds no such version, or the message no move: the
        streams read."""
        played = message.get("move")
        if played is None:
            return
        match_id = UUID(message["match"])
        shared = self.matches.get(match_id)
        version = message["version"]
        if shared is None or shared.wanted >= version:
            return
        found = self.held(match_id)
        if found is None or found[0].version != version - 1:
            return
        match, state = found
        try:
            moved = version_after_move(match, state, played)
        except engine.EngineError:  # not the version it was played on: read it
            logger.warning("match %s: move of version %d not applied here", match_id, version)
            return
        done: asyncio.Future[_Read] = asyncio.get_running_loop().create_future()
        done.set_result(moved)
        self.matches[match_id] = _Shared(version, done)

    def held(self, match_id: UUID) -> tuple[Match, engine.State] | None:
        """The match and its live deal as this process holds them now (read, written or
        advanced here), None where it holds none or its read is still on its way (on the
        loop): what `advance` applies a message's move to, and what a move on the match's
        socket is played against before anything is read (games.services.Held)."""
        shared = self.matches.get(match_id)
        if shared is None or not shared.read.done() or shared.read.cancelled():
            return None
        if shared.read.exception() is not None:
            return None
        match, state = shared.read.result()
        return None if match is None or state is None else (match, state)

    def forget(self, match_id: UUID) -> None:
        self.matches.pop(match_id, None)

    def forget_unwatched(self, match_id: UUID) -> None:
        """Keep nothing of a match once the process's last stream or long-poll of it left."""
        if not hub.hub().matches.get(str(match_id)):
            self.forget(match_id)


_shared_reads = _SharedReads()


def match_written(written: tuple[Match, engine.State, dict[int, dict[str, Any]]]) -> None:
    """A match just committed at its version, its live deal and the move's replies (seat →
    its reply), by this process (the writer's thread: games.events hands over a copy the
    writer no longer touches, live.hub.hand_over): this process's streams of the match render
    that version from them instead of reading it back (the move's own process reads nothing
    for it), and send the mover's seat its reply's view. A no-op where the process has no hub
    on a loop or no stream of the match."""
    current = hub.current()
    match, state, replies = written
    if current is None or not current.matches.get(str(match.id)):
        return
    assert current.loop is not None
    current.loop.call_soon_threadsafe(_shared_reads.prime, match.id, (match, state), replies)


hub.local_consumer_set(match_written)
hub.message_consumer_set(_shared_reads.advance)


async def shared_reads_close() -> None:
    """Close the process's own read connection (live.asgi, at shutdown)."""
    await _shared_reads.close()


def _viewer(request: HttpRequest, *, tickets: bool = True) -> StreamCaller | None:
    """The caller, or None for an anonymous spectator (no ticket, no Authorization header);
    credentials that are sent must be good (401), as on every route."""
    if not request.META.get("HTTP_AUTHORIZATION") and not (tickets and request.GET.get("ticket")):
        return None
    return stream_caller(request, tickets=tickets)


def _player(caller: StreamCaller | None) -> Player | None:
    return caller.player if caller is not None else None


def _token(caller: StreamCaller | None) -> str | None:
    return caller.token if caller is not None else None


def _slot_holder(request: HttpRequest, player: Player | None) -> tuple[str, int, str]:
    """Whose stream slots a stream takes, their number and the 429's words: the player's, or
    for an anonymous spectator the client address's (as the throttles see it, NUM_PROXIES)."""
    if player is not None:
        return str(player.id), settings.LIVE_STREAMS_PER_PLAYER, _PER_PLAYER
    address = BaseThrottle().get_ident(Request(request))
    return f"address:{address}", settings.LIVE_STREAMS_PER_IP, _PER_ADDRESS


def _poll_holder(request: HttpRequest, player: Player | None) -> tuple[str, int, str]:
    """As _slot_holder for a waiting long-poll: slots of their own (LIVE_LONG_POLLS_PER_PLAYER,
    LIVE_LONG_POLLS_PER_IP), so that polls and streams do not crowd each other out."""
    if player is not None:
        return f"poll:{player.id}", settings.LIVE_LONG_POLLS_PER_PLAYER, _POLLS_PER_PLAYER
    address = BaseThrottle().get_ident(Request(request))
    return f"poll-address:{address}", settings.LIVE_LONG_POLLS_PER_IP, _POLLS_PER_ADDRESS


async def _with_slot(
    opening: Opening,
    holder: tuple[str, int, str],
    body: AsyncGenerator[Event, None],
    answer: SocketAnswer | None = None,
) -> HttpResponseBase:
    """Hand `body` to the stream's opening, in one of the holder's stream slots; 429 when they
    hold them all."""
    key, limit, per = holder
    try:
        slot = await hub.hub().slot_take(key, limit)
    except hub.REDIS_DOWN:
        await body.aclose()
        return _unavailable()
    if slot is None:
        await body.aclose()
        return _error(ApplicationError("throttled", _(per) % {"limit": limit}))
    opening.events = _held(key, slot, body)
    opening.answer = answer
    return EventStreamResponse()


async def _held(
    player: str, slot: str, body: AsyncGenerator[Event, None]
) -> AsyncGenerator[Event, None]:
    """`body` while it holds `slot` (the hub keeps it alive; given back at the end). Each event
    is let go once sent: a waiting stream holds no copy of what it sent last."""
    try:
        async for event in body:
            yield event
            del event
    finally:
        await body.aclose()
        await hub.hub().slot_give_back(player, slot)


_NOT_A_MOVE = gettext_noop('A message on this socket is a JSON object with "type": "move".')


class MatchSocketMoves:
    """The moves a match's WebSocket takes (docs/api.md "On the match's WebSocket"):
    `{"type": "move", "version", "action", "card"?, "suit"?, "key"?}` is the move POST of the
    socket's caller, `key` its Idempotency-Key, answered by the route's own code
    (games.apis.move_post: throttle, checks in order, exactly-once, the mover's view) in a
    thread of the loop's executor, as a REST request. The answer is
    `{"event": "move", "key", "status", "data"}`: the route's status and body (its view, or
    its error body; `retry_after` beside a 429's). A socket answers its messages one at a
    time, in the order they came. The caller is the socket's token, looked up again by each
    move (a token revoked since is 401); an anonymous spectator's socket is 401. A move at the
    version this process holds the match at (_SharedReads, the socket's own stream's) is
    played against that copy and written without reading the match (games.services.Held)."""

    __slots__ = ("digest", "language", "match_id", "player_id")

    def __init__(
        self, match_id: UUID, digest: str | None, language: str | None, player_id: UUID | None
    ) -> None:
        self.match_id = match_id
        self.digest = digest
        self.language = language
        self.player_id = player_id  # the token's player when the socket opened

    async def __call__(self, raw: str | bytes) -> str:
        held = None
        if self.player_id is not None:
            found = _shared_reads.held(self.match_id)  # on the loop, which keeps it
            if found is not None:
                held = Held(*found, self.player_id)
        # The loop's default executor, as sync_to_async(thread_sensitive=False) would pick, with
        # none of its wrapping: _answer sets its own language and gives its connection back.
        loop = asyncio.get_running_loop()
        answer: str = await loop.run_in_executor(None, self._answer, raw, held)
        return answer

    def _answer(self, raw: str | bytes, held: Held | None = None) -> str:
        from games.apis import move_post

        key: Any = None
        caller = DeferredPlayer(self.digest) if self.digest is not None else None
        with translation.override(self.language):
            try:
                try:
                    # The route's parser (its limit, its words); a bad token is 401 first.
                    data = raw.encode() if isinstance(raw, str) else raw
                    message = BoundedJSONParser().parse(io.BytesIO(data))
                    if isinstance(message, dict):
                        key = message.pop("key", None)
                    if not isinstance(message, dict) or message.pop("type", None) != "move":
                        raise invalid("type", _NOT_A_MOVE)
                except (ApplicationError, APIException):
                    if caller is not None:
                        caller.verify()
                    raise
                if caller is None:
                    raise NotAuthenticated()
                view = move_post(caller, self.match_id, lambda: message, key, held)
                return _socket_reply(key, 200, _render(view))
            except (ApplicationError, APIException, engine.EngineError) as exc:
                response = _error(exc)
                retry = response.get("Retry-After")
                return _socket_reply(key, response.status_code, response.content, retry)
            except Exception:
                logger.exception("move on match %s's WebSocket", self.match_id)
                return _socket_reply(key, 500, _render(error_body("server_error")))
            finally:
                close_old_connections()  # as at a request's end: the connection to the pool


def _socket_reply(key: Any, status: int, body: bytes, retry_after: str | None = None) -> str:
    head = b'{"event":"move","key":' + orjson.dumps(key) + b',"status":%d' % status
    if retry_after is not None:
        head += b',"retry_after":%d' % int(retry_after)
    return (head + b',"data":' + body + b"}").decode()


@_stream_view
async def match_events(request: HttpRequest, match_id: UUID) -> HttpResponseBase:
    """`GET /api/v1/matches/{id}/events`: the caller's view (a seat's, or the public view of a
    spectator) after every version change."""
    after = _last_event_id(request)
    caller = await _blocking(request, _viewer, request)
    _match, seat = await _blocking(request, match_viewer_get, match_id, _player(caller))
    opening = _opening(request)
    player = _player(caller)
    viewer = str(player.id) if player is not None else None
    if opening is None:
        rendered = await _blocking(request, _seat_event, match_id, seat, viewer)
        if rendered is None:
            return EventStreamResponse([RECONNECT_SEAT])
        version, over, view = rendered
        events = [view] if view is not None and (after is None or version > after) else []
        events.append(Event.of("close", {"reason": "match_over"}) if over else RECONNECT_POLL)
        return EventStreamResponse(events)
    holder = _slot_holder(request, player)
    moves = MatchSocketMoves(
        match_id, _token(caller), translation.get_language(), player.id if player else None
    )
    stream = _match_stream(match_id, seat, viewer, after, _token(caller))
    return await _with_slot(opening, holder, stream, moves)


async def _match_stream(
    match_id: UUID, seat: int | None, viewer: str | None, after: int | None, token: str | None
) -> AsyncGenerator[Event, None]:
    """The events of a match to `viewer` (a player's id, None: anonymous), checked for `seat`
    when it opened: `reconnect` (`seat`) and the end once they no longer hold it."""
    heartbeat = settings.LIVE_HEARTBEAT_SECONDS
    current = hub.hub()
    try:
        async with current.watch(match=str(match_id), token=token) as waiter:
            # Read after the waiter is registered: a change committed from here on is queued.
            read = await _shared_reads.read(match_id)
            if _seat_moved(read, seat, viewer):
                yield RECONNECT_SEAT
                return
            version, over, view = _seat_render(read, seat)
            del read
            traced: tuple[dict[str, Any], float, float] | None = None  # LIVE_TRACE_FILE
            while True:
                if version < 0:
                    yield Event.of("close", {"reason": "not_found"})
                    return
                if view is not None and version != after:
                    # Not the version sent already (an `after` the match never reached, another
                    # deployment's id, gets the current view too).
                    yield view
                    if traced is not None:
                        hub.trace_sent(*traced, time.time())
                view = None  # an idle stream keeps no copy of its last view
                after = version
                if over:
                    yield Event.of("close", {"reason": "match_over", "version": version})
                    return
                async for message in _waiting(waiter, heartbeat):
                    if isinstance(message, Event):
                        yield message
                    elif "talk" in message:
                        yield Event.of("talk", message["talk"])
                    elif message.get("resync") or message["version"] > after:
                        if "resigned" in message:
                            yield _resigned_event(message)
                        break
                else:
                    return  # a slow reader: closed
                woke = time.time()
                if message.get("resync"):  # anything may have been missed: a read of its own
                    read = await _shared_reads.read(match_id)
                    rendered = None if _seat_moved(read, seat, viewer) else _seat_render(read, seat)
                    del read
                else:
                    rendered = await _shared_reads.event(match_id, seat, viewer, message["version"])
                if rendered is None:
                    yield RECONNECT_SEAT
                    return
                version, over, view = rendered
                traced = (message, woke, time.time()) if hub.TRACE_FILE else None
    finally:
        _shared_reads.forget_unwatched(match_id)


def _resigned_event(message: dict[str, Any]) -> Event:
    """The event `resigned` of a version in which a seat's person resigned: the match, that
    version, the seat, whether the turn clock resigned its absent person (`absent`) and the
    match's status then (`abandoned` when no person is left). Public facts only, the same for
    every seat and spectator; no id (the `state` event that follows carries the version)."""
    data = {name: message[name] for name in ("match", "version", "status")}
    absent = bool(message.get("absent"))
    return Event.of("resigned", {**data, "seat": message["resigned"], "absent": absent})


@_stream_view
async def me_events(request: HttpRequest) -> HttpResponseBase:
    """`GET /api/v1/me/events`: the caller's turns and matches started or finished."""
    after = _last_event_id(request)
    caller = await _blocking(request, stream_caller, request)
    opening = _opening(request)
    if opening is None:
        _last, events = await _me_catch_up(str(caller.player.id), after, request)
        return EventStreamResponse([*events, RECONNECT_POLL])
    stream = _me_stream(str(caller.player.id), after, caller.token)
    return await _with_slot(opening, _slot_holder(request, caller.player), stream)


_LOBBY_READY = Event.of("ready", {})
_LOBBY_FIELDS = ("match", "version", "status", "open_seats")


@_stream_view
async def lobby_events(request: HttpRequest) -> HttpResponseBase:
    """`GET /api/v1/lobby/events`: each change of the lobby, the waiting matches of
    `GET /matches?status=waiting` (public: signed in or not)."""
    caller = await _blocking(request, _viewer, request)
    opening = _opening(request)
    if opening is None:
        return EventStreamResponse([_LOBBY_READY, RECONNECT_POLL])
    holder = _slot_holder(request, _player(caller))
    return await _with_slot(opening, holder, _lobby_stream(_token(caller)))


async def _lobby_stream(token: str | None) -> AsyncGenerator[Event, None]:
    """`ready` once the stream is subscribed (read the lobby from then on: nothing committed
    after it is missed), then `lobby` for every match that entered the lobby, changed in it or
    left it (status not `waiting`), `resync` when messages may have been lost. No ids: a
    reconnect reads the lobby again after its `ready`."""
    heartbeat = settings.LIVE_HEARTBEAT_SECONDS
    async with hub.hub().watch_lobby(token=token) as waiter:
        yield _LOBBY_READY
        async for message in _waiting(waiter, heartbeat):
            if isinstance(message, Event):
                yield message
            elif message.get("resync"):
                yield Event.of("resync", {})
            else:
                yield Event.of("lobby", {name: message[name] for name in _LOBBY_FIELDS})


async def _waiting(waiter: Any, heartbeat: float) -> AsyncIterator[Event | dict[str, Any]]:
    """What a waiting stream gets: each message for it; a heartbeat after each quiet
    `heartbeat` seconds; for a reader too slow to keep its queue, or one whose token was
    revoked, the close, then nothing; when the process is stopping, `reconnect`, then
    nothing."""
    while True:
        message = await waiter.get(heartbeat)
        if waiter.revoked:
            yield Event.of("close", {"reason": "revoked"})
            return
        if waiter.restarting:
            yield RECONNECT_RESTART
            return
        if waiter.dropped:
            yield Event.of("close", {"reason": "slow_reader"})
            return
        yield HEARTBEAT if message is None else message


async def _me_stream(player: str, after: int | None, token: str) -> AsyncGenerator[Event, None]:
    current = hub.hub()
    heartbeat = settings.LIVE_HEARTBEAT_SECONDS
    async with current.watch(player=player, token=token) as waiter:
        try:
            sent, chunks = await _me_catch_up(player, after)
        except hub.REDIS_DOWN:  # the log is out of reach: come back
            yield RECONNECT_UNAVAILABLE
            return
        for chunk in chunks:
            yield chunk
        async for message in _waiting(waiter, heartbeat):
            if isinstance(message, Event):
                yield message
            elif message.get("resync") or message["seq"] > sent + 1:
                # Something was lost on the way: the log has it.
                try:
                    sent, chunks = await _me_catch_up(player, sent)
                except hub.REDIS_DOWN:
                    yield RECONNECT_UNAVAILABLE
                    return
                for chunk in chunks:
                    yield chunk
            elif message["seq"] == sent + 1:
                sent = message["seq"]
                yield Event.of(message["type"], message, sent)
            # seq <= sent: read from the log already


async def _me_catch_up(
    player: str, after: int | None, request: HttpRequest | None = None
) -> tuple[int, list[Event]]:
    """The events of `player`'s log after sequence `after` (None: none, start from now), and
    the sequence reached; `resync` when the log cannot tell what came after `after`."""
    if request is not None:
        seq, logged = await _blocking(request, hub.me_log, player, after or 0)
    else:
        seq, logged = await hub.run_blocking(hub.me_log, player, after or 0)
    if after is None:
        return seq, [Event.of("ready", {"seq": seq}, seq)]
    if after > seq or (seq > after and (not logged or logged[0]["seq"] != after + 1)):
        return seq, [Event.of("resync", {"seq": seq}, seq)]
    return seq if not logged else logged[-1]["seq"], [
        Event.of(e["type"], e, e["seq"]) for e in logged
    ]


# The WSGI environ key of a waiting long-poll's answer (live.asgi): the view, or the error, that
# its wait ended with, for the view to answer through Django's middleware.
POLL_ANSWER = "pisyedili.live.poll_answer"


def match_state_long_poll(request: HttpRequest, match_id: UUID) -> HttpResponse:
    """`GET …/state?after_version=N&wait=S` under live.asgi (it routes only waiting requests
    here): the answer of games.apis.MatchStateApi, awaited on the hub instead of in a thread
    that holds a database connection. The version change that ends the wait is read once per
    process for every stream and long-poll of the match (_SharedReads).

    It answers in two calls on the request's thread (live.asgi.WholeWSGI, as every plain
    request), so that no request of Django's is open while the poll waits: the first checks
    the request (its parameters, the caller, the match) and answers at once if the match is
    past `after_version`, else hands the wait to the Opening of its environ (`poll`), which
    live.asgi awaits on the event loop; the second answers with what the wait ended with (the
    environ's POLL_ANSWER)."""
    from games.apis import MatchStateApi

    if POLL_ANSWER in request.META:
        return _poll_response(request.META[POLL_ANSWER])
    try:
        filters = MatchStateApi.FilterSerializer(data=request.GET)
        filters.is_valid(raise_exception=True)
        after = filters.validated_data.get("after_version")
        wait = filters.validated_data.get("wait", 0)
        caller = _viewer(request, tickets=False)
        player = _player(caller)
        match, seat, view = _poll_answer(player, match_id, after, wait)
        if view is None:
            opening: Opening = request.META[OPENING]
            opening.poll = _LongPoll(
                match.id,
                seat,
                player,
                _token(caller),
                after,
                wait,
                _poll_holder(request, player),
                _parsed(match),
            )
            return HttpResponse(status=202)  # not sent: live.asgi awaits the poll
    except Exception as exc:
        return _poll_response(exc)
    return _poll_response(view)


def _poll_response(answer: dict[str, Any] | Exception) -> HttpResponse:
    if isinstance(answer, (ApplicationError, APIException)):
        return _error(answer)
    if isinstance(answer, hub.REDIS_DOWN):
        return _unavailable()
    if isinstance(answer, Exception):
        raise answer
    response = HttpResponse(_render(answer), content_type="application/json")
    patch_cache_control(response, no_store=True, private=True)
    return response


@dataclass
class _LongPoll:
    """A long-poll that is to wait: for a version of match `match_id` past `after`, at most
    `wait` s, in one of `holder`'s long-poll slots (429 when all are taken); `seat` and `read`
    (the match, at `after` or before) as the request's checks read them
    (games.selectors.match_viewer_get) for `player` (None: anonymous). Where their seat has
    changed by the version it answers with, the checks run again (`_view`). It keeps no copy of
    the match of its own while it waits; the process holds the version it waits past, once for
    every stream and long-poll of the match, for the move that ends the wait (_SharedReads)."""

    match_id: UUID
    seat: int | None
    player: Player | None
    token: str | None
    after: int
    wait: float
    holder: tuple[str, int, str]
    read: _Read | None
    language: str | None = field(default_factory=translation.get_language)

    async def __call__(self, waiter: hub.Waiter | None) -> dict[str, Any]:
        """The caller's view once the match is past `after` (or as it is after `wait` s).
        `waiter`: on the match, registered before the request's checks read it (live.asgi);
        None: none was (the hub was not subscribed yet), and the match is read again once one
        is."""
        with translation.override(self.language):
            if waiter is not None and self.read is not None:
                return await self._wait(waiter)
            try:
                async with hub.hub().watch(match=str(self.match_id)) as waiter:
                    self.read = await _shared_reads.read(self.match_id)
                    return await self._wait(waiter)
            finally:
                _shared_reads.forget_unwatched(self.match_id)

    async def _wait(self, waiter: hub.Waiter) -> dict[str, Any]:
        """As __call__, `waiter` registered before `read` was read. Nothing keeps the read of
        its own while it waits: the process's copy is _SharedReads'."""
        read, self.read = self.read, None
        assert read is not None
        current = hub.hub()
        slot: tuple[str, str] | None = None
        match_id = self.match_id
        try:
            with current.watch_token(waiter, self.token):
                # The waiter was registered before `read`: a change committed since is queued.
                if read[0] is None or read[0].version > self.after:
                    return await self._view(read)
                # The version it waits past: the move that ends the wait is applied to it.
                _shared_reads.prime(match_id, read)
                del read
                key, limit, per = self.holder
                taken = await current.slot_take(key, limit)
                if taken is None:
                    raise ApplicationError("throttled", _(per) % {"limit": limit})
                slot = (key, taken)
                message = await _wait_for_version(waiter, self.after, self.wait)
                if message is not None:
                    found = await _shared_reads.match(match_id, message["version"])
                else:  # no change within `wait` (or the hub lost track): as it is now
                    found = await _shared_reads.read(match_id)
                return await self._view(found)
        finally:
            if slot is not None:
                current.slot_give_back_soon(*slot)

    async def _view(self, read: _Read) -> dict[str, Any]:
        """The caller's view of the match as read, or, where their seat is no longer the one
        checked (they left it, or took one), the answer the request would get now: its checks
        again (403 `spectators_not_allowed` to a spectator of a match closed to them)."""
        if not _seat_moved(read, self.seat, str(self.player.id) if self.player else None):
            return _poll_view(read, self.seat)
        del read
        answer: tuple[Match, int | None, dict[str, Any]] = await hub.run_blocking(
            _poll_answer, self.player, self.match_id, None, 0
        )
        return answer[2]


@contextlib.asynccontextmanager
async def poll_watching(match_id: str) -> AsyncIterator[hub.Waiter | None]:
    """A waiter on a waiting long-poll's match (`match_id` as its path has it), registered
    before Django checks the request and reads the match (live.asgi): a change committed after
    that read is queued on it, so the wait needs no read of its own. None where the process's
    subscription is not confirmed yet (Redis down: the wait registers its own then, or answers
    503) or the path holds no match id (404)."""
    current = hub.hub()
    try:
        key = UUID(match_id)
    except ValueError:
        key = None
    if key is None or not current.subscribed:
        yield None
        return
    try:
        async with current.watch(match=str(key)) as waiter:
            yield waiter
    finally:
        _shared_reads.forget_unwatched(key)


def _poll_view(read: _Read, seat: int | None) -> dict[str, Any]:
    """The seat's view of a match read by a waiting long-poll; 404 `not_found` when the match
    is gone (deleted while the poll waited)."""
    match, state = read
    if match is None:
        raise ApplicationError("not_found", "No such match.")
    return match_view(match, seat, state)


def _poll_answer(
    player: Player | None, match_id: UUID, after: int | None, wait: float
) -> tuple[Match, int | None, dict[str, Any] | None]:
    """The match, the seat of `player` (authenticated as the DRF route does: the configured
    classes only, no stream ticket; None, no credentials at all, is a spectator) and their view,
    None when the long-poll is to wait for a newer version."""
    match, seat = match_viewer_get(match_id, player)
    if after is not None and wait > 0 and match.version <= after:
        return match, seat, None
    return match, seat, match_view(match, seat)


async def _wait_for_version(waiter: hub.Waiter, after: int, wait: float) -> dict[str, Any] | None:
    """The message of a version past `after`, or None after `wait` s without one (or when the
    hub lost track: a resync, a drop; or at once when the process is stopping); 401 when the
    caller's token is revoked meanwhile."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while (remaining := deadline - loop.time()) > 0:
        message = await waiter.get(remaining)
        if waiter.revoked:
            raise AuthenticationFailed("Invalid token.")
        if message is None or waiter.dropped or waiter.restarting or message.get("resync"):
            return None
        if "talk" not in message and message["version"] > after:
            return message
    return None


# ---- the served schema (drf-spectacular postprocessing hook: these views are not DRF's) ----

_SSE_EXAMPLE = (
    "retry: 2000\n\n"
    'id: 12\nevent: state\ndata: {"match": "…", "version": 12, "you": 0, "hand": ["7H"], …}\n\n'
    ": heartbeat\n\n"
    'event: close\ndata: {"reason": "match_over", "version": 57}\n\n'
)
_ME_EXAMPLE = (
    'id: 4\nevent: ready\ndata: {"seq": 4}\n\n'
    'id: 5\nevent: your_turn\ndata: {"seq": 5, "type": "your_turn", "match": "…", '
    '"version": 13, "seat": 0, "turn_deadline": null}\n\n'
)

_LOBBY_EXAMPLE = (
    "retry: 2000\n\n"
    "event: ready\ndata: {}\n\n"
    'event: lobby\ndata: {"match": "…", "version": 2, "status": "waiting", "open_seats": 1}\n\n'
    'event: lobby\ndata: {"match": "…", "version": 3, "status": "active", "open_seats": 0}\n\n'
)


def _errors(*codes: str) -> dict[str, Any]:
    by_status: dict[str, dict[str, Any]] = {}
    for code in codes:
        status = str(ERROR_CODES[code][0])
        entry = by_status.setdefault(
            status,
            {
                "description": "",
                "content": {
                    "application/json": {
                        "schema": {"$ref": "#/components/schemas/Error"},
                        "examples": {},
                    }
                },
            },
        )
        entry["description"] = " ".join(filter(None, [entry["description"], f"`{code}`"]))
        entry["content"]["application/json"]["examples"][code] = {"value": error_body(code)}
    return by_status


def _stream_operation(
    operation_id: str, summary: str, description: str, example: str, *, resumes: bool = True
) -> dict[str, Any]:
    """A stream's operation; `resumes`: it takes Last-Event-ID (400 `invalid` when malformed)."""
    resume = [
        {
            "in": "query",
            "name": "last_event_id",
            "schema": {"type": "integer", "minimum": 0, "maximum": _EVENT_ID_MAX},
            "description": "As Last-Event-ID, for a first connect (the header wins).",
        },
        {
            "in": "header",
            "name": "Last-Event-ID",
            "schema": {"type": "integer", "minimum": 0, "maximum": _EVENT_ID_MAX},
            "description": "Resume after this event id (EventSource sends it itself when it "
            "reconnects).",
        },
    ]
    return {
        "operationId": operation_id,
        "summary": summary,
        "description": description,
        "tags": ["live"],
        "security": [{"tokenAuth": []}, {}],
        "parameters": [
            {
                "in": "query",
                "name": "ticket",
                "schema": {"type": "string"},
                "description": "A stream ticket to this path (POST /api/v1/auth/stream-ticket) "
                "instead of the Authorization header; good for every reconnect until it "
                "expires, 401 then or on another stream.",
            },
            *(resume if resumes else []),
        ],
        "responses": {
            "200": {
                "description": "An event stream (text/event-stream).",
                "content": {
                    "text/event-stream": {
                        "schema": {"type": "string"},
                        "examples": {"events": {"value": example}},
                    }
                },
            },
            **_errors(
                *(["invalid"] if resumes else []), "not_authenticated", "throttled", "unavailable"
            ),
        },
    }


def openapi_paths(result: dict[str, Any], generator: Any, request: Any, public: bool) -> Any:
    """Add the event streams to the served schema."""
    match_stream = _stream_operation(
        "matches_events",
        "Stream the caller's view of a match",
        "The caller's view (the body of GET …/state: a seat's own view, or the public view, "
        "`you` null and no hand, for anyone else on a `spectators: public` match, signed in or "
        "not) as event `state`, id = the match version, after every version change; "
        "`resigned` (`match`, `version`, `seat`, `absent`, `status`; no id) before the view of a "
        "version in which a seat's person resigned; `talk` (`match`, `seat`, `phrase`, `at`; no "
        "id) "
        "when a seat says a preset phrase; `close` when the match is over (finished or "
        "abandoned). Resuming with Last-Event-ID sends the current view if the "
        "match has moved past it, then every newer version. A signed-in caller holds at most "
        "LIVE_STREAMS_PER_PLAYER streams, an anonymous spectator's address LIVE_STREAMS_PER_IP "
        "(429). A `spectators: none` match is 403 `spectators_not_allowed` to a caller at no "
        "seat. Each of the event routes also opens as a WebSocket on the same path, with the "
        'same auth, resume, slots and errors: one JSON text message per event, `{"event", '
        '"id", "data"}` (docs/api.md "The same streams over WebSocket").',
        _SSE_EXAMPLE,
    )
    match_stream["parameters"].append(
        {
            "in": "path",
            "name": "match_id",
            "required": True,
            "schema": {"type": "string", "format": "uuid"},
            "description": "The match's id.",
        }
    )
    match_stream["responses"].update(_errors("spectators_not_allowed", "not_found"))
    result["paths"]["/api/v1/matches/{match_id}/events"] = {"get": match_stream}
    result["paths"]["/api/v1/me/events"] = {
        "get": _stream_operation(
            "me_events",
            "Stream the caller's turns and matches",
            "The caller's `your_turn`, `match_started`, `match_finished` (totals, status: "
            "`finished` or `abandoned`) and `match_cancelled` events of every match, and "
            "`tournament_round` (tournament, round, the ids of their table's matches) when a "
            "round they play is dealt, `tournament_invitation` (tournament, by) when they are "
            "invited to a tournament, `tournament_answered` to its organizer (tournament, player,"
            " answer) and `tournament_cancelled` (tournament) to its entrants and invitees when "
            "its organizer cancels it, `tournament_withdrawn` (tournament) to one its organizer "
            "takes out before its start, and `queue` when their quick-play entry changes (status,"
            " seats, preset, deadline, match, bot_seats), `challenge` when they are invited to a "
            "private match (match, version, by, expires_at) and `challenge_answered` to its "
            "creator (match, player, answer); id = the caller's event sequence; Last-Event-ID "
            "replays what came after it (or sends `resync` when that is no longer kept).",
            _ME_EXAMPLE,
        )
    }
    lobby = _stream_operation(
        "lobby_events",
        "Stream the lobby's changes",
        "Public (signed in or not). `ready` once subscribed: read `GET /matches?status=waiting` "
        "then, and nothing committed after it is missed. Then event `lobby` "
        "(`match`, `version`, `status`, `open_seats`) for every match that entered the lobby, "
        "changed in it (a seat taken or freed) or left it (`status` `active`: it started; "
        "`cancelled`: cancelled or expired); `resync` when events may have been lost (read "
        "the lobby again). No event ids: after a reconnect, read the lobby again on `ready`. "
        "Stream slots as for the match stream (429).",
        _LOBBY_EXAMPLE,
        resumes=False,
    )
    result["paths"]["/api/v1/lobby/events"] = {"get": lobby}
    return result
