"""What every app's admin shares."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest


class ReadOnlyAdmin:
    """A record of play, ratings or standings (docs/operations.md "The admin"): staff view and
    search it, never add, change or delete it there. Mixed into a ModelAdmin or an inline."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
