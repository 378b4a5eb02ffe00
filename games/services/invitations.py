"""Private tables and challenges (docs/api.md "Private tables and challenges").

A private match is shown only to its guests: its seats, its creator and the people it invites
(selectors.match_guest). Its open seats are taken by an invitee accepting their invitation
(a challenge: `challenge` on their `me` stream), or by whoever brings the match's join code.
A pending invitation holds one open seat for its invitee until it is answered or expires
(PRIVATE_INVITATION_SECONDS); a declined or expired one frees the seat for the others the
creator invites (by name or by the join link), never for the lobby.

Each write takes the match row lock first (locks.match_lock), as every match service does.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _

from pisyedili_api.errors import ApplicationError
from players.models import Player

from .. import events
from ..models import Invitation, Match
from ..selectors import match_guest, seat_of
from .locks import match_lock

# Invitations marked expired per sweep (games.tasks.sweep); the next sweep takes the rest.
INVITATION_EXPIRE_BATCH = 1000


def join_code_new() -> str:
    """A private match's join code: 128 random bits (secrets), URL-safe."""
    return secrets.token_urlsafe(16)


def join_code_matches(match: Match, code: str | None) -> bool:
    """Whether `code` is `match`'s join code (compared in constant time)."""
    if code is None or not match.join_code:
        return False
    return hmac.compare_digest(code.encode(), match.join_code.encode())


def _invalid(message: str) -> ApplicationError:
    return ApplicationError("invalid", message, {"invite": [message]})


def invitation_status(invitation: Invitation, match: Match, now: datetime | None = None) -> str:
    """The invitation's status as read now: a pending one past its `expires_at`, or of a match
    no longer waiting for players, is expired."""
    if invitation.status != Invitation.Status.PENDING:
        return invitation.status
    if match.status != Match.Status.WAITING or invitation.expires_at <= (now or timezone.now()):
        return Invitation.Status.EXPIRED
    return invitation.status


def seats_held(match: Match, now: datetime, *, besides: Any = None) -> int:
    """The open seats of `match` held by pending invitations (of others than `besides`)."""
    held = Invitation.objects.filter(
        match_id=match.id, status=Invitation.Status.PENDING, expires_at__gt=now
    )
    if besides is not None:
        held = held.exclude(player_id=besides)
    return held.count()


def invitees_resolve(
    *, usernames: Sequence[str], creator: Player, match: Match | None, open_seats: int
) -> list[Player]:
    """The people named by `usernames` (any letter case), for `creator` to invite to `match`
    (None: a match being created with `open_seats` open seats); 400 `invalid` naming `invite`:
    an unknown name (a bot's and a deleted player's included), the creator, a name twice, a
    person seated or with an invitation pending, or more people than the open seats not held
    by pending invitations."""
    wanted = [name.lower() for name in usernames]
    for name in wanted:
        if wanted.count(name) > 1:
            raise _invalid(_("%(name)s is named twice") % {"name": name})
    rows = Player.objects.annotate(lowered=Lower("username")).filter(
        lowered__in=wanted, is_bot=False, deleted_at__isnull=True
    )
    found: dict[str, Player] = {p.username.lower(): p for p in rows}
    people: list[Player] = []
    for name in usernames:
        if name.lower() not in found:
            raise _invalid(_("no player is named %(name)s") % {"name": name})
        if found[name.lower()].id == creator.id:
            raise _invalid(_("you cannot invite yourself"))
        people.append(found[name.lower()])
    now = timezone.now()
    if match is not None:
        for person in people:
            if seat_of(match, person.id) is not None:
                raise _invalid(_("%(name)s is seated already") % {"name": person.username})
        pending = Invitation.objects.filter(
            match_id=match.id,
            player__in=people,
            status=Invitation.Status.PENDING,
            expires_at__gt=now,
        ).select_related("player")
        for invitation in pending:
            message = _("%(name)s is invited already") % {"name": invitation.player.username}
            raise _invalid(message)
        open_seats = match.seat_players.count(None) - seats_held(match, now)
    if len(people) > open_seats:
        # Worded to read right for any count, one included, in either language.
        message = _("more people invited (%(count)d) than open seats for them (%(seats)d)") % {
            "count": len(people),
            "seats": max(open_seats, 0),
        }
        raise _invalid(message)
    return people


def invitations_send(match: Match, people: Sequence[Player]) -> None:
    """Invite `people` to the locked `match` (inside the caller's transaction): a new
    invitation each, or a declined or expired one made pending again; each gets `challenge`
    on their `me` stream once it commits."""
    now = timezone.now()
    expires = now + timedelta(seconds=settings.PRIVATE_INVITATION_SECONDS)
    old = {i.player_id: i for i in Invitation.objects.filter(match_id=match.id, player__in=people)}
    for player in people:
        invitation = old.get(player.id)
        if invitation is None:
            Invitation.objects.create(
                match=match, player=player, created_at=now, expires_at=expires
            )
        else:
            invitation.status = Invitation.Status.PENDING
            invitation.created_at, invitation.expires_at = now, expires
            invitation.answered_at = None
            invitation.save(update_fields=["status", "created_at", "expires_at", "answered_at"])
    events.challenge_on_commit(match, [str(p.id) for p in people], expires)


def match_invite(*, match_id: UUID | str, player: Player, usernames: Sequence[str]) -> Match:
    """The creator of a waiting private match invites more people (invitees_resolve); the
    version steps once. 404 `not_found` to anyone the match is hidden from, 403 `not_creator`,
    400 `invalid` (`invite`) on a public match, 409 `match_not_waiting`."""
    with transaction.atomic():
        match = match_lock(match_id)
        if match is None or not match_guest(match, player.id):
            raise ApplicationError("not_found", "No such match.")
        if str(match.created_by_id) != str(player.id):
            raise ApplicationError("not_creator")
        if not match.private:
            raise _invalid(_("only a private match invites people"))
        if match.status != Match.Status.WAITING:
            raise ApplicationError("match_not_waiting")
        people = invitees_resolve(usernames=usernames, creator=player, match=match, open_seats=0)
        _version_step(match)
        invitations_send(match, people)
    return match


def _version_step(match: Match) -> None:
    from .lifecycle import _match_write

    match.version += 1
    _match_write(match, "version")


def _invitation_locked(match: Match | None, player: Player) -> tuple[Match, Invitation]:
    """The caller's invitation to the locked `match`: 404 `not_found` to anyone the match is
    hidden from (as if it did not exist), 403 `not_invited` to a guest without one."""
    if match is None or not match_guest(match, player.id):
        raise ApplicationError("not_found", "No such match.")
    invitation = Invitation.objects.filter(match_id=match.id, player_id=player.id).first()
    if invitation is None:
        raise ApplicationError("not_invited", _("You are not invited to this match."))
    return match, invitation


def _not_pending(status: str) -> ApplicationError:
    return ApplicationError("invitation_not_pending", detail={"status": status})


def invitation_accept(*, match_id: UUID | str, player: Player) -> Match:
    """The invitee takes the lowest open seat (the one their pending invitation held); the
    match starts if it was the last. Accepting again, seated, changes nothing. 409
    `invitation_not_pending` (declined or expired), `too_many_active_matches`."""
    from .lifecycle import seat_take_locked

    with transaction.atomic():
        match, invitation = _invitation_locked(match_lock(match_id), player)
        if seat_of(match, player.id) is not None:
            return match
        status = invitation_status(invitation, match)
        if status != Invitation.Status.PENDING:
            raise _not_pending(status)
        seat_take_locked(match, player, invitation=invitation)
    return match


def invitation_accepted(match: Match, invitation: Invitation) -> None:
    """Mark `invitation` accepted (its invitee has just taken a seat of the locked `match`)
    and tell the creator."""
    invitation.status = Invitation.Status.ACCEPTED
    invitation.answered_at = timezone.now()
    invitation.save(update_fields=["status", "answered_at"])
    events.challenge_answered_on_commit(match, str(invitation.player_id), "accepted")


def invitation_decline(*, match_id: UUID | str, player: Player) -> Match:
    """The invitee declines: the seat their invitation held is open for the others the creator
    invites; the version steps once and the creator is told. Declining again changes nothing.
    409 `invitation_not_pending` (accepted: leave the match instead; or expired)."""
    with transaction.atomic():
        match, invitation = _invitation_locked(match_lock(match_id), player)
        status = invitation_status(invitation, match)
        if status == Invitation.Status.DECLINED:
            return match
        if status != Invitation.Status.PENDING or seat_of(match, player.id) is not None:
            raise _not_pending(Invitation.Status.ACCEPTED if status == "pending" else status)
        invitation.status = Invitation.Status.DECLINED
        invitation.answered_at = timezone.now()
        invitation.save(update_fields=["status", "answered_at"])
        events.challenge_answered_on_commit(match, str(player.id), "declined")
        _version_step(match)
    return match


def private_admit(match: Match, player: Player, code: str | None) -> Invitation | None:
    """Whether `player` (at no seat) may take a seat of the locked private `match` by
    `…/join`: with a pending invitation (returned: the seat it holds is theirs), or with the
    join code while an open seat is not held by others' invitations (None). 404 `not_found` to
    anyone the match is hidden from, a wrong code included (nothing says the match exists);
    403 `not_invited` to a guest with neither; 409 `match_full`."""
    now = timezone.now()
    invitation = Invitation.objects.filter(match_id=match.id, player_id=player.id).first()
    if invitation is not None and invitation_status(invitation, match, now) == "pending":
        return invitation
    if join_code_matches(match, code):
        if match.status != Match.Status.WAITING:
            raise ApplicationError("match_full")
        if match.seat_players.count(None) - seats_held(match, now, besides=player.id) <= 0:
            raise ApplicationError("match_full")
        return None
    if invitation is not None or match_guest(match, player.id):
        raise ApplicationError(
            "not_invited", _("Join a private match by its invitation or its join link.")
        )
    raise ApplicationError("not_found", "No such match.")


def invitations_expire(*, now: datetime | None = None) -> int:
    """Mark expired the pending invitations past their `expires_at`, at most
    INVITATION_EXPIRE_BATCH (the next sweep takes the rest); the number marked. Reads treat
    them as expired already (invitation_status): this keeps the stored status true."""
    cutoff = now or timezone.now()
    ids = Invitation.objects.filter(
        status=Invitation.Status.PENDING, expires_at__lte=cutoff
    ).values_list("id", flat=True)[:INVITATION_EXPIRE_BATCH]
    return Invitation.objects.filter(Q(id__in=list(ids)), status=Invitation.Status.PENDING).update(
        status=Invitation.Status.EXPIRED
    )
