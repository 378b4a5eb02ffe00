"""Throttles of the auth routes beyond DRF's per-client ScopedRateThrottle, and the lockout
response of django-axes."""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from pisyedili_api.errors import error_body


class UsernameRateThrottle(SimpleRateThrottle):
    """Attempts on one username (any letter case) from every client together, scope
    `auth_username`: spreading guesses over many addresses does not multiply them. Counts live
    in the shared cache (settings CACHES)."""

    scope = "auth_username"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        username = request.data.get("username") if isinstance(request.data, dict) else None
        if not isinstance(username, str) or not username:
            return None  # the body is refused as 400 by the view
        ident = hashlib.sha256(username.lower().encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}


def lockout_response(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> JsonResponse:
    """AXES_LOCKOUT_CALLABLE: a username locked out after AXES_FAILURE_LIMIT failed logins
    (the API's /auth/token and the admin login alike) gets 429 `throttled` in the API's error
    shape, with Retry-After the whole cool-off (an upper bound of what is left of it)."""
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    response = JsonResponse(
        error_body("throttled", "Too many failed logins for this username; retry later."),
        status=429,
    )
    response["Retry-After"] = str(seconds)
    return response
