"""Admin pages of boards, board entries and rating history render (read-only entries)."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from players.models import BoardEntry
from players.services import player_standings_settle

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("model", ["board", "boardentry", "ratinghistory"])
def test_leaderboard_admin_pages_render(make_player, model):
    (ana, _), (bob, _) = make_player(), make_player()
    player_standings_settle(
        match_id=uuid.uuid4(),
        player_ids=[ana.id, bob.id],
        places=[1, 2],
        rules={},
        finished_at=timezone.now(),
        deals_played=1,
        deals_won=[1, 0],
        penalties=[0, 12],
    )
    user = get_user_model().objects.create_superuser("root", "root@example.com", "s3cret-pass")
    client = Client()
    client.force_login(user)
    assert client.get(f"/admin/players/{model}/").status_code == 200
    entry = BoardEntry.objects.first()
    response = client.get(f"/admin/players/boardentry/{entry.id}/change/")
    assert response.status_code == 200 and b'name="_save"' not in response.content
