"""JSON is the only request format; bodies are bounded (64 KB) even without Content-Length."""

from __future__ import annotations

import io
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class BoundedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.MAX_REQUEST_BODY_BYTES
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise ParseError(f"The request body must be at most {limit} bytes.")
        return super().parse(io.BytesIO(raw), media_type, parser_context)
