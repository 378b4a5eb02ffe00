"""`Idempotency-Key` on the writes other than a move (docs/api.md "Versions, exactly-once moves
and idempotency"): creating a match or a tournament, joining, leaving, cancelling, the quick-play
queue… A client that lost a write's answer sends it again with the same key and gets the first
answer again, byte for byte, with nothing done twice (a second match, a leave refused as
`not_seated`).

`keyed_write` wraps a view's `post`: with a key, the write and the record of its answer
(games.models.KeyedWrite) commit in one transaction; a refused write records nothing (sent
again, it is judged again). Of two copies of a request at once, the one whose record commits
first stands: the other's own write is rolled back with its record, or refused by the first's
(a leave finds its seat gone), and it answers as the first did. Moves have their own record,
written by their guarded statement (games.services.match_apply_move).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.models import KeyedWrite

from .caching import no_store
from .errors import ApplicationError

KEY_HEADER = "HTTP_IDEMPOTENCY_KEY"

# The schema's header, on every route that takes a key.
IDEMPOTENCY_KEY_PARAMETER = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="Repeat a request safely: same key and body, same first response.",
)


def key_check(key: Any) -> None:
    """An Idempotency-Key is 1..255 printable characters: any other is `400 invalid`."""
    if not (isinstance(key, str) and 1 <= len(key) <= 255 and key.isprintable()):
        message = _("Idempotency-Key must be 1..255 printable characters.")
        raise ApplicationError("invalid", message, {"Idempotency-Key": [message]})


def write_hash(request: Request) -> str:
    """The digest a write's key is bound to: its path and its body's fields, a `null` one left
    out (as for a move)."""
    data = request.data
    body = (
        {name: value for name, value in data.items() if value is not None}
        if hasattr(data, "items")
        else data
    )
    # The path as the route reads it: an id in any case is the same (docs/api.md, Conventions).
    canonical = json.dumps(
        {"path": request.path.lower(), "body": body}, sort_keys=True, default=str
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


Handler = Callable[..., Response]


def keyed_write(handler: Handler) -> Handler:
    """A view's `post`, made safe to send again under an `Idempotency-Key` (module docstring)."""

    @functools.wraps(handler)
    def post(view: APIView, request: Request, *args: Any, **kwargs: Any) -> Any:
        key = request.META.get(KEY_HEADER)
        if key is None:
            return handler(view, request, *args, **kwargs)
        key_check(key)
        player_id = request.user.player.id  # type: ignore[union-attr]
        digest = write_hash(request)
        stored = _record(player_id, key)
        if stored is not None:
            return _replay(stored, digest)
        try:
            with transaction.atomic():
                response = handler(view, request, *args, **kwargs)
                if 200 <= response.status_code < 300:
                    KeyedWrite.objects.create(
                        player_id=player_id,
                        key=key,
                        request_hash=digest,
                        status=response.status_code,
                        response=_rendered(view, request, response),
                    )
        except Exception:
            # The same request sent twice at once: the other copy's write and record stand (this
            # one's own write, if it made one, was rolled back with it): answer as it did.
            stored = _record(player_id, key)
            if stored is None:
                raise
            return _replay(stored, digest)
        return response

    return extend_schema(parameters=[IDEMPOTENCY_KEY_PARAMETER])(post)


def _record(player_id: Any, key: str) -> KeyedWrite | None:
    return KeyedWrite.objects.filter(player_id=player_id, key=key).first()


def _replay(stored: KeyedWrite, digest: str) -> HttpResponse:
    if stored.request_hash != digest:
        raise ApplicationError("idempotency_mismatch")
    # A caller's own answer, as every write's is (pisyedili_api.caching).
    return no_store(
        HttpResponse(stored.response, status=stored.status, content_type="application/json")
    )


def _rendered(view: APIView, request: Request, response: Response) -> str:
    """The answer's body as the view's renderer writes it (it is rendered again on its way)."""
    response.accepted_renderer = request.accepted_renderer
    response.accepted_media_type = request.accepted_media_type
    response.renderer_context = view.get_renderer_context()  # type: ignore[attr-defined]
    return bytes(response.rendered_content).decode()
