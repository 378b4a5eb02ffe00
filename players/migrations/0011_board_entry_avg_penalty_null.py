from django.db import migrations, models


def no_deal_no_mean(apps, schema_editor):
    """A board entry with no scored deal (a match abandoned in its first deal) had 0.0 as its
    mean penalty and topped the points board: it has none."""
    BoardEntry = apps.get_model("players", "BoardEntry")
    BoardEntry.objects.filter(deals_played=0).update(avg_penalty=None)


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0010_apitoken_device"),
    ]

    operations = [
        migrations.AlterField(
            model_name="boardentry",
            name="avg_penalty",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.RunPython(no_deal_no_mean, migrations.RunPython.noop),
    ]
