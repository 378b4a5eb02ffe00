"""Token auth that loads the user and the player in one query (every API request pays it).

One SQL statement built from the models' own metadata: the ORM's select_related over three
models cost more CPU to compile than the database spent answering it (bench/api.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed

from .models import Player

_SQL: str | None = None


def _token_sql() -> tuple[str, list[str]]:
    global _SQL
    q = connection.ops.quote_name
    player_fields = [f.attname for f in Player._meta.concrete_fields]
    if _SQL is None:
        User = get_user_model()
        columns = ", ".join(f"p.{q(f.column)}" for f in Player._meta.concrete_fields)
        _SQL = (
            f"SELECT u.{q(User._meta.pk.column)}, u.{q('is_active')}, {columns}"
            f" FROM {q(Token._meta.db_table)} t"
            f" JOIN {q(User._meta.db_table)} u ON u.{q(User._meta.pk.column)} = t.{q('user_id')}"
            f" JOIN {q(Player._meta.db_table)} p ON p.{q('user_id')} = u.{q(User._meta.pk.column)}"
            f" WHERE t.{q('key')} = %s"
        )
    return _SQL, player_fields


_CONVERTERS: dict[str, list[tuple[Any, list[Any]]]] = {}


def _convert(row: list[Any]) -> list[Any]:
    """The database converters the ORM would apply (e.g. UUIDs stored as text on SQLite)."""
    plan = _CONVERTERS.get(connection.vendor)
    if plan is None:
        plan = []
        for field in Player._meta.concrete_fields:
            col = field.get_col(Player._meta.db_table)
            plan.append(
                (col, connection.ops.get_db_converters(col) + col.get_db_converters(connection))
            )
        _CONVERTERS[connection.vendor] = plan
    values = []
    for (col, converters), value in zip(plan, row, strict=True):
        for converter in converters:
            value = converter(value, col, connection)
        values.append(value)
    return values


class PlayerTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        sql, player_fields = _token_sql()
        with connection.cursor() as cursor:
            cursor.execute(sql, [key])
            row = cursor.fetchone()
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
        player = Player.from_db(connection.alias, player_fields, _convert(player_row))
        user.player = player  # cache the one-to-one both ways: no query for request.user.player
        return user, Token(key=key, user_id=user_id)
