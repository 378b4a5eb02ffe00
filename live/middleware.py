"""The one middleware of the live tier: a waiting long-poll resolves to its async view."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from pisyedili_api.middleware import SyncAndAsyncMiddleware

# The ASGI scope key live.asgi sets on a waiting long-poll (`GET …/state?after_version=V&wait=S`).
LONG_POLL = "pisyedili.live.long_poll"


class LongPollRouting(SyncAndAsyncMiddleware):
    """A waiting long-poll that live.asgi marked (its scope's LONG_POLL) resolves through the
    URLconf live.urls, to the async view live.streams.match_state_long_poll, which awaits the
    hub instead of holding a thread and a database connection for its wait (request.urlconf,
    Django's per-request URLconf). Every other request resolves through ROOT_URLCONF."""

    def __call__(self, request: HttpRequest) -> Any:
        scope = getattr(request, "scope", None)
        if isinstance(scope, dict) and scope.get(LONG_POLL):
            # The stubs leave out request.urlconf, which middleware may set (Django's docs).
            request.urlconf = "live.urls"  # type: ignore[attr-defined]
        # Async: the coroutine of the next middleware's answer, awaited by Django's handler.
        return self.get_response(request)
