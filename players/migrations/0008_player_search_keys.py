"""Player search (GET /players?search=…): each player's username and display name as search
compares them (letter case and accents ignored), kept beside the names and indexed for prefix
searches; filled here for the players there are."""

import unicodedata

from django.db import migrations, models


def _key(text):
    """players.models.search_key as of this migration."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return bare.casefold().replace("ı", "i")[:200]


def _fill_keys(apps, schema_editor):
    Player = apps.get_model("players", "Player")
    batch = []
    for player in Player.objects.only("id", "username", "display_name").iterator(chunk_size=2000):
        player.username_key = _key(player.username)
        player.display_name_key = _key(player.display_name)
        batch.append(player)
        if len(batch) >= 2000:
            Player.objects.bulk_update(batch, ["username_key", "display_name_key"])
            batch = []
    Player.objects.bulk_update(batch, ["username_key", "display_name_key"])


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0007_skill_from_decisions"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="display_name_key",
            field=models.CharField(default="", editable=False, max_length=200),
        ),
        migrations.AddField(
            model_name="player",
            name="username_key",
            field=models.CharField(default="", editable=False, max_length=200),
        ),
        migrations.RunPython(_fill_keys, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="player",
            index=models.Index(
                fields=["username_key"],
                name="player_username_key",
                opclasses=["varchar_pattern_ops"],
            ),
        ),
        migrations.AddIndex(
            model_name="player",
            index=models.Index(
                fields=["display_name_key"],
                name="player_display_name_key",
                opclasses=["varchar_pattern_ops"],
            ),
        ),
    ]
