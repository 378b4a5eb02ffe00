"""A scanner over every response body the test suite produces (docs/api.md hidden information).

Installed as a middleware for the whole test session (tests/conftest.py). For each JSON response
under /api/v1/, and each event of an event stream served under WSGI, it checks, against the
database at scan time:
- no seed of a deal in progress appears anywhere in the body;
- no card that is now in another seat's hand or in the stock appears as a card value in the
  parts of the body that describe the live deal (a `deal` context equal to the live deal). A
  viewer at no seat (a spectator, signed in or anonymous) may see no card of any hand at all;
- no private match's id appears in a body for a viewer it is hidden from (games.selectors.
  match_guest), and its join code only in its creator's.
Violations are collected and fail the test that produced them (autouse fixture). The live
tests' event reader (tests/live/sse.py) scans every event it receives with `scan_event`.

The database is read only for what a body could hold: the live seeds where it has a run of hex
digits as long as a seed's, the live deal's hidden cards where it has a card-like string, the
private matches where it names an id, and the viewer where one of those needs it. The scanner
runs on every response of the suite, in its servers too: those reads are single statements
(pisyedili_api.rawsql) rather than the ORM's, which cost more CPU to compile than the rest of
the scan, and a token's player (which never changes) is read once per process.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.http import HttpRequest, HttpResponse

from pisyedili_api import rawsql

CARD_RE = re.compile(r"^(?:[2-9]|10|[JQKA])[CDHS]$")
MATCH_PATH_RE = re.compile(r"^/api/v1/matches/([0-9a-fA-F-]{36})(/.*)?$")
# A deal's own routes (its reveal, its replay and its analysis) speak of that deal only.
DEAL_PATH_RE = re.compile(r"^/deals/(\d+)(?:/replay|/analysis)?$")
SSE_DATA_RE = re.compile(r"^data: ?(.*)$", re.MULTILINE)
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# A seed in hex: 64 digits (engine.new_seed, HMAC-SHA256 of a shared source); a body with no run
# of 16 can hold no seed of 8 bytes or more.
SEED_HEX_RE = re.compile(r"[0-9a-f]{16}")
# Who made a request: a player id, None (anonymous), or a function that reads it when needed.
Viewer = str | None | Callable[[], str | None]

VIOLATIONS: list[str] = []
# While DEFER is set (query-count pins), bodies are kept and scanned by `scan_deferred()` later,
# so the scanner's own queries are not counted against the endpoint.
DEFER = False
DEFERRED: list[tuple[str, str, str]] = []


# A token's player by the token's digest, as read once (a token never changes hands).
_PLAYER_OF_TOKEN: dict[str, str] = {}


def _viewer_player_id(authorization: str) -> str | None:
    from players.models import Player, token_digest

    parts = authorization.split()
    if len(parts) != 2 or parts[0] != "Token":
        return None
    digest = token_digest(parts[1])
    if digest not in _PLAYER_OF_TOKEN:
        row = rawsql.fetch_one(_token_player_sql(), [digest])
        if row is None:
            return None  # no such token, or no player (a token of an admin user)
        _PLAYER_OF_TOKEN[digest] = str(rawsql.from_row(Player, ["id"], row).id)
    return _PLAYER_OF_TOKEN[digest]


def _token_player_sql() -> str:
    """The player id of the token whose digest is the parameter (live or not: who asked)."""
    from players.models import ApiToken, Player

    return rawsql.statement(
        "SELECT p.{player.pk} FROM {token} t"
        " JOIN {player} p ON p.{player.user} = t.{token.user} WHERE t.{token.digest} = %s",
        token=ApiToken,
        player=Player,
    )


def _live_seeds_sql() -> str:
    """The seed of every deal whose status is the parameter (active)."""
    from games.models import Deal

    return rawsql.statement("SELECT {deal.seed} FROM {deal} WHERE {deal.status} = %s", deal=Deal)


def _private_among_sql(ids: int) -> str:
    """The ids of the private matches among `ids` parameters."""
    from games.models import Match

    return rawsql.statement(
        "SELECT {match.pk} FROM {match} WHERE {match.private} AND {match.pk} IN ({ids})",
        match=Match,
        ids=", ".join(["%s"] * ids),
    )


def _ticket_player_id(ticket: str) -> str | None:
    from django.core import signing

    from live.tickets import _SALT

    try:
        return str(signing.loads(ticket, salt=_SALT)["p"])
    except (signing.BadSignature, KeyError, TypeError):
        return None


def viewer_of(url: str, headers: dict[str, str]) -> str | None:
    """The player id a request is made as (Authorization header, else a stream ticket in the
    URL), None for an anonymous caller."""
    from urllib.parse import parse_qs, urlsplit

    authorization = next((v for k, v in headers.items() if k.lower() == "authorization"), "")
    if authorization:
        return _viewer_player_id(authorization)
    ticket = parse_qs(urlsplit(url).query).get("ticket")
    return _ticket_player_id(ticket[0]) if ticket else None


def scan_event(url: str, data: Any, viewer: str | None) -> list[str]:
    """Violations in one event's data, received at `url` (a stream) by `viewer`."""
    from urllib.parse import urlsplit

    return scan_body(urlsplit(url).path, data, json.dumps(data), viewer)


def _strings_in_deal(body: Any, live_deal: int | None, context: int | None) -> Iterator[str]:
    """Card-like strings of `body` in a context that is (or may be) the live deal; with
    `live_deal` None, in every context."""
    if isinstance(body, dict):
        deal = body.get("deal")
        if isinstance(deal, int) and not isinstance(deal, bool):
            context = deal
        for value in body.values():
            yield from _strings_in_deal(value, live_deal, context)
    elif isinstance(body, list):
        for value in body:
            yield from _strings_in_deal(value, live_deal, context)
    elif (
        isinstance(body, str)
        and CARD_RE.match(body)
        and (live_deal is None or context in (None, live_deal))
    ):
        yield body


def scan_body(path: str, body: Any, raw: str, viewer: Viewer) -> list[str]:
    """Violations in one response body; empty when it leaks nothing."""
    from games import engine
    from games.models import Deal, Match
    from games.selectors import deal_revealable, seat_of

    viewer = _once(viewer)
    found: list[str] = []
    if SEED_HEX_RE.search(raw):
        for (seed,) in rawsql.fetch_all(_live_seeds_sql(), [Deal.Status.ACTIVE.value]):
            if bytes(seed).hex() in raw:
                found.append(f"{path}: seed of a deal in progress")
    found.extend(_private_leaks(path, raw, viewer))
    matched = MATCH_PATH_RE.match(path)
    if not matched or next(_strings_in_deal(body, None, None), None) is None:
        return found  # not a match's route, or no card in the body at all
    _, match = rawsql.fetch_by_pk(Match, matched.group(1))
    if match is None or match.status != Match.Status.ACTIVE or not match.state:
        return found
    live = None
    if match.live_deal_id is not None:
        _, live = rawsql.fetch_by_pk(Deal, match.live_deal_id)
    if live is not None and deal_revealable(live):
        return found  # the deal is over (and scored next): everything about it may be shown
    state = engine.State.from_json(match.state)
    seat = seat_of(match, viewer())
    hidden = {c.code for c in state.stock}
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden.update(c.code for c in hand)
    context: int | None = None
    deal_path = DEAL_PATH_RE.match(matched.group(2) or "")
    if deal_path:
        context = int(deal_path.group(1))
    for code in _strings_in_deal(body, match.current_deal, context):
        if code in hidden:
            found.append(f"{path}: card {code} is hidden from seat {seat}")
    return found


def _once(viewer: Viewer) -> Callable[[], str | None]:
    """`viewer` as a function that reads it at most once."""
    if not callable(viewer):
        return lambda: viewer
    read: list[str | None] = []

    def get() -> str | None:
        if not read:
            read.append(viewer())
        return read[0]

    return get


def _private_leaks(path: str, raw: str, viewer: Callable[[], str | None]) -> list[str]:
    """A private match named to a viewer it is hidden from, or its join code to anyone but its
    creator. The answer to a leave is the match just left: its caller was a guest a moment ago."""
    from games.models import Match
    from games.selectors import match_guest

    ids = set(UUID_RE.findall(raw))
    if not ids or path.endswith("/leave"):
        return []
    private = _private_among(ids)
    if not private:
        return []
    found = []
    for match in Match.objects.filter(id__in=private):
        if not match_guest(match, viewer()):
            found.append(f"{path}: private match {match.id} shown to a viewer it is hidden from")
        elif match.join_code and match.join_code in raw and str(match.created_by_id) != viewer():
            found.append(f"{path}: the join code of {match.id} shown to another than its creator")
    return found


def _private_among(ids: set[str]) -> list[Any]:
    """The ids of private matches among `ids` (UUIDs in text)."""
    from django.db import connection

    from games.models import Match

    pk = Match._meta.pk
    prepared = [pk.get_db_prep_value(UUID(i), connection) for i in ids]
    return [row[0] for row in rawsql.fetch_all(_private_among_sql(len(ids)), prepared)]


class LeakScanMiddleware:
    # Async too: under live.asgi a stream's opening runs the chain's async form.
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]):
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self._acall(request)
        return self._scanned(request, self.get_response(request))

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        response = await self.get_response(request)
        return await sync_to_async(self._scanned)(request, response)  # it reads the database

    def _scanned(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        path = request.path
        if (
            path.startswith("/api/v1/")
            and getattr(response, "streaming", False)
            and response.get("Content-Type", "").startswith("text/event-stream")
            and not getattr(response, "is_async", False)
        ):
            # Under WSGI a stream is a few events and a close: read them, scan every one,
            # and hand the same bytes on.
            chunks = list(response.streaming_content)  # type: ignore[attr-defined]
            response.streaming_content = chunks  # type: ignore[attr-defined]
            authorization = request.META.get("HTTP_AUTHORIZATION", "")
            viewer_header = {"Authorization": authorization} if authorization else {}
            viewer = viewer_of(request.get_full_path(), viewer_header)
            text = b"".join(bytes(c) for c in chunks).decode()
            for raw in SSE_DATA_RE.findall(text):
                try:
                    VIOLATIONS.extend(scan_body(path, json.loads(raw), raw, viewer))
                except Exception as exc:
                    VIOLATIONS.append(f"{path}: scanner failed: {exc!r}")
            return response
        if (
            path.startswith("/api/v1/")
            and not path.startswith(("/api/v1/schema", "/api/v1/docs"))
            and not getattr(response, "streaming", False)
            and response.get("Content-Type", "").startswith("application/json")
        ):
            raw = response.content.decode()
            if DEFER:
                DEFERRED.append((path, raw, request.META.get("HTTP_AUTHORIZATION", "")))
            else:
                _scan(path, raw, request.META.get("HTTP_AUTHORIZATION", ""))
        return response


def _scan(path: str, raw: str, authorization: str) -> None:
    try:
        body = json.loads(raw) if raw else None
        VIOLATIONS.extend(scan_body(path, body, raw, lambda: _viewer_player_id(authorization)))
    except Exception as exc:  # the scanner must never pass silently
        VIOLATIONS.append(f"{path}: scanner failed: {exc!r}")


def scan_deferred() -> None:
    while DEFERRED:
        _scan(*DEFERRED.pop(0))
