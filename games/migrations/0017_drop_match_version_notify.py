"""PostgreSQL: the NOTIFY trigger of migration 0003 goes. Every web process serves the
long-poll from its live-events hub (games.streams.match_state_long_poll), which the commit's
publish wakes; the trigger ran a pg_notify on every move's commit whether anyone listened or
not, and that cost the moves' commit throughput (docs/benchmarks.md). Reversed, it is made
again as 0003 made it."""

from django.db import migrations

DROP = """
DROP TRIGGER IF EXISTS games_match_version_notify ON games_match;
DROP FUNCTION IF EXISTS games_match_version_notify();
"""

CREATE = """
CREATE OR REPLACE FUNCTION games_match_version_notify() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('match_' || replace(NEW.id::text, '-', ''), NEW.version::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS games_match_version_notify ON games_match;
CREATE TRIGGER games_match_version_notify
    AFTER UPDATE OF version ON games_match
    FOR EACH ROW WHEN (OLD.version IS DISTINCT FROM NEW.version)
    EXECUTE FUNCTION games_match_version_notify();
"""


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


class Migration(migrations.Migration):
    dependencies = [("games", "0016_match_private_invitations")]

    operations = [migrations.RunPython(drop, create)]
