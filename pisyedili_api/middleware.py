"""Request-level guards that must answer before any view runs."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from .errors import error_body


class BodySizeLimitMiddleware:
    """Refuse a body over MAX_REQUEST_BODY_BYTES (64 KB) with the documented 400 `invalid` JSON.

    DRF's parsers read the stream directly and never apply DATA_UPLOAD_MAX_MEMORY_SIZE, so the
    limit is enforced here from Content-Length (and again by BoundedJSONParser for bodies sent
    without one).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.MAX_REQUEST_BODY_BYTES
        raw = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(raw)
        except ValueError:
            length = -1
        if length < 0 or length > limit:
            message = f"The request body must be at most {limit} bytes."
            return JsonResponse(error_body("invalid", message, {"body": [message]}), status=400)
        return self.get_response(request)
