"""Throttles of the auth routes beyond DRF's per-client ScopedRateThrottle, the admin login
throttled as `/auth/token` is, and the lockout response of django-axes."""

from __future__ import annotations

import hashlib
import math
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from pisyedili_api.errors import error_body


class UsernameRateThrottle(SimpleRateThrottle):
    """Attempts on one username (any letter case, the spaces around it trimmed) from every
    client together, scope `auth_username`: spreading guesses over many addresses does not
    multiply them. Counts live in the shared cache (settings CACHES)."""

    scope = "auth_username"

    def username(self, request: Request) -> object:
        return request.data.get("username") if isinstance(request.data, dict) else None

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        username = self.username(request)
        if isinstance(username, str):
            username = username.strip()  # as the login's field trims it
        if not isinstance(username, str) or not username:
            return None  # the body is refused as 400 by the view
        ident = hashlib.sha256(username.lower().encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}


class _AdminUsernameRateThrottle(UsernameRateThrottle):
    """The admin login form's username, on the counter of /auth/token's."""

    def username(self, request: Request) -> object:
        return request._request.POST.get("username")


class _ClientRateThrottle(SimpleRateThrottle):
    """Per client address, scope `auth`: the counter ScopedRateThrottle keeps for
    `/auth/register` and `/auth/token` (its key for a caller without a user)."""

    scope = "auth"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def admin_login(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
    """The admin's login page (`/admin/login/`, admin.site.login). Each try (a POST: a password
    hash) counts with `/auth/token`'s, per client (`auth`) and per username (`auth_username`):
    past either, 429 `throttled` with Retry-After, before any password is checked."""
    if request.method == "POST":
        wrapped, view = Request(request), APIView()
        waits = [
            throttle.wait()
            for throttle in (_ClientRateThrottle(), _AdminUsernameRateThrottle())
            if not throttle.allow_request(wrapped, view)
        ]
        if waits:
            response = JsonResponse(error_body("throttled"), status=429)
            response["Retry-After"] = str(max(1, math.ceil(max(w or 0 for w in waits))))
            return response
    return admin.site.login(request, extra_context)


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
