"""A player is a person (with an auth user) or a bot (is_bot, strategy); both take seats."""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
import uuid
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

# openskill PlackettLuce defaults: mu 25, sigma 25/3; ordinal = mu - 3*sigma.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0

# The longest name key kept (a folded name may be longer than the name: ß is ss).
SEARCH_KEY_MAX = 200


def search_key(text: str) -> str:
    """A name as player search compares it: letter case and accents ignored (compatibility
    decomposition, combining marks dropped, case-folded), and the Turkish dotless ı read as i,
    so `Ömer`, `omer` and `ÖMER` share a key, and so do `Işık`, `isik` and `IŞIK`."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return bare.casefold().replace("ı", "i")[:SEARCH_KEY_MAX]


class Player(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="player",
    )
    username = models.CharField(max_length=150, unique=True)
    display_name = models.CharField(max_length=64)
    is_bot = models.BooleanField(default=False)
    strategy = models.CharField(max_length=32, blank=True, default="")
    # A bot is found by (strategy, bot_ordinal), set only by the server: never by its username,
    # which a person could have taken (players.services.bot_player_get_or_create).
    bot_ordinal = models.PositiveIntegerField(null=True, blank=True, editable=False)
    rating_mu = models.FloatField(default=DEFAULT_MU)
    rating_sigma = models.FloatField(default=DEFAULT_SIGMA)
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    deals_played = models.PositiveIntegerField(default=0)
    deals_won = models.PositiveIntegerField(default=0)
    penalty_points = models.PositiveBigIntegerField(default=0)
    # Luck (games.DealLuck, expected − actual deal score) over the deals analysed so far, and
    # skill (DealLuck.skill, the own decisions' gain against the table) over those with one.
    luck_deals = models.PositiveIntegerField(default=0, db_default=0)
    luck_sum = models.FloatField(default=0.0, db_default=0.0)
    skill_deals = models.PositiveIntegerField(default=0, db_default=0)
    skill_sum = models.FloatField(default=0.0, db_default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)
    # The names as player search compares them (search_key), kept in step by save(): every
    # write of a name goes through it (registration, bots, the admin).
    username_key = models.CharField(max_length=SEARCH_KEY_MAX, default="", editable=False)
    display_name_key = models.CharField(max_length=SEARCH_KEY_MAX, default="", editable=False)
    # When the person deleted their account (players.services.player_delete): the row stays,
    # anonymous ("Deleted player", no user), for the matches it played.
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["username"]
        # Prefix searches (LIKE 'an%') on the keys are index range scans on PostgreSQL whatever
        # the database's collation (varchar_pattern_ops); other backends take a plain index.
        indexes = [
            models.Index(
                fields=["username_key"],
                name="player_username_key",
                opclasses=["varchar_pattern_ops"],
            ),
            models.Index(
                fields=["display_name_key"],
                name="player_display_name_key",
                opclasses=["varchar_pattern_ops"],
            ),
        ]
        constraints = [
            models.UniqueConstraint(Lower("username"), name="player_username_unique_ci"),
            models.UniqueConstraint(
                fields=["strategy", "bot_ordinal"],
                condition=models.Q(is_bot=True),
                name="player_bot_unique_seat",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.username_key = search_key(self.username)
        self.display_name_key = search_key(self.display_name)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and {"username", "display_name"} & set(update_fields):
            kwargs["update_fields"] = {*update_fields, "username_key", "display_name_key"}
        super().save(*args, **kwargs)

    @property
    def rating_ordinal(self) -> float:
        return self.rating_mu - 3.0 * self.rating_sigma


def token_new_key() -> str:
    """A fresh API key (160 random bits, the format of DRF's keys)."""
    return secrets.token_hex(20)


def token_digest(key: str) -> str:
    """The stored form of a key (ApiToken.digest): its SHA-256, hex."""
    return hashlib.sha256(key.encode()).hexdigest()


def token_public_id(digest: str) -> uuid.UUID:
    """The id a token is listed and revoked by (GET /auth/tokens): a UUID made from a hash of
    its digest, which is never sent (a stream ticket is bound to it, live.tickets)."""
    return uuid.UUID(bytes=hashlib.sha256(f"token-id:{digest}".encode()).digest()[:16], version=4)


DEVICE_MAX = 80


class ApiToken(models.Model):
    """An API token of a user, kept as the SHA-256 of its key: the key itself is shown once
    (register, token, rotate) and stored nowhere, so a copy of the database holds no usable
    token. A token unused for TOKEN_IDLE_SECONDS no longer authenticates (players.auth)."""

    digest = models.CharField(max_length=64, primary_key=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        db_index=False,  # api_token_user_recent starts with user
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(
        help_text="Refreshed at most once a minute (TOKEN_TOUCH_SECONDS) by authenticated requests."
    )
    device = models.CharField(
        max_length=DEVICE_MAX,
        blank=True,
        default="",
        help_text="What the token was handed to, read from its login's User-Agent (\"Firefox ·"
        ' Windows"); empty when that said nothing known. A rotation keeps it.',
    )

    class Meta:
        ordering = ["user_id", "-last_used"]
        indexes = [models.Index(fields=["user", "-last_used"], name="api_token_user_recent")]

    def __str__(self) -> str:
        return f"token {self.digest[:8]}… of user {self.user_id}"


class Board(models.Model):
    """One leaderboard partition: a table size (0 = every table size) and a ruleset.

    `ruleset` is "default" for the default rules, else a short stable hash of the rules dict
    without `deals_per_match` (how many deals a match lasts does not change the game), so a
    match with house rules never moves a default-rules board."""

    ALL_SEATS = 0

    seats = models.PositiveSmallIntegerField()
    ruleset = models.CharField(max_length=16)
    rules = models.JSONField()
    player_count = models.PositiveIntegerField(
        default=0,
        help_text="Players on the all-time board.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ruleset", "seats"]
        constraints = [
            models.UniqueConstraint(fields=["seats", "ruleset"], name="board_unique_seats_ruleset")
        ]

    def __str__(self) -> str:
        return f"board {self.seats or 'any'} seats, {self.ruleset}"


_ORDER_COLUMNS = (("rating_ordinal", "ordinal"), ("wins", "wins"), ("avg_penalty", "avgpen"))


class PeriodKind(models.TextChoices):
    ALL = "all"
    MONTH = "month"
    WEEK = "week"


class BoardPeriod(models.Model):
    """One board in one period (all time, a calendar month, an ISO week; UTC): the pool its
    entries are ranked in. The entries' indexes start with this one integer, so a rank count
    compares an int instead of (board, period kind, period start) at every index tuple."""

    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="periods")
    period_kind = models.CharField(max_length=5, choices=PeriodKind.choices)
    period_start = models.DateField(help_text="1970-01-01 for all time.")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["board", "period_kind", "period_start"], name="board_period_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.board}, {self.period_kind} from {self.period_start}"


class BoardEntry(models.Model):
    """A player's aggregate on one board in one period, updated incrementally when a match
    settles. The rating is the board's own openskill rating, started fresh in each period.
    `avg_penalty` is stored so the `points` order is served by an index; it is null (off the
    points board) while no deal of the player's is scored there."""

    # The composite indexes all start with pool: no single-column index of its own.
    pool = models.ForeignKey(
        BoardPeriod, on_delete=models.CASCADE, related_name="entries", db_index=False
    )
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="board_entries")
    is_human = models.BooleanField()
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    deals_played = models.PositiveIntegerField(default=0)
    deals_won = models.PositiveIntegerField(default=0)
    penalty_points = models.PositiveBigIntegerField(default=0)
    avg_penalty = models.FloatField(null=True, blank=True)
    rating_mu = models.FloatField(default=DEFAULT_MU)
    rating_sigma = models.FloatField(default=DEFAULT_SIGMA)
    rating_ordinal = models.FloatField(default=DEFAULT_MU - 3.0 * DEFAULT_SIGMA)
    # `skill`: the mean of games.DealLuck.skill (the own decisions' gain against the table)
    # over the deals of this pool's matches analysed so far; null (off the skill board) until
    # one is.
    skill_deals = models.PositiveIntegerField(default=0, db_default=0)
    skill_sum = models.FloatField(default=0.0, db_default=0.0)
    skill = models.FloatField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pool", "player"], name="board_entry_unique_player")
        ]
        # One index per order (scanned forward or backward), ending in player_id so keyset
        # pages and rank counts are index range scans; partial copies for humans_only.
        indexes = [
            *(
                models.Index(fields=["pool", column, "player"], name=f"board_entry_{short}")
                for column, short in _ORDER_COLUMNS
            ),
            *(
                models.Index(
                    fields=["pool", column, "player"],
                    name=f"board_entry_{short}_hum",
                    condition=models.Q(is_human=True),
                )
                for column, short in _ORDER_COLUMNS
            ),
            # The skill board holds only the rows with a skill.
            *(
                models.Index(
                    fields=["pool", "skill", "player"],
                    name=f"board_entry_skill{suffix}",
                    condition=models.Q(skill__isnull=False, **humans),
                )
                for suffix, humans in (("", {}), ("_hum", {"is_human": True}))
            ),
        ]
        verbose_name_plural = "board entries"


class RatingHistory(models.Model):
    """A player's ratings right after one settled match: the global openskill rating and the
    all-time rating on each board the match moved. Unique per (match, player), which also makes
    settling a match twice a no-op."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rating_history")
    match_id = models.UUIDField()
    finished_at = models.DateTimeField()
    seats = models.PositiveSmallIntegerField()
    ruleset = models.CharField(max_length=16)
    place = models.PositiveSmallIntegerField()
    rating_mu = models.FloatField()
    rating_sigma = models.FloatField()
    rating_ordinal = models.FloatField()
    # The global ordinal right before this match was settled: matches settle in another order
    # than they finish (a duplicate table waits for its round's other tables), so the row
    # before it by finished_at need not hold it.
    rating_ordinal_before = models.FloatField()
    boards = models.JSONField(default=list)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match_id", "player"], name="history_once_per_match")
        ]
        indexes = [models.Index(fields=["player", "-finished_at", "-match_id"])]
        verbose_name_plural = "rating history"
