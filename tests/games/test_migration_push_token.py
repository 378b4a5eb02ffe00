"""Migrations games/0025 and 0026 on a database of before them: each push subscription gets
the session that registers it from then on; those of before keep none and stay. An endpoint
held by several players (a browser shared by accounts) stays with the one who registered it
last, the others' rows go with what waited for them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

BEFORE = [("games", "0024_keyed_write")]
AFTER = [("games", "0026_push_subscription_token")]


@pytest.mark.django_db(transaction=True)
def test_old_subscriptions_stay_and_a_shared_endpoint_stays_with_its_last_player(
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

    migrations.to(AFTER)
    migrations.to_the_end()  # the models below are the latest

    from games.models import PushMessage, PushSubscription

    rows = {row.id: row for row in PushSubscription.objects.all()}
    assert set(rows) == {bob_shared, ana_own}
    assert rows[bob_shared].player_id == bob.id and rows[bob_shared].endpoint == shared
    assert all(row.token_id is None for row in rows.values())
    assert list(PushMessage.objects.values_list("id", flat=True)) == [kept_message.id]
