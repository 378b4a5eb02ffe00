"""`python manage.py backfill_skill`: the skill of deals analysed before it existed."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.models import DealLuck
from games.services import deal_skill_backfill


class Command(BaseCommand):
    help = (
        "Estimate and store the skill of every deal whose luck rows have none (analysed before "
        "the skill existed), counted on the stats and boards where their luck was counted."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--match", help="only the deals of this match id")
        parser.add_argument("--limit", type=int, help="at most this many deals (oldest first)")

    def handle(self, *args: Any, **options: Any) -> None:
        rows = DealLuck.objects.filter(skill__isnull=True)
        if options.get("match"):
            rows = rows.filter(match_id=options["match"])
        deals = (
            rows.order_by("deal__match__created_at", "deal__number")
            .values_list("match_id", "deal__number")
            .distinct()
        )
        if options.get("limit") is not None:
            deals = deals[: options["limit"]]
        filled = 0
        for match_id, number in list(deals):
            if deal_skill_backfill(match_id=match_id, deal_number=number):
                filled += 1
                self.stdout.write(f"match {match_id} deal {number}: skill stored")
        self.stdout.write(f"{filled} deals given their skill")
