"""Compressed responses: brotli or gzip, as the client's Accept-Encoding asks, for a whole
(not streamed) textual response over COMPRESS_MIN_BYTES (docs/api.md "Conventions").

Built on Django's own gzip (django.utils.text.compress_string, with its random-length header
against BREACH, as GZipMiddleware) and Google's `brotli` bindings. Not GZipMiddleware itself,
nor a package such as django-compression-middleware: both compress streamed responses too, and
an event stream must reach the client event by event, never held in a compressor's buffer (the
ASGI deployment sends a stream's events itself: a Content-Encoding on its headers would be a
lie). So a streamed response (an event stream, a file) is never touched; neither is one that
says `Cache-Control: no-transform`, one already encoded, or one that compression does not make
smaller. WebSockets never reach Django's middleware with a body: their events go out as
messages (live.asgi), uncompressed.

Sync and async (live.asgi): compressing a body of a few kilobytes takes
microseconds, so the async form does it on the loop rather than in a thread.
"""

from __future__ import annotations

from typing import Any

import brotli
from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils.cache import cc_delim_re, patch_vary_headers
from django.utils.text import compress_string

from .middleware import SyncAndAsyncMiddleware

# Brotli's quality 5: near its best ratio on JSON at a fraction of the time of 11.
BROTLI_QUALITY = 5
# As GZipMiddleware: up to this many random bytes in the gzip header (BREACH).
GZIP_MAX_RANDOM_BYTES = 100
_TEXTUAL = ("text/", "application/json", "+json", "yaml", "javascript", "xml")
_ENCODINGS = ("br", "gzip")  # preferred first, when the client weighs them alike


def accepted_encoding(header: str) -> str | None:
    """The encoding of _ENCODINGS the Accept-Encoding `header` weighs highest (q > 0; `*`
    stands for those it does not name), brotli on a tie; None for none of them."""
    weights: dict[str, float] = {}
    for part in header[:500].split(","):
        name, _, params = part.strip().partition(";")
        name, q = name.strip().lower(), 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if name:
            weights[name] = q
    best, best_q = None, 0.0
    for encoding in _ENCODINGS:
        q = weights.get(encoding, weights.get("*", 0.0))
        if q > best_q:
            best, best_q = encoding, q
    return best


def _compressible(response: HttpResponseBase) -> bool:
    if response.streaming or response.has_header("Content-Encoding"):
        return False
    if len(response.content) <= settings.COMPRESS_MIN_BYTES:  # type: ignore[attr-defined]
        return False
    content_type = response.get("Content-Type", "").split(";")[0].strip().lower()
    if not any(marker in content_type for marker in _TEXTUAL):
        return False
    directives = cc_delim_re.split(response.get("Cache-Control", ""))
    return all(d.strip().lower() != "no-transform" for d in directives)


def validators_as_sent(request: HttpRequest, response: HttpResponseBase) -> None:
    """Give `response` (a GET answer about to be compared with If-None-Match) the `Vary` and the
    `ETag` form it is sent with, so that a 304, which has no body to compress, repeats the
    200's (RFC 9110 15.4.5): `Vary: Accept-Encoding` where its body would be compressed for
    some client, a weak ETag where it would be for this one (compress_response changes the
    bytes; ConditionalGetMiddleware compares weakly, so If-None-Match still matches it)."""
    if not _compressible(response):
        return
    patch_vary_headers(response, ("Accept-Encoding",))
    etag = response.get("ETag")
    encoding = accepted_encoding(request.META.get("HTTP_ACCEPT_ENCODING", ""))
    if encoding is not None and etag and etag.startswith('"'):
        response["ETag"] = "W/" + etag


def compress_response(request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
    """`response` encoded as the client accepts, when it is worth it (in place)."""
    if not _compressible(response):
        return response
    # Whatever this client accepts, the body depends on what a client accepts.
    patch_vary_headers(response, ("Accept-Encoding",))
    encoding = accepted_encoding(request.META.get("HTTP_ACCEPT_ENCODING", ""))
    if encoding is None:
        return response
    content = response.content  # type: ignore[attr-defined]
    if encoding == "br":
        compressed = brotli.compress(content, quality=BROTLI_QUALITY)
    else:
        compressed = compress_string(content, max_random_bytes=GZIP_MAX_RANDOM_BYTES)
    if len(compressed) >= len(content):
        return response
    response.content = compressed  # type: ignore[attr-defined]
    response["Content-Length"] = str(len(compressed))
    response["Content-Encoding"] = encoding
    # Its ETag, if it has one, was made weak already (validators_as_sent): the bytes differ
    # from the ones a strong ETag names (RFC 9110 8.8.1).
    return response


class CompressionMiddleware(SyncAndAsyncMiddleware):
    """compress_response on every response: outermost but for CORS (settings.MIDDLEWARE)."""

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self._acall(request)
        return compress_response(request, self.get_response(request))

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        return compress_response(request, await self.get_response(request))
