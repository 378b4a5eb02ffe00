"""A player is a person (with an auth user) or a bot (is_bot, strategy); both take seats."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

# openskill PlackettLuce defaults: mu 25, sigma 25/3; ordinal = mu - 3*sigma.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0


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
    rating_mu = models.FloatField(default=DEFAULT_MU)
    rating_sigma = models.FloatField(default=DEFAULT_SIGMA)
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    deals_played = models.PositiveIntegerField(default=0)
    deals_won = models.PositiveIntegerField(default=0)
    penalty_points = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["username"]

    def __str__(self) -> str:
        return self.display_name

    @property
    def rating_ordinal(self) -> float:
        return self.rating_mu - 3.0 * self.rating_sigma
