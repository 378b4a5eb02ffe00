from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0020_notice_tries"),
    ]

    operations = [
        migrations.AddField(
            model_name="move",
            name="effect",
            field=models.JSONField(blank=True, null=True),
        ),
    ]
