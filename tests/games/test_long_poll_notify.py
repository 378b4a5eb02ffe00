"""`state?after_version` wakes up on the NOTIFY a version change sends (PostgreSQL trigger of
games migration 0003), not on its once-a-second re-check."""

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
    if connection.vendor != "postgresql":
        pytest.skip("NOTIFY is PostgreSQL's")
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
