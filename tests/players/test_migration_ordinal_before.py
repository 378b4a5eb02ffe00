"""Migration players/0012 on a database of before it: each rating-history row gets the global
ordinal before its match, read off the player's row before it by finished_at (the starting
rating for a first match), as the history showed it until then."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

BEFORE = [("players", "0011_board_entry_avg_penalty_null")]
AFTER = [("players", "0012_ratinghistory_rating_ordinal_before")]


@pytest.mark.django_db(transaction=True)
def test_the_rows_before_it_take_the_previous_rows_rating(make_player, migrations):
    (ana, _), (bob, _) = make_player("ana"), make_player("bob")
    old = migrations.to(BEFORE)
    OldHistory = old.get_model("players", "RatingHistory")
    now = timezone.now()

    def row(player, minutes_ago, ordinal):
        return OldHistory.objects.create(
            player_id=player.id,
            match_id=uuid.uuid4(),
            finished_at=now - timedelta(minutes=minutes_ago),
            seats=2,
            ruleset="default",
            place=1,
            rating_mu=25.0,
            rating_sigma=8.0,
            rating_ordinal=ordinal,
        )

    # Written out of order, as settlements may come.
    third, first, second = row(ana, 1, 4.5), row(ana, 30, 2.0), row(ana, 10, 1.25)
    only = row(bob, 5, -1.5)

    migrations.to(AFTER)
    migrations.to_the_end()  # the models below are the latest

    from players.models import RatingHistory

    before = dict(RatingHistory.objects.values_list("id", "rating_ordinal_before"))
    assert before[first.id] == pytest.approx(0.0)
    assert before[second.id] == pytest.approx(2.0)
    assert before[third.id] == pytest.approx(1.25)
    assert before[only.id] == pytest.approx(0.0)
