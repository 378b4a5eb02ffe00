"""The global ordinal before each settled match, on its rating-history row. Rows written before
it take the row before them by finished_at (what the history showed until now), or the
starting rating for a player's first."""

from django.db import migrations, models

STARTING_ORDINAL = 25.0 - 3.0 * (25.0 / 3.0)


def fill(apps, schema_editor):
    history = apps.get_model("players", "RatingHistory")
    rows = history.objects.order_by("player_id", "finished_at", "match_id").only(
        "id", "player_id", "rating_ordinal"
    )
    changed = []
    player, before = None, STARTING_ORDINAL
    for row in rows.iterator(chunk_size=2000):
        if row.player_id != player:
            player, before = row.player_id, STARTING_ORDINAL
        row.rating_ordinal_before = before
        before = row.rating_ordinal
        changed.append(row)
        if len(changed) >= 2000:
            history.objects.bulk_update(changed, ["rating_ordinal_before"])
            changed = []
    history.objects.bulk_update(changed, ["rating_ordinal_before"])


class Migration(migrations.Migration):
    dependencies = [("players", "0011_board_entry_avg_penalty_null")]

    operations = [
        migrations.AddField(
            model_name="ratinghistory",
            name="rating_ordinal_before",
            field=models.FloatField(null=True),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="ratinghistory",
            name="rating_ordinal_before",
            field=models.FloatField(),
        ),
    ]
