"""Child rows keep their order among a parent's rows without joining the parent's table.

A relation in Meta.ordering (`ordering = ["match", "seat"]`) sorts by the parent's own
ordering, so every query of the children — the seats of a match, its deals, its moves, a
tournament's tables — joined the parent table (two tables up for score entries and tables) just
to sort. Ordering by the parent's id column keeps the order within one parent and joins nothing.
"""

from __future__ import annotations

import uuid

import pytest
from django.db import models

from games.models import Deal, Move, ScoreEntry, Seat
from tournaments.models import Entrant, Round, Table

CHILDREN: list[tuple[type[models.Model], str, list[str]]] = [
    (Seat, "match_id", ["match_id", "seat"]),
    (Deal, "match_id", ["match_id", "number"]),
    (Move, "match_id", ["match_id", "seq"]),
    (ScoreEntry, "deal_id", ["deal_id", "seat"]),
    (Entrant, "tournament_id", ["tournament_id", "position"]),
    (Round, "tournament_id", ["tournament_id", "number"]),
    (Table, "round_id", ["round_id", "number"]),
]


def _parent_value(model: type[models.Model], column: str) -> object:
    field = model._meta.get_field(column.removesuffix("_id"))
    return uuid.uuid4() if isinstance(field.target_field, models.UUIDField) else 1  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("model", "parent", "order"), CHILDREN, ids=lambda v: getattr(v, "__name__", None)
)
def test_a_parents_rows_sort_without_joining_it(
    model: type[models.Model], parent: str, order: list[str]
) -> None:
    queryset = model.objects.filter(**{parent: _parent_value(model, parent)})
    sql, _ = queryset.query.get_compiler(using="default").as_sql()
    assert "JOIN" not in sql.upper(), sql
    columns = [model._meta.get_field(name.removesuffix("_id")).column for name in order]
    order_by = sql.upper().split("ORDER BY", 1)[1]
    positions = [order_by.find(f'"{column.upper()}"') for column in columns]
    assert -1 not in positions and positions == sorted(positions), sql
