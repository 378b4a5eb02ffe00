"""Migration games/0022 on a database of before it: the deal left `active` by a match that had
stopped (abandoned, cancelled, finished) is closed as `abandoned` at the time its match ended;
a deal that is over, and the deal of a match still played, are left as they were."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

BEFORE = [("games", "0021_move_effect")]
AFTER = [("games", "0022_deal_abandoned")]


@pytest.mark.django_db(transaction=True)
def test_the_deals_of_matches_already_stopped_are_closed(make_player, api, migrations):
    player, _ = make_player()
    old = migrations.to(BEFORE)
    OldMatch, OldDeal = old.get_model("games", "Match"), old.get_model("games", "Deal")
    ended = timezone.now() - timedelta(days=30)

    def match(status, finished_at=None):
        return OldMatch.objects.create(
            status=status,
            created_by_id=player.id,
            seat_count=2,
            deals_total=2,
            current_deal=1,
            rules={},
            totals=[0, 0],
            finished_at=finished_at,
        )

    def deal(of, number, status):
        return OldDeal.objects.create(
            match=of,
            number=number,
            dealer=1,
            opener=0,
            seed=bytes(32),
            commitment="0" * 64,
            hands_at_start=[[], []],
            status=status,
            finished_at=ended if status == "over" else None,
        )

    abandoned = match("abandoned", ended)
    over = deal(abandoned, 1, "over")
    stuck = deal(abandoned, 2, "active")
    cancelled_stuck = deal(match("cancelled", ended), 1, "active")
    finished_stuck = deal(match("finished", ended), 1, "active")
    playing = deal(match("active"), 1, "active")

    migrations.to(AFTER)
    migrations.to_the_end()  # the models below are the latest

    from games.models import Deal

    rows = {d.id: d for d in Deal.objects.all()}
    for closed in (stuck, cancelled_stuck, finished_stuck):
        assert rows[closed.id].status == Deal.Status.ABANDONED
        assert rows[closed.id].finished_at == ended
    assert rows[over.id].status == Deal.Status.OVER
    assert rows[playing.id].status == Deal.Status.ACTIVE and rows[playing.id].finished_at is None
    # The API tells a client the stuck deal will never finish.
    summary = api.get(f"/api/v1/matches/{abandoned.id}").json()
    assert [d["status"] for d in summary["deals"]] == ["over", "abandoned"]
