"""The base of every request body's serializer: a field it does not know is `400 invalid`.

DRF drops unknown keys without a word, so a typo (`{"bot": ["greedy"]}` for `bots`) would
create a match that waits forever. `StrictSerializer` refuses them, naming each one in
`detail` (`{"bot": ["Unknown field."]}`); `body_fields_check` does the same for the bodies a
view reads by hand (the move POST) and for the routes that take no body at all.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers
from rest_framework.settings import api_settings


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


class StrictSerializer(serializers.Serializer[Any]):
    """A request body: its unknown fields are refused before any other check."""

    def validate_empty_values(self, data: Any) -> tuple[bool, Any]:
        # A JSON `null` body: DRF's own refusal ("No data provided") is not translated.
        if data is None and self.parent is None and not self.allow_null:
            raise serializers.ValidationError(
                {api_settings.NON_FIELD_ERRORS_KEY: [_("The body must be a JSON object.")]},
                code="null",
            )
        return super().validate_empty_values(data)

    def to_internal_value(self, data: Any) -> Any:
        known = [name for name, field in self.fields.items() if not field.read_only]
        errors = unknown_fields(data, known) or _numbers_for_text(self, data)
        if errors:
            raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


def _numbers_for_text(serializer: serializers.Serializer[Any], data: Any) -> dict[str, list[str]]:
    """Field errors for a number given where text belongs: DRF's CharField takes `5` as "5",
    where the API says a text field takes a JSON string."""
    if not isinstance(data, Mapping):
        return {}
    message = str(serializers.CharField.default_error_messages["invalid"])
    return {
        name: [message]
        for name, field in serializer.fields.items()
        if isinstance(field, serializers.CharField)
        and not field.read_only
        and isinstance(data.get(name), (int, float))
    }
