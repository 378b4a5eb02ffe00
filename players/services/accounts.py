"""Writes on accounts: registration, logins and API tokens, bot rows."""

from __future__ import annotations

import logging
import re
import unicodedata
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model, user_logged_in
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, Q, Subquery
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from ua_parser import parse as user_agent_parse

from pisyedili_api.errors import ApplicationError, invalid

from ..models import (
    DEVICE_MAX,
    ApiToken,
    Player,
    search_key,
    token_digest,
    token_new_key,
    token_public_id,
)
from ..receivers import tokens_kept

DISPLAY_NAME_MAX = 40

# Bots are found by (strategy, bot_ordinal), never by name; their names still read
# `bot-<strategy>-<n>`, so a person may not take a name a reader would mistake for a bot's:
# `bot` then a separator, in any case, with a zero for the o.
_RESERVED_USERNAME = re.compile(r"^b[o0]t(?:$|[-_.@+])", re.IGNORECASE)
logger = logging.getLogger(__name__)

_USERNAME_TAKEN = gettext_noop("That username is taken.")
_RESERVED = gettext_noop(
    "Usernames that are 'bot', or 'bot' then one of - _ . @ +, are reserved for bots."
)
_WRONG_PASSWORD = gettext_noop("Wrong password.")

# A deleted account's name in the matches it played (players.services.deletion); the web client
# shows it in the page's language. No one else may take it, in either language.
DELETED_NAME = "Deleted player"
_DELETED_NAME_KEPT_IN = ("Deleted player", "Silinmiş oyuncu")
_DELETED_NAME_KEPT = gettext_noop("That display name is kept for deleted accounts.")

# Bidi overrides and isolates, zero-width and other format characters can make a name read as
# another (or reorder the text around it). The joiners stay: the zero-width joiner of emoji
# sequences and the non-joiner that Persian and other scripts write words with. So do the tag
# characters of an emoji tag sequence (a subdivision's flag: the black flag, tags, the cancel
# tag), and there only: elsewhere they hide text no one sees.
_ALLOWED_FORMAT = {"\u200d", "\u200c"}
_EMOJI_TAG_SEQUENCE = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
_CONTROL_IN_DISPLAY_NAME = gettext_noop(
    "The display name may not contain the control character U+%(code)04X."
)


def username_check(username: str) -> None:
    """400 `invalid` for a reserved (bot-like) username or one taken in any letter case: by a
    player, or by a sign-in with no player (a staff account made by `createsuperuser`)."""
    if _RESERVED_USERNAME.match(username):
        raise invalid("username", _RESERVED)
    if (
        Player.objects.filter(username__iexact=username).exists()
        or get_user_model().objects.filter(username__iexact=username).exists()
    ):
        raise invalid("username", _USERNAME_TAKEN)


def display_name_check(display_name: str) -> None:
    """400 `invalid` unless plain text of at most DISPLAY_NAME_MAX characters with no control
    or format characters. HTML is allowed as text: nothing renders a display name as HTML (the
    API is JSON; the admin escapes it)."""
    if not has_visible_character(display_name):
        raise invalid("display_name", "The display name may not be blank.")
    if name_key(display_name) in _DELETED_NAME_KEYS:
        raise invalid("display_name", _DELETED_NAME_KEPT)
    if len(display_name) > DISPLAY_NAME_MAX:
        raise invalid(
            "display_name",
            _("The display name has at most %(most)d characters.") % {"most": DISPLAY_NAME_MAX},
        )
    plain_text_check("display_name", display_name, _CONTROL_IN_DISPLAY_NAME)


# Letters and symbols that show nothing: the Hangul fillers, the braille blank, the Khmer
# inherent vowels (Unicode's Default_Ignorable_Code_Point among letters, and U+2800).
_BLANK_LOOKING = frozenset("\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")


def name_key(text: str) -> str:
    """A name as a reader tells it from another: compatibility forms read as their plain
    letters (the fullwidth Ｄ is D), accents and other marks, format characters (the zero-width
    joiners) and variation selectors dropped, any blank-looking run one space, letter case
    ignored, and the Turkish İ and ı read as i, so that `SİLİNMİŞ OYUNCU`, `Ｄeleted player` and
    `Deleted player` with a zero-width joiner all read as their plain names. Only for
    comparing: a name is kept as it was typed. Player search's key (`search_key`) does the
    folding; what reads as nothing or as a blank is taken off first."""
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if category[0] == "M" or category == "Cf":
            continue
        kept.append(" " if category[0] in "ZC" or char in _BLANK_LOOKING else char)
    return " ".join(search_key("".join(kept)).split())


def has_visible_character(text: str) -> bool:
    """Whether `text` shows something: a letter, digit, punctuation mark or symbol other than
    a blank-looking one (spaces, joiners, combining marks and variation selectors alone show
    nothing a reader can tell apart)."""
    return any(
        unicodedata.category(char)[0] in "LNPS" and char not in _BLANK_LOOKING for char in text
    )


_DELETED_NAME_KEYS = frozenset(name_key(name) for name in _DELETED_NAME_KEPT_IN)


def plain_text_check(field: str, text: str, refusal: str) -> None:
    """400 `invalid` on `field` for a control or format character in `text` (a name others
    read: a display name, a tournament's name); `refusal` is the message, whose `%(code)04X`
    is that character's code point (as in U+202E)."""
    for char in _EMOJI_TAG_SEQUENCE.sub("\U0001f3f4", text):
        category = unicodedata.category(char)
        if category in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp") or (
            category == "Cf" and char not in _ALLOWED_FORMAT
        ):
            raise invalid(field, _(refusal) % {"code": ord(char)})


def device_label(user_agent: str) -> str:
    """A session's device as a person reads it, from a login's User-Agent header: the browser
    and the system, names in any language ("Chrome · Linux", "Mobile Safari · iOS", "curl");
    empty when the header names nothing known. Parsed by ua-parser (the uap-core regexes); only
    the label is kept, never the header."""
    found = user_agent_parse(user_agent[:1000]) if user_agent else None
    if found is None:
        return ""
    known = [
        part.family
        for part in (found.user_agent, found.os)
        if part is not None and part.family and part.family != "Other"
    ]
    return " · ".join(known)[:DEVICE_MAX]


def request_device(request: HttpRequest) -> str:
    """The device label of `request`'s User-Agent (device_label)."""
    return device_label(request.META.get("HTTP_USER_AGENT", ""))


def player_register(
    *, username: str, password: str, display_name: str | None = None, device: str = ""
) -> tuple[Player, str]:
    """Create the auth user, its player and a token (made for `device`, a device_label);
    return the player and the token's key (shown this once). A reserved or taken username (in
    any letter case), a password the validators refuse (AUTH_PASSWORD_VALIDATORS) or a bad
    display name is 400 `invalid`."""
    User = get_user_model()
    username_check(username)
    display_name = display_name if display_name is not None else username[:DISPLAY_NAME_MAX]
    display_name_check(display_name)
    try:
        validate_password(password, user=User(username=username))
    except DjangoValidationError as exc:
        raise ApplicationError("invalid", exc.messages[0], {"password": exc.messages}) from None
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            player = Player.objects.create(user=user, username=username, display_name=display_name)
            key = api_token_create(user_id=user.pk, device=device)
    except IntegrityError:
        # A registration of the same name (in any case) committed between the check and here:
        # the name is taken now. Any other integrity error is a bug, a logged 500.
        if not _username_taken(username):
            logger.exception("registration of %r: unexpected integrity error", username)
            raise
        raise invalid("username", _USERNAME_TAKEN) from None
    return player, key


def _username_taken(username: str) -> bool:
    """Whether a player or an auth user holds `username` in any letter case."""
    return (
        Player.objects.filter(username__iexact=username).exists()
        or get_user_model().objects.filter(username__iexact=username).exists()
    )


def _stored_username(username: str) -> str:
    """The auth user's own spelling of `username` (matched in any letter case), else as given:
    a player's before a sign-in with no player, where both were made before names were unique
    across them (`username_check`)."""
    stored = (
        get_user_model()
        .objects.filter(username__iexact=username)
        .order_by(F("player").asc(nulls_last=True), "id")
        .values_list("username", flat=True)
        .first()
    )
    return stored if stored is not None else username


def login_locked_out(*, request: HttpRequest, username: str) -> bool:
    """Whether logins on `username` (any letter case, as `player_token` counts them) are locked
    out now (django-axes: AXES_FAILURE_LIMIT failures within AXES_COOLOFF_TIME)."""
    from axes.handlers.proxy import AxesProxyHandler

    return bool(AxesProxyHandler.is_locked(request, {"username": _stored_username(username)}))


def player_token(*, request: HttpRequest, username: str, password: str) -> str:
    """A new API token's key for a correct username and password, else 401.

    Logins go through django-axes (AUTHENTICATION_BACKENDS): AXES_FAILURE_LIMIT failures on a
    username within AXES_COOLOFF_TIME lock it for AXES_COOLOFF_TIME, right or wrong password:
    429 `throttled` with Retry-After (players.throttles.lockout_response). A success resets
    the count.

    Usernames are unique in any letter case (`player_register`), so the login names the account
    in any letter case too: the stored spelling is looked up first, and the lockout counts the
    failures of every spelling against that one account."""
    username = _stored_username(username)
    user = authenticate(request, username=username, password=password)
    if user is None:
        if getattr(request, "axes_locked_out", False):
            raise ApplicationError(
                "throttled", "Too many failed logins for this username; retry later."
            )
        raise ApplicationError("not_authenticated", "Wrong username or password.")
    if not hasattr(user, "player"):
        raise ApplicationError("not_authenticated", "Wrong username or password.")
    # What django.contrib.auth.login announces: axes forgets the failures, Django stamps
    # last_login. No session is made: the API is token-only.
    user_logged_in.send(sender=user.__class__, request=request, user=user)
    return api_token_create(user_id=user.pk, device=request_device(request))


def api_token_create(*, user_id: int, device: str = "") -> str:
    """A new token of the user `user_id`, handed to `device` (a device_label); return its key
    (stored only as its digest). Each
    login makes one, so a user keeps at most TOKEN_MAX_PER_USER, the most recently used: older
    ones and idle-expired ones are deleted here."""
    now = timezone.now()
    with transaction.atomic():
        key = _token_insert(user_id=user_id, device=device, now=now)
        newest = ApiToken.objects.filter(user_id=user_id).order_by("-last_used", "-created_at")
        idle_before = now - timedelta(seconds=settings.TOKEN_IDLE_SECONDS)
        ApiToken.objects.filter(user_id=user_id).filter(
            ~Q(digest__in=Subquery(newest.values("digest")[: settings.TOKEN_MAX_PER_USER]))
            | Q(last_used__lte=idle_before)
        ).delete()
    return key


def _token_insert(*, user_id: int, device: str, now: datetime) -> str:
    """One new token row of the user; its key."""
    key = token_new_key()
    ApiToken.objects.create(digest=token_digest(key), user_id=user_id, last_used=now, device=device)
    return key


def api_token_revoke(*, token: ApiToken) -> None:
    """Delete the token: its key no longer authenticates, on any route."""
    ApiToken.objects.filter(digest=token.digest).delete()


def api_token_rotate(*, token: ApiToken) -> str:
    """Replace the token by a new one of the same user and device; return the new key. The old
    key stops working at once; a token revoked meanwhile (two rotations at once) is 401. The
    session goes on under the new key: the push subscriptions it registered are the new
    token's (revoking the old one would delete them)."""
    # games imports the players app: its model is imported here, when a token is rotated.
    from games.models import PushSubscription

    row = ApiToken.objects.filter(digest=token.digest)
    with transaction.atomic():
        device = row.values_list("device", flat=True).first()
        # The new token first, so that the subscriptions move to it before the old one goes
        # (deleting it deletes what still names it); one in, one out: no other session goes.
        key = _token_insert(user_id=token.user_id, device=device or "", now=timezone.now())
        PushSubscription.objects.filter(token_id=token.digest).update(token_id=token_digest(key))
        if not row.delete()[0]:
            raise ApplicationError("not_authenticated", "Invalid token.")  # none of it stays
        return key


def _password_check(request: HttpRequest, user: Any, password: str, *, field: str) -> None:
    """Nothing when `password` is the user's; else 400 `invalid` naming `field`. Checked as a
    login is: django-axes counts a wrong one against the username, and a locked-out username
    is 429 `throttled` whatever the password."""
    checked = authenticate(request, username=user.get_username(), password=password)
    if checked is None or checked.pk != user.pk:
        if getattr(request, "axes_locked_out", False):
            raise ApplicationError(
                "throttled", "Too many failed logins for this username; retry later."
            )
        raise invalid(field, _WRONG_PASSWORD)


def player_password_change(
    *, request: HttpRequest, token: ApiToken, old_password: str, new_password: str
) -> None:
    """Set the password of `token`'s user to `new_password`, once `old_password` is theirs;
    every other token of the user is revoked (and its streams end), `token` stays. A new
    password the validators refuse is 400 `invalid` naming `new_password`, before the old one
    is checked; a wrong old one is 400 naming `old_password` and counts as a failed login."""
    user = get_user_model().objects.get(pk=token.user_id)
    try:
        validate_password(new_password, user=user)
    except DjangoValidationError as exc:
        raise ApplicationError("invalid", exc.messages[0], {"new_password": exc.messages}) from None
    with tokens_kept(token.digest):
        # Outside the write's transaction: a failed check is recorded (django-axes) as it fails.
        _password_check(request, user, old_password, field="old_password")
        with transaction.atomic():
            user.set_password(new_password)
            user.save(update_fields=["password"])


def player_display_name_change(*, player: Player, display_name: str) -> Player:
    """Set `player`'s display name, under display_name_check's rules (400 `invalid` naming
    `display_name`, nothing changed). Every page and answer shows it from then on: a match,
    a leaderboard or a tournament reads the name from the player, never a copy."""
    display_name_check(display_name)
    if display_name != player.display_name:
        player.display_name = display_name
        player.save(update_fields=["display_name"])
    return player


def api_token_revoke_by_id(*, user_id: int, token_id: Any) -> None:
    """Revoke the user's token whose public id (models.token_public_id) is `token_id`; 404 when
    the user has none (the same answer whether another user's token has that id or not)."""
    digests = ApiToken.objects.filter(user_id=user_id).values_list("digest", flat=True)
    for digest in digests:
        if token_public_id(digest) == token_id:
            ApiToken.objects.filter(digest=digest).delete()
            return
    raise ApplicationError("not_found", "No such token.")


def api_tokens_revoke_others(*, token: ApiToken) -> int:
    """Revoke every token of `token`'s user but `token` (each ends its streams, as any
    revocation); return how many went."""
    others = ApiToken.objects.filter(user_id=token.user_id).exclude(digest=token.digest)
    return others.delete()[1].get(ApiToken._meta.label, 0)


def bot_player_get_or_create(*, strategy: str, ordinal: int) -> Player:
    """The bot row for the `ordinal`-th seat of `strategy` in one match (one row per seat, so a
    match with three greedy bots has three distinct players: seats stay one player each).

    Found by (strategy, bot_ordinal) among bots, an identity only the server sets: a person
    who holds the name `bot-<strategy>-<n>` (registered before such names were reserved) is
    never taken for the bot; the bot then gets a name registration refuses (`bot:…`)."""
    found = Player.objects.filter(is_bot=True, strategy=strategy, bot_ordinal=ordinal).first()
    if found is not None:
        return found
    for username in (f"bot-{strategy}-{ordinal}", f"bot:{strategy}:{ordinal}"):
        try:
            with transaction.atomic():
                return Player.objects.create(
                    username=username,
                    display_name=f"{strategy} bot {ordinal}",
                    is_bot=True,
                    strategy=strategy,
                    bot_ordinal=ordinal,
                )
        except IntegrityError:
            found = Player.objects.filter(
                is_bot=True, strategy=strategy, bot_ordinal=ordinal
            ).first()
            if found is not None:
                return found  # created by a concurrent call
            if not _username_taken(username):
                logger.exception("bot %s %s: unexpected integrity error", strategy, ordinal)
                raise
            # The name is a person's: try the next one.
    raise RuntimeError(f"no free username for bot {strategy} {ordinal}")
