"""The lobby (docs/api.md "Lobby"): the waiting matches with their open seats, leaving and
cancelling a waiting match, the expiry of matches nobody joins; the move log's `after_seq` and
the move reply's `pending_bot_turns`."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import events, tasks
from games.models import Match, Seat
from games.services import match_cancel, match_join, match_leave
from tests.helpers import create_match, post_move, race, state

pytestmark = pytest.mark.django_db


def _refused(response, code, status):
    assert response.status_code == status, response.content
    assert response.json()["code"] == code
    return response.json()


def test_the_lobby_lists_waiting_matches_with_their_open_seats(make_player, client_for, api):
    (_, ta), (_, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    waiting = create_match(ana, seats=4, bots=["random"])
    assert waiting["open_seats"] == 2
    assert waiting["cancel_reason"] is None
    assert waiting["rematch_of"] is None and waiting["next_match"] is None
    create_match(bob, seats=2, bots=["random"])  # full: active at once, not in the lobby
    bob.post(f"/api/v1/matches/{waiting['id']}/join")
    lobby = api.get("/api/v1/matches?status=waiting").json()["results"]
    assert [(m["id"], m["open_seats"]) for m in lobby] == [(waiting["id"], 1)]


def test_a_joiner_leaves_and_the_seat_is_open_again(make_player, client_for):
    (_, ta), (bob_player, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    match = create_match(ana, seats=3)
    joined = bob.post(f"/api/v1/matches/{match['id']}/join").json()
    left = bob.post(f"/api/v1/matches/{match['id']}/leave")
    assert left.status_code == 200, left.content
    body = left.json()
    assert body["status"] == "waiting" and body["open_seats"] == 2
    assert body["seats"][1]["player"] is None
    assert body["version"] == joined["version"] + 1
    assert not Seat.objects.filter(match_id=match["id"], player=bob_player).exists()
    # Leaving again: no seat any more.
    _refused(bob.post(f"/api/v1/matches/{match['id']}/leave"), "not_seated", 403)
    # Seated again, the lowest open seat.
    assert bob.post(f"/api/v1/matches/{match['id']}/join").json()["seats"][1]["player"]


def test_the_creator_leaving_an_empty_table_cancels_it(make_player, client_for):
    _, ta = make_player()
    ana = client_for(ta)
    match = create_match(ana, seats=3, bots=["random"])
    body = ana.post(f"/api/v1/matches/{match['id']}/leave").json()
    assert body["status"] == "cancelled" and body["cancel_reason"] == "cancelled"
    assert body["finished_at"] is not None


def test_the_creator_leaving_hands_the_match_to_the_next_person(make_player, client_for):
    (ana_player, ta), (bob_player, tb), (_, tc) = make_player(), make_player(), make_player()
    ana, bob, carol = client_for(ta), client_for(tb), client_for(tc)
    match = create_match(ana, seats=4)
    assert match["creator"] == str(ana_player.id)
    bob.post(f"/api/v1/matches/{match['id']}/join")
    carol.post(f"/api/v1/matches/{match['id']}/join")
    body = ana.post(f"/api/v1/matches/{match['id']}/leave").json()
    assert body["status"] == "waiting" and body["seats"][0]["player"] is None
    assert Match.objects.get(id=match["id"]).created_by_id == bob_player.id
    # Everyone is told who may cancel it now (a client shows Cancel to them alone).
    assert body["creator"] == str(bob_player.id)
    assert carol.get(f"/api/v1/matches/{match['id']}").json()["creator"] == str(bob_player.id)
    _refused(carol.post(f"/api/v1/matches/{match['id']}/cancel"), "not_creator", 403)
    assert bob.post(f"/api/v1/matches/{match['id']}/cancel").json()["status"] == "cancelled"


def test_only_a_waiting_match_can_be_left(make_player, client_for):
    (_, ta), (_, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    match = create_match(ana, seats=2)
    bob.post(f"/api/v1/matches/{match['id']}/join")  # full: started
    before = Match.objects.get(id=match["id"]).version
    _refused(bob.post(f"/api/v1/matches/{match['id']}/leave"), "match_not_waiting", 409)
    _refused(ana.post(f"/api/v1/matches/{match['id']}/cancel"), "match_not_waiting", 409)
    assert Match.objects.get(id=match["id"]).version == before
    missing = "00000000-0000-0000-0000-000000000000"
    _refused(ana.post(f"/api/v1/matches/{missing}/leave"), "not_found", 404)
    _refused(ana.post(f"/api/v1/matches/{missing}/cancel"), "not_found", 404)


def test_the_creator_cancels_a_waiting_match(make_player, client_for, settings):
    settings.MAX_ACTIVE_MATCHES_PER_PLAYER = 1
    (_, ta), (_, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    match = create_match(ana, seats=3)
    bob.post(f"/api/v1/matches/{match['id']}/join")
    _refused(bob.post(f"/api/v1/matches/{match['id']}/cancel"), "not_creator", 403)
    response = ana.post(f"/api/v1/matches/{match['id']}/cancel")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "cancelled" and body["cancel_reason"] == "cancelled"
    _refused(ana.post(f"/api/v1/matches/{match['id']}/cancel"), "match_not_waiting", 409)
    # A cancelled match cannot be joined, and counts towards no limit.
    (_, tc) = make_player()
    _refused(client_for(tc).post(f"/api/v1/matches/{match['id']}/join"), "match_full", 409)
    create_match(ana, seats=2)
    create_match(bob, seats=2)
    listed = client_for(tc).get("/api/v1/matches?status=cancelled").json()["results"]
    assert [m["id"] for m in listed] == [match["id"]]


def test_the_sweeper_cancels_matches_waiting_past_the_ttl(make_player, client_for, settings):
    settings.MATCH_WAITING_TTL = 600
    (_, ta), (_, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    old = create_match(ana, seats=3)
    fresh = create_match(ana, seats=3)
    started = create_match(bob, seats=2, bots=["random"])
    long_ago = timezone.now() - timedelta(seconds=601)
    Match.objects.filter(id__in=[old["id"], started["id"]]).update(created_at=long_ago)
    tasks.sweep()
    expired = ana.get(f"/api/v1/matches/{old['id']}").json()
    assert expired["status"] == "cancelled" and expired["cancel_reason"] == "expired"
    assert expired["version"] == old["version"] + 1
    assert Match.objects.get(id=fresh["id"]).status == "waiting"
    assert Match.objects.get(id=started["id"]).status != "cancelled"
    tasks.sweep()  # nothing more to do
    assert Match.objects.get(id=old["id"]).version == expired["version"]


def test_each_change_of_the_lobby_is_lobby_news_and_play_is_not(
    make_player, client_for, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """What the lobby's stream is told (games.events, `lobby` marked messages), per change."""
    settings.MATCH_WAITING_TTL = 600
    sent: list[dict] = []
    monkeypatch.setattr(events, "publish", lambda message, people, **_: sent.append(message))
    (_, ta), (_, tb), (_, tc) = make_player(), make_player(), make_player()
    ana, bob, cem = client_for(ta), client_for(tb), client_for(tc)

    def told(act) -> list[tuple[str, int] | None]:
        sent.clear()
        with django_capture_on_commit_callbacks(execute=True):
            act()
        return [(m["status"], m["open_seats"]) if m.get("lobby") else None for m in sent if m]

    table: dict = {}
    assert told(lambda: table.update(create_match(ana, seats=3))) == [("waiting", 2)]
    path = f"/api/v1/matches/{table['id']}"
    assert told(lambda: bob.post(f"{path}/join")) == [("waiting", 1)]
    assert told(lambda: bob.post(f"{path}/leave")) == [("waiting", 2)]
    assert told(lambda: bob.post(f"{path}/join")) == [("waiting", 1)]
    assert told(lambda: cem.post(f"{path}/join")) == [("active", 0)]
    # Play: a match's own news, never the lobby's.
    mover = {0: ana, 1: bob, 2: cem}[state(ana, table["id"])["turn"]]
    view = state(mover, table["id"])
    move = view["legal_moves"][0]
    assert told(lambda: post_move(mover, table["id"], move, view["version"])) == [None]
    # Seated full at its creation: never waited, never told.
    assert told(lambda: create_match(bob, seats=2, bots=["random"])) == [None]
    expiring = create_match(ana, seats=2)
    Match.objects.filter(id=expiring["id"]).update(
        created_at=timezone.now() - timedelta(seconds=601)
    )
    assert told(tasks.sweep) == [("cancelled", 1)]
    cancelled = create_match(ana, seats=2)
    assert told(lambda: ana.post(f"/api/v1/matches/{cancelled['id']}/cancel")) == [("cancelled", 1)]


def test_the_lobby_stream_under_wsgi_says_ready_then_reconnect(api):
    response = api.get("/api/v1/lobby/events")
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    text = b"".join(response.streaming_content).decode()
    assert text == (
        'retry: 2000\n\nevent: ready\ndata: {}\n\nevent: reconnect\ndata: {"reason":"poll"}\n\n'
    )


def test_the_move_log_after_a_seq(make_player, client_for):
    (_, ta), (_, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    match = create_match(ana, seats=2)
    bob.post(f"/api/v1/matches/{match['id']}/join")
    clients = {0: ana, 1: bob}
    for _ in range(4):
        view = state(ana, match["id"])
        if view["turn"] is None:
            break
        mover = clients[view["turn"]]
        view = state(mover, match["id"])
        reply = post_move(mover, match["id"], view["legal_moves"][0], view["version"])
        assert reply.status_code == 200, reply.content
    log = ana.get(f"/api/v1/matches/{match['id']}/moves").json()
    assert len(log) >= 2
    newer = ana.get(f"/api/v1/matches/{match['id']}/moves?deal=1&after_seq=1").json()
    assert [m["seq"] for m in newer] == [m["seq"] for m in log if m["seq"] > 1]
    last = log[-1]["seq"]
    assert ana.get(f"/api/v1/matches/{match['id']}/moves?after_seq={last}").json() == []
    bad = ana.get(f"/api/v1/matches/{match['id']}/moves?after_seq=-1")
    assert _refused(bad, "invalid", 400)["detail"].keys() == {"after_seq"}


@pytest.mark.django_db
@pytest.mark.usefixtures("commits_in_place")  # what commits trigger, in place
def test_the_move_reply_says_whether_a_bot_moves_next(make_player, client_for):
    (_, ta), (_, tb) = make_player(), make_player()
    ana, bob = client_for(ta), client_for(tb)
    against_bot = create_match(ana, seats=2, bots=["random"])
    view = state(ana, against_bot["id"])
    assert view["turn"] == 0  # seat 0 opens deal 1
    reply = post_move(ana, against_bot["id"], view["legal_moves"][0], view["version"]).json()
    bot_next = reply["turn"] == 1 and reply["phase"] not in ("deal_over", "match_over")
    assert reply["pending_bot_turns"] is bot_next
    # The embedded default plays the bot's turn once the move commits, before the answer.
    if bot_next:
        assert state(ana, against_bot["id"])["version"] > reply["version"]
    people = create_match(ana, seats=2)
    bob.post(f"/api/v1/matches/{people['id']}/join")
    view = state(ana, people["id"])
    reply = post_move(ana, people["id"], view["legal_moves"][0], view["version"]).json()
    assert reply["pending_bot_turns"] is False


@pytest.mark.django_db(transaction=True)
def test_a_join_racing_a_cancel_is_one_or_the_other(make_player):
    """join, leave and cancel lock the match row: of a join of the last seat and a cancel at
    once, one wins, and the row and its seats agree."""
    (ana, _), (bob, _) = make_player(), make_player()
    for _ in range(6):
        match_id = _match_of(ana)
        joined, cancelled = race(
            lambda m=match_id: match_join(match_id=m, player=bob),
            lambda m=match_id: match_cancel(match_id=m, player=ana),
        )
        row = Match.objects.get(id=match_id)
        bob_seated = Seat.objects.filter(match=row, player=bob).exists()
        if joined == "ok":
            assert cancelled == "match_not_waiting"
            assert row.status == "active" and bob_seated and row.cancel_reason is None
        else:
            assert (joined, cancelled) == ("match_full", "ok")
            assert row.status == "cancelled" and not bob_seated
            assert row.seat_players[1] is None


@pytest.mark.django_db(transaction=True)
def test_leaves_and_joins_at_once_keep_seats_and_rows_in_step(make_player):
    """People leaving and joining one waiting match at once: every seat row matches
    seat_players, and nobody sits twice."""
    (ana, _), *others = [make_player() for _ in range(5)]
    people = [player for player, _ in others]
    match_id = _match_of(ana, seats=6)
    for player in people[:2]:
        match_join(match_id=match_id, player=player)
    outcomes = race(
        lambda: match_leave(match_id=match_id, player=people[0]),
        lambda: match_leave(match_id=match_id, player=people[1]),
        lambda: match_join(match_id=match_id, player=people[2]),
        lambda: match_join(match_id=match_id, player=people[3]),
    )
    assert outcomes == ["ok"] * 4
    row = Match.objects.get(id=match_id)
    seated = {s.seat: str(s.player_id) for s in Seat.objects.filter(match=row)}
    assert seated == {s: p for s, p in enumerate(row.seat_players) if p is not None}
    assert set(seated.values()) == {str(ana.id), str(people[2].id), str(people[3].id)}
    assert row.version == 2 + 4  # two joins before, then two leaves and two joins


def _match_of(player, seats=2):
    from games.services import match_create

    return match_create(player=player, seats=seats).id


@pytest.mark.django_db(transaction=True)
def test_a_cancel_tells_the_seated_people_and_closes_the_match_stream(make_player, client_for):
    """The seated people hear `match_cancelled` on their `me` stream, and a match stream ends:
    a cancelled match can change no more (live.streams)."""
    from live.hub import me_log
    from live.streams import _seat_event

    (ana, ta), (bob, tb) = make_player(), make_player()
    match = create_match(client_for(ta), seats=3)
    client_for(tb).post(f"/api/v1/matches/{match['id']}/join")
    seated = _seat_event(match["id"], 0, str(ana.id))
    assert seated is not None and seated[1] is False  # waiting: the stream goes on
    assert client_for(ta).post(f"/api/v1/matches/{match['id']}/cancel").status_code == 200
    for person in (ana, bob):
        _, logged = me_log(str(person.id), 0)
        cancelled = [e for e in logged if e["type"] == "match_cancelled"]
        assert [e["match"] for e in cancelled] == [match["id"]], logged
    ended = _seat_event(match["id"], 0, str(ana.id))
    assert ended is not None
    version, over, event = ended
    assert over is True and event is not None and b"cancelled" in event.data


@pytest.mark.parametrize("code", [5, 1.5])
def test_a_join_code_that_is_not_a_string_is_refused_and_changes_nothing(
    make_player, client_for, code
):
    """DRF's text field takes a number as its digits; the API takes text as a JSON string."""
    (_, ta), (_, tb) = make_player(), make_player()
    match = create_match(client_for(ta), seats=3)
    refused = client_for(tb).post(
        f"/api/v1/matches/{match['id']}/join", {"code": code}, format="json"
    )
    assert refused.status_code == 400 and refused.json()["detail"] == {
        "code": ["Not a valid string."]
    }, refused.content
    assert Match.objects.get(id=match["id"]).seat_players.count(None) == 2
