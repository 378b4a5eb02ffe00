from django.urls import path

import pisyedili_api.converters  # noqa: F401  (registers <id:…>)
from live.tickets import StreamTicketApi

from . import apis

urlpatterns = [
    path("auth/register", apis.RegisterApi.as_view(), name="auth-register"),
    path("auth/token", apis.TokenApi.as_view(), name="auth-token"),
    path("auth/token/rotate", apis.TokenRotateApi.as_view(), name="auth-token-rotate"),
    path("auth/logout", apis.LogoutApi.as_view(), name="auth-logout"),
    path("auth/stream-ticket", StreamTicketApi.as_view(), name="auth-stream-ticket"),
    path("auth/password", apis.PasswordChangeApi.as_view(), name="auth-password"),
    path("auth/tokens", apis.TokenListApi.as_view(), name="auth-tokens"),
    path(
        "auth/tokens/revoke-others",
        apis.TokenRevokeOthersApi.as_view(),
        name="auth-tokens-revoke-others",
    ),
    path("auth/account/delete", apis.AccountDeleteApi.as_view(), name="auth-account-delete"),
    path(
        "auth/tokens/<id:token_id>/revoke",
        apis.TokenRevokeApi.as_view(),
        name="auth-token-revoke",
    ),
    path("players", apis.PlayerSearchApi.as_view(), name="player-search"),
    path("players/me", apis.PlayerMeApi.as_view(), name="player-me"),
    path("players/<id:player_id>", apis.PlayerDetailApi.as_view(), name="player-detail"),
    path("bots", apis.BotListApi.as_view(), name="bot-list"),
]
urlpatterns += [
    path(
        "players/<id:player_id>/history",
        apis.PlayerHistoryApi.as_view(),
        name="player-history",
    ),
    path("leaderboard", apis.LeaderboardApi.as_view(), name="leaderboard"),
    path("leaderboards", apis.LeaderboardListApi.as_view(), name="leaderboard-list"),
]
