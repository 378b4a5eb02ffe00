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


_TICKET = re.compile(r"(\bticket=)[^&\s\"']+")


class NoTickets(logging.Filter):
    """A stream ticket (`…/events?ticket=…`, live.tickets) written as `ticket=…`: it opens its
    stream for minutes (STREAM_TICKET_SECONDS), and uvicorn logs a WebSocket's path with its
    query string at INFO, `--no-access-log` or not (and its access log, where on, an event
    stream's)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "ticket=" in message:
            record.msg, record.args = _TICKET.sub(r"\1…", message), None
        return True
