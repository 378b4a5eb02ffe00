"""`state?after_version` in a thread of its own (Django's test client) answers within moments of
the commit that moved the version on, and the NOTIFY trigger of games migration 0003 is gone
(games 0017): a move's commit notifies nobody in PostgreSQL."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import close_old_connections, connection
from django.db.models import F

from games.models import Match
from tests.helpers import create_match

pytestmark = pytest.mark.django_db(transaction=True)


def test_long_poll_wakes_within_moments_of_the_commit(make_player, client_for):
    _, token = make_player()
    client = client_for(token)
    match = create_match(client, seats=2, bots=["greedy"])
    version = Match.objects.get(id=match["id"]).version
    committed = []

    def bump() -> None:
        time.sleep(0.3)
        Match.objects.filter(id=match["id"]).update(version=F("version") + 1)
        committed.append(time.monotonic())
        close_old_connections()

    writer = threading.Thread(target=bump)
    writer.start()
    response = client.get(f"/api/v1/matches/{match['id']}/state?after_version={version}&wait=5")
    woke = time.monotonic()
    writer.join()
    assert response.status_code == 200 and response.json()["version"] == version + 1
    assert woke - committed[0] < 0.25, f"woke {woke - committed[0]:.3f}s after the commit"


def test_no_trigger_notifies_a_version_change() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("triggers of PostgreSQL")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = 'games_match'::regclass"
            " AND NOT tgisinternal"
        )
        assert cursor.fetchall() == []
        cursor.execute("SELECT proname FROM pg_proc WHERE proname = 'games_match_version_notify'")
        assert cursor.fetchall() == []
