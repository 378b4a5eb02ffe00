"""Token auth: hashed API tokens that expire when idle, loaded with the user and the player in
one query (every API request pays it).

A key is 40 lowercase hex characters; the database keeps only its SHA-256 (`ApiToken.digest`),
so a copy of the database holds no usable token. A header whose key is not of that form is 401
without a query (a NUL byte never reaches the database). A token whose `last_used` is older
than TOKEN_IDLE_SECONDS no longer authenticates; an authenticated request moves `last_used` on
at most once every TOKEN_TOUCH_SECONDS, so a busy client does not write a row per request.

One SQL statement written by hand (players/sql.py): the ORM's select_related over three models
cost more CPU to compile than the database spent answering it (bench/api.py).

The move POST, the hottest route, does not run a query of its own for the token: its view
authenticates with `DeferredTokenAuthentication`, which checks only the header's form and
makes `request.user` a `DeferredPlayer`; the service's statement that locks the match reads
the player id beside the row (`DeferredPlayer.lookup_sql`) and `DeferredPlayer.player_id`
turns it into the id, or 401 (docs/architecture.md "A move, end to end"). That statement
checks the idle expiry but does not move `last_used` on; the client's reads of the match (GET)
do.
"""

from __future__ import annotations

import hashlib
import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from uuid import UUID

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext_lazy
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from pisyedili_api import rawsql

from . import sql
from .models import ApiToken, Player, token_digest

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

    class AuthenticatedRequest(Request):
        """The request of a view whose permission classes refuse anonymous callers
        (IsAuthenticated): its user is a User with a player, its auth the ApiToken it came with."""

        @property
        def user(self) -> User: ...
        @user.setter
        def user(self, value: User | AnonymousUser) -> None: ...
        @property
        def auth(self) -> ApiToken: ...
        @auth.setter
        def auth(self, value: Any) -> None: ...

else:
    # Only the type checker tells the two apart.
    AuthenticatedRequest = Request

_KEY = re.compile(r"[0-9a-f]{40}")


def _digest_of(key: str) -> str:
    if not _KEY.fullmatch(key):
        raise AuthenticationFailed("Invalid token.")
    return token_digest(key)


class DeferredPlayer:
    """`request.user` of a route whose service reads a row anyway (the move POST's match row):
    the player whose token the request carries, looked up by that statement instead of a
    query of its own. The service never sees the token: it puts `lookup_sql()` (a scalar
    subquery taking `lookup_params()`) beside the row it reads, and `player_id` makes the value
    it reads the caller's id, or 401. `verify` runs the lookup alone, for a request that stops
    before that read (a bad body, no such match): a bad token is 401 first, as on every
    route."""

    is_authenticated = True  # a well-formed token; whose it is, the match read says
    is_anonymous = False

    def __init__(self, digest: str) -> None:
        self._digest = digest

    @staticmethod
    def lookup_sql() -> str:
        """The id of the active player whose live (not idle-expired) token has the parameter
        as its digest, else NULL (players/sql.py)."""
        return sql.token_player()

    def lookup_params(self) -> list[Any]:
        return [self._digest]

    def player_id(self, found: Any) -> UUID:
        """The caller's id from the value `lookup_sql` read (a UUID, hex text on SQLite); 401
        for a token of no active player."""
        if found is None:
            raise AuthenticationFailed("Invalid token.")
        player_id: UUID = Player._meta.pk.to_python(found)
        return player_id

    @property
    def throttle_ident(self) -> str:
        """What names the token's throttle counts (games.apis.MoveRateThrottle): a hash of its
        digest, which itself never leaves the database."""
        return hashlib.sha256(b"throttle:" + self._digest.encode()).hexdigest()[:32]

    def verify(self) -> UUID:
        """The caller's id by the lookup alone (one statement); 401 as `player_id`."""
        row = rawsql.fetch_one(f"SELECT {self.lookup_sql()}", self.lookup_params())
        return self.player_id(None if row is None else row[0])


_NOT_TOKEN_SCHEME = gettext_lazy("The Authorization header must be 'Token <token>'.")


class TokenSchemeAuthentication(TokenAuthentication):
    """DRF's `Authorization: Token <key>` (the scheme in any letter case, as HTTP's are), where
    a header of another scheme (`Bearer …`, `Basic …`) is 401 too: DRF would take its caller
    for anonymous, and a client that sent its token so would silently get the public view."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        found = super().authenticate(request)
        # Anonymous to DRF: no header, or one of another scheme (only then read again).
        if found is None and get_authorization_header(request).split():
            raise AuthenticationFailed(_NOT_TOKEN_SCHEME)
        return found


class DeferredTokenAuthentication(TokenSchemeAuthentication):
    """DRF's parsing of `Authorization: Token <key>` (401 for a malformed header, anonymous
    without one), leaving the lookup to the service's match read (DeferredPlayer)."""

    def authenticate_credentials(self, key: str) -> tuple[DeferredPlayer, None]:
        return DeferredPlayer(_digest_of(key)), None


class PlayerTokenAuthentication(TokenSchemeAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        return self.authenticate_digest(_digest_of(key))

    def authenticate_digest(self, digest: str) -> tuple[Any, ApiToken]:
        row = rawsql.fetch_one(sql.token_user_player(), [digest])
        if row is None:
            # No such token, an idle-expired one, or a user that is not a player (an admin).
            raise AuthenticationFailed("Invalid token.")
        user_id, is_active, last_used, *player_row = row
        if not is_active:
            raise AuthenticationFailed("User inactive or deleted.")
        token = rawsql.from_row(
            ApiToken, ["digest", "user_id", "last_used"], [digest, user_id, last_used]
        )
        now = timezone.now()
        if token.last_used < now - timedelta(seconds=settings.TOKEN_TOUCH_SECONDS):
            ApiToken.objects.filter(digest=digest).update(last_used=now)
            token.last_used = now
        User = get_user_model()
        user = User.from_db(
            connection.alias, [User._meta.pk.attname, "is_active"], [user_id, is_active]
        )
        player = rawsql.from_row(Player, rawsql.concrete_names(Player), player_row)
        user.player = player  # cache the one-to-one both ways: no query for request.user.player
        return user, token
