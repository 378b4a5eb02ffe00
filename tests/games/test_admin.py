"""Django admin for players, matches, deals and moves; it never shows a live deal's secrets."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games.models import Deal, Match, Move
from tests.helpers import create_match, post_move, state

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    user = get_user_model().objects.create_superuser("root", "root@example.com", "s3cret-pass")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def live_match(make_player, client_for):
    _, ta = make_player()
    _, tb = make_player()
    ca, cb = client_for(ta), client_for(tb)
    match = create_match(ca)
    cb.post(f"/api/v1/matches/{match['id']}/join")
    view = state(ca, match["id"])
    assert post_move(ca, match["id"], view["legal_moves"][0], view["version"]).status_code == 200
    return Match.objects.get(id=match["id"])


@pytest.mark.parametrize(
    "model", ["players/player", "games/match", "games/deal", "games/move", "games/scoreentry"]
)
def test_changelists_render(staff, live_match, model):
    response = staff.get(f"/admin/{model}/")
    assert response.status_code == 200


def test_change_pages_hide_the_live_seed_and_hands(staff, live_match):
    deal = Deal.objects.get(match=live_match, number=1)
    seed = bytes(deal.seed).hex()
    other_hand = live_match.state["hands"][1]
    for url in (
        f"/admin/games/match/{live_match.id}/change/",
        f"/admin/games/deal/{deal.id}/change/",
        f"/admin/games/move/{Move.objects.filter(match=live_match).first().id}/change/",
    ):
        response = staff.get(url)
        assert response.status_code == 200, url
        body = response.content.decode()
        assert seed not in body
        # The live state (JSON with every hand and the stock) is not rendered in any form.
        assert "&quot;stock&quot;" not in body and '"stock"' not in body
        assert ", ".join(f"&quot;{c}&quot;" for c in other_hand) not in body
