"""Token auth that loads the user and the player in one query (every API request pays it).

One SQL statement built from the models' own metadata (pisyedili_api.rawsql): the ORM's
select_related over three models cost more CPU to compile than the database spent answering it
(bench/api.py).

The move POST, the hottest route, does not run a query of its own for the token: the view reads
the key from the header (`token_key`) and the statement that locks the match also looks the key
up (`token_player_sql`, games.services).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated
from rest_framework.request import Request

from pisyedili_api import rawsql

from .models import Player


def _token_join(columns: str, where: str = "") -> str:
    q = connection.ops.quote_name
    User = get_user_model()
    user_pk = f"u.{q(User._meta.pk.column)}"  # type: ignore[union-attr]
    return (
        f"SELECT {columns}"
        f" FROM {q(Token._meta.db_table)} t"
        f" JOIN {q(User._meta.db_table)} u ON {user_pk} = t.{q('user_id')}"
        f" JOIN {q(Player._meta.db_table)} p ON p.{q('user_id')} = {user_pk}"
        f" WHERE t.{q('key')} = %s{where}"
    )


@cache
def _token_sql() -> str:
    q = connection.ops.quote_name
    user_pk = q(get_user_model()._meta.pk.column)  # type: ignore[union-attr]
    player_columns = ", ".join(f"p.{q(f.column)}" for f in Player._meta.concrete_fields)
    return _token_join(f"u.{user_pk}, u.{q('is_active')}, {player_columns}")


@cache
def token_player_sql() -> str:
    """A scalar subquery: the id of the active player whose token is the parameter, else NULL."""
    q = connection.ops.quote_name
    player_pk = q(Player._meta.pk.column)  # type: ignore[union-attr]
    active = q("is_active")
    return f"({_token_join(f'p.{player_pk}', f' AND u.{active}')})"


class _KeyFromHeader(TokenAuthentication):
    """DRF's own parsing of `Authorization: Token <key>`, stopping before the lookup."""

    def authenticate_credentials(self, key: str) -> tuple[None, str]:
        return None, key


def token_key(request: Request) -> str:
    """The key of `Authorization: Token <key>`, for a view that checks the key itself: 401
    (with DRF's messages) when the header is missing or malformed."""
    found = _KeyFromHeader().authenticate(request)
    if found is None:
        raise NotAuthenticated()
    return found[1]


def token_check(key: str) -> None:
    """401 unless `key` is the token of an active player (the ordinary lookup)."""
    PlayerTokenAuthentication().authenticate_credentials(key)


class PlayerTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        row = rawsql.fetch_one(_token_sql(), [key])
        if row is None:
            # No such token, or a user that is not a player (e.g. an admin account).
            raise AuthenticationFailed("Invalid token.")
        user_id, is_active, *player_row = row
        if not is_active:
            raise AuthenticationFailed("User inactive or deleted.")
        User = get_user_model()
        user = User.from_db(
            connection.alias, [User._meta.pk.attname, "is_active"], [user_id, is_active]
        )
        player = rawsql.from_row(Player, rawsql.concrete_names(Player), player_row)
        user.player = player  # cache the one-to-one both ways: no query for request.user.player
        return user, Token(key=key, user_id=user_id)
