"""Token auth that loads the user and the player in the same query (the move endpoint counts)."""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed


class PlayerTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        try:
            token = Token.objects.select_related("user", "user__player").get(key=key)
        except Token.DoesNotExist:
            raise AuthenticationFailed("Invalid token.") from None
        if not token.user.is_active:
            raise AuthenticationFailed("User inactive or deleted.")
        if not hasattr(token.user, "player"):
            raise AuthenticationFailed("This user is not a player.")
        return token.user, token
