"""`python manage.py verify_deals`: replay every finished deal from its seed and move log (and
every deal abandoned as its match stopped, up to where it stopped)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.models import Deal
from games.selectors import deal_problems


class Command(BaseCommand):
    help = (
        "Recompute every finished (or abandoned) deal from its seed and moves with the engine;"
        " report differences."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--match", help="only the deals of this match id")

    def handle(self, *args: Any, **options: Any) -> None:
        deals = (
            Deal.objects.filter(status__in=Deal.CLOSED)
            .select_related("match")
            .order_by("match_id", "number")
        )
        if options.get("match"):
            deals = deals.filter(match_id=options["match"])
        checked = bad = 0
        for deal in deals.iterator(chunk_size=200):
            checked += 1
            problems = deal_problems(deal)
            if problems:
                bad += 1
                for problem in problems:
                    self.stdout.write(f"match {deal.match_id} deal {deal.number}: {problem}")
        self.stdout.write(
            f"verified {checked} finished deals: {checked - bad} ok, {bad} with differences"
        )
        if bad:
            raise CommandError(f"{bad} of {checked} deals do not replay to what is stored")
