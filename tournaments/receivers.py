"""Follow finished matches: a settled tournament match may end its round (games.signals)."""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import receiver

from games.signals import match_settled

logger = logging.getLogger(__name__)


@receiver(match_settled, dispatch_uid="tournaments.advance_on_match_settled")
def advance_on_match_settled(sender: Any, match_id: str, **kwargs: Any) -> None:
    from .models import Table
    from .tasks import enqueue_advance

    try:
        tournament_id = (
            Table.objects.filter(match_id=match_id).values_list("tournament_id", flat=True).first()
        )
    except Exception:  # never turn the finishing move into an error
        logger.exception("could not look up the tournament of match %s", match_id)
        return
    if tournament_id is not None:
        enqueue_advance(str(tournament_id))
