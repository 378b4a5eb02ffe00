"""The one application error type and the one place that maps errors to HTTP.

Every 4xx/5xx body is `{"code", "message", "detail"?}` (docs/api.md "Errors"): DRF's own exceptions,
Django's 404/500 pages, our `ApplicationError` and the rules engine's errors (whose `code` is the
API's: `invalid_move`, `not_your_turn`, `illegal_move`) all come out in that shape, never as HTML.

Messages follow the request's `Accept-Language` (LocaleMiddleware; English, or Turkish `tr`):
the default messages below, the literal messages services raise, their templates with named
slots (`_("seats must be %(low)d..%(high)d") % {…}`) and the engine's templates
(`engine_message`) are looked up in pisyedili_api/locale when the error is made; DRF's own
field messages come translated by DRF. tests/test_i18n.py finds every message in the source
and checks the catalog translates it. `code` never changes with the language.
"""

from __future__ import annotations

import logging
import re
from typing import Any, TypeVar

from django.core.exceptions import DisallowedHost
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, HttpResponseBase, JsonResponse
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import set_rollback

from games.engine.errors import EngineError, IllegalMove, InvalidMove

logger = logging.getLogger(__name__)

# code -> (status, default message); the table of docs/api.md plus what HTTP itself can produce.
ERROR_CODES: dict[str, tuple[int, Any]] = {
    "invalid": (400, _("The request body or query is malformed.")),
    "invalid_move": (
        400,
        _("The body is not a move: unknown action, bad card code or suit on a non-Jack."),
    ),
    "not_authenticated": (401, _("Authentication credentials were missing or wrong.")),
    "not_seated": (403, _("You have no seat in this match.")),
    "not_organizer": (403, _("Only the tournament's organizer may do this.")),
    "not_invited": (403, _("You are not invited to this tournament.")),
    "not_creator": (403, _("Only the match's creator may do this.")),
    "spectators_not_allowed": (403, _("This match has no spectators: only its seats may see it.")),
    "forbidden": (403, _("You may not do this.")),
    "not_found": (404, _("No such object.")),
    "method_not_allowed": (405, _("This method is not allowed on this route.")),
    "not_acceptable": (406, _("Only application/json responses are available.")),
    "stale_version": (409, _("The version you sent is not the match's current version.")),
    "not_your_turn": (409, _("Your seat is not on turn.")),
    "match_not_active": (409, _("The match is waiting for players or over.")),
    "resigned": (409, _("You resigned from this match: a bot plays your seat.")),
    "match_full": (409, _("The match is full, has started or was cancelled.")),
    "match_not_waiting": (409, _("The match is no longer waiting for players.")),
    "match_not_finished": (409, _("The match is not finished.")),
    "invitation_not_pending": (
        409,
        _("This invitation is no longer open: it was answered or has expired."),
    ),
    "deal_not_over": (
        409,
        _("The deal is still being played: its replay and analysis come once it is over."),
    ),
    "too_many_active_matches": (409, _("You have as many matches going on as one player may.")),
    "already_queued": (409, _("You are in the quick-play queue already.")),
    "not_queued": (409, _("You are no longer waiting in the queue.")),
    "tournament_started": (409, _("The tournament has already started.")),
    "tournament_over": (409, _("The tournament is finished or cancelled.")),
    "invitations_pending": (409, _("Some invited players have not accepted yet.")),
    "not_enough_entrants": (409, _("Too few entrants are left to seat a table.")),
    "push_disabled": (409, _("Web Push is off on this server.")),
    "unsupported_media_type": (415, _("Send the body as application/json.")),
    "illegal_move": (422, _("The rules do not allow that move now.")),
    "idempotency_mismatch": (422, _("This Idempotency-Key was used with a different request.")),
    "throttled": (429, _("Too many requests; retry later.")),
    "too_many_tournaments": (409, _("You have too many tournaments in draft or running.")),
    "server_error": (500, _("Something went wrong on our side.")),
    "unavailable": (503, _("The service is unavailable for a moment; retry later.")),
}

# Messages the services and selectors raise as literals (`ApplicationError("not_found", "No such
# match.")`): marked here so that makemessages keeps them in the catalog.
LITERAL_MESSAGES = (
    gettext_noop("No such match."),
    gettext_noop("No such deal."),
    gettext_noop("No such tournament."),
    gettext_noop("No such player."),
    gettext_noop("Invalid token."),
    gettext_noop("The body must be a JSON object."),
    gettext_noop("Expected an object."),
    gettext_noop("Unknown field."),
)


def translated(message: Any) -> str:
    """`message` in the active language: a lazy message evaluated, a literal one looked up in
    the catalog (unchanged when it holds none)."""
    return gettext(message) if isinstance(message, str) else str(message)


class ApplicationError(Exception):
    """An error a service or selector raises on purpose; `code` is one of ERROR_CODES."""

    def __init__(self, code: str, message: str | None = None, detail: dict[str, Any] | None = None):
        status, default_message = ERROR_CODES[code]
        self.code = code
        self.status = status
        self.message = translated(message or default_message)
        super().__init__(self.message)
        self.detail = detail


def invalid(field: str, message: str) -> ApplicationError:
    """400 `invalid` naming `field`, worded as a serializer's error ("field: message", the
    message in the caller's language: a literal is looked up in the catalog here)."""
    message = translated(message)
    return ApplicationError("invalid", f"{field}: {message}", {field: [message]})


def error_body(code: str, message: str | None = None, detail: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": translated(message or ERROR_CODES[code][1])}
    if detail is not None:
        body["detail"] = detail
    return body


R = TypeVar("R", bound=HttpResponseBase)

# The key DRF files a refusal of the whole body under (a list where an object belongs, a
# check across fields): `detail` keeps it, the message does not name it.
NO_FIELD = api_settings.NON_FIELD_ERRORS_KEY


def _first_message(detail: Any) -> str | None:
    if isinstance(detail, str):
        return str(detail)
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    if isinstance(detail, dict) and detail:
        key, value = next(iter(detail.items()))
        inner = _first_message(value)
        if key == NO_FIELD:  # the whole body, not one field: the message alone
            return inner
        return f"{key}: {inner}" if inner else None
    return None


_DRF_CODES: list[tuple[type[Exception], str]] = [
    (drf.ValidationError, "invalid"),
    (drf.ParseError, "invalid"),
    (drf.NotAuthenticated, "not_authenticated"),
    (drf.AuthenticationFailed, "not_authenticated"),
    (drf.PermissionDenied, "forbidden"),
    (drf.NotFound, "not_found"),
    (drf.MethodNotAllowed, "method_not_allowed"),
    (drf.NotAcceptable, "not_acceptable"),
    (drf.UnsupportedMediaType, "unsupported_media_type"),
    (drf.Throttled, "throttled"),
]


# A card or suit a message names is written as a person reads it ("10♥", "♠"), not by its
# code; a value that is no card or suit (a bad code sent) is shown as it came.
_SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
_CARD_OR_SUIT = re.compile(r"(?:10|[2-9JQKA])?[CDHS]")


def _shown(key: str, value: Any) -> Any:
    if key in ("card", "top", "suit") and _CARD_OR_SUIT.fullmatch(str(value)):
        text = str(value)
        return text[:-1] + _SUIT_SYMBOLS[text[-1]]
    return value


def engine_message(exc: EngineError) -> str:
    """The engine error's message in the active language: its template looked up in the
    catalog, then filled with its parameters (cards and suits by their symbols)."""
    template = gettext(exc.template)
    if not exc.params:
        return template
    return template % {key: _shown(key, value) for key, value in exc.params.items()}


def engine_error(exc: EngineError) -> ApplicationError:
    """The API's error for an engine error that reaches a view: the same `code`; the message
    and detail of a malformed move name its field, those of an illegal one the legal moves."""
    if isinstance(exc, InvalidMove):
        message = engine_message(exc)
        return ApplicationError(exc.code, message, {exc.field: [message]})
    if isinstance(exc, IllegalMove):
        detail: dict[str, Any] = {"legal_moves": [m.to_json() for m in exc.legal_moves]}
        if exc.rule:
            detail["rule"] = exc.rule
        message = engine_message(exc)
        return ApplicationError(
            exc.code, f"{message} ({exc.rule})." if exc.rule else f"{message}.", detail
        )
    return ApplicationError(exc.code)  # not_your_turn: its default message


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF EXCEPTION_HANDLER: every error the API raises becomes `{"code","message","detail"?}`,
    never stored by a cache (`Cache-Control: no-store, private`: an error may be a seat's own,
    as an illegal move's `legal_moves` are)."""
    response = _error_response(exc)
    if response is not None:
        patch_cache_control(response, no_store=True, private=True)
    return response


def _error_response(exc: Exception) -> Response | None:
    if isinstance(exc, EngineError) and exc.code in ERROR_CODES:
        exc = engine_error(exc)
    if isinstance(exc, ApplicationError):
        set_rollback()
        body = error_body(exc.code, exc.message, exc.detail)
        return challenged(Response(body, status=exc.status))
    if isinstance(exc, Http404):
        exc = drf.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf.PermissionDenied()
    if not isinstance(exc, drf.APIException):
        return None  # a bug: Django's handler500 answers with JSON, and it is logged
    code = next((c for klass, c in _DRF_CODES if isinstance(exc, klass)), None)
    headers: dict[str, str] = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
    # Throttled.__init__ sets `wait` (seconds or None); the stubs do not declare it.
    wait: float | None = getattr(exc, "wait", None)
    if isinstance(exc, drf.Throttled) and wait is not None:
        headers["Retry-After"] = str(int(wait) + (0 if float(wait).is_integer() else 1))
    set_rollback()
    if code is None:
        code = "invalid" if exc.status_code == 400 else "server_error"
    if code == "invalid" and isinstance(exc, drf.ValidationError):
        detail = exc.detail if isinstance(exc.detail, dict) else {NO_FIELD: exc.detail}
        message = _first_message(detail) or ERROR_CODES["invalid"][1]
        return Response(error_body("invalid", message, detail), status=400, headers=headers)
    message = _first_message(exc.detail) or ERROR_CODES[code][1]
    return challenged(Response(error_body(code, message), status=exc.status_code, headers=headers))


def challenged(response: R) -> R:
    """`response` with `WWW-Authenticate: Token` if it is a 401 that has none (RFC 9110: every
    401 names the scheme that would do): a route that needs the token and got none, a wrong
    login, a stream's refused ticket."""
    if response.status_code == 401:
        response.setdefault("WWW-Authenticate", "Token")
    return response


# A path naming a match, tournament or player by what is no id (`/tournaments/xyz`) is refused
# by the router: its 404 says what is missing, as a well-formed id that names nothing does.
_NAMED_BY_ID = re.compile(
    r"^/api/v1/(matches|tournaments|players)/"
    r"(?!(?:me|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})(?:/|$))[^/]+"
)
_NO_SUCH = {
    "matches": "No such match.",
    "tournaments": "No such tournament.",
    "players": "No such player.",
}


def json_404(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    named = _NAMED_BY_ID.match(request.path)
    return JsonResponse(error_body("not_found", _NO_SUCH[named[1]] if named else None), status=404)


def json_500(request: HttpRequest) -> JsonResponse:
    return JsonResponse(error_body("server_error"), status=500)


_BAD_HOST = gettext_noop("This server does not serve the host that the Host header names.")


def json_400(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    message = _BAD_HOST if isinstance(exception, DisallowedHost) else None
    return JsonResponse(error_body("invalid", message), status=400)


def json_403(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse(error_body("forbidden"), status=403)
