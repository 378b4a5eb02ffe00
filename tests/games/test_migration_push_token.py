"""Migrations games/0025 to 0028 on a database of before them: an endpoint held by several
players (a browser shared by accounts) stays with the one who registered it last, the others'
rows go with what waited for them, found by one statement however many endpoints are shared;
each subscription belongs to the session that registers it from then on, and those of before,
which no sign-out could end, go."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

BEFORE = [("games", "0024_keyed_write")]
DEDUPED = [("games", "0025_push_endpoint_one_player")]
SESSIONS = [("games", "0026_push_subscription_token")]


@pytest.mark.django_db(transaction=True)
def test_a_shared_endpoint_stays_with_its_last_player_and_sessionless_rows_go(
    make_player, migrations
):
    (ana, _), (bob, _) = make_player(), make_player()
    old = migrations.to(BEFORE)
    OldSubscription = old.get_model("games", "PushSubscription")
    OldMessage = old.get_model("games", "PushMessage")
    now = timezone.now()

    def subscription(player, endpoint, days_ago):
        row = OldSubscription.objects.create(
            player_id=player.id, endpoint=endpoint, p256dh="k", auth="a"
        )
        OldSubscription.objects.filter(id=row.id).update(created_at=now - timedelta(days=days_ago))
        return row.id

    shared = "https://push.example.com/shared"
    ana_shared = subscription(ana, shared, 3)
    bob_shared = subscription(bob, shared, 1)
    ana_own = subscription(ana, "https://push.example.com/ana", 5)
    OldMessage.objects.create(subscription_id=ana_shared, payload={"type": "your_turn"})
    kept_message = OldMessage.objects.create(subscription_id=ana_own, payload={})

    at_0026 = migrations.to(SESSIONS)
    Subscription = at_0026.get_model("games", "PushSubscription")
    Message = at_0026.get_model("games", "PushMessage")
    rows = {row.id: row for row in Subscription.objects.all()}
    assert set(rows) == {bob_shared, ana_own}
    assert rows[bob_shared].player_id == bob.id and rows[bob_shared].endpoint == shared
    assert all(row.token_id is None for row in rows.values())
    assert list(Message.objects.values_list("id", flat=True)) == [kept_message.id]

    migrations.to_the_end()  # the models below are the latest
    from games.models import PushMessage, PushSubscription

    # No session registered them, so none could end them: they go, with what waited.
    assert not PushSubscription.objects.exists() and not PushMessage.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_shared_endpoints_are_found_by_one_statement_however_many(make_player, migrations):
    (ana, _), (bob, _) = make_player(), make_player()
    old = migrations.to(BEFORE)
    OldSubscription = old.get_model("games", "PushSubscription")
    for n in range(40):
        for player in (ana, bob):
            OldSubscription.objects.create(
                player_id=player.id, endpoint=f"https://push.example.com/{n}", p256dh="k", auth="a"
            )
    with CaptureQueriesContext(connection) as ran:
        deduped = migrations.to(DEDUPED)
    reads = [q["sql"] for q in ran.captured_queries if q["sql"].startswith("SELECT")]
    counted = [sql for sql in reads if "games_pushsubscription" in sql]
    assert len(counted) <= 3, counted  # not one (or two) per shared endpoint
    assert deduped.get_model("games", "PushSubscription").objects.count() == 40
