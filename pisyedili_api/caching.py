"""What a browser or a proxy may keep of an answer (docs/api.md "Conventions", ETags).

Every successful GET answer may be kept, and gets an ETag of its body
(pisyedili_api.middleware.ConditionalGetMiddleware), but those that are the caller's alone: a
seat's view of its match (its hand), the caller's own account, sessions, push subscriptions,
webhooks, invitations, queue entry, tournament tables and place on a leaderboard, and a
private match's join code (shown to its creator alone). Those are `no_store`: a browser on a
shared computer keeps no copy of them on disk for the next person to find once its player
signs out, and they get no ETag."""

from __future__ import annotations

from typing import TypeVar

from django.http.response import HttpResponseBase
from django.utils.cache import patch_cache_control

AnyResponse = TypeVar("AnyResponse", bound=HttpResponseBase)


def no_store(response: AnyResponse) -> AnyResponse:
    """`Cache-Control: no-store, private` on `response`: no cache keeps it."""
    patch_cache_control(response, no_store=True, private=True)
    return response
