"""The ASGI entry point, the one web tier (docs/operations.md "Live play"):

    uvicorn live.asgi:application --workers 2 --loop uvloop --http live.asgi:HttpProtocol

Composed of documented parts, routed by Starlette's Router:
- every plain HTTP route is Django's WSGI application (`django.core.wsgi`: middleware, DRF
  views, errors), each request one call on a thread of a pool (WholeWSGI),
  with PostgreSQL connections from psycopg's pool (DATABASE_POOL, set here);
- a stream's path (`…/matches/{id}/events`, `…/me/events`, `…/lobby/events`) over HTTP (SSE)
  or as a WebSocket: Django's application opens it (middleware, authentication, stream slots,
  refusals: the view of live.streams), handing the stream's events to the request's Opening
  (live.streams.OPENING, a key of the ASGI scope); once Django has answered, the headers go
  out (SSE) or the socket is accepted, and the events are sent from here by their transport
  (live.transports). Nothing of Django's request and response is kept while a stream waits:
  an idle stream holds its generator, its waiter and one task that notices the client going
  away. A refusal is the view's HTTP status and JSON body (on a WebSocket, the handshake's
  answer); a WebSocket from an origin CORS_ALLOWED_ORIGINS does not allow is 403 `forbidden`,
  one on any other path 404;
- a waiting long-poll (`GET …/state?after_version=V&wait=S`) is a plain request marked in
  its environ, which live.middleware resolves to the view live.streams.match_state_long_poll;
  a poll that is to wait is handed back and awaits the hub on the event loop;
- the lifespan subscribes the process's hub, so the first stream does not wait for it (a Redis
  that does not answer delays the start by 10 s, no more: streams are 503 until it does), and
  freezes what the process loaded out of the garbage collector's way (pisyedili_api.heap), and
  starts the embedded default's beat; at the end it ends the beat and the embedded default's
  analysis process (pisyedili_api.tasks).

A request's body reaches Django bounded (`_bounded`): no more than MAX_REQUEST_BODY_BYTES + 1
bytes of it, so that a longer body is refused (400 `invalid`) by BodySizeLimitMiddleware or
BoundedJSONParser once that much has come, and the rest is dropped as it arrives
(HttpProtocol's LIVE_READ_TIMEOUT bounding it), where Django would spool any body, however
long, to a temporary file first. By hand: Starlette's RequestBodyLimitMiddleware answers 413
in plain text, not the API's JSON error.

Every middleware is async-capable: Django's ASGI application (a stream's opening) would switch
to a thread and back around a sync-only one (a warning names them).
HttpProtocol (live.protocol) is uvicorn's httptools protocol with the bounds of what a client
may send and of a connection left unread.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncIterator
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pisyedili_api.settings")
os.environ.setdefault("DATABASE_POOL", "1")

from django.core.asgi import get_asgi_application  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from starlette.types import ASGIApp  # noqa: E402

# django.setup() first. Typed as the ASGI application it is (the stubs type Django's
# ASGIHandler's send narrower than ASGI's).
django_application = cast(ASGIApp, get_asgi_application())

import asyncio  # noqa: E402
import contextvars  # noqa: E402
import io  # noqa: E402
import threading  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

import orjson  # noqa: E402
from a2wsgi.wsgi import build_environ  # noqa: E402
from asgiref.sync import ThreadSensitiveContext  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.cache import caches  # noqa: E402
from django.utils import translation  # noqa: E402
from django.utils.module_loading import import_string  # noqa: E402
from django.utils.translation import gettext_noop  # noqa: E402
from starlette.routing import Route, Router, WebSocketRoute  # noqa: E402
from starlette.types import Message, Receive, Scope, Send  # noqa: E402

from pisyedili_api.errors import error_body  # noqa: E402
from pisyedili_api.heap import freeze_startup_heap  # noqa: E402
from pisyedili_api.logfilters import NoQueries  # noqa: E402
from pisyedili_api.tasks import embedded_start, embedded_stop  # noqa: E402

from . import hub  # noqa: E402
from .middleware import LONG_POLL  # noqa: E402
from .protocol import WS_MAX_SIZE, HttpProtocol, WebSocketProtocol, language_of  # noqa: E402
from .streams import (  # noqa: E402
    OPENING,
    POLL_ANSWER,
    Opening,
    poll_watching,
    shared_reads_close,
)
from .transports import send_sse, send_ws, ws_refuse  # noqa: E402

__all__ = ["WS_MAX_SIZE", "HttpProtocol", "WebSocketProtocol", "application"]

logger = logging.getLogger(__name__)
# No line of uvicorn's holds a query string (a stream ticket): it logs a WebSocket's path with
# its query string (and its access log, where on, every request's). A filter added here, in
# each web process, keeps uvicorn's own handlers (a LOGGING entry would replace them).
for _name in ("uvicorn.error", "uvicorn.access"):
    logging.getLogger(_name).addFilter(NoQueries())

# A WebSocket's Origin that the CORS settings do not allow (403 `forbidden`).
_ORIGIN_REFUSED = gettext_noop("This origin may not open a WebSocket here (CORS_ALLOWED_ORIGINS).")


def _bounded(receive: Receive) -> Receive:
    """`receive` that hands on at most MAX_REQUEST_BODY_BYTES + 1 bytes of the request's body,
    and past the body only what is not body (`http.disconnect`)."""
    keep = settings.MAX_REQUEST_BODY_BYTES + 1
    read = 0
    done = False

    async def bounded() -> Message:
        nonlocal read, done
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return message
            if done:
                continue  # the rest of a body cut short: dropped as it arrives
            body = message.get("body", b"")[: keep - read]
            read += len(body)
            more = bool(message.get("more_body", False)) and read < keep
            done = not more
            return {"type": "http.request", "body": body, "more_body": more}

    return bounded


class RequestThreads:
    """The threads Django's sync code runs on, one leased to each request for its whole life.

    Django's ASGI application runs a request's sync parts (the sync middleware hooks, the
    signals, a sync view) on one thread per request, in asgiref's ThreadSensitiveContext: by
    default a thread made for the request and joined (by one more thread) when it ends. Here
    each request is called inside a ThreadSensitiveContext of one of LIVE_REQUEST_THREADS
    single-thread executors made at startup (asgiref's documented `executor=`; Django's own
    context then leaves it in place), so no thread is made per request, a process holds a
    fixed number of them however many requests come, and a request's sync code still runs on
    one thread (its database connection is that thread's). A request waits for a free one."""

    def __init__(self) -> None:
        self._free: asyncio.Queue[ThreadPoolExecutor] | None = None

    def start(self) -> None:
        self._free = asyncio.Queue()
        for number in range(settings.LIVE_REQUEST_THREADS):
            executor = ThreadPoolExecutor(1, thread_name_prefix=f"request-{number}")
            executor.submit(lambda: None)  # its thread, now: counted from the start
            self._free.put_nowait(executor)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._free is None:
            self.start()
        assert self._free is not None
        executor = await self._free.get()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await django_application(scope, receive, send)
        finally:
            self._free.put_nowait(executor)


_request_threads = RequestThreads()


class WholeWSGI:
    """Django's WSGI application for every plain HTTP request, each request one call on one of
    `workers` threads and no other hand-over between that thread and the loop: the (bounded)
    body is read in the loop first, the environ is a2wsgi's (`build_environ`), and the thread
    returns the whole response, which the loop then sends. A streaming response (a file, a
    StreamingHttpResponse) is sent from the thread as it is iterated, each part awaited on the
    loop, so that it is never held whole.

    By hand, not a2wsgi's WSGIMiddleware: its responder reads the body and sends the response's
    start, each part and its end from the thread, each a blocking round trip to the loop (four
    a request), on which a request's thread waited for about half of its time
    (docs/benchmarks.md "Live play")."""

    def __init__(self, app: Any, workers: int) -> None:
        self.app = app
        self.workers = workers
        self.executor = ThreadPoolExecutor(workers, thread_name_prefix="wsgi")
        self._threads = threading.local()

    def start(self) -> None:
        """Every thread now, so that a process holds the same number from its start whatever
        comes (each waits on the others: none is idle to be handed the next)."""
        everyone = threading.Barrier(self.workers + 1)
        for _ in range(self.workers):
            self.executor.submit(everyone.wait)
        everyone.wait()

    async def __call__(
        self, scope: Scope, receive: Receive, send: Send, extra: dict[str, Any] | None = None
    ) -> None:
        """The request of `scope`; `extra`: entries of this application's own for the environ
        (a waiting long-poll's)."""
        body = bytearray()
        limit = settings.MAX_REQUEST_BODY_BYTES
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before its request was whole: no one to answer
            body += message.get("body", b"")
            if len(body) > limit or not message.get("more_body", False):
                break  # over the limit: read no further, the refusal needs no more
        environ = cast(dict[str, Any], build_environ(cast(Any, scope), cast(Any, io.BytesIO(body))))
        if not environ.get("CONTENT_LENGTH"):
            # A body sent in chunks has no Content-Length, and Django reads as many bytes as
            # that says: the length read is the body's (over the limit: refused, as any).
            environ["CONTENT_LENGTH"] = str(len(body))
        if extra:
            environ.update(extra)
        loop = asyncio.get_running_loop()
        whole = await loop.run_in_executor(self.executor, self._in_context, environ, loop, send)
        if whole is not None:
            start, content = whole
            await send(start)
            await send({"type": "http.response.body", "body": content})

    def _in_context(
        self, environ: dict[str, Any], loop: asyncio.AbstractEventLoop, send: Send
    ) -> tuple[Message, bytes] | None:
        """`_call` in a copy of a context of its thread's own: what a request sets there (its
        language) ends with it, and what Django keeps per context (the cache clients, which
        the move throttle asks on every move) is made once a thread, not once a request."""
        base: contextvars.Context | None = getattr(self._threads, "context", None)
        if base is None:
            base = self._threads.context = contextvars.copy_context()
            base.run(lambda: [caches[alias] for alias in settings.CACHES])
        return base.copy().run(self._call, environ, loop, send)

    def _call(
        self, environ: dict[str, Any], loop: asyncio.AbstractEventLoop, send: Send
    ) -> tuple[Message, bytes] | None:
        """The response's start and content; None when it was streamed from here."""
        start: Message = {}

        def start_response(status: str, headers: list[tuple[str, str]], *_exc_info: Any) -> Any:
            start.update(
                type="http.response.start",
                status=int(status.split(" ", 1)[0]),
                headers=[(k.lower().encode("latin1"), v.encode("latin1")) for k, v in headers],
            )
            return None  # the `write` callable: Django never uses it

        async def relay(message: Message) -> None:
            await send(message)

        def sent(message: Message) -> None:
            asyncio.run_coroutine_threadsafe(relay(message), loop).result()

        response = self.app(environ, start_response)
        try:
            if not getattr(response, "streaming", False):
                return start, b"".join(response)
            sent(start)
            for part in response:
                if part:
                    sent({"type": "http.response.body", "body": part, "more_body": True})
            sent({"type": "http.response.body", "body": b""})
            return None
        finally:
            close = getattr(response, "close", None)  # PEP 3333: an iterable may have none
            if close is not None:
                close()  # Django's: request_finished, its connection back to the pool


# Every other HTTP request, on LIVE_REQUEST_THREADS threads, its body bounded. Django's ASGI
# application runs each of the sync middleware hooks and the sync view on a thread and back,
# one switch a hook: bench/api.py measured 4.9-6.4 ms of CPU a request that way against
# 0.7-1.0 ms in one call (docs/benchmarks.md).
_wsgi = WholeWSGI(get_wsgi_application(), settings.LIVE_REQUEST_THREADS)


async def plain_http(scope: Scope, receive: Receive, send: Send) -> None:
    """A request that is neither a stream's opening nor a waiting long-poll."""
    await _wsgi(scope, _bounded(receive), send)


class _Answer:
    """What Django's application sent for a stream's opening: the response's start and body."""

    __slots__ = ("body", "start")

    def __init__(self) -> None:
        self.start: Message | None = None
        self.body: list[bytes] = []

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.start = message
        elif message["type"] == "http.response.body":
            self.body.append(message.get("body", b""))

    def take_start(self) -> Message:
        """The response's start, no longer kept here: a stream may stay open for hours, and
        its sender drops the headers once they are sent."""
        start, self.start = self.start, None
        assert start is not None
        return start

    def header(self, name: bytes) -> bytes | None:
        assert self.start is not None
        for key, value in self.start.get("headers", ()):
            if key.lower() == name:
                return bytes(value)
        return None


async def _open(scope: Scope, receive: Receive) -> tuple[Opening, _Answer]:
    """Django's answer to a stream's opening, and the stream it opened (the Opening's `events`
    None: refused, or the client left)."""
    opening, answer = Opening(), _Answer()
    await _request_threads({**scope, OPENING: opening}, _bounded(receive), answer.send)
    if opening.events is not None and (answer.start is None or answer.start["status"] != 200):
        await opening.events.aclose()  # the client left, or a middleware answered instead
        opening.events = None
    return opening, answer


class StreamEndpoint:
    """A stream's path: its events over SSE (HTTP) or as WebSocket messages."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
            return
        opening, answer = await _open(scope, receive)
        if answer.start is None:
            return  # the client left before the answer
        if opening.events is None:
            await send(answer.start)
            await send({"type": "http.response.body", "body": b"".join(answer.body)})
            return
        await send_sse(answer.take_start(), opening.events, receive, send)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The stream's view answers a WebSocket as a GET of its path (the same query:
        `ticket`, `last_event_id`; the same headers: `Authorization`, `Last-Event-ID`)."""
        if (await receive())["type"] != "websocket.connect":
            return  # the client left before the handshake
        if not _origin_allowed(scope):
            await _ws_error(scope, send, 403, "forbidden", _ORIGIN_REFUSED)
            return
        http = {**scope, "type": "http", "method": "GET"}
        http["scheme"] = "https" if scope.get("scheme") == "wss" else "http"
        opening, answer = await _open(http, _no_body())
        del http  # a socket may stay open for hours: keep nothing of its request
        if answer.start is None:
            return
        if opening.events is None:
            headers = [
                (name, value)
                for name in (b"www-authenticate", b"retry-after")
                if (value := answer.header(name)) is not None
            ]
            status = answer.start["status"]
            await ws_refuse(scope, send, status, b"".join(answer.body), headers)
            return
        del answer  # its headers: the socket keeps nothing of its opening's answer
        await send_ws(opening.events, receive, send, opening.answer)


def _no_body() -> Receive:
    """The `receive` of a WebSocket's opening as a GET: an empty body, then nothing."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.get_running_loop().create_future()  # never: Django stops listening
        raise AssertionError("unreachable")

    return receive


class StateEndpoint:
    """`GET …/state`: a waiting long-poll (`after_version` and `wait` given) is marked in its
    environ for live.middleware, which resolves it to live.streams.match_state_long_poll, on
    a request thread as every plain request (WholeWSGI); when that view hands over a wait (the
    Opening's `poll`), the wait runs here, on the event loop, outside Django's request, and
    Django is called again to answer with what the wait ended with. Any other request goes to
    Django as it is."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await plain_http(scope, receive, send)
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if "wait" not in query or "after_version" not in query:
            await plain_http(scope, receive, send)
            return
        async with poll_watching(scope["path_params"]["match_id"]) as waiter:
            opening, answer = Opening(), _Answer()
            extra = {LONG_POLL: True, OPENING: opening}
            await _wsgi(scope, _bounded(receive), answer.send, extra)
            if opening.poll is None:
                if answer.start is not None:
                    await send(answer.start)
                    await send({"type": "http.response.body", "body": b"".join(answer.body)})
                return
            waiting = asyncio.ensure_future(opening.poll(waiter))
            gone = asyncio.ensure_future(_disconnected(receive))
            try:
                await asyncio.wait((waiting, gone), return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (waiting, gone):
                    if not task.done():
                        task.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await task
        if waiting.cancelled():
            return  # the client left
        error = waiting.exception()
        result = error if error is not None else waiting.result()
        await _wsgi(scope, _no_body(), send, {LONG_POLL: True, POLL_ANSWER: result})


async def _disconnected(receive: Receive) -> None:
    """Returns once the client has gone away."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def _other(scope: Scope, receive: Receive, send: Send) -> None:
    """Every other route: Django's over HTTP; a WebSocket anywhere else is 404."""
    if scope["type"] == "websocket":
        if (await receive())["type"] == "websocket.connect":
            await _ws_error(scope, send, 404, "not_found", None)
        return
    await plain_http(scope, receive, send)


def _origin_allowed(scope: Scope) -> bool:
    """A browser's WebSocket (it sends `Origin`) from an origin the CORS settings allow; a
    client that sends no Origin is no browser page and is not bound by them, as for CORS."""
    from corsheaders.conf import conf
    from corsheaders.middleware import CorsMiddleware

    origin = dict(scope.get("headers", ())).get(b"origin", b"").decode("latin-1")
    if not origin or conf.CORS_ALLOW_ALL_ORIGINS:
        return True
    cors = CorsMiddleware(lambda _: None)  # type: ignore[arg-type]
    return cors.origin_found_in_white_lists(origin, urlsplit(origin))


async def _ws_error(scope: Scope, send: Send, status: int, code: str, message: str | None) -> None:
    """Refuse a WebSocket with the API's error `code`, in the language of its
    Accept-Language."""
    with translation.override(language_of(scope.get("headers"))):
        body = error_body(code, message)
    await ws_refuse(scope, send, status, orjson.dumps(body))


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    try:
        await hub.hub().start(timeout=10)
    except hub.REDIS_DOWN:
        # Redis is down: the process serves the API all the same, its streams are 503 until
        # the subscription (tried on meanwhile) is confirmed.
        logger.warning("live events' Redis does not answer; streams wait for it")
    _request_threads.start()
    _wsgi.start()
    embedded_start()  # no broker (the embedded default): the beat's schedule runs here
    freeze_startup_heap()  # what the process loaded is never walked again
    yield
    await hub.hub().stop()
    await shared_reads_close()
    await asyncio.to_thread(embedded_stop)  # the beat, and the analysis process if it started


_STREAM = StreamEndpoint()
application = Router(
    routes=[
        Route("/api/v1/matches/{match_id}/events", _STREAM),
        WebSocketRoute("/api/v1/matches/{match_id}/events", _STREAM),
        Route("/api/v1/me/events", _STREAM),
        WebSocketRoute("/api/v1/me/events", _STREAM),
        Route("/api/v1/lobby/events", _STREAM),
        WebSocketRoute("/api/v1/lobby/events", _STREAM),
        Route("/api/v1/matches/{match_id}/state", StateEndpoint()),
    ],
    redirect_slashes=False,
    default=_other,
    lifespan=lifespan,
)


if _sync_only := [
    m for m in settings.MIDDLEWARE if not getattr(import_string(m), "async_capable", False)
]:
    logger.warning(
        "sync-only middleware %s: every stream opening switches to a thread and back for it",
        ", ".join(_sync_only),
    )
