from django.urls import path

import pisyedili_api.converters  # noqa: F401  (registers <id:…>)

from . import apis

urlpatterns = [
    path("tournaments", apis.TournamentListCreateApi.as_view(), name="tournament-list"),
    path(
        "tournaments/<id:tournament_id>",
        apis.TournamentDetailApi.as_view(),
        name="tournament-detail",
    ),
    path(
        "tournaments/<id:tournament_id>/start",
        apis.TournamentStartApi.as_view(),
        name="tournament-start",
    ),
    path(
        "tournaments/<id:tournament_id>/cancel",
        apis.TournamentCancelApi.as_view(),
        name="tournament-cancel",
    ),
    path(
        "tournaments/<id:tournament_id>/invitations/accept",
        apis.TournamentInvitationAcceptApi.as_view(),
        name="tournament-invitation-accept",
    ),
    path(
        "tournaments/<id:tournament_id>/invitations/decline",
        apis.TournamentInvitationDeclineApi.as_view(),
        name="tournament-invitation-decline",
    ),
    path(
        "tournaments/<id:tournament_id>/entrants/remove",
        apis.TournamentEntrantRemoveApi.as_view(),
        name="tournament-entrant-remove",
    ),
    path(
        "tournaments/<id:tournament_id>/standings",
        apis.TournamentStandingsApi.as_view(),
        name="tournament-standings",
    ),
    path(
        "tournaments/<id:tournament_id>/standings.csv",
        apis.TournamentStandingsCsvApi.as_view(),
        name="tournament-standings-csv",
    ),
    path(
        "tournaments/<id:tournament_id>/tables",
        apis.TournamentTablesApi.as_view(),
        name="tournament-tables",
    ),
]
