"""Writes on players, by sub-domain: accounts (registration, logins, API tokens, bot rows) and
standings (deal counters, ratings, leaderboard boards, rating history). Re-exported here, so
`from players.services import …` names every service."""

from .accounts import (
    DISPLAY_NAME_MAX,
    api_token_create,
    api_token_revoke,
    api_token_revoke_by_id,
    api_token_rotate,
    api_tokens_revoke_others,
    bot_player_get_or_create,
    display_name_check,
    has_visible_character,
    login_locked_out,
    plain_text_check,
    player_display_name_change,
    player_password_change,
    player_register,
    player_token,
    request_device,
    username_check,
)
from .deletion import player_delete, player_lock
from .standings import (
    SeatLuck,
    _rate,
    player_boards_luck_add,
    player_deals_add,
    player_luck_add,
    player_standings_settle,
)

__all__ = [
    "DISPLAY_NAME_MAX",
    "SeatLuck",
    "_rate",
    "api_token_create",
    "api_token_revoke",
    "api_token_revoke_by_id",
    "api_token_rotate",
    "api_tokens_revoke_others",
    "bot_player_get_or_create",
    "display_name_check",
    "has_visible_character",
    "plain_text_check",
    "player_boards_luck_add",
    "player_deals_add",
    "player_delete",
    "player_lock",
    "player_display_name_change",
    "player_luck_add",
    "player_password_change",
    "player_register",
    "player_standings_settle",
    "login_locked_out",
    "player_token",
    "request_device",
    "username_check",
]
