"""Tournaments: entrants, rounds and the tables (matches) each round seats.

Entrants are invited: a person is seated only once they accept (bots, and the organizer
entering themselves, accept on creation; a person who declines leaves the tournament). A table
is one games.Match; its seats hold entrants and, when the tournament fills empty seats
with bots, filler bots (never entrants, never counted in the standings). Byes are stored on the
round. Standings are computed from the matches' ScoreEntry rows (selectors.py). Child rows
order by their parent's id column, as in games.models (no join to the parent to sort them).
"""

from __future__ import annotations

import uuid

from django.db import models

from games.models import Match
from players.models import Player


class Tournament(models.Model):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin"
        SWISS = "swiss"
        DUPLICATE = "duplicate"

    class Status(models.TextChoices):
        DRAFT = "draft"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=100)
    organizer = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    format = models.CharField(max_length=16, choices=Format.choices)
    table_size = models.PositiveSmallIntegerField()
    deals_per_match = models.PositiveSmallIntegerField()
    rules = models.JSONField(help_text="Rules snapshot (engine Rules.to_json) every match uses.")
    fill_bot = models.CharField(
        max_length=32, blank=True, default="", help_text="Bot strategy for empty seats; '' = byes."
    )
    rounds_total = models.PositiveSmallIntegerField()
    turn_seconds = models.PositiveIntegerField(
        help_text="The turn clock of every match (games.clock); a tournament always has one."
    )
    current_round = models.PositiveSmallIntegerField(default=0)
    schedule = models.JSONField(
        null=True,
        blank=True,
        help_text="Round robin and duplicate: every round's tables, fixed at start.",
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["-created_at", "-id"], name="tournament_newest"),
            models.Index(fields=["status", "-created_at"], name="tournament_status_newest"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.format}, {self.status})"


class Entrant(models.Model):
    class Status(models.TextChoices):
        INVITED = "invited"
        ACCEPTED = "accepted"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="tournament_entries")
    position = models.PositiveSmallIntegerField(help_text="Order given at creation (seeding).")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.INVITED)

    class Meta:
        ordering = ["tournament_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="entrant_once"),
            models.UniqueConstraint(
                fields=["tournament", "position"], name="entrant_position_once"
            ),
        ]


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    byes = models.JSONField(default=list, help_text="Player ids who sit this round out.")
    seed_key = models.CharField(
        max_length=64,
        null=True,
        blank=True,
        editable=False,
        help_text="Duplicate: the round's secret seed source (32 bytes, hex), shared by its"
        " matches (never shown).",
    )
    matchpoints = models.JSONField(
        null=True,
        blank=True,
        help_text="Duplicate: each entrant's matchpoints of the round (player id -> points),"
        " stored when the round finishes.",
    )
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [
            # A round is started once, however often the advance task runs.
            models.UniqueConstraint(fields=["tournament", "number"], name="round_once")
        ]


class Table(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()
    match = models.OneToOneField(Match, on_delete=models.PROTECT, related_name="tournament_table")

    class Meta:
        ordering = ["round_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="table_once_per_round")
        ]
