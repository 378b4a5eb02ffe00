"""Board entries keyed by one integer pool (board, period) instead of three columns: rank
counts walk narrower index tuples with an int comparison. The entries are derived data (sums of
settled matches) and the boards shipped minutes before this migration, so the table is
recreated instead of copied."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0003_board_entry_no_board_index"),
    ]

    operations = [
        migrations.DeleteModel(name="BoardEntry"),
        migrations.CreateModel(
            name="BoardPeriod",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "period_kind",
                    models.CharField(
                        choices=[("all", "All"), ("month", "Month"), ("week", "Week")], max_length=5
                    ),
                ),
                ("period_start", models.DateField(help_text="1970-01-01 for all time.")),
                (
                    "board",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="periods",
                        to="players.board",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("board", "period_kind", "period_start"), name="board_period_unique"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="BoardEntry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("is_human", models.BooleanField()),
                ("matches", models.PositiveIntegerField(default=0)),
                ("wins", models.PositiveIntegerField(default=0)),
                ("deals_played", models.PositiveIntegerField(default=0)),
                ("deals_won", models.PositiveIntegerField(default=0)),
                ("penalty_points", models.PositiveBigIntegerField(default=0)),
                ("avg_penalty", models.FloatField(default=0.0)),
                ("rating_mu", models.FloatField(default=25.0)),
                ("rating_sigma", models.FloatField(default=8.333333333333334)),
                ("rating_ordinal", models.FloatField(default=0.0)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="board_entries",
                        to="players.player",
                    ),
                ),
                (
                    "pool",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="entries",
                        to="players.boardperiod",
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "board entries",
                "indexes": [
                    models.Index(
                        fields=["pool", "rating_ordinal", "player"], name="board_entry_ordinal"
                    ),
                    models.Index(fields=["pool", "wins", "player"], name="board_entry_wins"),
                    models.Index(
                        fields=["pool", "avg_penalty", "player"], name="board_entry_avgpen"
                    ),
                    models.Index(
                        condition=models.Q(("is_human", True)),
                        fields=["pool", "rating_ordinal", "player"],
                        name="board_entry_ordinal_hum",
                    ),
                    models.Index(
                        condition=models.Q(("is_human", True)),
                        fields=["pool", "wins", "player"],
                        name="board_entry_wins_hum",
                    ),
                    models.Index(
                        condition=models.Q(("is_human", True)),
                        fields=["pool", "avg_penalty", "player"],
                        name="board_entry_avgpen_hum",
                    ),
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("pool", "player"), name="board_entry_unique_player"
                    )
                ],
            },
        ),
    ]
