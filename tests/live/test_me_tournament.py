"""The `tournament_round` event of `GET /me/events` (a round of a tournament you play was
dealt), the `tournament_invitation` event (you are invited to one), `tournament_answered`
(to its organizer) and `tournament_cancelled` (to its entrants and invitees), and the stream
routes' answer to anything but GET. Through the test client: under WSGI a stream sends what its
log holds after Last-Event-ID, then `close` (test_streams.py covers the ASGI servers)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings

from games.models import Match
from pisyedili_api.errors import ApplicationError
from tests.tournaments.helpers import accept_all
from tournaments.models import Round
from tournaments.services import tournament_advance, tournament_create, tournament_start

pytestmark = pytest.mark.django_db


def _sse(response: Any) -> list[tuple[int | None, str, Any]]:
    """(id, event, data) of a whole event stream."""
    found = []
    for block in b"".join(response.streaming_content).decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            event_id = int(fields["id"]) if "id" in fields else None
            found.append((event_id, fields["event"], json.loads(fields.get("data", "null"))))
    return found


def _seq(client: Any) -> int:
    """The caller's `me` sequence now: the `ready` of a fresh connect, as a client gets it."""
    response = client.get("/api/v1/me/events")
    assert response.status_code == 200
    ((seq, event, data), *_) = _sse(response)
    assert event == "ready" and seq == data["seq"]
    return int(seq)


def _after(client: Any, after: int, name: str) -> list[dict[str, Any]]:
    """The `name` events of the caller's log after sequence `after` (each once, in order)."""
    response = client.get("/api/v1/me/events", HTTP_LAST_EVENT_ID=str(after))
    assert response.status_code == 200
    events = _sse(response)
    assert [seq for seq, _, _ in events[:-1]] == list(range(after + 1, after + len(events)))
    return [data for _, event, data in events if event == name]


def _rounds(client: Any, after: int) -> list[dict[str, Any]]:
    return _after(client, after, "tournament_round")


@override_settings(LIVE_REDIS_URL="")
def test_each_person_hears_of_each_round_dealt_with_their_tables_match(
    make_player, client_for, django_capture_on_commit_callbacks
):
    organizer, organizer_token = make_player()
    people = [make_player() for _ in range(5)]  # five at tables of two: one bye a round
    tournament = tournament_create(
        organizer=organizer,
        name="Five",
        format="round_robin",
        table_size=2,
        players=[p.id for p, _ in people],
        bots=["greedy"],  # a bot entrant hears nothing (it has no stream)
        deals=1,
    )
    accept_all(tournament.id)
    start = {token: _seq(client_for(token)) for _, token in [*people, (organizer, organizer_token)]}
    with django_capture_on_commit_callbacks(execute=True):
        tournament_start(tournament_id=tournament.id, player=organizer)
    first = Round.objects.get(tournament=tournament, number=1)
    tables = {
        str(p): str(m.id)
        for m in Match.objects.filter(tournament_table__round=first)
        for p in m.seat_players
    }
    for player, token in people:
        (event,) = _rounds(client_for(token), start[token])
        expected = [tables[str(player.id)]] if str(player.id) in tables else []
        assert event == {
            "seq": event["seq"],
            "type": "tournament_round",
            "tournament": str(tournament.id),
            "round": 1,
            "matches": expected,
        }
        assert (str(player.id) in first.byes) == (expected == [])
    assert len(first.byes) == 0 and len(tables) == 6  # five people and the bot at three tables

    Match.objects.filter(tournament_table__round=first).update(status="finished")
    with django_capture_on_commit_callbacks(execute=True):
        assert tournament_advance(tournament_id=tournament.id) is True
    second = Round.objects.get(tournament=tournament, number=2)
    token = people[0][1]
    assert {e["round"] for e in _rounds(client_for(token), start[token])} == {1, second.number}
    assert _rounds(client_for(organizer_token), start[organizer_token]) == []  # does not play


@override_settings(LIVE_REDIS_URL="")
def test_a_bye_is_told_with_no_match(make_player, client_for, django_capture_on_commit_callbacks):
    organizer, _ = make_player()
    people = [make_player() for _ in range(3)]  # three at tables of two: one bye
    tournament = tournament_create(
        organizer=organizer,
        name="Three",
        format="round_robin",
        table_size=2,
        players=[p.id for p, _ in people],
        deals=1,
    )
    accept_all(tournament.id)
    start = {token: _seq(client_for(token)) for _, token in people}
    with django_capture_on_commit_callbacks(execute=True):
        tournament_start(tournament_id=tournament.id, player=organizer)
    (bye,) = Round.objects.get(tournament=tournament, number=1).byes
    heard = {str(p.id): _rounds(client_for(token), start[token]) for p, token in people}
    assert heard[bye][0]["matches"] == []
    assert all(len(events[0]["matches"]) == 1 for pid, events in heard.items() if pid != bye)


def _invitations(client: Any, after: int) -> list[dict[str, Any]]:
    return _after(client, after, "tournament_invitation")


@override_settings(LIVE_REDIS_URL="")
def test_each_invited_person_hears_of_the_invitation_once_it_commits(
    make_player, client_for, django_capture_on_commit_callbacks
):
    organizer, organizer_token = make_player()
    people = [make_player() for _ in range(2)]
    start = {token: _seq(client_for(token)) for _, token in [*people, (organizer, organizer_token)]}
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        tournament = tournament_create(
            organizer=organizer,
            name="Invited",
            format="swiss",
            table_size=2,
            players=[organizer.id] + [p.id for p, _ in people],
            bots=["greedy"],  # a bot accepts at once and has no stream
            deals=1,
        )
        # Nothing is told before the tournament is committed.
        assert _invitations(client_for(people[0][1]), start[people[0][1]]) == []
    for callback in callbacks:
        callback()
    for _, token in people:
        (event,) = _invitations(client_for(token), start[token])
        assert event == {
            "seq": event["seq"],
            "type": "tournament_invitation",
            "tournament": str(tournament.id),
            "by": str(organizer.id),
        }
    # The organizer entering themselves accepts at once: no invitation to answer.
    assert _invitations(client_for(organizer_token), start[organizer_token]) == []


def _answers(client: Any, after: int) -> list[dict[str, Any]]:
    return _after(client, after, "tournament_answered")


@override_settings(LIVE_REDIS_URL="")
def test_the_organizer_hears_each_answer_once(
    make_player, client_for, django_capture_on_commit_callbacks
):
    organizer, organizer_token = make_player()
    (ada, ada_token), (bo, bo_token) = make_player(), make_player()
    tournament = tournament_create(
        organizer=organizer,
        name="Answers",
        format="swiss",
        table_size=2,
        players=[organizer.id, ada.id, bo.id],
        deals=1,
    )
    path = f"/api/v1/tournaments/{tournament.id}/invitations"
    start = {t: _seq(client_for(t)) for t in (organizer_token, ada_token, bo_token)}
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(2):  # accepting again changes nothing and tells nothing
            assert client_for(ada_token).post(f"{path}/accept").status_code == 200
        assert client_for(bo_token).post(f"{path}/decline").status_code == 200
        # The organizer withdrawing their own entry is not news to them.
        assert client_for(organizer_token).post(f"{path}/decline").status_code == 200
    heard = _answers(client_for(organizer_token), start[organizer_token])
    assert [(e["player"], e["answer"]) for e in heard] == [
        (str(ada.id), "accepted"),
        (str(bo.id), "declined"),
    ]
    assert all(e["tournament"] == str(tournament.id) for e in heard)
    assert _answers(client_for(ada_token), start[ada_token]) == []
    assert _answers(client_for(bo_token), start[bo_token]) == []


@override_settings(LIVE_REDIS_URL="")
def test_a_cancel_tells_every_entrant_and_invitee_once_and_no_invitation_stays_pending(
    make_player, client_for, django_capture_on_commit_callbacks
):
    organizer, organizer_token = make_player()
    (ada, ada_token), (bo, bo_token) = make_player(), make_player()
    tournament = tournament_create(
        organizer=organizer,
        name="Called off",
        format="swiss",
        table_size=2,
        players=[organizer.id, ada.id, bo.id],
        bots=["greedy"],
        deals=1,
    )
    path = f"/api/v1/tournaments/{tournament.id}"
    assert client_for(ada_token).post(f"{path}/invitations/accept").status_code == 200
    start = {t: _seq(client_for(t)) for t in (organizer_token, ada_token, bo_token)}
    with django_capture_on_commit_callbacks(execute=True):
        assert client_for(organizer_token).post(f"{path}/cancel").status_code == 200
    for token in (ada_token, bo_token):  # accepted, and still invited
        heard = _after(client_for(token), start[token], "tournament_cancelled")
        expected = {"type": "tournament_cancelled", "tournament": str(tournament.id)}
        assert heard == [{"seq": start[token] + 1, **expected}]
    assert _after(client_for(organizer_token), start[organizer_token], "tournament_cancelled") == []
    shown = client_for(bo_token).get(path).json()
    assert shown["status"] == "cancelled" and shown["pending_invitations"] == []


@override_settings(LIVE_REDIS_URL="")
def test_one_taken_out_before_the_start_is_told_and_nobody_else(
    make_player, client_for, django_capture_on_commit_callbacks
):
    organizer, organizer_token = make_player()
    (ada, ada_token), (bo, bo_token) = make_player(), make_player()
    tournament = tournament_create(
        organizer=organizer,
        name="Taken out",
        format="swiss",
        table_size=2,
        players=[organizer.id, ada.id, bo.id],
        deals=1,
    )
    path = f"/api/v1/tournaments/{tournament.id}"
    start = {t: _seq(client_for(t)) for t in (organizer_token, ada_token, bo_token)}
    with django_capture_on_commit_callbacks(execute=True):
        taken = client_for(organizer_token).post(
            f"{path}/entrants/remove", {"player": str(bo.id)}, format="json"
        )
        assert taken.status_code == 200, taken.content
    expected = {"type": "tournament_withdrawn", "tournament": str(tournament.id)}
    heard = _after(client_for(bo_token), start[bo_token], "tournament_withdrawn")
    assert heard == [{"seq": start[bo_token] + 1, **expected}]
    for token in (organizer_token, ada_token):
        assert _after(client_for(token), start[token], "tournament_withdrawn") == []
    assert client_for(bo_token).get("/api/v1/tournaments?invited=true").json()["results"] == []


@override_settings(LIVE_REDIS_URL="")
def test_a_refused_creation_tells_nobody(
    make_player, client_for, django_capture_on_commit_callbacks
):
    organizer, _ = make_player()
    person, token = make_player()
    start = _seq(client_for(token))
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ApplicationError):
        tournament_create(
            organizer=organizer,
            name="Bad",
            format="swiss",
            table_size=2,
            players=[person.id],
            bots=["greedy"],
            deals=1,
            turn_seconds=0,
        )
    assert _invitations(client_for(token), start) == []


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_streams_answer_get_only(method, make_player, client_for):
    _, token = make_player()
    client = client_for(token)
    for path in (
        "/api/v1/me/events",
        "/api/v1/matches/00000000-0000-0000-0000-000000000000/events",
    ):
        response = getattr(client, method)(path)
        assert response.status_code == 405, (path, response.status_code)
        assert response["Allow"] == "GET"
        assert response.json()["code"] == "method_not_allowed"
