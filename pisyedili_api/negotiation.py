"""Content negotiation with a fast path for the answer almost every request gets.

DRF's DefaultContentNegotiation parses the Accept header into media types and matches each
against each renderer on every request; on the move route that was about 5% of the server's
CPU (bench/api.py, py-spy). When the view renders JSON first and the client accepts anything
or JSON (no Accept header, `*/*`, `application/json`), the answer is known without parsing:
the first renderer, as DRF would pick it. Every other header goes through DRF unchanged, so
406 and the schema views' own renderers behave as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request

_ANY_OR_JSON = frozenset({"", "*/*", "application/json"})


class JsonFirstNegotiation(DefaultContentNegotiation):
    # DRF passes the view's renderer list (APIView.perform_content_negotiation), which the stubs
    # widen to an Iterable; this fast path indexes it.
    def select_renderer(  # type: ignore[override]
        self, request: Request, renderers: Sequence[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        accept = request.META.get("HTTP_ACCEPT", "").strip()
        if (
            format_suffix is None
            and accept in _ANY_OR_JSON
            and renderers
            and renderers[0].media_type == "application/json"
            and not (
                request.META.get("QUERY_STRING")
                and request.query_params.get(self.settings.URL_FORMAT_OVERRIDE or "format")
            )
        ):
            return renderers[0], renderers[0].media_type
        chosen: tuple[BaseRenderer, str] = super().select_renderer(
            request, renderers, format_suffix
        )
        return chosen
