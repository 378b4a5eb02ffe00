"""The bases of every serializer that reads a request: its query (`QuerySerializer`) or its body
(`StrictSerializer`).

Both cut the value a field's message shows to what the engine's messages show of one
(games.engine.errors.shown_text): DRF's `"{input}" is not a valid choice.` would send a value
of 60,000 characters back whole, in `message` and again in `detail`. Both refuse a float that
is not finite (`?wait=nan`): it passes every bound, since it compares false with each.

A body is JSON, and DRF reads it as leniently as a form: it drops unknown keys without a word
(a typo, `{"bot": ["greedy"]}` for `bots`, would create a match that waits forever), takes `5`
for the text "5", `"3"` and `3.0` for the integer 3, and `"yes"` for true. `StrictSerializer`
refuses all of these before any other check: an unknown field is named in `detail`
(`{"bot": ["Unknown field."]}`), and a field takes a value of its JSON type only (text a
string, an integer an integer, true or false a boolean, a number a number; `null` is left to
the field). `body_fields_check` refuses unknown fields in the bodies a view reads by hand (the
move POST) and in those of the routes that take no body at all.

A query's values are strings by nature (`?after_version=1`, `?invited=true`): a
`QuerySerializer` reads them as DRF does.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any, cast

from django.utils.translation import gettext as _
from rest_framework import serializers
from rest_framework.fields import empty
from rest_framework.settings import api_settings

from games.engine.errors import shown_text


def unknown_fields(data: Any, known: Collection[str]) -> dict[str, list[str]]:
    """Field errors for the keys of the JSON object `data` that are not in `known`, in the
    order they came (nothing for a value that is not an object: the caller refuses it)."""
    if not isinstance(data, Mapping):
        return {}
    return {str(name): [_("Unknown field.")] for name in data if name not in known}


def body_fields_check(data: Any, known: Collection[str] = ()) -> None:
    """400 `invalid` naming the unknown fields of the body `data`; `known` empty for a route
    that takes no body (an empty object, or none, is fine). A body that is JSON but not an
    object (a list, a string, a number) is refused under `non_field_errors`, as a serializer
    refuses it."""
    if data is not None and not isinstance(data, Mapping):
        message = serializers.Serializer.default_error_messages["invalid"]
        raise serializers.ValidationError(
            {api_settings.NON_FIELD_ERRORS_KEY: [str(message).format(datatype=type(data).__name__)]}
        )
    errors = unknown_fields(data, known)
    if errors:
        raise serializers.ValidationError(errors)


class _ShortInput:
    """A field's error message that shows the value sent (`{input}`), with that value cut as
    shown_text cuts it; DRF formats it as any message (`Field.fail`), in the active language."""

    __slots__ = ("message",)

    def __init__(self, message: Any) -> None:
        self.message = message

    def format(self, **kwargs: Any) -> str:
        if "input" in kwargs:
            kwargs["input"] = shown_text(kwargs["input"])
        return str(self.message).format(**kwargs)

    def __str__(self) -> str:
        return str(self.message)


def _short_inputs(field: serializers.Field[Any, Any, Any, Any]) -> None:
    """Every message of `field` (and of its items' field) that shows the value sent, cut."""
    for key, message in list(field.error_messages.items()):
        if not isinstance(message, _ShortInput) and "{input}" in str(message):
            # DRF calls only `.format()` on a message it fails with (Field.fail).
            field.error_messages[key] = cast(str, _ShortInput(message))
    child = getattr(field, "child", None)
    if isinstance(child, serializers.Field):
        _short_inputs(child)


class QuerySerializer(serializers.Serializer[Any]):
    """A request's query parameters (and the base of a body's, StrictSerializer): a value a
    message shows is cut, and a float must be finite."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        for field in fields.values():
            _short_inputs(field)
        return fields

    def to_internal_value(self, data: Any) -> Any:
        value = super().to_internal_value(data)
        errors = {
            name: [str(field.error_messages["invalid"])]
            for name, field in self.fields.items()
            if isinstance(field, serializers.FloatField)
            and isinstance(found := value.get(field.source), float)
            and not math.isfinite(found)
        }
        if errors:
            raise serializers.ValidationError(errors)
        return value


class StrictSerializer(QuerySerializer):
    """A request body: its unknown fields are refused before any other check."""

    # Its values of another JSON type than their field's come next (_wrong_json_types). The
    # docstring says the first only: it is every body's description in the OpenAPI schema.

    def validate_empty_values(self, data: Any) -> tuple[bool, Any]:
        # A JSON `null` body: DRF's own refusal ("No data provided") is not translated; a list
        # or a scalar: DRF's ("Expected a dictionary, but got list") speaks Python, not JSON.
        if self.parent is None and (
            (data is None and not self.allow_null)
            or (data is not None and data is not empty and not isinstance(data, Mapping))
        ):
            raise serializers.ValidationError(
                {api_settings.NON_FIELD_ERRORS_KEY: [_("The body must be a JSON object.")]},
                code="null" if data is None else "invalid",
            )
        return super().validate_empty_values(data)

    def to_internal_value(self, data: Any) -> Any:
        known = [name for name, field in self.fields.items() if not field.read_only]
        errors = unknown_fields(data, known) or _wrong_json_types(self, data)
        if errors:
            raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


def _json_type_ok(field: serializers.Field[Any, Any, Any, Any], value: Any) -> bool:
    """Whether `value`, as JSON gave it, is of the type `field` takes: text (a CharField, a
    UUIDField) a string, an integer an integer, a boolean true or false, a float any number;
    `true` and `false` are no numbers. Other fields judge for themselves, and so does each
    field of `null`."""
    if value is None:
        return True
    if isinstance(field, serializers.CharField | serializers.UUIDField):
        return isinstance(value, str)
    if isinstance(field, serializers.BooleanField):
        return isinstance(value, bool)
    if isinstance(field, serializers.IntegerField):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(field, serializers.FloatField):
        return isinstance(value, int | float) and not isinstance(value, bool)
    return True


def _type_message(field: serializers.Field[Any, Any, Any, Any]) -> str:
    """What `field` says of a value of another JSON type: its own message for a value it
    cannot read; a text field's is DRF's "Not a valid string." (a RegexField's own speaks of
    its pattern)."""
    if isinstance(field, serializers.CharField):
        return str(serializers.CharField.default_error_messages["invalid"])
    return str(field.error_messages["invalid"])


def _wrong_json_types(serializer: serializers.Serializer[Any], data: Any) -> dict[str, Any]:
    """Field errors for the values of the body `data` that are not of their field's JSON type
    (_json_type_ok), the items of a list field's included (`{"bots": {"0": [...]}}`, as DRF
    files an item's error)."""
    if not isinstance(data, Mapping):
        return {}
    errors: dict[str, Any] = {}
    for name, field in serializer.fields.items():
        value = data.get(name, empty)
        if field.read_only or value is empty:
            continue
        if not _json_type_ok(field, value):
            errors[name] = [_type_message(field)]
        elif isinstance(field, serializers.ListField) and isinstance(value, list):
            child = field.child
            wrong = {
                str(index): [_type_message(child)]
                for index, item in enumerate(value)
                if not _json_type_ok(child, item)
            }
            if wrong:
                errors[name] = wrong
    return errors
