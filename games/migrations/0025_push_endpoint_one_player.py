from django.db import migrations
from django.db.models import F, Subquery, Window
from django.db.models.functions import RowNumber


def one_row_per_endpoint(apps, schema_editor):
    """An endpoint is one browser: where several players hold one, the last to register it
    keeps it (the newest row); the others' rows go, their waiting messages with them. One
    statement finds them all (each endpoint's rows numbered newest first), however many
    endpoints are shared: a table of any size is read once, not once per endpoint."""
    PushSubscription = apps.get_model("games", "PushSubscription")
    newest_first = Window(
        RowNumber(),
        partition_by=[F("endpoint")],
        order_by=[F("created_at").desc(), F("id").desc()],
    )
    older = PushSubscription.objects.annotate(place=newest_first).filter(place__gt=1)
    PushSubscription.objects.filter(id__in=Subquery(older.values("id"))).delete()


class Migration(migrations.Migration):
    """The rows alone: the next migration makes an endpoint unique, since PostgreSQL alters no
    table whose rows a transaction changed while its foreign keys' checks wait for the
    commit."""

    dependencies = [
        ("games", "0024_keyed_write"),
    ]

    operations = [
        migrations.RunPython(one_row_per_endpoint, migrations.RunPython.noop, elidable=True),
    ]
