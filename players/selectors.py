"""Reads on players."""

from __future__ import annotations

from typing import Any

from pisyedili_api.errors import ApplicationError

from .models import Player


def player_get(*, player_id: Any) -> Player:
    player = Player.objects.filter(id=player_id).first()
    if player is None:
        raise ApplicationError("not_found", "No such player.")
    return player
