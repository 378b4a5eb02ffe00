import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0025_push_endpoint_one_player"),
        ("players", "0012_ratinghistory_rating_ordinal_before"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="pushsubscription",
            name="push_endpoint_once",
        ),
        migrations.AddField(
            model_name="pushsubscription",
            name="token",
            field=models.ForeignKey(
                blank=True,
                help_text="The session that registered it (null: registered before sessions"
                " kept theirs).",
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="players.apitoken",
            ),
        ),
        migrations.AddConstraint(
            model_name="pushsubscription",
            constraint=models.UniqueConstraint(fields=("endpoint",), name="push_endpoint_once"),
        ),
    ]
