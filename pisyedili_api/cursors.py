"""Opaque page cursors, signed (django.core.signing) and salted per list.

A cursor is a small JSON object the server wrote; clients pass back `next` and `previous`
links. Signing it means a forged or tampered cursor never reaches a query (where a garbage
position or an integer past 64 bits answered 500), and a cursor of one list is refused by
another: the salt names the endpoint and the list's scope (`list_scope`: its path and query
but for the page's own parameters), so another player's history, another status of the
matches or another board of a metric do not take it either. A cursor carries no time
(django.core.signing's `dumps` would add one): the same page read a second later has the same
links, so its body and ETag are those of its rows alone. A bad cursor is 400 `invalid` with
`detail.cursor`. One helper for every paged list: matches, tournaments
(SignedCursorPagination), leaderboards and rating history (players' keysets).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from django.core import signing
from django.utils.translation import gettext_noop
from rest_framework import serializers
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request
from rest_framework.utils.urls import replace_query_param

from pisyedili_api.errors import ApplicationError, translated

INVALID_CURSOR = gettext_noop("Invalid cursor: pass back a `next` or `previous` link of this list.")


def cursor_field(*, max_length: int = 500) -> serializers.CharField:
    """The `cursor` query parameter of every paged list: a signed cursor this API issued."""
    return serializers.CharField(
        required=False,
        max_length=max_length,
        help_text="A page's signed cursor, from `next` or `previous` of this list (empty: the"
        " first page); any other value is 400 invalid.",
    )


def invalid_cursor(message: str = INVALID_CURSOR) -> ApplicationError:
    message = translated(message)
    return ApplicationError("invalid", message, {"cursor": [message]})


# A page's own query parameters: the rest of the query says which list it is a page of.
_PAGE_PARAMETERS = frozenset({"cursor", "limit", "format", "around"})


def list_scope(url: str) -> str:
    """The list a page of `url` (a path with its query, or a full URL) belongs to: the path and
    the query but for the page's own parameters, in a canonical order."""
    parts = urlsplit(url)
    query = sorted(
        (key, value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if key not in _PAGE_PARAMETERS
    )
    return parts.path.lower() + "?" + urlencode(query)


def cursor_encode(body: dict[str, Any], *, salt: str, scope: str) -> str:
    """`body` as an opaque cursor of the endpoint `salt`'s list `scope` (URL-safe text)."""
    return signing.Signer(salt=f"pisyedili.cursor.{salt}:{scope}").sign_object(body)


def cursor_decode(
    cursor: str, *, salt: str, scope: str, message: str = INVALID_CURSOR
) -> dict[str, Any]:
    """The body of a cursor this server wrote for the endpoint `salt`'s list `scope`; 400
    `invalid` for any other text (forged, tampered, of another list, or signed with an old
    secret key)."""
    try:
        body = signing.Signer(salt=f"pisyedili.cursor.{salt}:{scope}").unsign_object(cursor)
    except (signing.BadSignature, ValueError, TypeError, UnicodeError):
        raise invalid_cursor(message) from None
    if not isinstance(body, dict):
        raise invalid_cursor(message)
    return body


class SignedCursorPagination(CursorPagination):
    """DRF's cursor pagination with signed cursors: `o` offset, `r` reverse, `p` position (the
    text of the first ordering field), as DRF's own, but signed with the endpoint's `salt`."""

    salt = ""

    def encode_cursor(self, cursor: Cursor) -> str:
        body = {"o": cursor.offset, "r": cursor.reverse, "p": cursor.position}
        encoded = cursor_encode(body, salt=self.salt, scope=list_scope(self.base_url))  # type: ignore[arg-type]
        # paginate_queryset sets base_url before any cursor is encoded.
        return replace_query_param(self.base_url, self.cursor_query_param, encoded)  # type: ignore[arg-type]

    def decode_cursor(self, request: Request) -> Cursor | None:
        encoded = request.query_params.get(self.cursor_query_param)
        if not encoded:
            return None  # absent or empty: the first page (as every optional query parameter)
        body = cursor_decode(encoded, salt=self.salt, scope=list_scope(request.get_full_path()))
        offset, reverse, position = body.get("o"), body.get("r"), body.get("p")
        if (
            isinstance(offset, bool)
            or not isinstance(offset, int)
            or not 0 <= offset <= self.offset_cutoff
            or not isinstance(reverse, bool)
            or not (position is None or isinstance(position, str))
        ):
            raise invalid_cursor()
        # DRF's position is the text of the first ordering field; the stubs type it int.
        return Cursor(offset=offset, reverse=reverse, position=position)  # type: ignore[arg-type]
