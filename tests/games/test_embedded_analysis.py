"""The embedded default (no broker) runs the analysis queue's tasks on its background thread
(EMBEDDED_ANALYSIS_IN_BACKGROUND, docs/operations.md "Settings"): the move that ends a deal
answers while the deal's luck is still being estimated, and the luck is stored once that thread
is done. Off, they run in the request, as every other in-process task."""

from __future__ import annotations

import threading

import pytest

from games import services
from games.models import Deal, DealLuck
from games.tasks import background_wait
from tests.helpers import create_match, post_move, state

pytestmark = pytest.mark.django_db(transaction=True)  # the tasks run on commit


@pytest.fixture
def luck_held(monkeypatch):
    """The task games.deal_luck waits for `release` (set within 30 s) before it estimates,
    recording the thread it ran on."""
    release, ran_on = threading.Event(), []
    estimate = services.deal_luck

    def held(**kwargs):
        ran_on.append(threading.current_thread().name)
        assert release.wait(30), "the test never released the luck estimate"
        return estimate(**kwargs)

    monkeypatch.setattr(services, "deal_luck", held)  # the name games.tasks calls
    return release, ran_on


def play_one_deal(client):
    """A one-deal match against the greedy bot, played to its end: the replies of every move."""
    match = create_match(client, seats=2, bots=["greedy"], deals=1)
    view, replies = state(client, match["id"]), []
    for _ in range(500):
        if view["status"] != "active":
            return match["id"], replies
        response = post_move(client, match["id"], view["legal_moves"][-1], view["version"])
        assert response.status_code == 200, response.content
        replies.append(response)
        view = state(client, match["id"])
    raise AssertionError("the deal did not end")


def test_the_move_that_ends_a_deal_answers_before_its_luck_is_estimated(
    settings, make_player, client_for, luck_held
):
    settings.EMBEDDED_ANALYSIS_IN_BACKGROUND = True
    release, ran_on = luck_held
    _, token = make_player()
    match_id, _ = play_one_deal(client_for(token))
    # Every reply came back while the estimate waits on the background thread: none stored yet.
    assert ran_on and all(name.startswith("embedded-task") for name in ran_on)
    assert not DealLuck.objects.filter(deal__match_id=match_id).exists()
    release.set()
    assert background_wait(60)
    deal = Deal.objects.get(match_id=match_id, number=1)
    assert sorted(DealLuck.objects.filter(deal=deal).values_list("seat", flat=True)) == [0, 1]


def test_switched_off_the_luck_is_estimated_in_the_request(
    settings, make_player, client_for, luck_held
):
    settings.EMBEDDED_ANALYSIS_IN_BACKGROUND = False
    release, ran_on = luck_held
    release.set()
    _, token = make_player()
    match_id, _ = play_one_deal(client_for(token))
    assert ran_on == [threading.current_thread().name]
    assert DealLuck.objects.filter(deal__match_id=match_id).count() == 2
