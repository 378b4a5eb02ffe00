"""JSON responses encoded by orjson (drf-orjson-renderer), reading exactly as DRF's own.

orjson encodes the dicts, lists, strings and numbers of a response several times faster than
the standard library. What it does not encode itself goes to DRF's JSONEncoder, as with
rest_framework.renderers.JSONRenderer: datetimes (passed through on purpose, so that UTC keeps
DRF's `…Z` form), lazy translation strings, Decimals, querysets.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
from drf_orjson_renderer.renderers import ORJSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder


class JSONRenderer(ORJSONRenderer):
    options = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS
    default = staticmethod(JSONEncoder().default)


def json_datetime(value: datetime) -> str:
    """`value` as every answer writes a datetime (DRF's encoder: ISO 8601, UTC as `…Z`), for a
    payload built as a dict before it is sent (an event, a notice)."""
    return str(JSONRenderer.default(value))


class ErrorsAsJSON:
    """A view mixin for the routes whose answers are not JSON (the CSV standings, the schema in
    YAML, the docs pages in HTML): only a successful GET is; an error body (docs/api.md
    "Errors") and OPTIONS are the API's JSON, never the YAML or HTML the page would have
    been."""

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        if isinstance(response, Response) and (
            response.status_code >= 400 or request.method not in ("GET", "HEAD")
        ):
            response.accepted_renderer = JSONRenderer()
            response.accepted_media_type = JSONRenderer.media_type
        return response
