"""JSON is the only request format, parsed by orjson (drf-orjson-renderer); bodies are bounded
(64 KB) even without Content-Length."""

from __future__ import annotations

import io
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from drf_orjson_renderer.parsers import ORJSONParser
from rest_framework.exceptions import ParseError


class BoundedJSONParser(ORJSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.MAX_REQUEST_BODY_BYTES
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise ParseError(
                _("The request body must be at most %(limit)d bytes.") % {"limit": limit}
            )
        return super().parse(io.BytesIO(raw), media_type, parser_context)
