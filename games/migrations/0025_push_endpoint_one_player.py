from django.db import migrations
from django.db.models import Count


def one_row_per_endpoint(apps, schema_editor):
    """An endpoint is one browser: where several players hold one, the last to register it
    keeps it (the newest row); the others' rows go, their waiting messages with them."""
    PushSubscription = apps.get_model("games", "PushSubscription")
    shared = (
        PushSubscription.objects.order_by()
        .values("endpoint")
        .annotate(rows=Count("id"))
        .filter(rows__gt=1)
        .values_list("endpoint", flat=True)
    )
    for endpoint in list(shared):
        rows = PushSubscription.objects.filter(endpoint=endpoint).order_by("-created_at", "-id")
        newest = rows.values_list("id", flat=True).first()
        rows.exclude(id=newest).delete()


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
