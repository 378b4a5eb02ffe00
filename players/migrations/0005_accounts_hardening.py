"""Accounts hardening: bots found by (strategy, bot_ordinal) instead of their username, which a
person could register; usernames unique in any letter case; API tokens stored as SHA-256
digests that expire when idle (players.auth).

Existing bot rows get their ordinal from their `bot-<strategy>-<n>` name. Existing DRF tokens
are carried over as digests (their keys keep working) and the plain keys deleted. Usernames that
differ only in letter case (possible before) are told apart first: the earliest keeps its name, a
later one gets `<name>-<n>` (player and login alike), so the case-insensitive constraint holds."""

import hashlib
import re

import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

_BOT_NAME = re.compile(r"^bot-(?P<strategy>[a-z0-9_]+)-(?P<ordinal>\d+)$")


def usernames_apart_forward(apps, schema_editor):
    Player = apps.get_model("players", "Player")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    taken = {name.lower() for name in Player.objects.values_list("username", flat=True)}
    taken |= {name.lower() for name in User.objects.values_list("username", flat=True)}
    seen: set[str] = set()
    for player in Player.objects.order_by("created_at", "id"):
        if player.username.lower() not in seen:
            seen.add(player.username.lower())
            continue
        n = 2
        while f"{player.username}-{n}".lower() in taken:
            n += 1
        player.username = f"{player.username}-{n}"
        taken.add(player.username.lower())
        seen.add(player.username.lower())
        player.save(update_fields=["username"])
        if player.user_id is not None:
            User.objects.filter(pk=player.user_id).update(username=player.username)


def bots_and_tokens_forward(apps, schema_editor):
    Player = apps.get_model("players", "Player")
    taken: dict[str, set[int]] = {}
    unnamed = []
    for bot in Player.objects.filter(is_bot=True).order_by("created_at"):
        found = _BOT_NAME.match(bot.username)
        ordinal = int(found["ordinal"]) if found and found["strategy"] == bot.strategy else None
        if ordinal is None or ordinal in taken.setdefault(bot.strategy, set()):
            unnamed.append(bot)
            continue
        taken[bot.strategy].add(ordinal)
        bot.bot_ordinal = ordinal
        bot.save(update_fields=["bot_ordinal"])
    for bot in unnamed:  # not named by the server's pattern: a fresh ordinal past the others
        bot.bot_ordinal = max(taken.setdefault(bot.strategy, set()), default=0) + 1
        taken[bot.strategy].add(bot.bot_ordinal)
        bot.save(update_fields=["bot_ordinal"])

    Token = apps.get_model("authtoken", "Token")
    ApiToken = apps.get_model("players", "ApiToken")
    now = timezone.now()
    ApiToken.objects.bulk_create(
        [
            ApiToken(
                digest=hashlib.sha256(token.key.encode()).hexdigest(),
                user_id=token.user_id,
                created_at=token.created,
                last_used=now,
            )
            for token in Token.objects.all()
        ],
        ignore_conflicts=True,
    )
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0004_board_periods"),
        ("authtoken", "0004_alter_tokenproxy_options"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ApiToken",
            fields=[
                ("digest", models.CharField(max_length=64, primary_key=True, serialize=False)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "last_used",
                    models.DateTimeField(
                        help_text="Refreshed at most once a minute (TOKEN_TOUCH_SECONDS) by "
                        "authenticated requests."
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="api_tokens",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={"ordering": ["user_id", "-last_used"]},
        ),
        migrations.AddIndex(
            model_name="apitoken",
            index=models.Index(fields=["user", "-last_used"], name="api_token_user_recent"),
        ),
        migrations.AddField(
            model_name="player",
            name="bot_ordinal",
            field=models.PositiveIntegerField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(bots_and_tokens_forward, migrations.RunPython.noop),
        migrations.RunPython(usernames_apart_forward, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("username"),
                name="player_username_unique_ci",
            ),
        ),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(
                condition=models.Q(("is_bot", True)),
                fields=("strategy", "bot_ordinal"),
                name="player_bot_unique_seat",
            ),
        ),
    ]
