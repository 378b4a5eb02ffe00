"""uvicorn's protocols for the live tier (`--http live.asgi:HttpProtocol`): what a client may
send before the application sees it, and how long a connection may stay unread
(HttpProtocol's docstring says each), and the graceful shutdown's drain of the hub.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import socket
import sys
from typing import Any

import orjson
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, gettext_noop
from django.utils.translation.trans_real import parse_accept_lang_header
from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.datastructures import Headers
from websockets.http11 import Request as WebSocketRequest
from websockets.http11 import Response as WebSocketResponse

from . import hub


def language_of(headers: Any) -> str:
    """The supported language of a request's Accept-Language (`headers`: ASGI's or httptools'
    (name, value) byte pairs), else LANGUAGE_CODE."""
    for name, value in headers or ():
        if name.lower() == b"accept-language":
            for code, _ in parse_accept_lang_header(value.decode("latin-1")):
                with contextlib.suppress(LookupError):
                    return translation.get_supported_language_variant(code)
    return settings.LANGUAGE_CODE


# A request's line and headers, in bytes.
MAX_HEAD_BYTES = 32 * 1024
# HttpProtocol's answers (code `invalid`).
_MALFORMED = gettext_noop("Malformed HTTP request: %(reason)s.")
_HEAD_TOO_LARGE = gettext_noop("The request line and headers must be at most %(limit)d bytes.")
_TOO_SLOW = gettext_noop("The request was not sent whole within %(seconds)s seconds.")
_HANDSHAKE = gettext_noop("The WebSocket handshake was refused: %(reason)s.")
_HANDSHAKE_PREFIX = "Failed to open a WebSocket connection"  # websockets' refusals
# A WebSocket message from a client, in bytes (a match socket's `move`, live.streams, is a
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
            # websockets' own words say what was wrong with the handshake: the reason, in
            # the sentence of the request's language (as a malformed request's).
            said = bytes(response.body).decode("utf-8", "replace").strip()
            reason = said.removeprefix(_HANDSHAKE_PREFIX).lstrip(":").strip().rstrip(".")
            pairs = [(k.encode("latin-1", "replace"), v.encode("latin-1", "replace"))
                     for k, v in request.headers.raw_items()]  # fmt: skip
            with translation.override(language_of(pairs)):
                message = gettext(_HANDSHAKE) % {"reason": reason or response.reason_phrase}
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
    """uvicorn's httptools protocol (`--http live.asgi:HttpProtocol`), for every
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
        stream sends `reconnect` and ends, every waiting long-poll answers now: live.hub),
        so that the connections end within `--timeout-graceful-shutdown`; a request under way
        ends its connection once answered, an idle kept-alive connection is closed now. The
        lifespan's shutdown comes only after that, and a WebSocket gets uvicorn's own close
        (1012)."""
        hub.hub().drain()
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
        return language_of(self.headers)
