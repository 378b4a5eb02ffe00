"""PostgreSQL: leave 30% of each games_match page free, so that the update every move makes
(state, version, move count) can stay on its page as a heap-only tuple and skip the match's
indexes. In a bench/api.py run 66% of the match updates were heap-only with the default (100),
86% with 70. Other databases have no such setting."""

from django.db import migrations


def set_fillfactor(value):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"ALTER TABLE games_match SET (fillfactor = {value})")

    return run


class Migration(migrations.Migration):
    dependencies = [("games", "0003_match_version_notify")]

    operations = [migrations.RunPython(set_fillfactor(70), set_fillfactor(100))]
