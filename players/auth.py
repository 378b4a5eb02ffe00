"""Token auth that loads the user and the player in one query (every API request pays it).

One SQL statement built from the models' own metadata (pisyedili_api.rawsql): the ORM's
select_related over three models cost more CPU to compile than the database spent answering it
(bench/api.py).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed

from pisyedili_api import rawsql

from .models import Player


@cache
def _token_sql() -> str:
    q = connection.ops.quote_name
    User = get_user_model()
    user_pk = f"u.{q(User._meta.pk.column)}"  # type: ignore[union-attr]
    columns = ", ".join(f"p.{q(f.column)}" for f in Player._meta.concrete_fields)
    return (
        f"SELECT {user_pk}, u.{q('is_active')}, {columns}"
        f" FROM {q(Token._meta.db_table)} t"
        f" JOIN {q(User._meta.db_table)} u ON {user_pk} = t.{q('user_id')}"
        f" JOIN {q(Player._meta.db_table)} p ON p.{q('user_id')} = {user_pk}"
        f" WHERE t.{q('key')} = %s"
    )


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
