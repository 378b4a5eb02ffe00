"""Writes on players: registration, tokens, bot rows."""

from __future__ import annotations

from uuid import UUID

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from openskill.models import PlackettLuce
from rest_framework.authtoken.models import Token

from pisyedili_api.errors import ApplicationError

from .models import Player


def player_register(
    *, username: str, password: str, display_name: str | None = None
) -> tuple[Player, str]:
    """Create the auth user, its player and its token; a taken username is 400 `invalid`."""
    User = get_user_model()
    try:
        validate_password(password)
    except DjangoValidationError as exc:
        raise ApplicationError("invalid", exc.messages[0], {"password": exc.messages}) from None
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            player = Player.objects.create(
                user=user, username=username, display_name=display_name or username
            )
            token = Token.objects.create(user=user)
    except IntegrityError:
        message = "A player with that username already exists."
        raise ApplicationError("invalid", message, {"username": [message]}) from None
    return player, token.key


def player_token(*, username: str, password: str) -> str:
    """The player's API token for a correct username and password, else 401."""
    user = authenticate(username=username, password=password)
    if user is None or not hasattr(user, "player"):
        raise ApplicationError("not_authenticated", "Wrong username or password.")
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


def bot_player_get_or_create(*, strategy: str, ordinal: int) -> Player:
    """The bot row for the `ordinal`-th seat of `strategy` in one match (one row per seat, so a
    match with three greedy bots has three distinct players: seats stay one player each)."""
    username = f"bot-{strategy}-{ordinal}"
    player = Player.objects.filter(username=username).first()
    if player is not None:
        return player
    try:
        with transaction.atomic():
            return Player.objects.create(
                username=username,
                display_name=f"{strategy} bot {ordinal}",
                is_bot=True,
                strategy=strategy,
            )
    except IntegrityError:
        return Player.objects.get(username=username)


_RATING_MODEL = PlackettLuce()


def player_standings_settle(*, player_ids: list[UUID], places: list[int]) -> None:
    """Wins and openskill ratings of a finished match's players, by seat; the caller makes sure
    it runs once per match, inside the settling transaction."""
    players = {
        p.id: p for p in Player.objects.select_for_update().filter(id__in=player_ids).order_by("id")
    }
    teams = [
        [_RATING_MODEL.rating(mu=players[pid].rating_mu, sigma=players[pid].rating_sigma)]
        for pid in player_ids
    ]
    rated = _RATING_MODEL.rate(teams, ranks=places)
    for seat, pid in enumerate(player_ids):
        player = players[pid]
        player.rating_mu = rated[seat][0].mu
        player.rating_sigma = rated[seat][0].sigma
        player.matches += 1
        if places[seat] == 1:
            player.wins += 1
    Player.objects.bulk_update(
        sorted(players.values(), key=lambda p: p.id),
        ["rating_mu", "rating_sigma", "matches", "wins"],
    )
