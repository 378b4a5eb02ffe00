"""What the game tells the live tier (live.hub): a match's new version, the players' `me`
events, table talk, tournament rounds and invitations, private-match challenges.

Publishing (any process that writes a match: web or worker): `match_version_on_commit(match)`
runs once the transaction commits and hands ONE message to live.hub.publish (one Redis channel,
`<LIVE_CHANNEL_PREFIX>:events`), with the players' "me" events ("your turn", match started,
finished or cancelled) appended to their per-player logs in the same step, so a `me` stream
resumes from `Last-Event-ID` out of that log. `tournament_round_on_commit(round)` sends the
"tournament round dealt" `me` events the same way (with no match message), and
`tournament_invitation_on_commit` and `tournament_answered_on_commit` the "invited to a
tournament" and "an invitee answered" ones. The `me` events become notices to away players
too (games.services.notify).

A version change that concerns the lobby (`in_lobby_news`) is marked so, with the match's open
seat count, and goes to the lobby's streams too.

Messages carry ids, versions, statuses, seat numbers, seat counts, table talk's phrase ids
(`match_talk`) and a move's public facts (its seat, action, the card it played and the suit it
named, and the turn deadline it set), never a card of a hand or of the stock. Each stream reads
its own view (live.streams); in the process that wrote a move it renders it from the match as
written (`match_version_on_commit`'s `state`, which never leaves that process), and in a
process that holds the version before it, from that version and the move (`played`).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from live import hub as live_hub
from pisyedili_api.renderers import json_datetime

from . import engine

logger = logging.getLogger(__name__)


def me_events(
    match: Any,
    *,
    status_changed: bool,
    mover: int | None = None,
    invitees: Sequence[str] = (),
) -> list[tuple[str, dict[str, Any]]]:
    """(player id, event) for each person the new version of `match` concerns: match started,
    finished or abandoned (a seat whose person resigned too: a bot played it out, or nobody
    plays it any more) or cancelled (a private
    match's pending `invitees` too, with no seat), or their turn, when it came to them (not
    after their own move that leaves it with them, `mover`; a bot's turn concerns nobody), with
    the turn clock's deadline (`turn_deadline`, null without a clock)."""
    match_id, version = str(match.id), match.version
    people = [
        (seat, player)
        for seat, player in enumerate(match.seat_players)
        if player and (not match.seat_bots[seat] or seat in match.resigned)
    ]
    events: list[tuple[str, dict[str, Any]]] = []
    turn = (match.state or {}).get("turn") if match.status == "active" else None
    for seat, player in people:
        base = {"match": match_id, "version": version, "seat": seat}
        if status_changed and match.status in ("finished", "abandoned"):
            ended = {"totals": match.totals, "status": match.status}
            events.append((player, {"type": "match_finished", **base, **ended}))
        if match.seat_bots[seat]:
            continue  # resigned: the end of the match is all that still concerns them
        if status_changed and match.status == "active":
            events.append((player, {"type": "match_started", **base}))
        if status_changed and match.status == "cancelled":
            events.append((player, {"type": "match_cancelled", **base}))
        if turn == seat and mover != seat:
            deadline = match.turn_deadline  # the turn clock's (none without one)
            at = json_datetime(deadline) if deadline else None
            events.append((player, {"type": "your_turn", **base, "turn_deadline": at}))
    if status_changed and match.status == "cancelled":
        base = {"match": match_id, "version": version, "seat": None}
        events += [(player, {"type": "match_cancelled", **base}) for player in invitees]
    return events


def in_lobby_news(match: Any, *, status_changed: bool) -> bool:
    """Whether this version of `match` concerns the lobby: it waits (created, joined, left), or
    it has just left the lobby (started, cancelled or expired). A private match is never the
    lobby's: its guests hear of it on their `me` streams and its own stream."""
    if getattr(match, "private", False):
        return False
    return match.status == "waiting" or (status_changed and match.status in ("active", "cancelled"))


def move_facts(match: Any, seat: int, move: engine.Move) -> dict[str, Any]:
    """The `move` of the message of a move (`played`), from the match as written: the seat, the
    move as the move log shows it (a draw names no card) and, where the match has a turn clock,
    the turn deadline it set (none once the move ends the deal). Public facts only."""
    played: dict[str, Any] = {"seat": seat, "move": move.to_json()}
    if match.turn_seconds:
        deadline = match.turn_deadline
        played["turn_deadline"] = deadline and deadline.isoformat()
    return played


def version_after_move(match: Any, state: engine.State, played: dict[str, Any]) -> Any:
    """The match and its live deal one version after `match` at `state`, made by the move of a
    message (`move_facts`) as games.services.moves._move_write writes it: its version, move
    count, state and turn deadline (`match` itself unchanged; the engine is deterministic, and
    a draw takes the stock's top card, which `state` holds). engine.EngineError where the move
    is not one of that version's."""
    after = engine.apply(state, engine.Move.from_json(played["move"]), played["seat"])
    moved = copy.copy(match)
    moved.version += 1
    moved.move_count += 1
    moved.state = after.to_json()
    if "turn_deadline" in played:
        deadline = played["turn_deadline"]
        moved.turn_deadline = deadline and datetime.fromisoformat(deadline)
    return moved, after


def match_version_on_commit(
    match: Any,
    *,
    status_changed: bool = False,
    lobby: bool = True,
    resigned: int | None = None,
    absent: bool = False,
    state: Any = None,
    replies: dict[int, dict[str, Any]] | None = None,
    notices: bool = True,
    played: dict[str, Any] | None = None,
) -> None:
    """Once the current transaction commits, tell every stream of `match` (and its players' `me`
    streams, and the lobby's streams when it concerns the lobby) that it is now at
    `match.version`; `lobby` False for a match that never waited (seated full at its creation);
    `resigned`: the seat whose person resigned in this version (the match streams tell it as an
    event of its own), `absent` when the turn clock resigned them; `state`: the live deal
    `match` holds as written (a move), handed with a copy of `match` to this process's streams,
    which then render the version without reading it back (live.hub.hand_over; it never leaves
    the process), and `replies` with them: seat → the move's reply to that seat
    (games.serializers.move_reply), whose `state` event is not rendered again; `notices` False:
    no one seated has anywhere to be sent notices (the move's match read said so), so none are
    looked up; `played`: the move that made this version from the one before, as public facts
    (`move_facts`), sent in the message as `move`. Never fails the write: a lost message costs a
    stream a late update (streams re-read on reconnect), not the move."""
    message: dict[str, Any] = {
        "match": str(match.id),
        "version": match.version,
        "status": match.status,
    }
    if resigned is not None:
        message["resigned"] = resigned
        if absent:
            message["absent"] = True
    if played is not None:
        message["move"] = played
    if lobby and in_lobby_news(match, status_changed=status_changed):
        message["lobby"] = True
        message["open_seats"] = match.seat_players.count(None)
    invitees: list[str] = []
    if status_changed and match.status == "cancelled" and getattr(match, "private", False):
        from .models import Invitation

        invitees = [
            str(player)
            for player in Invitation.objects.filter(
                match_id=match.id, status=Invitation.Status.PENDING, expires_at__gt=timezone.now()
            ).values_list("player_id", flat=True)
        ]
    mover = played["seat"] if played is not None else None
    people = me_events(match, status_changed=status_changed, mover=mover, invitees=invitees)
    # Copied only where this process has streams to hand it to (not in a worker).
    written = (
        (copy.copy(match), state, replies or {})
        if state is not None and live_hub.current()
        else None
    )

    def committed() -> None:
        if written is not None:
            live_hub.hand_over(written)  # before the message, which wakes the streams
        publish(message, people, notices=notices)

    transaction.on_commit(committed, robust=True)


def match_talk(match: Any, said: dict[str, Any]) -> None:
    """Tell every stream of `match` (a seat's and a spectator's alike) a phrase one of its
    seats said (games.services.match_talk): `said` holds the seat, the phrase's id and when,
    never text a person wrote. Sent at once (nothing is written); carries the match's version
    so that a long-poll or a stream that reads it as a version change reads nothing new."""
    publish({"match": str(match.id), "version": match.version, "talk": said}, [])


def tournament_round_on_commit(round_: Any) -> None:
    """Once the current transaction commits, tell every person of round `round_` (a
    tournaments Round whose tables are seated) that it was dealt: `tournament_round` on their
    `me` stream, with the tournament id, the round number and the ids of their table's matches
    (none for a bye)."""
    from players.models import Player

    from .models import Match

    matches: dict[str, list[str]] = {str(player): [] for player in round_.byes}
    for match in Match.objects.filter(tournament_table__round=round_).order_by(
        "tournament_table__number"
    ):
        for player in filter(None, match.seat_players):
            matches.setdefault(str(player), []).append(str(match.id))
    people = Player.objects.filter(id__in=matches, is_bot=False).values_list("id", flat=True)
    base = {"type": "tournament_round", "tournament": str(round_.tournament_id)}
    events = [
        (str(player), {**base, "round": round_.number, "matches": matches[str(player)]})
        for player in people
    ]
    transaction.on_commit(lambda: publish(None, events), robust=True)


def tournament_invitation_on_commit(tournament: Any, players: list[str]) -> None:
    """Once the current transaction commits, tell each of `players` (ids of people) that they
    are invited to the draft `tournament` (tournaments.services): `tournament_invitation` on
    their `me` stream, with the tournament and its organizer's id."""
    base = {
        "type": "tournament_invitation",
        "tournament": str(tournament.id),
        "by": str(tournament.organizer_id),
    }
    events = [(player, dict(base)) for player in players]
    transaction.on_commit(lambda: publish(None, events), robust=True)


def tournament_answered_on_commit(tournament: Any, player: str, answer: str) -> None:
    """Once the current transaction commits, tell the organizer of the draft `tournament` that
    the entrant `player` answered (`accepted` or `declined`): `tournament_answered` on their
    `me` stream (never for the organizer's own answer)."""
    organizer = str(tournament.organizer_id)
    if player == organizer:
        return
    event = {
        "type": "tournament_answered",
        "tournament": str(tournament.id),
        "player": player,
        "answer": answer,
    }
    transaction.on_commit(lambda: publish(None, [(organizer, event)]), robust=True)


def tournament_withdrawn_on_commit(tournament: Any, player: str) -> None:
    """Once the current transaction commits, tell `player` (a person's id) that the organizer
    of the draft `tournament` took them out of it (their invitation or entry is gone):
    `tournament_withdrawn` on their `me` stream."""
    event = {"type": "tournament_withdrawn", "tournament": str(tournament.id)}
    transaction.on_commit(lambda: publish(None, [(player, event)]), robust=True)


def tournament_cancelled_on_commit(tournament: Any, players: list[str]) -> None:
    """Once the current transaction commits, tell each of `players` (ids: the tournament's
    entrants and invitees, its organizer left out) that its organizer cancelled `tournament`:
    `tournament_cancelled` on their `me` stream (a pending invitation is gone with it)."""
    organizer = str(tournament.organizer_id)
    event = {"type": "tournament_cancelled", "tournament": str(tournament.id)}
    told = [(player, dict(event)) for player in players if player != organizer]
    if told:
        transaction.on_commit(lambda: publish(None, told), robust=True)


def challenge_on_commit(match: Any, players: list[str], expires_at: Any) -> None:
    """Once the current transaction commits, tell each of `players` (ids) that they are
    invited to the private `match` (games.services.invitations): `challenge` on their `me`
    stream, with the match, its version, who invited them and when the invitation expires."""
    base = {
        "type": "challenge",
        "match": str(match.id),
        "version": match.version,
        "by": str(match.created_by_id),
        "expires_at": json_datetime(expires_at),
    }
    events = [(player, dict(base)) for player in players]
    transaction.on_commit(lambda: publish(None, events), robust=True)


def challenge_answered_on_commit(match: Any, player: str, answer: str) -> None:
    """Once the current transaction commits, tell the creator of the private `match` that the
    invitee `player` answered (`accepted` or `declined`): `challenge_answered` on their `me`
    stream."""
    event = {
        "type": "challenge_answered",
        "match": str(match.id),
        "player": player,
        "answer": answer,
    }
    creator = str(match.created_by_id)
    transaction.on_commit(lambda: publish(None, [(creator, event)]), robust=True)


def publish(
    message: dict[str, Any] | None,
    people: list[tuple[str, dict[str, Any]]],
    *,
    notices: bool = True,
) -> None:
    """Send `message` (a match's new version; None: only `people`'s `me` events) to every web
    process (live.hub.publish), then the notices of `people`'s events (`notices` False: the
    caller knows none of them has anywhere to be sent). Never fails."""
    live_hub.publish(message, people)
    if people and notices:
        _notices_send(people)


def _notices_send(people: list[tuple[str, dict[str, Any]]]) -> None:
    """The notices of these `me` events to the players' push subscriptions and webhooks
    (games.services.notify); never fails the publish."""
    try:
        from .services.notify import notices_send

        notices_send(people)
    except Exception:
        logger.warning("notices of %d events not sent", len(people), exc_info=True)
