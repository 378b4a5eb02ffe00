"""A deleted account's player row stays, anonymous, for the matches it played: when it was
deleted (POST /auth/account/delete)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0008_player_search_keys"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="deleted_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
    ]
