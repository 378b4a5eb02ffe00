"""The boards' `skill` is now the mean of games.DealLuck.skill, the luck-adjusted score from the
decisions (docs/api.md "Luck and move analysis"), no longer the mean start-only luck: a board
entry's luck counters become skill counters, started afresh (the start-only luck is not the
same figure, so no old value carries over); the players gain skill counters beside their luck."""

from django.db import migrations, models


def _skill_starts_afresh(apps, schema_editor):
    BoardEntry = apps.get_model("players", "BoardEntry")
    BoardEntry.objects.exclude(skill_deals=0, skill=None).update(
        skill_deals=0, skill_sum=0.0, skill=None
    )


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0006_luck_stats_and_skill_board"),
    ]

    operations = [
        migrations.RenameField(
            model_name="boardentry", old_name="luck_deals", new_name="skill_deals"
        ),
        migrations.RenameField(model_name="boardentry", old_name="luck_sum", new_name="skill_sum"),
        migrations.RunPython(_skill_starts_afresh, migrations.RunPython.noop),
        migrations.AddField(
            model_name="player",
            name="skill_deals",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="player",
            name="skill_sum",
            field=models.FloatField(db_default=0.0, default=0.0),
        ),
    ]
