"""The one middleware of the live tier: a waiting long-poll resolves to its own view."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from pisyedili_api.middleware import SyncAndAsyncMiddleware

# The WSGI environ key live.asgi sets on a waiting long-poll (`GET …/state?after_version=V&wait=S`).
LONG_POLL = "pisyedili.live.long_poll"


class LongPollRouting(SyncAndAsyncMiddleware):
    """A waiting long-poll that live.asgi marked (its environ's LONG_POLL) resolves through the
    URLconf live.urls, to the view live.streams.match_state_long_poll, which hands its wait to
    live.asgi, to await on the hub instead of holding a thread and a database connection
    (request.urlconf, Django's per-request URLconf). Every other request resolves through
    ROOT_URLCONF."""

    def __call__(self, request: HttpRequest) -> Any:
        if request.META.get(LONG_POLL):
            # The stubs leave out request.urlconf, which middleware may set (Django's docs).
            request.urlconf = "live.urls"  # type: ignore[attr-defined]
        return self.get_response(request)
