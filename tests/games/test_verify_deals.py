"""`manage.py verify_deals` replays finished deals; tampering with a stored move is reported."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.models import Deal, Move, ScoreEntry
from players.services import player_register
from tests.helpers import client_with, commits_run_in_place, create_match, play_until

# Deals are scored on commit: in place, inside the test's transaction
# (conftest.commits_in_place).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("commits_in_place")]


@pytest.fixture(scope="module")
def _finished_once(module_rows):
    """Played once for the module (conftest.module_rows): each test reads it in a savepoint."""
    with commits_run_in_place():
        _, ta = player_register(username="verify-a", password="s3cret-pass")
        _, tb = player_register(username="verify-b", password="s3cret-pass")
        ca, cb = client_with(ta), client_with(tb)
        match = create_match(ca, deals=2)
        cb.post(f"/api/v1/matches/{match['id']}/join")
        final = play_until({0: ca, 1: cb}, match["id"], lambda v: False)
    assert final["status"] == "finished"
    return match["id"]


@pytest.fixture
def finished_match(_finished_once, db):
    return _finished_once


def run() -> str:
    out = StringIO()
    call_command("verify_deals", stdout=out)
    return out.getvalue()


def test_untouched_deals_verify(finished_match):
    assert "verified 2 finished deals: 2 ok, 0 with differences" in run()


def test_a_tampered_move_is_reported(finished_match):
    first, move = Move.objects.filter(
        match_id=finished_match, deal_number=1, action="play"
    ).order_by("seq")[:2]
    # The first played card lies on the pile by then: no hand holds it, so it cannot be played.
    Move.objects.filter(id=move.id).update(card=first.card, suit=None)
    with pytest.raises(CommandError):
        run()
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_deals", stdout=out)
    assert f"deal 1: move {move.seq}" in out.getvalue()
    assert "1 with differences" in out.getvalue()


def test_tampered_draw_result_and_score_are_reported(finished_match):
    draw = Move.objects.filter(match_id=finished_match, action="draw").exclude(drawn=[]).first()
    if draw is not None:
        Move.objects.filter(id=draw.id).update(drawn=["AS"] if draw.drawn != ["AS"] else ["2C"])
    deal = Deal.objects.get(match_id=finished_match, number=2)
    ScoreEntry.objects.filter(deal=deal, seat=0).update(penalty=999)
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_deals", stdout=out)
    assert "deal 2: score entries" in out.getvalue()
    if draw is not None:
        assert f"move {draw.seq}: stored drawn" in out.getvalue()
