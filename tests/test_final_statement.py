"""rawsql.final_statement: the last statement of an atomic block and its COMMIT in one round trip.

These tests run outside a test transaction (transaction=True), as a request or a task does, and
look at the database from a second connection to see when a write became visible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from django.db import IntegrityError, connection, transaction

from pisyedili_api import rawsql
from players.models import Player

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def other() -> Iterator[Callable[[Any], int]]:
    """A player's wins as a second connection sees them (committed data only)."""
    settings = connection.settings_dict
    with psycopg.connect(
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        user=settings["USER"],
        password=settings["PASSWORD"] or None,
        dbname=settings["NAME"],
        autocommit=True,
    ) as conn:

        def wins(player_id: Any) -> int:
            row = conn.execute("SELECT wins FROM players_player WHERE id = %s", [player_id])
            return row.fetchone()[0]  # type: ignore[index]

        yield wins


def test_the_outermost_block_commits_with_its_final_statement(make_player, other):
    player, _ = make_player()
    ran: list[int] = []
    with transaction.atomic(), rawsql.final_statement() as final:
        Player.objects.filter(id=player.id).update(matches=1)
        transaction.on_commit(lambda: ran.append(Player.objects.get(id=player.id).wins))
        final(*rawsql.update_sql(Player, player.id, wins=3))
        # Committed before the block exits: the COMMIT went with the statement.
        assert other(player.id) == 3
        assert ran == []
    assert ran == [3]  # the hooks still run once, after the block, and may query
    assert Player.objects.get(id=player.id).matches == 1  # the earlier write committed too


def test_a_nested_block_leaves_the_commit_to_the_outer_one(make_player, other):
    player, _ = make_player()
    with transaction.atomic():
        with transaction.atomic(), rawsql.final_statement() as final:
            final(*rawsql.update_sql(Player, player.id, wins=4))
        assert other(player.id) == 0  # not committed yet: the outer block owns the transaction
    assert other(player.id) == 4


def test_no_statement_may_follow_the_final_one(make_player):
    player, _ = make_player()
    with (
        pytest.raises(RuntimeError, match="after the block's final one"),
        transaction.atomic(),
        rawsql.final_statement() as final,
    ):
        final(*rawsql.update_sql(Player, player.id, wins=5))
        Player.objects.filter(id=player.id).update(wins=6)
    # The final statement had committed: the error after it cannot take it back.
    assert Player.objects.get(id=player.id).wins == 5


def test_a_failing_final_statement_rolls_the_block_back(make_player, other):
    player, _ = make_player()
    taken, _ = make_player()
    ran: list[bool] = []
    with (
        pytest.raises(IntegrityError),
        transaction.atomic(),
        rawsql.final_statement() as final,
    ):
        Player.objects.filter(id=player.id).update(wins=7)
        transaction.on_commit(lambda: ran.append(True))
        final(*rawsql.update_sql(Player, player.id, username=taken.username))
    assert other(player.id) == 0
    assert ran == []
    # The connection left pipeline mode and is usable.
    assert Player.objects.get(id=player.id).wins == 0
