"""The fast paths against what they stand in for: responses rendered by orjson read byte for
byte as DRF's JSONRenderer writes them (but for the zero padding of a float's exponent, 1e-07
against 1e-7); pisyedili_api.rawsql writes and reads JSON columns as the ORM does and prepares
every parameter as the field's own get_db_prep_save would."""

from __future__ import annotations

import datetime
import json
import uuid
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy
from psycopg.types.json import Jsonb
from rest_framework.exceptions import ErrorDetail
from rest_framework.renderers import JSONRenderer as DRFJSONRenderer

from games.models import Match, Move
from pisyedili_api import rawsql
from pisyedili_api.renderers import JSONRenderer
from tests.helpers import create_match

PAYLOAD = {
    "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "at": datetime.datetime(2026, 11, 29, 18, 1, 2, 345678, tzinfo=datetime.UTC),
    "at_whole_second": datetime.datetime(2026, 11, 29, 18, 1, 2, tzinfo=datetime.UTC),
    "day": datetime.date(2026, 11, 29),
    "message": gettext_lazy("Not found."),
    "detail": {"card": [ErrorDetail("Bad card code.", code="invalid")]},
    "amount": Decimal("1.50"),
    "name": "Gülşen ♠ 7",
    "floats": [0.1, 25.0, 8.333333333333334, 1e22],
    "nested": {"seats": [None, True, False, 0, -1, 2**53]},
    3: "an int key",
}


def test_responses_read_as_drf_writes_them():
    ours = JSONRenderer().render(PAYLOAD, "application/json", {})
    drf = DRFJSONRenderer().render(PAYLOAD, "application/json", {})
    assert ours == drf
    assert b'"at":"2026-11-29T18:01:02.345678Z"' in ours  # DRF's UTC "Z" form, kept


def test_tiny_floats_are_the_same_numbers():
    tiny = {"x": [-3.5e-7, 1e-300, 5e-324]}
    ours = JSONRenderer().render(tiny, "application/json", {})
    assert json.loads(ours) == json.loads(DRFJSONRenderer().render(tiny)) == tiny


def test_empty_body_renders_empty():
    assert JSONRenderer().render(None) == b""


@pytest.mark.django_db
def test_json_columns_round_trip_through_rawsql_as_through_the_orm(make_player, client_for):
    _, token = make_player()
    match_id = create_match(client_for(token))["id"]
    value = {"hands": [["7C", "JS"]], "name": "Gülşen ♠", 3: [1.5, None, True], "deep": {"a": []}}
    rawsql.execute(*rawsql.update_sql(Match, match_id, state=value, totals=[0, 12]))

    by_orm = Match.objects.get(id=match_id)
    _, by_rawsql = rawsql.fetch_by_pk(Match, match_id)
    expected = {**{k: v for k, v in value.items() if k != 3}, "3": [1.5, None, True]}
    assert by_orm.state == by_rawsql.state == expected
    assert by_orm.totals == by_rawsql.totals == [0, 12]
    # What the ORM writes, rawsql reads back the same.
    by_orm.state = {"turn": 1, "stock": ["QH"]}
    by_orm.save(update_fields=["state"])
    assert rawsql.fetch_by_pk(Match, match_id)[1].state == {"turn": 1, "stock": ["QH"]}


ISTANBUL = datetime.timezone(datetime.timedelta(hours=3))
SAMPLES = [
    None,
    0,
    7,
    -3,
    2**40,
    True,
    False,
    "",
    "draw",
    "Gülşen",
    uuid.UUID("12345678-1234-5678-1234-567812345678"),
    datetime.datetime(2026, 11, 29, 18, 1, 2, 345678, tzinfo=datetime.UTC),
    datetime.datetime(
        2026, 11, 29, 21, 1, 2, tzinfo=datetime.timezone(datetime.timedelta(hours=3))
    ),
    [],
    ["7C", "JS"],
    {"turn": 1, "hands": [["7C"]]},
]


@pytest.mark.django_db
@pytest.mark.parametrize("model", [Match, Move], ids=lambda m: m.__name__)
def test_rawsql_prepares_values_as_the_orm_does(model):
    """For every column and every sample value of a type that column accepts, the parameter
    rawsql sends equals (same type, same value) what the field's own get_db_prep_save gives."""
    from django.db import connection

    compared = 0
    for field in model._meta.concrete_fields:
        prepare = rawsql._preparer(field)
        for value in SAMPLES:
            try:
                expected = field.get_db_prep_save(value, connection)
            except (TypeError, ValueError, ValidationError):
                continue  # not a value of this column
            got = prepare(value)
            if isinstance(expected, Jsonb):
                assert isinstance(got, Jsonb) and got.obj == expected.obj, (field, value)
            else:
                assert type(got) is type(expected) and got == expected, (field, value, got)
            compared += 1
    assert compared >= 3 * len(model._meta.concrete_fields)
