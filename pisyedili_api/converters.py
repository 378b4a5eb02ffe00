"""The path converter of an id in a route, `<id:name>`: a UUID in any letter case (RFC 9562
reads them so, and some platforms write them in capitals: iOS's `UUID().uuidString`), handed
to the view as a `uuid.UUID`. Django's own `<uuid:…>` matches lower case only. Registered on
import: every URLconf that routes an id imports this module first."""

from __future__ import annotations

import uuid

from django.urls import register_converter

_HEX = "[0-9a-fA-F]"


class IdConverter:
    regex = f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"

    def to_python(self, value: str) -> uuid.UUID:
        return uuid.UUID(value)

    def to_url(self, value: uuid.UUID | str) -> str:
        return str(value).lower()


register_converter(IdConverter, "id")
