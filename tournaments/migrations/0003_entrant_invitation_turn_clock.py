"""Entrants accept an invitation; every tournament has a turn clock.

Existing entrants: bots, organizers who entered themselves and the entrants of tournaments that
have started are accepted; the people of a draft must accept before it can start. Existing
tournaments get the default clock (TOURNAMENT_TURN_SECONDS) for the rounds still to be dealt.
"""

from django.conf import settings
from django.db import migrations, models


def accept_existing(apps, schema_editor):
    Entrant = apps.get_model("tournaments", "Entrant")
    entrants = Entrant.objects.all()
    entrants.filter(player__is_bot=True).update(status="accepted")
    entrants.filter(player_id=models.F("tournament__organizer_id")).update(status="accepted")
    entrants.exclude(tournament__status="draft").update(status="accepted")


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0002_child_order_by_parent_id"),
    ]

    operations = [
        migrations.AddField(
            model_name="entrant",
            name="status",
            field=models.CharField(
                choices=[("invited", "Invited"), ("accepted", "Accepted")],
                default="invited",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="tournament",
            name="turn_seconds",
            field=models.PositiveIntegerField(
                default=settings.TOURNAMENT_TURN_SECONDS,
                help_text=(
                    "The turn clock of every match (games.clock); a tournament always has one."
                ),
            ),
            preserve_default=False,
        ),
        migrations.RunPython(accept_existing, migrations.RunPython.noop),
    ]
