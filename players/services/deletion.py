"""Deleting an account (POST /auth/account/delete): what the person had going on is ended as
the person would end it (the quick-play queue left, their active matches resigned, their waiting
matches left, their tournaments in draft declined, the ones they organize cancelled), then the
personal data goes: their Web Push subscriptions and webhooks, the auth user (password hash,
e-mail, last login) with every API token (their streams end) and the login failures counted
against the username. The player row stays for the matches it played, anonymous: "Deleted
player", a username no one can register, no user, `deleted_at`; its ratings, counters and
leaderboard rows stay with it, under that name."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from pisyedili_api.errors import ApplicationError

from ..models import ApiToken, Player
from .accounts import DELETED_NAME, _password_check

# The refusals of a match or tournament that moved on meanwhile (finished, started, left):
# nothing left to end there.
_MOVED_ON = frozenset(
    {
        "match_not_active",
        "match_not_waiting",
        "not_seated",
        "not_found",
        "not_invited",
        "invitation_not_pending",
        "not_queued",
        "tournament_started",
        "tournament_over",
    }
)


def player_lock(player: Player) -> None:
    """Lock the row of `player`, as every write that gives them something going on does first
    (a match created, joined or accepted, a quick-play entry, a tournament organized) and as
    the deletion does before it ends all of that: a write that came first has committed and
    is ended by it; one that waited behind it finds the account deleted, 401
    `not_authenticated` (as its token's next request), and writes nothing. FOR NO KEY UPDATE
    neither waits for nor holds up the foreign key checks (FOR KEY SHARE) of the player's
    moves; SQLite has no row locks and serialises writers itself."""
    lock = Player.objects.select_for_update(no_key=True).filter(id=player.id).order_by()
    if any(deleted is not None for deleted in lock.values_list("deleted_at", flat=True)):
        raise ApplicationError("not_authenticated")


def deleted_username(player: Player) -> str:
    """The name a deleted player keeps: `deleted:` and its id, which registration refuses (a
    colon is no username character) and no two players share."""
    return f"deleted:{player.id.hex}"


def player_delete(*, request: HttpRequest, token: ApiToken, password: str) -> None:
    """Delete the account of `token`'s user, once `password` is theirs (a wrong one is 400
    `invalid` naming `password` and counts as a failed login; a locked-out username is 429)."""
    # games and tournaments import the players app's services: theirs are imported here, when
    # an account is deleted, not when this module loads.
    from games.models import Invitation, Match, Seat
    from games.services import (
        invitation_decline,
        match_leave,
        match_resign,
        notices_delete,
        queue_leave,
    )
    from tournaments.models import Entrant, Tournament
    from tournaments.services import tournament_cancel, tournament_invitation_decline

    User = get_user_model()
    user = User.objects.get(pk=token.user_id)
    player = Player.objects.get(user_id=user.pk)
    # Outside the deletion's transaction: a failed check is recorded (django-axes) as it fails.
    _password_check(request, user, password, field="password")
    username = user.get_username()
    with transaction.atomic():
        # The row lock of every write that gives the player something going on (player_lock):
        # what such a write committed is read below, and one behind it is refused.
        player_lock(player)
        # Out of the quick-play queue first: a pairing cannot seat them after this.
        _ended(queue_leave, player=player)
        seats = Seat.objects.filter(
            player=player, resigned_at__isnull=True, match__status__in=["waiting", "active"]
        ).values_list("match_id", "match__status")
        for match_id, status in list(seats):
            end = match_leave if status == Match.Status.WAITING else match_resign
            _ended(end, match_id=match_id, player=player)
        # A pending invitation to a private table holds a seat: declined, the seat is free.
        invited = Invitation.objects.filter(player=player, status=Invitation.Status.PENDING)
        for match_id in list(invited.values_list("match_id", flat=True)):
            _ended(invitation_decline, match_id=match_id, player=player)
        drafts = Entrant.objects.filter(player=player, tournament__status=Tournament.Status.DRAFT)
        for tournament_id in list(drafts.values_list("tournament_id", flat=True)):
            _ended(tournament_invitation_decline, tournament_id=tournament_id, player=player)
        organized = Tournament.objects.filter(
            organizer=player, status__in=[Tournament.Status.DRAFT, Tournament.Status.RUNNING]
        )
        for tournament_id in list(organized.values_list("id", flat=True)):
            _ended(tournament_cancel, tournament_id=tournament_id, player=player)
        # Nothing more is pushed or POSTed for them: their subscriptions and webhooks go.
        notices_delete(player=player)
        player.username = deleted_username(player)
        player.display_name = DELETED_NAME
        player.user = None
        player.deleted_at = timezone.now()
        player.save()
        # The user's tokens go with it (their streams end once this commits: live.hub).
        User.objects.filter(pk=user.pk).delete()
        _login_records_delete(username)


def _ended(end: Any, **arguments: Any) -> None:
    try:
        end(**arguments)
    except ApplicationError as exc:
        if exc.code not in _MOVED_ON:
            raise


def _login_records_delete(username: str) -> None:
    """django-axes' records of logins on `username` (failures, addresses, browsers)."""
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog

    for model in (AccessAttempt, AccessFailureLog, AccessLog):
        model.objects.filter(username=username).delete()
