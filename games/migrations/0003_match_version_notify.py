"""PostgreSQL: every change of a match's version sends NOTIFY on the channel `match_<id hex>`
(delivered when the transaction commits), so a long-poll (`state?after_version=…&wait=…`)
wakes up the moment a bot's, a person's or the scorer's write commits, without polling.
A trigger rather than code in the move path: every writer of `version` is covered, and the
hot path keeps its one statement. Other databases keep the polling fallback."""

from django.db import migrations

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

DROP = """
DROP TRIGGER IF EXISTS games_match_version_notify ON games_match;
DROP FUNCTION IF EXISTS games_match_version_notify();
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("games", "0002_workers_scoring_clock")]

    operations = [migrations.RunPython(create, drop)]
