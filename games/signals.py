"""Signals other apps listen to, so games never imports them (docs/architecture.md)."""

from __future__ import annotations

from django.dispatch import Signal

# Sent once a match is finished and settled (places, stats, ratings stored), after the settling
# transaction commits. Keyword arguments: match_id (str).
match_settled = Signal()
