"""ASGI entry point, the production deployment for live play (docs/operations.md "Live play"):

    uvicorn pisyedili_api.asgi:application --workers 2 --loop uvloop \
        --http pisyedili_api.asgi:HttpProtocol

Django's ASGI handler with these differences:
- PostgreSQL connections come from psycopg's pool (DATABASE_POOL, settings): a request's sync
  code runs on one of the event loop's threads and gives its connection back when it ends.
- Every other request (the REST API: sync DRF views) runs whole, middleware included, in ONE
  call on one of the loop's threads, as under WSGI (`_plain`): Django's async path would move
  to a thread and back for every sync middleware's request and response hook, a dozen round
  trips per request, each a wait for the scheduler on a busy machine.
- Streams (`…/events`) and waiting long-polls (`…/state?…&wait=S`) run outside Django's
  per-request thread context: that context keeps a thread for as long as the request lasts,
  and a stream lasts hours. Their blocking steps use the hub's few threads (games.events).
- A stream's events (games.streams.EventStreamResponse) are sent from here once Django's
  middleware and view have answered and the headers are out; the request and the response are
  let go then. An idle stream holds its generator, its waiter and one task that notices the
  client going away, not Django's request, response and per-request tasks (`_stream`).
- A waiting long-poll resolves to the async view games.streams.match_state_long_poll
  (pisyedili_api.urls_live) instead of the DRF view, so it awaits the hub; every other request
  resolves as under WSGI.
- A WebSocket on a stream's path (`ws://…/api/v1/matches/{id}/events`, `…/me/events`,
  `…/lobby/events`) is answered by the same view as the stream, middleware, authentication and
  stream slots included, and speaks the same events, one JSON text message each
  (`_websocket`); a refusal is the same HTTP status and JSON error body as the stream's. A
  match's socket also takes the caller's moves, answered as `POST …/moves` answers them
  (games.streams.MatchSocketMoves).
Every middleware must be async-capable: Django runs an async view through a sync-only one on
ONE thread of the process, so a waiting long-poll would hold that thread for its whole wait and
every other stream and long-poll of the process would queue behind it (a warning names them).
`HttpProtocol` is uvicorn's httptools protocol whose connections TCP drops once the client has
left what was sent unacknowledged for LIVE_SEND_TIMEOUT seconds: a client that stopped reading a
stream (its receive window closed: the queue bound of games.events stops the events piling up
here, but not the connection, the stream's task and slot) or vanished without a close. It also
bounds what a client sends before the application sees it: a request's line and headers (431
past MAX_HEAD_BYTES), the time to send a whole request (LIVE_READ_TIMEOUT: 408), and a
WebSocket's messages (WS_MAX_SIZE: the socket is closed with 1009); it answers malformed HTTP
and a malformed WebSocket handshake with the API's JSON error, not uvicorn's plain text; and
it leaves X-Forwarded-For and X-Forwarded-Proto to the application (NUM_PROXIES,
DJANGO_SECURE_PROXY_SSL_HEADER), whatever uvicorn's `--proxy-headers` says.
The lifespan startup subscribes the process's hub, so the first stream does not wait for it (a
Redis that does not answer delays the start by 10 s, no more: streams are 503 until it does),
and freezes what the process loaded out of the garbage collector's way (pisyedili_api.heap).
"""

import asyncio
import contextlib
import email.utils
import io
import logging
import os
import re
import socket
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import IO, Any
from urllib.parse import parse_qs, urlsplit

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pisyedili_api.settings")
os.environ.setdefault("DATABASE_POOL", "1")

import django  # noqa: E402

django.setup(set_prefix=False)

import orjson  # noqa: E402
from asgiref.sync import sync_to_async  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core import signals  # noqa: E402
from django.core.exceptions import RequestAborted  # noqa: E402
from django.core.handlers.asgi import ASGIHandler, ASGIRequest, get_script_prefix  # noqa: E402
from django.core.handlers.base import BaseHandler  # noqa: E402
from django.http import HttpResponse, HttpResponseBase, JsonResponse  # noqa: E402
from django.urls import set_script_prefix  # noqa: E402
from django.utils import translation  # noqa: E402
from django.utils.functional import cached_property  # noqa: E402
from django.utils.module_loading import import_string  # noqa: E402
from django.utils.translation import gettext, gettext_noop  # noqa: E402
from django.utils.translation.trans_real import parse_accept_lang_header  # noqa: E402
from uvicorn.config import Config  # noqa: E402
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware  # noqa: E402
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol  # noqa: E402
from uvicorn.protocols.websockets.websockets_sansio_impl import (  # noqa: E402
    WebSocketsSansIOProtocol,
)
from uvicorn.server import ServerState  # noqa: E402
from websockets.datastructures import Headers  # noqa: E402
from websockets.http11 import Request as WebSocketRequest  # noqa: E402
from websockets.http11 import Response as WebSocketResponse  # noqa: E402

from games import events  # noqa: E402
from games.streams import EventStreamResponse, SocketAnswer, shared_reads_close  # noqa: E402
from pisyedili_api.errors import error_body  # noqa: E402
from pisyedili_api.heap import freeze_startup_heap  # noqa: E402

# The ASGI callables, as django-stubs names them for ASGIHandler.
_Receive = Callable[[], Awaitable[Mapping[str, Any]]]
_Send = Callable[[Mapping[str, Any]], Awaitable[None]]

_STREAM_PATH = re.compile(r"^/api/v1/(?:matches/[0-9a-fA-F-]{36}|me|lobby)/events$")
# A WebSocket's Origin that the CORS settings do not allow (403 `forbidden`).
_ORIGIN_REFUSED = gettext_noop("This origin may not open a WebSocket here (CORS_ALLOWED_ORIGINS).")
_STATE_PATH = re.compile(r"^/api/v1/matches/[0-9a-fA-F-]{36}/state$")


logger = logging.getLogger(__name__)


def _is_long_poll(scope: Mapping[str, Any]) -> bool:
    if not _STATE_PATH.match(scope["path"]):
        return False
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return "wait" in query and "after_version" in query


class LiveASGIHandler(ASGIHandler):
    async def __call__(self, scope: dict[str, Any], receive: _Receive, send: _Send) -> None:
        # An ASGI application's return value is unused: each branch awaits and stops.
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] == "http" and scope.get("method") == "GET":
            if _STREAM_PATH.match(scope["path"]):
                await self._stream(scope, receive, send)
                return
            if _is_long_poll(scope):
                await self.handle({**scope, "pisyedili_long_poll": True}, receive, send)
                return
        if scope["type"] == "http":
            await self._plain(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
            return
        await super().__call__(scope, receive, send)

    async def read_body(self, receive: _Receive) -> IO[bytes]:
        """As ASGIHandler.read_body, but no more than MAX_REQUEST_BODY_BYTES + 1 bytes are
        read: a longer body is refused (400 `invalid`) by BodySizeLimitMiddleware or
        BoundedJSONParser as under WSGI, once that much of it has come, and the rest is never
        read (it is dropped as it arrives, HttpProtocol's LIVE_READ_TIMEOUT bounding it), where
        Django spools any body, however long, to a temporary file before the first middleware
        runs."""
        keep = settings.MAX_REQUEST_BODY_BYTES + 1
        body = io.BytesIO()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise RequestAborted()
            if room := keep - body.tell():
                body.write(message.get("body", b"")[:room])
            if not message.get("more_body", False) or body.tell() >= keep:
                break
        body.seek(0)
        return body

    @cached_property
    def _sync_handler(self) -> BaseHandler:
        """The middleware chain in its sync form, as the WSGI handler loads it."""
        handler = BaseHandler()
        handler.load_middleware(is_async=False)
        return handler

    async def _plain(self, scope: dict[str, Any], receive: _Receive, send: _Send) -> None:
        """A request of the REST API: read on the loop, answered in one thread call."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = await sync_to_async(self._respond, thread_sensitive=False)(request)
        assert response is not None
        try:
            await self.send_response(response, send)
        finally:
            if response.streaming or request is None:
                await sync_to_async(response.close, thread_sensitive=False)()
            body_file.close()

    def _respond(self, request: ASGIRequest) -> HttpResponseBase:
        """As WSGIHandler.__call__ up to the body: request_started, the sync middleware chain
        and view, then (the body being rendered) request_finished in the same thread, which
        gives that thread's database connection back to the pool."""
        signals.request_started.send(sender=self.__class__, scope=request.scope)
        response = self._sync_handler.get_response(request)
        response._handler_class = self.__class__  # type: ignore[attr-defined]
        if not response.streaming:
            response.close()
        return response

    def create_request(
        self, scope: Mapping[str, Any], body_file: IO[bytes]
    ) -> tuple[ASGIRequest, None] | tuple[None, HttpResponseBase]:
        created = super().create_request(scope, body_file)
        request = created[0]
        if request is not None and scope.get("pisyedili_long_poll"):
            # request.urlconf is Django's documented per-request URLconf; the stubs leave it out.
            request.urlconf = "pisyedili_api.urls_live"  # type: ignore[attr-defined]
        return created

    async def _stream_response(
        self, scope: dict[str, Any], body_file: IO[bytes]
    ) -> HttpResponseBase:
        """The stream view's response (middleware included), as ASGIHandler.handle gets it."""
        set_script_prefix(get_script_prefix(scope))
        await signals.request_started.asend(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = await self.run_get_response(request)
        body_file.close()
        assert response is not None
        return response

    async def _stream(self, scope: dict[str, Any], receive: _Receive, send: _Send) -> None:
        """As ASGIHandler.handle, but an EventStreamResponse's events are sent from here, with
        nothing of the request kept while the stream waits."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        response = await self._stream_response(scope, body_file)
        del body_file
        events_ = response.events if isinstance(response, EventStreamResponse) else None
        if not isinstance(events_, AsyncGenerator):
            await self.send_response(response, send)
            await sync_to_async(response.close)()
            return
        start = {"type": "http.response.start", "status": response.status_code}
        cookies = [c.output(header="").strip() for c in response.cookies.values()]
        start["headers"] = [
            *((k.encode("ascii"), v.encode("latin-1")) for k, v in response.items()),
            *((b"Set-Cookie", c.encode("ascii")) for c in cookies),
        ]
        await send(start)
        # Django is done with the request (request_finished): the stream goes on in the hub.
        await sync_to_async(response.close)()
        del response, start, cookies
        await _send_events(events_, receive, send)

    async def _websocket(self, scope: dict[str, Any], receive: _Receive, send: _Send) -> None:
        """A WebSocket on a stream's path: the stream's view answers it as a GET of that path
        (the same query: `ticket`, `last_event_id`; the same headers: `Authorization`,
        `Last-Event-ID`). Accepted, each of the stream's events is one text message
        (`_ws_message`), and the socket is closed (1000) where the stream ends. Refused (any
        other path, an origin CORS_ALLOWED_ORIGINS does not allow, or the view's error: 400,
        401, 403, 404, 429), the handshake gets the view's HTTP status and JSON error body."""
        if (await receive())["type"] != "websocket.connect":
            return  # the client left before the handshake
        http = {**scope, "type": "http", "method": "GET"}
        http["scheme"] = "https" if scope.get("scheme") == "wss" else "http"
        if not _STREAM_PATH.match(scope["path"]):
            refusal: tuple[int, str, str | None] | None = (404, "not_found", None)
        elif not _origin_allowed(scope):
            refusal = (403, "forbidden", _ORIGIN_REFUSED)
        else:
            refusal = None
        if refusal is not None:
            status, code, message = refusal
            request, _ = self.create_request(http, io.BytesIO())
            language = translation.get_language_from_request(request) if request else None
            with translation.override(language or settings.LANGUAGE_CODE):
                refused = JsonResponse(error_body(code, message), status=status)
            await _ws_refuse(scope, send, refused)
            return
        response = await self._stream_response(http, io.BytesIO())
        del http  # a socket may stay open for hours: keep nothing of its request
        events_ = response.events if isinstance(response, EventStreamResponse) else None
        if not isinstance(events_, AsyncGenerator):
            await _ws_refuse(scope, send, response)
            await sync_to_async(response.close)()
            return
        answer = response.answer if isinstance(response, EventStreamResponse) else None
        await send({"type": "websocket.accept"})
        await sync_to_async(response.close)()
        del response
        await _send_ws_events(events_, receive, send, answer)

    async def _lifespan(self, receive: _Receive, send: _Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await events.hub().start(timeout=10)
                except events.REDIS_DOWN:
                    # Redis is down: the process serves the API all the same, its streams are
                    # 503 until the subscription (tried on meanwhile) is confirmed.
                    logger.warning("live events' Redis does not answer; streams wait for it")
                except Exception as exc:
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                freeze_startup_heap()  # what the process loaded is never walked again
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await events.hub().stop()
                await shared_reads_close()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _send_events(body: AsyncGenerator[bytes, None], receive: _Receive, send: _Send) -> None:
    """Send `body`'s chunks until it ends or the client goes away (uvicorn's `receive` answers
    `http.disconnect` then)."""

    async def chunks() -> AsyncGenerator[Mapping[str, Any], None]:
        async for chunk in body:
            yield {"type": "http.response.body", "body": chunk, "more_body": True}
        yield {"type": "http.response.body", "body": b"", "more_body": False}

    await _send_until_gone(body, chunks(), receive(), send)


async def _send_until_gone(
    body: AsyncGenerator[bytes, None],
    messages: AsyncGenerator[Mapping[str, Any], None],
    gone: Awaitable[Any],
    send: _Send,
) -> None:
    """Send `messages` (made of a stream's `body`) until they end or `gone` is done (the client
    went away), which cancels this task; `body` is closed either way."""
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
    except asyncio.CancelledError:
        if not left.done() or left.cancelled():
            raise  # not the client: the server is stopping
        task.uncancel()
    except OSError:  # uvicorn's ClientDisconnected: the connection is gone (a server's close)
        pass
    finally:
        sending = False
        left.cancel()
        await messages.aclose()
        await body.aclose()


def _origin_allowed(scope: Mapping[str, Any]) -> bool:
    """A browser's WebSocket (it sends `Origin`) from an origin the CORS settings allow; a
    client that sends no Origin is no browser page and is not bound by them, as for CORS."""
    from corsheaders.conf import conf
    from corsheaders.middleware import CorsMiddleware

    origin = dict(scope.get("headers", ())).get(b"origin", b"").decode("latin-1")
    if not origin or conf.CORS_ALLOW_ALL_ORIGINS:
        return True
    cors = CorsMiddleware(lambda _: None)  # type: ignore[arg-type]
    return cors.origin_found_in_white_lists(origin, urlsplit(origin))


async def _ws_refuse(scope: Mapping[str, Any], send: _Send, response: HttpResponseBase) -> None:
    """Refuse a WebSocket handshake with `response` (an API error: its status, JSON body and
    `WWW-Authenticate` or `Retry-After`), where the server can answer the handshake with an HTTP
    response (the ASGI extension `websocket.http.response`: uvicorn's); else with the close
    before the accept that ASGI defines (the server answers 403)."""
    if "websocket.http.response" not in (scope.get("extensions") or {}):
        await send({"type": "websocket.close"})
        return
    headers = [(b"content-type", b"application/json")]
    for name in ("WWW-Authenticate", "Retry-After"):
        if name in response:
            headers.append((name.lower().encode(), response[name].encode("latin-1")))
    start = {"type": "websocket.http.response.start", "status": response.status_code}
    await send({**start, "headers": headers})
    body = response.content if isinstance(response, HttpResponse) else b""
    await send({"type": "websocket.http.response.body", "body": body})


_WS_HEARTBEAT = '{"event":"heartbeat"}'


def _ws_message(block: bytes) -> str | None:
    """One event of the stream's text/event-stream form as a WebSocket message:
    `{"event": …, "id": …, "data": …}` (`id` only where the event has one), the heartbeat
    comment as `{"event": "heartbeat"}`; None for what only EventSource reads (`retry`). Each
    `data` is one line of JSON (games.streams._event), so it is carried over as it is."""
    if block.startswith(b":"):
        return _WS_HEARTBEAT
    fields = dict(line.split(b": ", 1) for line in block.split(b"\n") if b": " in line)
    if b"event" not in fields:
        return None
    head = b'{"event":' + orjson.dumps(fields[b"event"].decode())
    if b"id" in fields:
        head += b',"id":' + orjson.dumps(int(fields[b"id"]))
    return (head + b',"data":' + fields.get(b"data", b"null") + b"}").decode()


# The stream's `reconnect` ends a socket with a close code instead of a message: 1012 (service
# restart) when the process is stopping, 1013 (try again later) otherwise.
_WS_RECONNECT = b"event: reconnect\n"
_WS_RESTART = b'"reason":"restart"'


async def _send_ws_events(
    body: AsyncGenerator[bytes, None],
    receive: _Receive,
    send: _Send,
    answer: SocketAnswer | None = None,
) -> None:
    """Send `body`'s events as WebSocket messages until it ends (then close, 1000; after a
    `reconnect`, 1012 or 1013) or the client goes away. Each message the client sends gets
    `answer`'s text back, one message at a time (a match socket's moves:
    games.streams.MatchSocketMoves); with no `answer` (the me and lobby sockets) it is read and
    ignored."""

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

    async def messages() -> AsyncGenerator[Mapping[str, Any], None]:
        close = 1000
        async for chunk in body:
            for block in chunk.split(b"\n\n"):
                if block.startswith(_WS_RECONNECT):
                    close = 1012 if _WS_RESTART in block else 1013
                    break
                if block and (message := _ws_message(block)) is not None:
                    yield {"type": "websocket.send", "text": message}
            else:
                continue
            break
        await answering.acquire()  # never given back: nothing is answered after the close
        yield {"type": "websocket.close", "code": close}

    await _send_until_gone(body, messages(), until_disconnect(), send)


application = LiveASGIHandler()


# A request's line and headers, in bytes.
MAX_HEAD_BYTES = 32 * 1024
# HttpProtocol's answers (code `invalid`).
_MALFORMED = gettext_noop("Malformed HTTP request: %(reason)s.")
_HEAD_TOO_LARGE = gettext_noop("The request line and headers must be at most %(limit)d bytes.")
_TOO_SLOW = gettext_noop("The request was not sent whole within %(seconds)s seconds.")
# A WebSocket message from a client, in bytes (a match socket's `move`, games.streams, is a
# hundred or so): a larger one closes the socket with 1009. The documented `--ws-max-size`;
# uvicorn's own default (16 MiB) is never used.
WS_MAX_SIZE = 4096


def _error_bytes(status: int, message: str, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """An HTTP response with the API's JSON error body (`invalid`), closing the connection."""
    body = orjson.dumps({"code": "invalid", "message": message})
    content = [STATUS_LINE[status]]
    for name, value in default_headers:
        content += [name, b": ", value, b"\r\n"]
    content += [b"content-type: application/json\r\n", b"connection: close\r\n"]
    content += [b"content-length: %d\r\n\r\n" % len(body), body]
    return b"".join(content)


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets, sans-I/O: `--ws auto`) whose refusal of a
    malformed handshake (no Sec-WebSocket-Key, a bad version…) is the API's JSON error with the
    same status, not websockets' plain text."""

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any]):
        super().__init__(config, server_state, app_state)
        accept = self.conn.accept

        def accept_or_refuse_in_json(request: WebSocketRequest) -> WebSocketResponse:
            response = accept(request)
            if response.status_code == 101:
                return response
            message = bytes(response.body).decode("utf-8", "replace").strip()
            body = orjson.dumps({"code": "invalid", "message": message})
            headers = Headers(
                [
                    ("Date", email.utils.formatdate(usegmt=True)),
                    ("Connection", "close"),
                    ("Content-Type", "application/json"),
                    ("Content-Length", str(len(body))),
                ]
            )
            return WebSocketResponse(response.status_code, response.reason_phrase, headers, body)

        self.conn.accept = accept_or_refuse_in_json  # type: ignore[method-assign]


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol (`--http pisyedili_api.asgi:HttpProtocol`), for every
    uvicorn command of the deployment:

    - Its TCP connections give up after LIVE_SEND_TIMEOUT seconds with sent data unacknowledged
      (TCP_USER_TIMEOUT, Linux): zero-window probes answered by a client that reads nothing
      count too. uvicorn then sees the connection lost, and a stream ends as on a disconnect. A
      client that reads, however idle, acknowledges its heartbeats and is never dropped by it.
    - A client has LIVE_READ_TIMEOUT seconds to send a whole request (line, headers and body)
      from its first byte, or from the connection's opening for its first request: then `408`
      and the connection closed (an idle kept-alive connection is uvicorn's
      `--timeout-keep-alive`'s). A stream or a WebSocket has sent its request once it is open.
    - A request's line and headers are at most MAX_HEAD_BYTES: `431` (httptools keeps no bound).
    - Malformed HTTP gets `400` with the API's JSON error body; so do a malformed WebSocket
      handshake (WebSocketProtocol) and the
      two above.
    - uvicorn's proxy headers middleware is taken off: the application reads X-Forwarded-For
      as NUM_PROXIES says (the throttles, the stream slots) and X-Forwarded-Proto as
      DJANGO_SECURE_PROXY_SSL_HEADER says. uvicorn would otherwise take both from any client on
      127.0.0.1 (its FORWARDED_ALLOW_IPS), e.g. through a proxy on the same host that passes
      them on.
    - A WebSocket's messages are at most WS_MAX_SIZE bytes, whatever `--ws-max-size` says.
    """

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        if not config.loaded:
            config.load()
        # Once per process (every connection's protocol shares the config): the WebSocket
        # protocol, created on an upgrade, reads the same app and bound.
        while isinstance(config.loaded_app, ProxyHeadersMiddleware):
            config.loaded_app = config.loaded_app.app
        config.proxy_headers = False
        config.ws_max_size = min(config.ws_max_size, WS_MAX_SIZE)
        # A WebSocket's messages go out uncompressed, as the streams' events: no deflate
        # context per socket (memory, CPU), whatever `--ws-per-message-deflate` says.
        config.ws_per_message_deflate = False
        super().__init__(config, server_state, app_state, _loop)
        if config.ws_protocol_class is WebSocketsSansIOProtocol:
            self.ws_protocol_class = WebSocketProtocol
        self._read_timer: asyncio.TimerHandle | None = None
        self._messages = 0  # requests begun on this connection
        self._in_message = False  # a request begun and not yet whole
        self._in_head = False  # … and its headers not yet whole
        self._head_bytes = 0
        self._head_too_large = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if (
            hasattr(socket, "TCP_USER_TIMEOUT")
            and sock is not None
            and sock.family in (socket.AF_INET, socket.AF_INET6)
        ):
            timeout = int(settings.LIVE_SEND_TIMEOUT * 1000)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, timeout)
        super().connection_made(transport)
        self._read_timer_start()

    def connection_lost(self, exc: Exception | None) -> None:
        self._read_timer_stop()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """uvicorn's call on each open connection when the server starts its graceful shutdown
        (SIGTERM, Ctrl-C), once it has stopped accepting: the process's hub drains (every
        stream sends `reconnect` and ends, every waiting long-poll answers now: games.events),
        so that the connections end within `--timeout-graceful-shutdown`; a request under way
        ends its connection once answered, an idle kept-alive connection is closed now. The
        lifespan's shutdown comes only after that, and a WebSocket gets uvicorn's own close
        (1012)."""
        events.hub().drain()
        super().shutdown()

    def data_received(self, data: bytes) -> None:
        head_of, was_in_head = self._messages, self._in_head
        super().data_received(data)
        # Still in the same request's headers: all of `data` was headers (httptools holds them
        # until each is whole, so they are counted as they arrive).
        same_head = self._in_head and was_in_head and head_of == self._messages
        if same_head and self._head_count(len(data)) and not self.transport.is_closing():
            self._refuse(431, _HEAD_TOO_LARGE, {"limit": MAX_HEAD_BYTES})

    def send_400_response(self, msg: str) -> None:
        if self._head_too_large:
            self._refuse(431, _HEAD_TOO_LARGE, {"limit": MAX_HEAD_BYTES})
            return
        # Called in httptools' error handler: its reason (English) says what is malformed.
        error = sys.exc_info()[1]
        reason = str(error).strip().rstrip(".") if error is not None else ""
        self._refuse(400, _MALFORMED, {"reason": reason or msg.rstrip(".")})

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._messages += 1
        self._in_message = self._in_head = True
        self._head_bytes = 0
        self._read_timer_start()

    def on_url(self, url: bytes) -> None:
        if self._head_count(len(url)):
            raise ValueError("request line too long")  # httptools: HttpParserError
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        # Whole headers arriving in one read are counted here, as they are parsed.
        if self._head_count(len(name) + len(value) + 4):
            raise ValueError("request headers too large")  # httptools: HttpParserError
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._in_message = False
        self._read_timer_stop()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._in_message = self._in_head = False
        self._read_timer_stop()
        super().handle_websocket_upgrade()

    def _head_count(self, size: int) -> bool:
        """Count `size` bytes of the request's line and headers; True past MAX_HEAD_BYTES (an
        exception in a parser callback then stops httptools, whose error handler calls
        send_400_response: 431)."""
        if self._in_head:
            self._head_bytes += size
            self._head_too_large = self._head_too_large or self._head_bytes > MAX_HEAD_BYTES
        return self._head_too_large

    def _read_timer_start(self) -> None:
        if self._read_timer is None:
            self._read_timer = self.loop.call_later(
                settings.LIVE_READ_TIMEOUT, self._read_timed_out
            )

    def _read_timer_stop(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        """LIVE_READ_TIMEOUT has gone by and the request is not whole (or no request came): 408
        where nothing of a response has been sent on the connection since its last request,
        else (a response under way) the connection is closed as it is."""
        self._read_timer = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if self._in_head:
            answer = cycle is None or cycle.response_complete  # cycle: the previous request's
        else:
            answer = self._in_message and cycle is not None and not cycle.response_started
        if answer:
            self._refuse(408, _TOO_SLOW, {"seconds": f"{settings.LIVE_READ_TIMEOUT:g}"})
        else:
            self.transport.close()

    def _refuse(self, status: int, template: str, params: dict[str, Any]) -> None:
        """Answer `status` with the API's JSON error, its message `template` % `params` in the
        language of the request's Accept-Language where its headers came that far, and close
        the connection."""
        self._read_timer_stop()
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True  # the application sends nothing more here
        with translation.override(self._language()):
            message = gettext(template) % params
        default_headers = self.server_state.default_headers
        self.transport.write(_error_bytes(status, message, default_headers))
        self.transport.close()

    def _language(self) -> str:
        for name, value in self.headers or ():
            if name == b"accept-language":
                for code, _ in parse_accept_lang_header(value.decode("latin-1")):
                    with contextlib.suppress(LookupError):
                        return translation.get_supported_language_variant(code)
        return settings.LANGUAGE_CODE


if _sync_only := [
    m for m in settings.MIDDLEWARE if not getattr(import_string(m), "async_capable", False)
]:
    logger.warning(
        "sync-only middleware %s: a waiting long-poll holds the process's one thread for sync "
        "code, and every other stream opening and long-poll waits for it",
        ", ".join(_sync_only),
    )

# No broker (the embedded default): the beat's schedule runs in this process.
from pisyedili_api.tasks import embedded_beat_start  # noqa: E402

embedded_beat_start()
