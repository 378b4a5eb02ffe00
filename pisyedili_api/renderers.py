"""JSON responses encoded by orjson (drf-orjson-renderer), reading exactly as DRF's own.

orjson encodes the dicts, lists, strings and numbers of a response several times faster than
the standard library. What it does not encode itself goes to DRF's JSONEncoder, as with
rest_framework.renderers.JSONRenderer: datetimes (passed through on purpose, so that UTC keeps
DRF's `…Z` form), lazy translation strings, Decimals, querysets.
"""

from __future__ import annotations

import orjson
from drf_orjson_renderer.renderers import ORJSONRenderer
from rest_framework.utils.encoders import JSONEncoder


class JSONRenderer(ORJSONRenderer):
    options = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS
    default = staticmethod(JSONEncoder().default)
