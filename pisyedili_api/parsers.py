"""JSON is the only request format, parsed by orjson; bodies are bounded (64 KB) even without
Content-Length, and nested at most MAX_DEPTH levels. A body that is not JSON is 400 `invalid`
naming `body`, with where it fails (line and column) in the caller's language, never the
parser's own words; so is a body nested deeper.

orjson itself parses up to 1,024 levels, but Python code that walks a value recurses (DRF's
fields take `str(value)`, a message shows a value as JSON): at about 1,000 levels that is a
RecursionError, a 500. No body of this API needs more than a few levels, so nothing past
MAX_DEPTH reaches a view, a serializer or a message."""

from __future__ import annotations

from typing import Any

import orjson
from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework.parsers import BaseParser

# The deepest a request body may nest: an object or a list is a level (`{"a": [1]}` is two).
MAX_DEPTH = 32


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether the parsed JSON `value` nests objects and lists more than `limit` levels; by a
    loop, not by recursion, so that any depth is measured."""
    pending = [(value, 1)] if isinstance(value, dict | list) else []
    while pending:
        node, depth = pending.pop()
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, dict | list):
                if depth >= limit:
                    return True
                pending.append((child, depth + 1))
    return False


class BoundedJSONParser(BaseParser):
    media_type = "application/json"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        # Here, not at the top: DRF imports this module while pisyedili_api.errors is imported.
        from .errors import ApplicationError

        limit = settings.MAX_REQUEST_BODY_BYTES
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            message = _("The request body must be at most %(limit)d bytes.") % {"limit": limit}
            raise ApplicationError("invalid", message, {"body": [message]})
        try:
            data = orjson.loads(raw)  # UTF-8 only, as RFC 8259 asks
        except orjson.JSONDecodeError as exc:
            message = _("The body is not JSON (line %(line)d, column %(column)d).") % {
                "line": exc.lineno,
                "column": exc.colno,
            }
            raise ApplicationError("invalid", message, {"body": [message]}) from None
        # Fewer brackets than levels allowed cannot nest too deep: most bodies are not walked.
        if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and too_deep(data):
            message = _("The body may nest objects and lists at most %(limit)d levels deep.") % {
                "limit": MAX_DEPTH
            }
            raise ApplicationError("invalid", message, {"body": [message]})
        return data
