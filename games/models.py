"""Matches, seats, deals, the append-only move log and per-deal score entries.

The live deal's engine state (JSON with hidden cards and the seed) sits on the match row, so a
move is: lock the match row, apply, update that one row, insert one Move row. Deal rows keep
the seed, the commitment, the hands at the start and, once over, the final state and result;
a deal still being played when its match stops is closed as abandoned, with neither.

Child rows order by their parent's id column (`match_id`), not by the relation (`match`): a
relation in Meta.ordering sorts by the parent's own ordering, which joins the parent's table
into every query of the children (tests/games/test_model_ordering.py).
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from players.models import ApiToken, Player

# The unique constraint a raced rematch trips (games.services.match_rematch).
REMATCH_CONSTRAINT = "match_rematch_once"


class Match(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting"
        ACTIVE = "active"
        FINISHED = "finished"
        CANCELLED = "cancelled"
        # Every person at the table resigned: it ended at once (games.services.match_resign).
        ABANDONED = "abandoned"

    # A match played to its end or given up by its people: settled, its deals revealable.
    OVER = (Status.FINISHED, Status.ABANDONED)
    # A match that plays no more: over, or cancelled.
    STOPPED = (*OVER, Status.CANCELLED)

    class CancelReason(models.TextChoices):
        CANCELLED = "cancelled"  # by its creator (or the creator leaving an empty table)
        EXPIRED = "expired"  # waiting past MATCH_WAITING_TTL (games.sweep)

    class Spectators(models.TextChoices):
        """Who may watch: `public`, anyone (the public view); `none`, the seats only."""

        PUBLIC = "public"
        NONE = "none"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WAITING)
    created_by = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    seat_count = models.PositiveSmallIntegerField()
    deals_total = models.PositiveSmallIntegerField()
    current_deal = models.PositiveSmallIntegerField(default=0)
    version = models.PositiveIntegerField(default=0)
    rules = models.JSONField()
    # Denormalised for the move hot path (one locked row has all a move needs):
    # seat -> player id (null while open), seat -> bot strategy ("" for people), running totals.
    seat_players = models.JSONField(default=list)
    seat_bots = models.JSONField(default=list)
    totals = models.JSONField(default=list)
    # The seats whose person resigned, in the order they resigned (games.services.match_resign):
    # the reference bot plays them (seat_bots), and they are placed last. A database default
    # too: rows inserted by hand (bench/match_list.py) have no resignation.
    resigned = models.JSONField(
        default=list, db_default=models.Value([], output_field=models.JSONField())
    )
    live_deal = models.ForeignKey(
        "Deal", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    state = models.JSONField(
        null=True, blank=True, help_text="Engine state of the live deal (secret)."
    )
    move_count = models.PositiveIntegerField(default=0)
    # Turn clock (games.clock): seconds a person has for a turn (null: no clock), and when the
    # person on turn must have moved; past it a worker plays the greedy move for them.
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)
    turn_deadline = models.DateTimeField(null=True, blank=True)
    # A default in the database too: rows inserted by hand (bench/match_list.py) are public.
    spectators = models.CharField(
        max_length=8,
        choices=Spectators.choices,
        default=Spectators.PUBLIC,
        db_default=Spectators.PUBLIC,
    )
    # Set once settle_match has updated the players' standings (games.tasks, run once).
    settled_at = models.DateTimeField(null=True, blank=True)
    # A waiting match that will never start: why (status cancelled).
    cancel_reason = models.CharField(
        max_length=16, choices=CancelReason.choices, null=True, blank=True
    )
    # Deal n is opened by seat (first_opener + n - 1) mod seats (R-8 from seat 0; a rematch
    # moves the first dealer on by one seat).
    first_opener = models.PositiveSmallIntegerField(default=0)
    # Rematch: the finished match this one follows, and the match that follows this one.
    rematch_of = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,  # the unique constraint's index serves
    )
    next_match = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # A seed source shared by the matches of a duplicate tournament round (secret, never shown):
    # 32 bytes in hex; deal n's seed is HMAC-SHA256(key, "deal:n"), so every table plays the
    # same deals. Null: a fresh seed per deal. The matches with one key are one round's tables.
    seed_key = models.CharField(max_length=64, null=True, blank=True, editable=False)
    # A private table (games.services.invitations): shown only to its guests (its seats, its
    # creator, the people it invites); the others of its open seats are taken by an invitee
    # accepting, or by whoever brings `join_code` (secret, shown to its creator only).
    private = models.BooleanField(default=False, db_default=False)
    join_code = models.CharField(max_length=32, null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status", "-created_at"]),
            # The beat tasks' scans: overdue turns, finished but unsettled matches.
            models.Index(
                fields=["turn_deadline"],
                name="match_turn_deadline",
                condition=models.Q(turn_deadline__isnull=False),
            ),
            models.Index(
                fields=["finished_at"],
                name="match_unsettled_over",
                condition=models.Q(status__in=["finished", "abandoned"], settled_at__isnull=True),
            ),
            # The tables sharing a seed source (games.selectors.shared_deal_pending).
            models.Index(
                fields=["seed_key"],
                name="match_seed_key",
                condition=models.Q(seed_key__isnull=False),
            ),
        ]
        constraints = [
            # A finished match has one rematch (games.services.match_rematch).
            models.UniqueConstraint(fields=["rematch_of"], name=REMATCH_CONSTRAINT)
        ]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"match {self.id} ({self.status})"


class Invitation(models.Model):
    """A person invited to a private match (a challenge): pending until they accept (a seat is
    theirs), decline, or it expires (`expires_at`, PRIVATE_INVITATION_SECONDS after it was
    sent; games.sweep writes `expired`, and a read treats a pending one past it as expired).
    While pending it holds one of the match's open seats for them."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        EXPIRED = "expired"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="invitations")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match_id", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["match", "player"], name="invitation_once_per_match")
        ]
        indexes = [
            # A person's pending challenges (GET /matches?invited=true), and the sweep's scan.
            models.Index(
                fields=["player", "-created_at"],
                name="invitation_pending_player",
                condition=models.Q(status="pending"),
            ),
            models.Index(
                fields=["expires_at"],
                name="invitation_pending_expiry",
                condition=models.Q(status="pending"),
            ),
        ]


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    total = models.IntegerField(default=0)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    # When the person of this seat resigned (null: they play it): a resigned seat no longer
    # counts towards the player's limits (games.services.lifecycle).
    resigned_at = models.DateTimeField(null=True, blank=True)
    # The turns in a row the turn clock played for this seat with no move of its person between
    # (games.services.resign.match_absent_turn), and the seq of the last move it played then.
    clock_turns = models.PositiveSmallIntegerField(default=0)
    clock_seq = models.PositiveIntegerField(default=0)
    # Resigned by the turn clock, not by its person (absent: docs/rules.md "Server policies").
    absent = models.BooleanField(default=False)
    # The match's created_at, copied so a player's match list (newest first) is one range of
    # the index below, whatever the plan: joined to the match's own created_at, a generic plan
    # walked every match newer than the player's (bench/match_list.py).
    match_created_at = models.DateTimeField(null=True)

    class Meta:
        ordering = ["match_id", "seat"]
        indexes = [
            models.Index(
                fields=["player", "-match_created_at", "-match"], name="seat_player_matches"
            )
        ]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="seat_unique_per_match"),
            models.UniqueConstraint(fields=["match", "player"], name="player_once_per_match"),
        ]


class Deal(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        OVER = "over"
        # Its match stopped while it was played (games.services.match_resign: nobody is left
        # to play it): never scored, never finished, closed for good.
        ABANDONED = "abandoned"

    # The statuses of a deal nobody plays any more: its hidden facts may be shown once no
    # other table shares it (games.selectors.deal_revealable).
    CLOSED = (Status.OVER, Status.ABANDONED)

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveSmallIntegerField()
    dealer = models.PositiveSmallIntegerField()
    opener = models.PositiveSmallIntegerField()
    seed = models.BinaryField(max_length=32)
    commitment = models.CharField(max_length=64)
    hands_at_start = models.JSONField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    result = models.JSONField(null=True, blank=True)
    final_state = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Set once games.score_deal has recorded the score entries (a deal is scored once).
    scored_at = models.DateTimeField(null=True, blank=True)
    # Its luck task (games.services.analysis.deal_luck): attempts started, when the one under
    # way started (null when none is), and why it failed for good ("" while it has not: it is
    # never sent again then).
    luck_attempts = models.PositiveSmallIntegerField(default=0, db_default=0)
    luck_attempted_at = models.DateTimeField(null=True, blank=True)
    luck_failure = models.TextField(blank=True, default="", db_default="")

    class Meta:
        ordering = ["match_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="deal_number_unique_per_match")
        ]
        indexes = [
            models.Index(
                fields=["finished_at"],
                name="deal_unscored",
                condition=models.Q(status="over", scored_at__isnull=True),
            )
        ]

    def __str__(self) -> str:
        return f"deal {self.number} of {self.match_id}"


class Move(models.Model):
    """Append-only log; `seq` counts the match's moves from 1 and is unique per match."""

    # Lookups go through (match, seq) and (match, deal_number, seq); single-column FK indexes
    # would only slow down the one insert every move makes.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves", db_index=False)
    seq = models.PositiveIntegerField()
    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="moves", db_index=False)
    deal_number = models.PositiveSmallIntegerField()
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+", db_index=False)
    action = models.CharField(max_length=8)
    card = models.CharField(max_length=3, null=True, blank=True)
    suit = models.CharField(max_length=1, null=True, blank=True)
    drawn = models.JSONField(default=list)
    by_bot = models.BooleanField(default=False)
    at = models.DateTimeField(auto_now_add=True)
    # The match's version once the move was applied, and the table's public facts then (the
    # public view's turn, direction, hand counts, pile, stock, …: no card of a hand or the
    # stock), so that a client plays each move out as it was; null for older moves.
    version = models.PositiveIntegerField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    # What the move did by the rules (engine.move_effect: a skip, a reverse, a penalty, …), so
    # that no client works a rule out; null for older moves.
    effect = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["match_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="move_seq_unique_per_match")
        ]
        indexes = [models.Index(fields=["match", "deal_number", "seq"])]


class ScoreEntry(models.Model):
    """One seat's score in one deal: why it scored what it did (R-28..R-31)."""

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="scores")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="scores")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="scores")
    penalty = models.IntegerField()
    hand_penalty = models.IntegerField()
    multiplier = models.PositiveSmallIntegerField()
    cards_left = models.JSONField(default=list)
    won = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["deal_id", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["deal", "seat"], name="score_once_per_deal_seat")
        ]
        verbose_name_plural = "score entries"


# The unique constraint a raced Idempotency-Key trips (games.services.match_apply_move).
IDEMPOTENCY_KEY_CONSTRAINT = "idempotency_key_unique_per_player_match"


class IdempotencyRecord(models.Model):
    """The first response to a (player, match, Idempotency-Key): a repeat with the same body
    gets it. Per match, so a client may number its keys per match; a move's write lands only
    if its match is still at the version the move read, which so orders every use of one key."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+")
    # The exact JSON text of the first response, so a replay is byte-for-byte the same (jsonb
    # would reorder its keys).
    response = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "match", "key"], name=IDEMPOTENCY_KEY_CONSTRAINT
            )
        ]
        # games.sweep deletes the records past IDEMPOTENCY_TTL_SECONDS, oldest first.
        indexes = [models.Index(fields=["created_at"], name="idempotency_created_at")]


# The unique constraint a raced keyed write trips (pisyedili_api.keyed).
KEYED_WRITE_CONSTRAINT = "keyed_write_unique_per_player"


class KeyedWrite(models.Model):
    """The first answer to a (player, Idempotency-Key) on a write other than a move (creating
    a match or a tournament, joining, leaving, cancelling, the quick-play queue): a repeat of
    the same request gets it, and the write is not made again. A key belongs to its player
    whatever the route; `request_hash` binds it to its first request's route and body."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField()
    # The answer's body as it was sent, so a replay is byte for byte the same.
    response = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "key"], name=KEYED_WRITE_CONSTRAINT)
        ]
        # games.sweep deletes the records past IDEMPOTENCY_TTL_SECONDS, oldest first.
        indexes = [models.Index(fields=["created_at"], name="keyed_write_created_at")]


# The unique constraint a raced first analysis request trips (games.services.analysis).
DEAL_ANALYSIS_CONSTRAINT = "deal_analysis_once_per_deal"


class DealLuck(models.Model):
    """One seat's luck and skill in one deal (docs/api.md "Luck and move analysis").

    - Luck, from the start: the seat's expected deal score from the deal's start, estimated by
      the reference bot over K re-sampled stocks (games.engine.analysis.expected_deal_scores),
      and `luck = expected − penalty` (positive: the seat did better than its cards gave).
      It leaves in the luck of every draw from the stock.
    - Skill, from the decisions (games.engine.analysis.deal_skill): `adjusted`, the seat's
      luck-adjusted deal score (the prior of its seat plus the effect on it of every decision
      that left the reference bot's move, each valued from the deciding seat's view), and
      `skill`, what the seat's own decisions gained it against the table (over each of them,
      the other seats' mean effect minus its own; positive: better than the reference bot's
      choices, chance taken out; the other seats' decisions count for nothing). Null on a
      row estimated before the skill was.

    K, the bot, the view and the seeds make both reproducible."""

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="luck")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+", db_index=False)
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="deal_luck")
    penalty = models.IntegerField()
    expected = models.FloatField()
    stderr = models.FloatField()
    luck = models.FloatField()
    samples = models.PositiveIntegerField(help_text="K: simulated deals behind `expected`.")
    bot = models.CharField(max_length=32)
    seed = models.CharField(max_length=128)
    cpu_seconds = models.FloatField(help_text="CPU time of the deal's whole luck estimate.")
    adjusted = models.FloatField(
        null=True, blank=True, help_text="Luck-adjusted deal score: prior + decisions' effect."
    )
    skill = models.FloatField(
        null=True, blank=True, help_text="Own decisions' gain against the table (DealSkill.skill)."
    )
    skill_samples = models.PositiveIntegerField(
        null=True, blank=True, help_text="K: paired play-outs per decision behind `skill`."
    )
    skill_view = models.CharField(max_length=8, blank=True, default="")
    skill_seed = models.CharField(max_length=128, blank=True, default="")
    skill_cpu_seconds = models.FloatField(
        null=True, blank=True, help_text="CPU time of the deal's whole skill estimate."
    )
    # Set once the row is on the leaderboards' `skill` (at the match's settlement or after).
    counted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["deal_id", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["deal", "seat"], name="luck_once_per_deal_seat")
        ]
        indexes = [
            models.Index(
                fields=["match"], name="luck_uncounted", condition=models.Q(counted_at__isnull=True)
            )
        ]
        verbose_name_plural = "deal luck"


class DealAnalysis(models.Model):
    """The move analysis of one deal that is over, computed once on a worker when first asked
    for (games.services.analysis): `result` holds every person's decisions with their values
    and verdicts; `failed` (with its `failure`) after ANALYSIS_MAX_ATTEMPTS attempts or past
    ANALYSIS_MAX_ACTIONS."""

    class Status(models.TextChoices):
        PENDING = "pending"
        READY = "ready"
        FAILED = "failed"  # for good, with its `failure`: never sent again

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0, db_default=0)
    attempted_at = models.DateTimeField(null=True, blank=True)  # the attempt under way's start
    failure = models.TextField(blank=True, default="", db_default="")
    result = models.JSONField(null=True, blank=True)
    samples = models.PositiveIntegerField(null=True, blank=True)
    bot = models.CharField(max_length=32, blank=True, default="")
    seed = models.CharField(max_length=128, blank=True, default="")
    cpu_seconds = models.FloatField(null=True, blank=True)
    requested_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["deal"], name=DEAL_ANALYSIS_CONSTRAINT)]
        indexes = [
            models.Index(
                fields=["requested_at"],
                name="deal_analysis_pending",
                condition=models.Q(status="pending"),
            )
        ]
        verbose_name_plural = "deal analyses"


class QueueEntry(models.Model):
    """A player's quick-play entry (games.services.queue): the table they asked for and how long
    they wait. One row per player, kept after the wait (its outcome, until the player queues
    again): the player's id is unique, so a person is never in the queue twice. The pairing
    locks the waiting rows it seats (SELECT … FOR UPDATE SKIP LOCKED), so two pairings, on any
    process, never seat one entry twice."""

    class Status(models.TextChoices):
        WAITING = "waiting"
        SEATED = "seated"  # paired: `match` is the table
        EXPIRED = "expired"  # the wait ended with no table and no bots allowed
        LEFT = "left"  # the player left the queue

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="queue_entry")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WAITING)
    seats = models.PositiveSmallIntegerField()
    # The preset asked for (games.services.queue.PRESETS), "" for custom rules; `rules` holds
    # every option (defaults filled in) and `rules_key` names them: entries pair on
    # (seats, rules_key) only.
    preset = models.CharField(max_length=32, blank=True, default="")
    rules = models.JSONField()
    rules_key = models.CharField(max_length=64)
    # The player's rating ordinal when they queued (the pairing compares these).
    rating = models.FloatField()
    bots_allowed = models.BooleanField(default=False)
    wait_seconds = models.PositiveIntegerField()
    created_at = models.DateTimeField()
    deadline = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    bot_seats = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            # The pairing's scan: the waiting entries, oldest first.
            models.Index(
                fields=["created_at"],
                name="queue_waiting",
                condition=models.Q(status="waiting"),
            ),
        ]
        verbose_name_plural = "queue entries"

    def __str__(self) -> str:
        return f"queue entry of {self.player_id} ({self.status})"


class PushSubscription(models.Model):
    """A browser's Web Push subscription (its PushSubscription JSON): where the push service
    takes the player's messages, and the keys they are encrypted to (RFC 8291).

    It lasts as long as the session (API token) that registered it: revoking or deleting the
    token deletes it, so a device signed out (by itself or from elsewhere) is told nothing
    more. An endpoint is one browser: one row at most, the last player's who registered it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    token = models.ForeignKey(
        ApiToken,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="The session that registered it: it goes when that session ends.",
    )
    endpoint = models.CharField(max_length=2048)
    p256dh = models.CharField(max_length=128)
    auth = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["endpoint"], name="push_endpoint_once"),
        ]

    def __str__(self) -> str:
        return f"push subscription of {self.player_id}"


class TurnClockRun(models.Model):
    """When the turn clock (games.expire_turns) last ran: one row, locked by the run that
    reads the overdue turns, so that runs at once do not overlap, and a run that finds the
    clock stood still (games.clock.overdue_after_a_run) gives the time lost back first."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    ran_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"turn clock ran at {self.ran_at:%Y-%m-%d %H:%M:%S}"


class PushMessage(models.Model):
    """One notice waiting to be pushed to one subscription (games.push_send): the row goes once
    it is sent or given up, so a task run twice sends it once. `attempts` failed so far;
    `due`: when games.sweep may send it again (its next try, or a lost task's)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    subscription = models.ForeignKey(PushSubscription, on_delete=models.CASCADE, related_name="+")
    payload = models.JSONField()
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    due = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"push message {self.id}"


class Webhook(models.Model):
    """A URL a player (or their app's backend) registered to be told their notices, signed
    with `secret` (HMAC-SHA256); off (`active` false) after WEBHOOK_MAX_FAILURES failed
    attempts in a row."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    url = models.CharField(max_length=2048)
    secret = models.CharField(max_length=64)
    active = models.BooleanField(default=True)
    failures = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    disabled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"webhook {self.url} of {self.player_id}"


class WebhookDelivery(models.Model):
    """One notice waiting to be delivered to one webhook (games.webhook_deliver); its id is the
    delivery's (`Pisyedili-Delivery`), the same on every attempt. The row goes once delivered
    or given up. `attempts` and `due` as a PushMessage's."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="+")
    payload = models.JSONField()
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    due = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        return f"webhook delivery {self.id}"
