import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0027_push_subscription_sessionless_go"),
        ("players", "0012_ratinghistory_rating_ordinal_before"),
    ]

    operations = [
        migrations.AlterField(
            model_name="pushsubscription",
            name="token",
            field=models.ForeignKey(
                help_text="The session that registered it: it goes when that session ends.",
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="players.apitoken",
            ),
        ),
    ]
