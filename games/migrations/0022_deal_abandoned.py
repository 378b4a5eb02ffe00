"""A deal still being played when its match stops is closed as `abandoned` (its match's
resignation closes it from now on): the deals of the matches that stopped before, left
`active` for good, are closed the same way, at the time their match ended."""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery

# The match statuses of a match that plays no more.
STOPPED = ["finished", "abandoned", "cancelled"]


def close_stopped_deals(apps, schema_editor):
    Deal = apps.get_model("games", "Deal")
    Match = apps.get_model("games", "Match")
    ended = Match.objects.filter(id=OuterRef("match_id")).values("finished_at")[:1]
    Deal.objects.filter(status="active", match__status__in=STOPPED).update(
        status="abandoned", finished_at=Subquery(ended)
    )


def reopen_stopped_deals(apps, schema_editor):
    """Back to the status before this migration (`abandoned` does not fit the column then)."""
    Deal = apps.get_model("games", "Deal")
    Deal.objects.filter(status="abandoned").update(status="active", finished_at=None)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0021_move_effect"),
    ]

    operations = [
        migrations.AlterField(
            model_name="deal",
            name="status",
            field=models.CharField(
                choices=[("active", "Active"), ("over", "Over"), ("abandoned", "Abandoned")],
                default="active",
                max_length=16,
            ),
        ),
        migrations.RunPython(close_stopped_deals, reopen_stopped_deals),
    ]
