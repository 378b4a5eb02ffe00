from django.db import migrations


def sessionless_go(apps, schema_editor):
    """A subscription registered before 0026 kept no session, so no sign-out, revoked session
    or password change could end it (a lost phone signed out from elsewhere went on being told
    the player's turns): each goes, with what waited for it. Such a browser is told nothing
    until notifications are turned on again on its account page (the subscription then
    belongs to that session)."""
    PushSubscription = apps.get_model("games", "PushSubscription")
    PushSubscription.objects.filter(token__isnull=True).delete()


class Migration(migrations.Migration):
    """The rows alone: the next migration makes the session required, since PostgreSQL alters
    no table whose rows a transaction changed while its foreign keys' checks wait for the
    commit."""

    dependencies = [
        ("games", "0026_push_subscription_token"),
    ]

    operations = [
        migrations.RunPython(sessionless_go, migrations.RunPython.noop, elidable=True),
    ]
