"""Logging filters: of the settings' LOGGING, and of uvicorn's loggers (live.asgi)."""

from __future__ import annotations

import logging
import re

# The longest line a filtered record keeps of its message.
ONE_LINE_CHARS = 200


class OneLine(logging.Filter):
    """The record as one short line: its message with control characters escaped, cut to
    ONE_LINE_CHARS, and no traceback. On `django.security.DisallowedHost`: every request whose
    `Host` is not in DJANGO_ALLOWED_HOSTS (any scanner of the address) logs its message with the
    traceback of the check, 1-2 KB, and the message repeats the host it was sent."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage().encode("unicode_escape").decode("ascii")
        if len(message) > ONE_LINE_CHARS:
            message = message[: ONE_LINE_CHARS - 1] + "…"
        record.msg, record.args = message, None
        record.exc_info = record.exc_text = record.stack_info = None
        return True


# A path's query string, as uvicorn writes a request's path in its lines.
_QUERY = re.compile(r"(/[^\s?\"']*)\?[^\s\"']*")


class NoQueries(logging.Filter):
    """A path's query string written as `?…`: it may hold a stream ticket (`…/events?ticket=…`,
    live.tickets), which opens its stream for minutes (STREAM_TICKET_SECONDS), in any spelling
    a server decodes (`%74icket=`), or a client's token put there by mistake; and uvicorn logs a
    WebSocket's path with its query string at INFO, `--no-access-log` or not (and its access
    log, where on, every request's). The nginx access log of deploy/nginx.conf drops it too."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "?" in message:
            record.msg, record.args = _QUERY.sub(r"\1?…", message), None
        return True
