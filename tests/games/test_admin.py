"""Django admin: the game records (matches, seats, deals, moves, scores, idempotency records,
standings, ratings, tournaments) are view-only, and no page shows a live deal's secrets."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.forms.models import model_to_dict
from django.test import Client

from games.models import Deal, IdempotencyRecord, Match, Move, ScoreEntry, Seat
from games.services import deal_score, match_create, match_settle
from players.models import ApiToken, Board, BoardEntry, Player, RatingHistory
from tests.helpers import create_match, end_deal_by_last_card, post_move, state
from tournaments.models import Entrant, Round, Table, Tournament

pytestmark = pytest.mark.django_db

ROUND_SEED_KEY = "5eed" * 16


@pytest.fixture
def staff():
    user = get_user_model().objects.create_superuser("root", "root@example.com", "s3cret-pass")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def live(make_player, client_for):
    """A live two-seat match whose first move was posted under an idempotency key; returns
    (match, mover's client)."""
    _, ta = make_player()
    _, tb = make_player()
    ca, cb = client_for(ta), client_for(tb)
    match = create_match(ca)
    cb.post(f"/api/v1/matches/{match['id']}/join")
    view = state(ca, match["id"])
    mover = ca if view["you"] == view["turn"] else cb
    view = state(mover, match["id"])
    answer = post_move(
        mover, match["id"], view["legal_moves"][0], view["version"], HTTP_IDEMPOTENCY_KEY="k-1"
    )
    assert answer.status_code == 200
    return Match.objects.get(id=match["id"]), mover


@pytest.fixture
def live_match(live):
    return live[0]


@pytest.fixture
def settled_match(make_player):
    """A finished one-deal match, scored and settled: score entries, ratings and boards."""
    players = [make_player()[0], make_player()[0]]
    match = match_create(player=players[0], seats=2, seated=players, deals=1)
    end_deal_by_last_card(match.id, players[0].id, seat=0)
    assert deal_score(match_id=match.id, deal_number=1)
    assert match_settle(match_id=match.id)
    return Match.objects.get(id=match.id)


@pytest.fixture
def tournament(live_match):
    """A duplicate tournament's round whose one table is the live match."""
    organizer = live_match.created_by
    tournament = Tournament.objects.create(
        name="Cup",
        organizer=organizer,
        format=Tournament.Format.DUPLICATE,
        table_size=2,
        deals_per_match=1,
        rules={},
        rounds_total=1,
        turn_seconds=60,
        current_round=1,
    )
    Entrant.objects.create(tournament=tournament, player=organizer, position=0)
    round_ = Round.objects.create(tournament=tournament, number=1, seed_key=ROUND_SEED_KEY)
    Table.objects.create(tournament=tournament, round=round_, number=1, match=live_match)
    return tournament


def _rows(match: Match) -> dict[str, Any]:
    return {
        "match": model_to_dict(Match.objects.get(id=match.id)),
        "seats": list(Seat.objects.filter(match=match).values()),
        "deals": list(Deal.objects.filter(match=match).values()),
        "moves": list(Move.objects.filter(match=match).values()),
        "scores": list(ScoreEntry.objects.filter(match=match).values()),
        "records": list(IdempotencyRecord.objects.filter(match=match).values()),
    }


# (admin URL of the model, the model, the record shown, a form POST that would change it)
RECORDS = {
    "games/match": (Match, lambda live, settled: settled, {"status": "active", "resigned": "[]"}),
    "games/deal": (
        Deal,
        lambda live, settled: Deal.objects.get(match=live, number=1),
        {"commitment": "0" * 64, "status": "active", "result": "{}"},
    ),
    "games/move": (
        Move,
        lambda live, settled: Move.objects.filter(match=live).first(),
        {"card": "XX", "action": "play"},
    ),
    "games/scoreentry": (
        ScoreEntry,
        lambda live, settled: ScoreEntry.objects.filter(match=settled).first(),
        {"penalty": "0", "hand_penalty": "0", "multiplier": "1", "won": "on"},
    ),
    "games/idempotencyrecord": (
        IdempotencyRecord,
        lambda live, settled: IdempotencyRecord.objects.get(match=live),
        {"key": "k-1", "request_hash": "0" * 64, "response": '{"forged": true}'},
    ),
    "players/board": (Board, lambda live, settled: Board.objects.first(), {"seats": "3"}),
    "players/boardentry": (
        BoardEntry,
        lambda live, settled: BoardEntry.objects.first(),
        {"matches": "99", "wins": "99"},
    ),
    "players/ratinghistory": (
        RatingHistory,
        lambda live, settled: RatingHistory.objects.first(),
        {"place": "1", "rating_mu": "99"},
    ),
    "tournaments/tournament": (
        Tournament,
        lambda live, settled: Tournament.objects.get(),
        {"name": "Forged", "status": "finished"},
    ),
    "tournaments/round": (
        Round,
        lambda live, settled: Round.objects.get(),
        {"number": "2", "byes": "[]", "matchpoints": "{}"},
    ),
    "tournaments/table": (Table, lambda live, settled: Table.objects.get(), {"number": "7"}),
}


@pytest.mark.parametrize(
    "model",
    [
        "players/player",
        "games/match",
        "games/deal",
        "games/move",
        "games/scoreentry",
        "games/idempotencyrecord",
        "tournaments/tournament",
    ],
)
def test_changelists_render(staff, live_match, model):
    response = staff.get(f"/admin/{model}/")
    assert response.status_code == 200


@pytest.mark.parametrize("url", sorted(RECORDS))
def test_game_records_are_view_only(staff, live_match, settled_match, tournament, url):
    model, pick, forged = RECORDS[url]
    record = pick(live_match, settled_match)
    before = model_to_dict(model.objects.get(pk=record.pk))
    page = staff.get(f"/admin/{url}/{record.pk}/change/")
    assert page.status_code == 200
    assert b'name="_save"' not in page.content and b"deletelink" not in page.content
    assert staff.post(f"/admin/{url}/{record.pk}/change/", forged).status_code == 403
    assert staff.post(f"/admin/{url}/{record.pk}/delete/", {"post": "yes"}).status_code == 403
    assert staff.get(f"/admin/{url}/add/").status_code == 403
    assert staff.post(f"/admin/{url}/add/", forged).status_code == 403
    assert model_to_dict(model.objects.get(pk=record.pk)) == before


@pytest.mark.parametrize("which", ["live", "settled"])
def test_a_match_and_its_records_are_neither_changed_nor_deleted(
    staff, live_match, settled_match, which
):
    match = live_match if which == "live" else settled_match
    before = _rows(match)
    seat = Seat.objects.filter(match=match).first()
    forged = {
        "status": "cancelled",
        "resigned": "[]",
        "seats-TOTAL_FORMS": "1",
        "seats-INITIAL_FORMS": "1",
        "seats-0-id": str(seat.id),
        "seats-0-match": str(match.id),
        "seats-0-total": "-500",
    }
    assert staff.post(f"/admin/games/match/{match.id}/change/", forged).status_code == 403
    assert staff.post(f"/admin/games/match/{match.id}/delete/", {"post": "yes"}).status_code == 403
    # Nor through the change list's bulk deletion.
    staff.post(
        "/admin/games/match/",
        {"action": "delete_selected", "_selected_action": [str(match.id)], "post": "yes"},
    )
    assert _rows(match) == before


def test_change_pages_hide_the_live_seed_and_hands(staff, live_match, tournament):
    deal = Deal.objects.get(match=live_match, number=1)
    seed = bytes(deal.seed).hex()
    other_hand = live_match.state["hands"][1]
    for url in (
        f"/admin/games/match/{live_match.id}/change/",
        f"/admin/games/deal/{deal.id}/change/",
        f"/admin/games/move/{Move.objects.filter(match=live_match).first().id}/change/",
        f"/admin/tournaments/round/{Round.objects.get().id}/change/",
    ):
        response = staff.get(url)
        assert response.status_code == 200, url
        body = response.content.decode()
        assert seed not in body and ROUND_SEED_KEY not in body
        # The live state (JSON with every hand and the stock) is not rendered in any form.
        assert "&quot;stock&quot;" not in body and '"stock"' not in body
        assert ", ".join(f"&quot;{c}&quot;" for c in other_hand) not in body


def test_an_idempotency_record_page_shows_no_card_of_the_movers_hand(staff, live):
    match, mover = live
    hand = state(mover, match.id)["hand"]
    stored = json.loads(IdempotencyRecord.objects.get(match=match).response)
    assert "hand" in json.dumps(stored)  # what the record holds: the mover's view
    record = IdempotencyRecord.objects.get(match=match)
    response = staff.get(f"/admin/games/idempotencyrecord/{record.id}/change/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "&quot;hand&quot;" not in body and '"hand"' not in body
    for card in hand:
        assert f"&quot;{card}&quot;" not in body and f'"{card}"' not in body, card


COUNTERS = {
    "rating_mu": "99.5",
    "rating_sigma": "0.5",
    "matches": "77",
    "wins": "77",
    "deals_played": "77",
    "deals_won": "77",
    "penalty_points": "77",
    "luck_deals": "77",
    "luck_sum": "7.5",
    "skill_deals": "77",
    "skill_sum": "7.5",
}


def _player_form(player: Player, **changes: str) -> dict[str, str]:
    return {
        "username": player.username,
        "display_name": player.display_name,
        "user": str(player.user_id),
        "strategy": "",
        **COUNTERS,
        **changes,
    }


def test_a_players_rating_and_counters_are_read_only_and_the_display_name_editable(
    staff, settled_match
):
    player = Player.objects.get(id=settled_match.seat_players[0])
    before = model_to_dict(player)
    page = staff.get(f"/admin/players/player/{player.id}/change/")
    assert page.status_code == 200 and b'name="_save"' in page.content
    assert b'name="display_name"' in page.content
    for field in COUNTERS:
        assert f'name="{field}"'.encode() not in page.content, field
        assert f"field-{field}".encode() in page.content, field  # shown, read-only
    response = staff.post(
        f"/admin/players/player/{player.id}/change/",
        _player_form(player, display_name="Renamed", username="someone-else", is_bot="on"),
    )
    assert response.status_code == 302
    after = model_to_dict(Player.objects.get(id=player.id))
    assert after.pop("display_name") == "Renamed"
    before.pop("display_name")
    assert after == before


def test_a_display_name_the_api_refuses_is_refused_in_the_admin(staff, make_player):
    player, _ = make_player()
    response = staff.post(
        f"/admin/players/player/{player.id}/change/",
        _player_form(player, display_name="evil\u202eeman"),
    )
    assert response.status_code == 200 and b"U+202E" in response.content
    assert Player.objects.get(id=player.id).display_name == player.display_name


def test_players_are_neither_added_nor_deleted(staff, make_player):
    player, _ = make_player()
    assert staff.get("/admin/players/player/add/").status_code == 403
    deleted = staff.post(f"/admin/players/player/{player.id}/delete/", {"post": "yes"})
    assert deleted.status_code == 403
    assert Player.objects.filter(id=player.id).exists()


def test_a_players_account_is_not_deleted_from_the_users_page_but_a_staff_one_is(
    staff, make_player
):
    player, _ = make_player()
    users = staff.get("/admin/auth/user/")
    assert users.status_code == 200 and b"delete_selected" not in users.content
    refused = staff.post(f"/admin/auth/user/{player.user_id}/delete/", {"post": "yes"})
    assert refused.status_code == 403
    assert get_user_model().objects.filter(id=player.user_id).exists()
    helper = get_user_model().objects.create_user("helper", password="x-pass-word-1")
    deleted = staff.post(f"/admin/auth/user/{helper.id}/delete/", {"post": "yes"})
    assert deleted.status_code == 302
    assert not get_user_model().objects.filter(id=helper.id).exists()


def test_deactivating_an_account_and_revoking_a_token_still_work(staff, make_player):
    player, _ = make_player()
    _, second = make_player()
    token = ApiToken.objects.exclude(user_id=player.user_id).get()
    deleted = staff.post(f"/admin/players/apitoken/{token.digest}/delete/", {"post": "yes"})
    assert deleted.status_code == 302 and not ApiToken.objects.filter(digest=token.digest).exists()
    user = player.user
    response = staff.post(
        f"/admin/auth/user/{user.id}/change/",
        {
            "username": user.username,
            "date_joined_0": "2024-01-01",
            "date_joined_1": "00:00:00",
            "initial-date_joined_0": "2024-01-01",
            "initial-date_joined_1": "00:00:00",
        },
    )
    assert response.status_code == 302, response.content
    user.refresh_from_db()
    assert not user.is_active
    assert not ApiToken.objects.filter(user_id=user.id).exists()
