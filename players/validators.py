"""Validators Django does not ship."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _


class NotBlankPasswordValidator:
    """AUTH_PASSWORD_VALIDATORS: a password of only whitespace is refused, whatever its length."""

    def validate(self, password: str, user: Any = None) -> None:
        if not password.strip():
            raise ValidationError(_("This password is only whitespace."), code="password_blank")

    def get_help_text(self) -> str:
        return _("Your password can't be only whitespace.")
