"""Logging filters: of the settings' LOGGING, and of uvicorn's loggers (live.asgi); and the
limit on a warning that would come once a request while a dependency is down (`Repeated`)."""

from __future__ import annotations

import logging
import re
import threading
import time
from typing import Any

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


class NoServiceUnavailable(logging.Filter):
    """Drop django.request's line of a `503 unavailable` answer: the server answers so on
    purpose while a dependency is down (its database, the live tier's Redis), once a request,
    and the part that noticed logs the outage itself (`Repeated`), so that one outage is a
    few lines, not one a request."""

    def filter(self, record: logging.LogRecord) -> bool:
        return getattr(record, "status_code", None) != 503


class Repeated:
    """A warning that comes once a request (or a task) while a dependency is down: logged at
    most once every `seconds` per process; a line after a quiet while with its traceback, one
    in a run with how many times it came since the line before."""

    def __init__(self, logger: logging.Logger, message: str, seconds: float = 60.0) -> None:
        self.logger, self.message, self.seconds = logger, message, seconds
        self._lock = threading.Lock()
        self._last: float | None = None
        self._count = 0

    def warning(self, exc_info: Any = None) -> None:
        with self._lock:
            self._count += 1
            now = time.monotonic()
            if self._last is not None and now - self._last < self.seconds:
                return
            count, self._last, self._count = self._count, now, 0
        if count == 1:
            self.logger.warning(self.message, exc_info=exc_info)
        else:
            self.logger.warning("%s (%d times since the last such line)", self.message, count)
