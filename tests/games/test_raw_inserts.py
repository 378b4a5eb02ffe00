"""The hand-written inserts (pisyedili_api.rawsql) give a field left out its model default, as
Model.save does: a field added with a default to a model whose rows the move route inserts by
hand must not make every move fail on the new NOT NULL column."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection, models
from django.test.utils import isolate_apps

from games.models import Move
from pisyedili_api import rawsql
from tests.helpers import create_match, post_move, state

pytestmark = pytest.mark.django_db


@isolate_apps("games")
def test_an_insert_gives_the_fields_it_leaves_out_their_defaults():
    class Row(models.Model):
        label = models.CharField(max_length=8)
        note = models.IntegerField(default=0)
        tags = models.JSONField(default=list)
        kind = models.CharField(max_length=4, default="x")

        class Meta:
            app_label = "games"
            db_table = "games_test_defaulted_row"

    with connection.schema_editor() as editor:
        editor.create_model(Row)  # NOT NULL columns without database defaults, as Django makes them
    rawsql.execute(*rawsql.insert_sql(Row, label="a"))
    rawsql.execute(*rawsql.insert_sql(Row, label="b", note=7, kind="y"))
    rows = {row.label: (row.note, row.tags, row.kind) for row in Row.objects.all()}
    assert rows == {"a": (0, [], "x"), "b": (7, [], "y")}


def _forget_statements() -> None:
    """rawsql builds each statement of a model once; a model changed at run time (only here)
    needs them built again."""
    for name in dir(rawsql):
        cache_clear = getattr(getattr(rawsql, name), "cache_clear", None)
        if cache_clear is not None:
            cache_clear()


@pytest.fixture
def move_with_note() -> Iterator[models.Field[Any, Any]]:
    """Move, for this test only, with `note = IntegerField(default=0)` and its column."""
    note = models.IntegerField(default=0)
    note.contribute_to_class(Move, "note")
    Move._meta._expire_cache()
    _forget_statements()
    with connection.schema_editor() as editor:
        editor.add_field(Move, note)  # the test's transaction rolls the column back
    yield note
    Move._meta.local_fields.remove(note)
    Move._meta._expire_cache()
    delattr(Move, "note")
    _forget_statements()


def test_moves_still_apply_when_move_gains_a_defaulted_field(
    make_player, client_for, move_with_note
):
    (_, ta), (_, tb) = make_player(), make_player()
    ca, cb = client_for(ta), client_for(tb)
    match = create_match(ca, seats=2)
    cb.post(f"/api/v1/matches/{match['id']}/join")
    for _ in range(3):
        view = state(ca, match["id"])
        client = ca if view["turn"] == view["you"] else cb
        view = state(client, match["id"])
        response = post_move(client, match["id"], view["legal_moves"][0], view["version"])
        assert response.status_code == 200, response.content
    notes = Move.objects.filter(match_id=match["id"]).values_list("note", flat=True)
    assert list(notes) == [0, 0, 0]
