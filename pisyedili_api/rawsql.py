"""Plain SQL for the few statements every move runs, built from the models' own metadata.

On the move path (token lookup, match row lock, Move insert + match update) the ORM spent more
CPU compiling statements and building instances than PostgreSQL spent running them
(bench/api.py). These helpers keep what the ORM guarantees — column names from the models,
values prepared by each field's `get_db_prep_save`, rows turned into instances through each
field's database converters — and cache the statement text per model and column list.

JSON columns (a match's state is about a kilobyte of it) are encoded and decoded with orjson
instead of the standard library's json, which Django's JSONField uses; the stored JSON and the
values read back are the same. Values of the plain types a move writes skip the layers of
`get_db_prep_save` and get the backend's adaptation directly (`_preparer`; the test suite holds
both to the same results).

The statements written by hand live in one module per app (games/sql.py, players/sql.py),
whole, with their identifiers in named slots (`statement`); this module holds only the
generic helpers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from functools import cache, partial
from typing import Any, TypeVar, cast
from uuid import UUID

import orjson
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, JSONField, Model
from psycopg.types.json import Jsonb

_M = TypeVar("_M", bound=Model)

# As json.dumps: keys that are not strings (ints, say) are written as strings.
_json_dumps = partial(orjson.dumps, option=orjson.OPT_NON_STR_KEYS)


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


@cache
def _fields(model: type[Model], names: tuple[str, ...]) -> tuple[Field[Any, Any], ...]:
    # `names` are concrete fields (columns), never a reverse relation or a generic foreign key.
    return tuple(cast("Field[Any, Any]", model._meta.get_field(name)) for name in names)


@cache
def _columns(vendor: str, model: type[Model]) -> dict[str, str]:
    return {f.name: _quote(f.column) for f in model._meta.concrete_fields}


def table(model: type[Model]) -> str:
    """The quoted table name of `model`, for a hand-written statement."""
    return _quote(model._meta.db_table)


def columns(model: type[Model]) -> dict[str, str]:
    """The quoted column of every concrete field of `model` by field name (`match` for the
    foreign key whose column is match_id), for a hand-written statement."""
    return _columns(connection.vendor, model)


@cache
def concrete_names(model: type[Model]) -> tuple[str, ...]:
    """Attribute names of every column of `model`, in table order (`…_id` for foreign keys)."""
    return tuple(f.attname for f in model._meta.concrete_fields)


@cache
def _select_sql(model: type[Model], where: str, suffix: str = "", extra: Sequence[str] = ()) -> str:
    """`SELECT [<extra>, …, ]<every column> FROM <table> WHERE <where><suffix>`; the columns of
    a row go to `from_row`."""
    columns = ", ".join([*extra, *(_quote(f.column) for f in model._meta.concrete_fields)])
    return f"SELECT {columns} FROM {_quote(model._meta.db_table)} WHERE {where}{suffix}"


@cache
def _converters(vendor: str, model: type[Model], names: tuple[str, ...]) -> tuple[Any, ...]:
    plan = []
    wrapper = _converting()
    for name in names:
        field = next(f for f in model._meta.concrete_fields if f.attname == name)
        col = field.get_col(model._meta.db_table)
        converters = wrapper.ops.get_db_converters(col) + col.get_db_converters(wrapper)
        if _plain_json(field):
            converters = [_json_from_db]
        plan.append((col, converters))
    return tuple(plan)


def _plain_json(field: Field[Any, Any]) -> bool:
    """A JSONField with the standard encoder and decoder, so orjson reads and writes it alike."""
    return isinstance(field, JSONField) and field.encoder is None and field.decoder is None


def _json_from_db(value: Any, expression: Any, connection: Any) -> Any:
    """JSONField.from_db_value, decoded by orjson."""
    if not isinstance(value, (str, bytes)):
        return value
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return value


def _json_to_db(value: Any) -> Any:
    """JSONField.get_db_prep_save of a dict or list, encoded by orjson."""
    if connection.vendor == "postgresql":
        return Jsonb(value, dumps=_json_dumps)
    return _json_dumps(value).decode()


@cache
def _converting() -> BaseDatabaseWrapper:
    """A wrapper of the default database, never opened, whose vendor and operations convert
    the rows read by hand. `connection` is one wrapper per thread and per asyncio context: a
    live stream's read through it would make one for each stream (kilobytes, kept as long as
    the stream waits)."""
    return connections.create_connection(DEFAULT_DB_ALIAS)


def from_row(model: type[_M], names: Sequence[str], row: Sequence[Any]) -> _M:
    """A `model` instance from database values of the columns `names`, converted as the ORM
    would (e.g. JSON text parsed, UUIDs stored as text on SQLite)."""
    names = tuple(names)
    values = []
    wrapper = _converting()
    for (col, converters), value in zip(
        _converters(wrapper.vendor, model, names), row, strict=True
    ):
        for converter in converters:
            value = converter(value, col, wrapper)
        values.append(value)
    return model.from_db(wrapper.alias, list(names), values)


def fetch_by_pk(
    model: type[_M],
    pk: Any,
    *,
    lock: bool = False,
    extra: Sequence[str] = (),
    extra_params: Sequence[Any] = (),
) -> tuple[tuple[Any, ...], _M | None]:
    """The `model` row with primary key `pk` as an instance (None if there is none), locked
    with FOR UPDATE if asked and the backend can. With `extra` (SQL expressions, e.g. scalar
    subqueries, taking `extra_params` in order), also their values from the same statement
    (else an empty tuple)."""
    suffix = " FOR UPDATE" if lock and connection.features.has_select_for_update else ""
    pk_column = _quote(model._meta.pk.column)
    prepared = model._meta.pk.get_db_prep_value(pk, connection)
    sql = _select_sql(model, f"{pk_column} = %s", suffix, tuple(extra))
    row = fetch_one(sql, [*extra_params, prepared])
    if row is None:
        return (), None
    count = len(extra)
    return row[:count], from_row(model, concrete_names(model), row[count:])


@cache
def _insert_template(model: type[Model], names: tuple[str, ...]) -> str:
    columns = ", ".join(_quote(f.column) for f in _fields(model, names))
    placeholders = ", ".join(["%s"] * len(names))
    return f"INSERT INTO {_quote(model._meta.db_table)} ({columns}) VALUES ({placeholders})"


@cache
def _update_template(model: type[Model], names: tuple[str, ...], source: str = "") -> str:
    assignments = ", ".join(f"{_quote(f.column)} = %s" for f in _fields(model, names))
    pk = _quote(model._meta.pk.column)
    joined = f" FROM {source}" if source else ""
    return f"UPDATE {_quote(model._meta.db_table)} SET {assignments}{joined} WHERE {pk} = %s"


_INTEGERS = frozenset(
    {
        "SmallIntegerField",
        "IntegerField",
        "BigIntegerField",
        "PositiveSmallIntegerField",
        "PositiveIntegerField",
        "PositiveBigIntegerField",
    }
)


def _preparer(field: Field[Any, Any]) -> Callable[[Any], Any]:
    """`field.get_db_prep_save(value, connection)`, with the values the move path writes (ints,
    strings, booleans, UUIDs, aware datetimes, JSON lists and dicts) taken straight to the
    backend adaptation that method ends in; any other value goes through the method itself."""
    ops = connection.ops
    slow = partial(field.get_db_prep_save, connection=connection)
    if _plain_json(field):
        return lambda value: _json_to_db(value) if isinstance(value, (dict, list)) else slow(value)
    # A foreign key's column type. A relation here is a concrete column, so a ForeignKey, whose
    # target_field the stubs' base Field does not declare.
    target = field.target_field if field.is_relation else field  # type: ignore[attr-defined]
    kind = target.get_internal_type()
    if kind in _INTEGERS:
        return lambda value: (
            ops.adapt_integerfield_value(value, kind) if type(value) is int else slow(value)
        )
    if kind in ("CharField", "TextField"):
        return lambda value: value if type(value) is str else slow(value)
    if kind == "BooleanField":
        return lambda value: value if type(value) is bool else slow(value)
    if kind == "UUIDField" and connection.features.has_native_uuid_field:
        return lambda value: value if type(value) is UUID else slow(value)
    if kind == "DateTimeField":
        return lambda value: (
            ops.adapt_datetimefield_value(value)
            if type(value) is datetime and value.tzinfo is not None
            else slow(value)
        )
    return slow


@cache
def _preparers(vendor: str, model: type[Model], names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(_preparer(field) for field in _fields(model, names))


def _prepared(model: type[Model], values: dict[str, Any]) -> list[Any]:
    preparers = _preparers(connection.vendor, model, tuple(values))
    return [prepare(value) for prepare, value in zip(preparers, values.values(), strict=True)]


def prepared(model: type[Model], **values: Any) -> list[Any]:
    """The parameters of `values` (field name → value) as each field prepares them for a save,
    for a hand-written statement."""
    return _prepared(model, values)


@cache
def _omitted_defaults(model: type[Model], names: tuple[str, ...]) -> tuple[str, ...]:
    """The attribute names of the fields of `model` that have a default and are not among
    `names` (field names or attribute names)."""
    return tuple(
        f.attname
        for f in model._meta.concrete_fields
        if f.has_default() and f.name not in names and f.attname not in names
    )


def _defaults_added(model: type[Model], values: dict[str, Any]) -> dict[str, Any]:
    """`values` with the default of each field of `model` left out that has one."""
    for name in _omitted_defaults(model, tuple(values)):
        values[name] = cast("Field[Any, Any]", model._meta.get_field(name)).get_default()
    return values


def insert_sql(model: type[Model], **values: Any) -> tuple[str, list[Any]]:
    """An INSERT of one `model` row (field name → value) and its prepared parameters. A field
    left out that has a default gets it, as Model.save would give it: a field added to the
    model with a default does not make the hand-written inserts fail on its NOT NULL column."""
    values = _defaults_added(model, values)
    return _insert_template(model, tuple(values)), _prepared(model, values)


@cache
def _insert_from_template(
    vendor: str, model: type[Model], names: tuple[str, ...], source: str
) -> str:
    fields = _fields(model, names)
    columns = ", ".join(_quote(f.column) for f in fields)
    # cast_db_type: the stubs' base Field does not declare it.
    values = ", ".join(f"%s::{f.cast_db_type(connection)}" for f in fields)  # type: ignore[attr-defined]
    return f"INSERT INTO {_quote(model._meta.db_table)} ({columns}) SELECT {values} FROM {source}"


def insert_from_sql(model: type[Model], source: str, **values: Any) -> tuple[str, list[Any]]:
    """`insert_sql`, written only if the relation `source` (a CTE of the same statement, e.g.
    the RETURNING rows of an UPDATE) holds a row: once for each of its rows. Each parameter is
    cast to its column's type, since a SELECT's parameters have no column to take it from."""
    values = _defaults_added(model, values)
    template = _insert_from_template(connection.vendor, model, tuple(values), source)
    return template, _prepared(model, values)


def update_sql(model: type[Model], pk: Any, **values: Any) -> tuple[str, list[Any]]:
    """An UPDATE of one `model` row by primary key and its prepared parameters."""
    return update_from_sql(model, pk, "", **values)


def update_from_sql(
    model: type[Model], pk: Any, source: str, **values: Any
) -> tuple[str, list[Any]]:
    """`update_sql`, written only if the relation `source` (a CTE of the same statement, as
    for `insert_from_sql`) holds a row; "": always."""
    params = _prepared(model, values)
    params.append(model._meta.pk.get_db_prep_value(pk, connection))
    return _update_template(model, tuple(values), source), params


class _Slots:
    """A model's names for statement(): str() is its quoted table, each attribute the quoted
    column of that field (by name, e.g. `match` for the column match_id; `pk` the primary
    key's)."""

    def __init__(self, model: type[Model]) -> None:
        self._table = table(model)
        self._columns = dict(columns(model))
        self._columns.setdefault("pk", _quote(model._meta.pk.column))

    def __str__(self) -> str:
        return self._table

    def __getattr__(self, name: str) -> str:
        try:
            return self._columns[name]
        except KeyError:
            raise AttributeError(name) from None


@cache
def _statement(vendor: str, text: str, slots: tuple[tuple[str, type[Model] | str], ...]) -> str:
    return text.format(
        **{name: value if isinstance(value, str) else _Slots(value) for name, value in slots}
    )


def statement(text: str, **slots: type[Model] | str) -> str:
    """A hand-written statement, written whole, with its identifiers in named slots: `{seat}`
    is the quoted table of the model given as `seat=Seat`, `{seat.player}` the quoted column of
    its field `player`. A slot given a string takes that SQL as it is (a fragment the calling
    module builds, never a value). Values stay `%s` parameters. Built once per text."""
    return _statement(connection.vendor, text, tuple(slots.items()))


def execute(sql: str, params: Sequence[Any]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def execute_many(sql: str, params_list: Sequence[Sequence[Any]]) -> None:
    """Run one statement once per parameter list, in order, in one round trip (executemany)."""
    with connection.cursor() as cursor:
        cursor.executemany(sql, params_list)


def fetch_one(sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row: tuple[Any, ...] | None = cursor.fetchone()
        return row


def fetch_all(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())
