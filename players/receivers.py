"""What the players app does when an auth user changes (connected in players.apps).

A password change, or the account deactivated, revokes every API token of the user: a token
is worth what the password was, and an inactive account's tokens authenticate nothing anyway.
Deleting them ends the tokens' open streams too (live.hub, on the rows' post_delete).
Within `tokens_kept(digest)` (the player's own password change, POST /auth/password) the token
of that digest stays: the caller's own."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from .models import ApiToken

_KEPT: ContextVar[str | None] = ContextVar("players.tokens_kept", default=None)


@contextmanager
def tokens_kept(digest: str) -> Iterator[None]:
    """While inside, a change of a user's credentials revokes every token but `digest`'s."""
    reset = _KEPT.set(digest)
    try:
        yield
    finally:
        _KEPT.reset(reset)


# The fields whose change revokes the user's tokens.
_CREDENTIALS = frozenset({"password", "is_active"})


def user_pre_save(sender: Any, instance: Any, raw: bool = False, **kwargs: Any) -> None:
    """Note whether this save changes the password or deactivates the account."""
    update_fields = kwargs.get("update_fields")
    instance._revoke_tokens = False
    if raw or instance.pk is None:
        return
    if update_fields is not None and not _CREDENTIALS & set(update_fields):
        return  # a login's last_login, and any other save that leaves the credentials
    old = sender.objects.filter(pk=instance.pk).values("password", "is_active").first()
    if old is not None:
        instance._revoke_tokens = old["password"] != instance.password or (
            old["is_active"] and not instance.is_active
        )


def user_post_save(sender: Any, instance: Any, raw: bool = False, **kwargs: Any) -> None:
    if not raw and getattr(instance, "_revoke_tokens", False):
        instance._revoke_tokens = False
        ApiToken.objects.filter(user_id=instance.pk).exclude(digest=_KEPT.get() or "").delete()
