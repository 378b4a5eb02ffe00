"""Test setup shared by the tournament tests."""

from __future__ import annotations

from typing import Any

from tournaments.models import Entrant
from tournaments.services import tournament_invitation_accept


def accept_all(tournament_id: Any) -> None:
    """Every invited entrant accepts (through the service), so the organizer may start."""
    for entrant in Entrant.objects.filter(
        tournament_id=tournament_id, status=Entrant.Status.INVITED
    ).select_related("player"):
        tournament_invitation_accept(tournament_id=tournament_id, player=entrant.player)
