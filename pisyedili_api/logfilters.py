"""Logging filters of the settings' LOGGING."""

from __future__ import annotations

import logging

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
