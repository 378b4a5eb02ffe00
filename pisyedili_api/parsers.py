"""JSON is the only request format, parsed by orjson; bodies are bounded (64 KB) even without
Content-Length. A body that is not JSON is 400 `invalid` naming `body`, with where it fails
(line and column) in the caller's language, never the parser's own words."""

from __future__ import annotations

from typing import Any

import orjson
from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework.parsers import BaseParser


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
            return orjson.loads(raw)  # UTF-8 only, as RFC 8259 asks
        except orjson.JSONDecodeError as exc:
            message = _("The body is not JSON (line %(line)d, column %(column)d).") % {
                "line": exc.lineno,
                "column": exc.colno,
            }
            raise ApplicationError("invalid", message, {"body": [message]}) from None
