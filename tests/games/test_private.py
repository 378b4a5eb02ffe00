"""Private tables and challenges (docs/api.md "Private tables and challenges"): a private match
is shown only to its guests (seats, creator, invitees) on every route, list and stream; its
invitees get `challenge` on their `me` stream and accept or decline; an invitation holds a seat
until it is answered or expires; a join code seats whoever brings it; bad input is 400 naming
the field and changes nothing; the new writes are throttled per user."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.throttling import SimpleRateThrottle

from games import events, tasks
from games.models import Invitation, Match, Seat
from live import hub
from tests.helpers import create_match, play_until, race

pytestmark = pytest.mark.django_db

NO_SUCH = "00000000-0000-4000-8000-000000000000"


def _refused(response, code, status):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code, body
    return body


@pytest.fixture
def people(make_player, client_for):
    """Four people: (player, client) of the creator, two friends and an outsider."""
    made = [make_player(name) for name in ("ana", "bora", "cem", "dilek")]
    return [(player, client_for(token)) for player, token in made]


def _private(client, **body):
    return create_match(client, private=True, **body)


def _me_events(player, kind):
    _, logged = hub.me_log(str(player.id), 0)
    return [e for e in logged if e["type"] == kind]


def test_a_private_match_invites_and_shows_its_code_to_its_creator_only(people):
    (ana, a), (bora, b), _, _ = people
    match = _private(a, seats=3, invite=["BORA"])  # any letter case
    assert match["private"] is True and match["spectators"] == "none"
    code = match["join_code"]
    assert isinstance(code, str) and len(code) >= 22
    [invitation] = match["invitations"]
    assert invitation["player"]["username"] == "bora" and invitation["status"] == "pending"
    assert invitation["answered_at"] is None
    seconds = (
        Invitation.objects.get(match_id=match["id"]).expires_at
        - Match.objects.get(id=match["id"]).created_at
    ).total_seconds()
    assert 599 <= seconds <= 601  # PRIVATE_INVITATION_SECONDS
    # The invitee sees the match and its invitations, never its code.
    seen = b.get(f"/api/v1/matches/{match['id']}").json()
    assert seen["join_code"] is None and seen["invitations"] == match["invitations"]
    assert a.get(f"/api/v1/matches/{match['id']}").json()["join_code"] == code
    # Each private match has a code of its own.
    assert _private(a, seats=2)["join_code"] != code
    # A public match has none, and no invitations.
    public = create_match(a, seats=2)
    assert public["private"] is False and public["join_code"] is None
    assert public["invitations"] == [] and public["spectators"] == "public"


@pytest.mark.parametrize("spectators", ["public", "none"])
def test_its_guests_at_no_seat_watch_it_as_its_creator_allows(people, spectators):
    (_, a), (_, b), (_, c), (_, d) = people
    match = _private(a, seats=2, spectators=spectators, invite=["bora"])
    assert match["spectators"] == spectators
    b.post(f"/api/v1/matches/{match['id']}/invitations/decline")
    c.post(f"/api/v1/matches/{match['id']}/join", {"code": match["join_code"]}, format="json")
    # bora, a guest at no seat, watches only if the creator allowed spectators.
    watched = b.get(f"/api/v1/matches/{match['id']}/state")
    if spectators == "public":
        assert watched.status_code == 200 and watched.json()["you"] is None
        assert watched.json()["hand"] == []
    else:
        _refused(watched, "spectators_not_allowed", 403)
    # An outsider never: watching is for its guests.
    _refused(d.get(f"/api/v1/matches/{match['id']}/state"), "not_found", 404)


@pytest.mark.django_db(transaction=True)
def test_the_pending_invitees_are_told_when_the_match_is_cancelled(people):
    """A challenge the creator withdraws (cancelling the match): each invitee who has not
    answered hears `match_cancelled` (no seat), so a client drops the challenge at once; one
    who declined does not."""
    (_, a), (bora, _), (cem, c), (dilek, _) = people
    match = _private(a, seats=4, invite=["bora", "cem", "dilek"])
    c.post(f"/api/v1/matches/{match['id']}/invitations/decline")
    assert a.post(f"/api/v1/matches/{match['id']}/cancel").status_code == 200
    for invitee in (bora, dilek):
        [cancelled] = _me_events(invitee, "match_cancelled")
        assert cancelled["match"] == match["id"] and cancelled["seat"] is None
    assert _me_events(cem, "match_cancelled") == []


@pytest.mark.django_db(transaction=True)
def test_an_invitee_is_challenged_accepts_and_the_creator_is_told(people):
    (ana, a), (bora, b), _, _ = people
    match = _private(a, seats=2, invite=["bora"])
    [challenge] = _me_events(bora, "challenge")
    assert challenge["match"] == match["id"] and challenge["by"] == str(ana.id)
    assert challenge["expires_at"].endswith("Z")
    assert "join_code" not in challenge and match["join_code"] not in str(challenge)
    # The invitee's pending challenges.
    listed = b.get("/api/v1/matches?invited=true").json()["results"]
    assert [m["id"] for m in listed] == [match["id"]]
    accepted = b.post(f"/api/v1/matches/{match['id']}/invitations/accept")
    assert accepted.status_code == 200, accepted.content
    body = accepted.json()
    assert body["status"] == "active" and body["seats"][1]["player"]["id"] == str(bora.id)
    assert body["invitations"][0]["status"] == "accepted"
    assert body["invitations"][0]["answered_at"] is not None
    [answered] = _me_events(ana, "challenge_answered")
    assert answered["player"] == str(bora.id) and answered["answer"] == "accepted"
    assert [e["type"] for e in _me_events(bora, "match_started")] == ["match_started"]
    # No longer a pending challenge; accepting again changes nothing.
    assert b.get("/api/v1/matches?invited=true").json()["results"] == []
    again = b.post(f"/api/v1/matches/{match['id']}/invitations/accept")
    assert again.status_code == 200 and again.json()["version"] == body["version"]


@pytest.mark.django_db(transaction=True)
def test_a_private_match_is_never_the_lobby_streams_news(people):
    (_, a), (_, b), _, _ = people
    published = []
    original = events.publish

    def spy(message, people_events, **options):
        published.append(message)
        original(message, people_events, **options)

    events.publish = spy
    try:
        match = _private(a, seats=2, invite=["bora"])
        b.post(f"/api/v1/matches/{match['id']}/invitations/accept")
    finally:
        events.publish = original
    told = [m for m in published if m and m.get("match") == match["id"]]
    assert told and not any(m.get("lobby") for m in told)


def test_an_outsider_never_sees_a_private_match(people, api):
    (ana, a), (_, b), _, (_, d) = people
    match = _private(a, seats=2, invite=["bora"])
    mid = match["id"]
    missing = d.get(f"/api/v1/matches/{NO_SUCH}").json()
    for client in (d, api):
        # The same 404 as a match that does not exist.
        assert _refused(client.get(f"/api/v1/matches/{mid}"), "not_found", 404) == missing
        for path in ("state", "moves", "deals/1", "deals/1/replay", "events"):
            _refused(client.get(f"/api/v1/matches/{mid}/{path}"), "not_found", 404)
        for query in ("", "?status=waiting", f"?player={ana.id}"):
            listed = client.get(f"/api/v1/matches{query}").json()["results"]
            assert mid not in [m["id"] for m in listed], query
    _refused(d.get(f"/api/v1/matches/{mid}/deals/1/analysis"), "not_found", 404)
    # Writes answer as for no match at all.
    for path in ("leave", "cancel", "rematch", "resign", "invitations/accept"):
        _refused(d.post(f"/api/v1/matches/{mid}/{path}"), "not_found", 404)
    _refused(
        d.post(f"/api/v1/matches/{mid}/talk", {"phrase": "oops"}, format="json"), "not_found", 404
    )
    _refused(
        d.post(f"/api/v1/matches/{mid}/moves", {"action": "draw", "version": 0}, format="json"),
        "not_found",
        404,
    )
    _refused(
        d.post(f"/api/v1/matches/{mid}/invite", {"invite": ["cem"]}, format="json"),
        "not_found",
        404,
    )
    _refused(d.post(f"/api/v1/matches/{mid}/join"), "not_found", 404)
    assert d.get("/api/v1/matches?invited=true").json()["results"] == []
    _refused(api.get("/api/v1/matches?invited=true"), "not_authenticated", 401)
    # Its guests list it: the creator and the invitee (the lobby included).
    for client in (a, b):
        listed = client.get("/api/v1/matches?status=waiting").json()["results"]
        assert [m["id"] for m in listed] == [mid]
    assert [m["id"] for m in b.get(f"/api/v1/matches?player={ana.id}").json()["results"]] == [mid]


def test_an_outsider_never_sees_a_finished_private_match(people, api, commits_in_place):
    (_, a), (bora, b), _, (_, d) = people
    match = _private(a, seats=2, deals=1, invite=["bora"])
    b.post(f"/api/v1/matches/{match['id']}/invitations/accept")
    seats = {0: a, 1: b}
    assert play_until(seats, match["id"], lambda v: False)["status"] == "finished"
    for client in (d, api):
        _refused(client.get(f"/api/v1/matches/{match['id']}/deals/1/replay"), "not_found", 404)
        _refused(client.get(f"/api/v1/matches/{match['id']}/deals/1"), "not_found", 404)
    assert b.get(f"/api/v1/matches/{match['id']}/deals/1/replay").status_code == 200
    # The rating history names it to its guests only.
    for client, named in ((b, True), (d, False), (api, False)):
        history = client.get(f"/api/v1/players/{bora.id}/history").json()["results"]
        assert [h["match"] for h in history] == [match["id"] if named else None]
        assert history[0]["place"] in (1, 2)


def test_a_join_code_seats_whoever_has_it_and_a_wrong_one_says_nothing(people):
    (_, a), (bora, b), (cem, c), (_, d) = people
    match = _private(a, seats=3, invite=["bora"])
    mid, code = match["id"], match["join_code"]
    # A wrong code: the same 404 as a match that does not exist, whoever asks.
    wrong = _refused(
        d.post(f"/api/v1/matches/{mid}/join", {"code": "x" + code}, format="json"), "not_found", 404
    )
    assert wrong == d.post(f"/api/v1/matches/{NO_SUCH}/join", {"code": code}, format="json").json()
    _refused(d.post(f"/api/v1/matches/{mid}/join", {"code": ""}, format="json"), "invalid", 400)
    _refused(d.post(f"/api/v1/matches/{mid}/join", {"code": ["x"]}, format="json"), "invalid", 400)
    # The code seats cem in the one seat bora's invitation does not hold.
    joined = c.post(f"/api/v1/matches/{mid}/join", {"code": code}, format="json")
    assert joined.status_code == 200, joined.content
    assert joined.json()["seats"][1]["player"]["id"] == str(cem.id)
    assert joined.json()["join_code"] is None  # shown to the creator only
    # The last seat is bora's while the invitation is pending: dilek's code finds it full.
    _refused(
        d.post(f"/api/v1/matches/{mid}/join", {"code": code}, format="json"), "match_full", 409
    )
    # bora joins by the plain join route too: his invitation is accepted.
    seated = b.post(f"/api/v1/matches/{mid}/join")
    assert seated.status_code == 200 and seated.json()["status"] == "active"
    assert Invitation.objects.get(match_id=mid).status == "accepted"


def test_a_declined_seat_is_open_to_other_invitees_only(people, api):
    (_, a), (_, b), (_, c), (_, d) = people
    match = _private(a, seats=2, invite=["bora"])
    mid = match["id"]
    # cem, a guest of nothing, is refused; so is a code holder while bora's invitation holds it.
    _refused(
        c.post(f"/api/v1/matches/{mid}/join", {"code": match["join_code"]}, format="json"),
        "match_full",
        409,
    )
    declined = b.post(f"/api/v1/matches/{mid}/invitations/decline")
    assert declined.status_code == 200, declined.content
    body = declined.json()
    assert body["invitations"][0]["status"] == "declined" and body["open_seats"] == 1
    assert body["version"] == match["version"] + 1
    # Declining again changes nothing; accepting now is refused.
    assert b.post(f"/api/v1/matches/{mid}/invitations/decline").json()["version"] == body["version"]
    refused = _refused(
        b.post(f"/api/v1/matches/{mid}/invitations/accept"), "invitation_not_pending", 409
    )
    assert refused["detail"]["status"] == "declined"
    # bora still sees the match (a guest) but may not join without the code.
    assert b.get(f"/api/v1/matches/{mid}").status_code == 200
    _refused(b.post(f"/api/v1/matches/{mid}/join"), "not_invited", 403)
    # Never the lobby's: an outsider still cannot see it.
    assert mid not in [m["id"] for m in api.get("/api/v1/matches?status=waiting").json()["results"]]
    # The creator invites cem into the freed seat.
    invited = a.post(f"/api/v1/matches/{mid}/invite", {"invite": ["cem"]}, format="json")
    assert invited.status_code == 200, invited.content
    assert [i["status"] for i in invited.json()["invitations"]] == ["declined", "pending"]
    assert c.post(f"/api/v1/matches/{mid}/invitations/accept").json()["status"] == "active"


def test_an_invitation_expires_on_read_and_by_the_sweep(people):
    (_, a), (bora, b), _, (_, d) = people
    match = _private(a, seats=2, invite=["bora"])
    mid = match["id"]
    Invitation.objects.filter(match_id=mid).update(expires_at=timezone.now() - timedelta(seconds=1))
    # On read: expired, though the row still says pending.
    assert a.get(f"/api/v1/matches/{mid}").json()["invitations"][0]["status"] == "expired"
    assert b.get("/api/v1/matches?invited=true").json()["results"] == []
    refused = _refused(
        b.post(f"/api/v1/matches/{mid}/invitations/accept"), "invitation_not_pending", 409
    )
    assert refused["detail"]["status"] == "expired"
    _refused(b.post(f"/api/v1/matches/{mid}/invitations/decline"), "invitation_not_pending", 409)
    assert Invitation.objects.get(match_id=mid).status == "pending"
    # The sweep writes it.
    tasks.sweep()
    assert Invitation.objects.get(match_id=mid).status == "expired"
    # The seat it held is free for the join link, and the creator may invite bora again.
    again = a.post(f"/api/v1/matches/{mid}/invite", {"invite": ["bora"]}, format="json")
    assert again.status_code == 200 and again.json()["invitations"][0]["status"] == "pending"
    assert b.post(f"/api/v1/matches/{mid}/invitations/accept").json()["status"] == "active"


def test_a_cancelled_private_match_expires_its_invitations(people):
    (_, a), (_, b), _, _ = people
    match = _private(a, seats=2, invite=["bora"])
    a.post(f"/api/v1/matches/{match['id']}/cancel")
    assert b.get(f"/api/v1/matches/{match['id']}").json()["invitations"][0]["status"] == "expired"
    _refused(
        b.post(f"/api/v1/matches/{match['id']}/invitations/accept"), "invitation_not_pending", 409
    )


@pytest.mark.parametrize(
    ("body", "field", "reason"),
    [
        ({"private": True, "invite": ["nobody"]}, "invite", "no player is named nobody"),
        ({"private": True, "invite": ["ana"]}, "invite", "you cannot invite yourself"),
        (
            {"seats": 3, "private": True, "invite": ["bora", "Bora"]},
            "invite",
            "bora is named twice",
        ),
        (
            {"private": True, "invite": ["bora", "cem"]},
            "invite",
            "more people invited (2) than open seats for them (1)",
        ),
        (
            {"seats": 3, "private": True, "bots": ["greedy"], "invite": ["bora", "cem"]},
            "invite",
            "more people invited (2) than open seats for them (1)",
        ),
        ({"invite": ["bora"]}, "invite", "only a private match invites people"),
        ({"private": True, "invite": ["deleted"]}, "invite", "no player is named"),
        ({"private": True, "invite": "bora"}, "invite", None),
        ({"private": True, "invite": [7]}, "invite", None),
        ({"private": "maybe"}, "private", None),
    ],
)
def test_bad_invitations_are_refused_naming_the_field_and_change_nothing(
    people, make_player, client_for, body, field, reason
):
    (_, a), (bora, _b), _, _ = people
    _gone, token = make_player("deleted")
    gone = client_for(token).post(
        "/api/v1/auth/account/delete", {"password": "s3cret-pass"}, format="json"
    )
    assert gone.status_code == 204, gone.content
    before = (Match.objects.count(), Invitation.objects.count(), Seat.objects.count())
    refused = _refused(
        a.post("/api/v1/matches", {"seats": 2, **body}, format="json"), "invalid", 400
    )
    assert list(refused["detail"]) == [field], refused
    if reason:
        assert reason in refused["detail"][field][0], refused
    assert (Match.objects.count(), Invitation.objects.count(), Seat.objects.count()) == before
    assert hub.me_log(str(bora.id), 0)[1] == []


def test_bad_invitations_to_an_existing_match(people):
    (_, a), (_, b), (_, c), (_, d) = people
    match = _private(a, seats=3, invite=["bora"])
    mid = match["id"]

    def invite(client, names):
        return client.post(f"/api/v1/matches/{mid}/invite", {"invite": names}, format="json")

    before = (Invitation.objects.count(), Match.objects.get(id=mid).version)
    for names, reason in [
        (["bora"], "bora is invited already"),
        (["ana"], "you cannot invite yourself"),
        (["cem", "dilek"], "more people invited (2) than open seats for them (1)"),
        (["zed"], "no player is named zed"),
    ]:
        refused = _refused(invite(a, names), "invalid", 400)
        assert reason in refused["detail"]["invite"][0]
    _refused(invite(a, []), "invalid", 400)
    _refused(
        a.post(f"/api/v1/matches/{mid}/invite", {"invite": ["cem"], "x": 1}, format="json"),
        "invalid",
        400,
    )
    # Only the creator invites; a guest is told so.
    _refused(invite(b, ["cem"]), "not_creator", 403)
    assert (Invitation.objects.count(), Match.objects.get(id=mid).version) == before
    # Seated people are not invited again.
    c.post(f"/api/v1/matches/{mid}/join", {"code": match["join_code"]}, format="json")
    b.post(f"/api/v1/matches/{mid}/invitations/decline")
    refused = _refused(invite(a, ["cem"]), "invalid", 400)
    assert "cem is seated already" in refused["detail"]["invite"][0]
    # A public match invites nobody; a started one neither.
    public = create_match(a, seats=2)
    refused = _refused(
        a.post(f"/api/v1/matches/{public['id']}/invite", {"invite": ["cem"]}, format="json"),
        "invalid",
        400,
    )
    assert "invite" in refused["detail"]
    invite(a, ["dilek"])
    d.post(f"/api/v1/matches/{mid}/invitations/accept")
    _refused(invite(a, ["bora"]), "match_not_waiting", 409)


def test_the_creator_and_the_seated_have_no_invitation_to_answer(people):
    (_, a), _, (_, c), _ = people
    match = _private(a, seats=3)
    _refused(a.post(f"/api/v1/matches/{match['id']}/invitations/accept"), "not_invited", 403)
    _refused(a.post(f"/api/v1/matches/{match['id']}/invitations/decline"), "not_invited", 403)
    _refused(
        a.post(f"/api/v1/matches/{match['id']}/invitations/accept", {"x": 1}, format="json"),
        "invalid",
        400,
    )


def test_a_private_rematch_is_private_and_invites_the_other_people(people, commits_in_place):
    (_, a), (bora, b), _, (_, d) = people
    match = _private(a, seats=2, deals=1, invite=["bora"])
    b.post(f"/api/v1/matches/{match['id']}/invitations/accept")
    play_until({0: a, 1: b}, match["id"], lambda v: False)
    rematch = a.post(f"/api/v1/matches/{match['id']}/rematch").json()
    assert rematch["private"] is True and rematch["join_code"] not in (None, match["join_code"])
    assert [i["player"]["id"] for i in rematch["invitations"]] == [str(bora.id)]
    _refused(d.get(f"/api/v1/matches/{rematch['id']}"), "not_found", 404)
    assert (
        b.post(f"/api/v1/matches/{rematch['id']}/invitations/accept").json()["status"] == "active"
    )


def test_asking_for_a_private_rematch_second_takes_the_invitation(people, commits_in_place):
    """The invited person who asks for the rematch too is seated by their invitation; an
    outsider asking is not seated in the finished match, so is refused."""
    (_, a), (bora, b), _, (_, d) = people
    match = _private(a, seats=2, deals=1, invite=["bora"])
    b.post(f"/api/v1/matches/{match['id']}/invitations/accept")
    play_until({0: a, 1: b}, match["id"], lambda v: False)
    rematch = a.post(f"/api/v1/matches/{match['id']}/rematch").json()
    again = b.post(f"/api/v1/matches/{match['id']}/rematch")
    assert again.status_code == 200 and again.json()["id"] == rematch["id"]
    assert again.json()["status"] == "active"
    assert [i["status"] for i in again.json()["invitations"]] == ["accepted"]
    assert str(bora.id) in [s["player"]["id"] for s in again.json()["seats"]]
    _refused(d.post(f"/api/v1/matches/{match['id']}/rematch"), "not_found", 404)


def test_the_private_routes_are_throttled_per_user(people, monkeypatch):
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "match_invite": "2/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    (_, a), (_, b), (_, c), (_, d) = people
    match = _private(a, seats=3)
    mid = match["id"]
    for name in ("bora", "cem"):
        assert (
            a.post(f"/api/v1/matches/{mid}/invite", {"invite": [name]}, format="json").status_code
            == 200
        )
    throttled = a.post(f"/api/v1/matches/{mid}/invite", {"invite": ["dilek"]}, format="json")
    _refused(throttled, "throttled", 429)
    assert int(throttled["Retry-After"]) > 0
    # A wrong code counts too: guessing is slow.
    for _ in range(2):
        _refused(
            d.post(f"/api/v1/matches/{mid}/join", {"code": "guess"}, format="json"),
            "not_found",
            404,
        )
    _refused(
        d.post(f"/api/v1/matches/{mid}/join", {"code": "guess"}, format="json"), "throttled", 429
    )
    # Each person's count is their own; a join without a code is not counted.
    assert b.post(f"/api/v1/matches/{mid}/invitations/accept").status_code == 200
    assert (
        create_match(d, seats=2)
        and d.post(f"/api/v1/matches/{create_match(b, seats=2)['id']}/join").status_code == 200
    )


@pytest.mark.django_db(transaction=True)
def test_a_held_seat_is_never_taken_twice_under_races(make_player):
    """On PostgreSQL, at once: an invitee accepting, two code holders and a decline racing for a
    three-seat private table with one seat held by the invitation. The row lock orders them: the
    invitee keeps their seat, one code holder gets the free one, the other is refused; nobody
    sits twice and the seat rows follow the match row."""
    from games.services import invitation_accept, match_create, match_join

    for _ in range(4):
        ana = make_player()[0]
        bora, cem, dilek = (make_player()[0] for _ in range(3))
        match = match_create(player=ana, seats=3, private=True, invite=[bora.username])
        outcomes = race(
            lambda m=match, p=bora: invitation_accept(match_id=m.id, player=p),
            lambda m=match, p=cem: match_join(match_id=m.id, player=p, code=m.join_code),
            lambda m=match, p=dilek: match_join(match_id=m.id, player=p, code=m.join_code),
        )
        assert outcomes[0] == "ok", outcomes
        assert sorted(outcomes[1:]) == ["match_full", "ok"], outcomes
        row = Match.objects.get(id=match.id)
        assert row.status == "active" and None not in row.seat_players
        seated = {s.seat: str(s.player_id) for s in Seat.objects.filter(match=row)}
        assert seated == dict(enumerate(row.seat_players))
        assert str(bora.id) in seated.values() and len(set(seated.values())) == 3


def test_a_deleted_account_declines_its_pending_invitations(people, client_for, make_player):
    (_, a), _, _, (_, d) = people
    gone, token = make_player("erol")
    match = _private(a, seats=2, invite=["erol"])
    deleted = client_for(token).post(
        "/api/v1/auth/account/delete", {"password": "s3cret-pass"}, format="json"
    )
    assert deleted.status_code == 204, deleted.content
    seen = a.get(f"/api/v1/matches/{match['id']}").json()
    assert [i["status"] for i in seen["invitations"]] == ["declined"]
    # The seat it held is free for the join link.
    joined = d.post(
        f"/api/v1/matches/{match['id']}/join", {"code": match["join_code"]}, format="json"
    )
    assert joined.status_code == 200 and joined.json()["status"] == "active"


def test_the_scanner_flags_a_private_match_named_to_an_outsider(people):
    """Control: a body naming a private match to a viewer it is hidden from, or its join code to
    anyone but its creator, is a leak (so the scanner does check every response of the suite)."""
    import json

    from tests.leakscan import scan_body

    (ana, a), (bora, _), _, (dilek, _) = people
    match = _private(a, seats=3, invite=["bora"])
    named = {"id": match["id"]}
    coded = {"id": match["id"], "join_code": match["join_code"]}
    path = "/api/v1/matches"
    assert scan_body(path, named, json.dumps(named), str(bora.id)) == []  # invited
    assert scan_body(path, coded, json.dumps(coded), str(ana.id)) == []  # its creator
    assert scan_body(path, named, json.dumps(named), str(dilek.id))
    assert scan_body(path, named, json.dumps(named), None)
    assert scan_body(path, coded, json.dumps(coded), str(bora.id))
