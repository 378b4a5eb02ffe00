"""Request-level guards that must answer before any view runs."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.middleware.http import ConditionalGetMiddleware as DjangoConditionalGetMiddleware
from django.utils.cache import patch_vary_headers, set_response_etag
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import gettext as _

from .caching import no_store
from .errors import error_body
from .logfilters import Repeated


class SyncAndAsyncMiddleware:
    """A middleware that runs in the caller's mode: under live.asgi a sync-only one would
    switch a stream's opening (Django's ASGI application) to a thread and back. A subclass's
    `__call__` returns `self._acall(request)` when `iscoroutinefunction(self)`."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]):
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        raise NotImplementedError


class BodySizeLimitMiddleware(SyncAndAsyncMiddleware):
    """Refuse a body over MAX_REQUEST_BODY_BYTES (64 KB) with the documented 400 `invalid` JSON.

    DRF's parsers read the stream directly and never apply DATA_UPLOAD_MAX_MEMORY_SIZE, so the
    limit is enforced here from Content-Length (and again by BoundedJSONParser for bodies sent
    without one).
    """

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self._acall(request)
        refusal = self._refusal(request)
        return refusal if refusal is not None else self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        refusal = self._refusal(request)
        return refusal if refusal is not None else await self.get_response(request)

    def _refusal(self, request: HttpRequest) -> HttpResponse | None:
        limit = settings.MAX_REQUEST_BODY_BYTES
        raw = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(raw)
        except ValueError:
            length = -1
        if length < 0 or length > limit:
            message = _("The request body must be at most %(limit)d bytes.") % {"limit": limit}
            return JsonResponse(error_body("invalid", message, {"body": [message]}), status=400)
        return None


class ConditionalGetMiddleware(DjangoConditionalGetMiddleware):
    """Django's: every GET answer that may be stored (no `Cache-Control: no-store`) gets an
    `ETag`, a hash of its body, and `If-None-Match` with it is `304 Not Modified` (docs/api.md
    "Conventions"). The ETag is the body's own: two callers get the same one only for the same
    bytes, and the per-seat answers (`…/state`, the move log, the streams) are no-store and get
    none, nor does an error (no 304 ever answers for one). An API answer may depend on the
    caller's token and on the formats it accepts: it varies on `Authorization` and `Accept`, so
    no cache hands one caller's body to another. The answer to any other method than GET is
    `no-store, private` (pisyedili_api.caching). A 304 repeats the `ETag` and `Vary` of the 200
    it stands for, compression's included (pisyedili_api.compression.validators_as_sent)."""

    def needs_etag(self, response: HttpResponseBase) -> bool:
        return 200 <= response.status_code < 300 and super().needs_etag(response)

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if request.path.startswith("/api/"):
            patch_vary_headers(response, ("Accept", "Authorization"))
            # The answer to a write is the caller's (a token, a stream ticket, a webhook's
            # secret, a join code): no cache keeps it, whatever it holds.
            if request.method not in ("GET", "HEAD") and not response.has_header("Cache-Control"):
                no_store(response)
        if request.method == "GET" and self.needs_etag(response):
            from .compression import validators_as_sent  # it imports this module

            if not response.has_header("ETag"):
                set_response_etag(response)
            validators_as_sent(request, response)
        return super().process_response(request, response)


class DatabaseUnavailableMiddleware(MiddlewareMixin):
    """A request whose database does not answer (down, restarting, its connection pool out of
    connections for its whole timeout): `503 unavailable` with Retry-After, in the API's error
    shape, as `GET /health` answers then, not a `500 server_error`: the client retries it (a
    write with its Idempotency-Key applies once), and the log says it once a minute, not with a
    traceback a request."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        _DATABASE_DOWN.warning(exc_info=exception)
        response = JsonResponse(error_body("unavailable"), status=503)
        response["Retry-After"] = str(DATABASE_RETRY_AFTER)
        return no_store(response)


# Seconds a client is asked to wait before it asks again while the database does not answer.
DATABASE_RETRY_AFTER = 5
_DATABASE_DOWN = Repeated(
    logging.getLogger(__name__), "database unavailable: requests are answered 503"
)
