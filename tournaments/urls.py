from django.urls import path

from . import apis

urlpatterns = [
    path("tournaments", apis.TournamentListCreateApi.as_view(), name="tournament-list"),
    path(
        "tournaments/<uuid:tournament_id>",
        apis.TournamentDetailApi.as_view(),
        name="tournament-detail",
    ),
    path(
        "tournaments/<uuid:tournament_id>/start",
        apis.TournamentStartApi.as_view(),
        name="tournament-start",
    ),
    path(
        "tournaments/<uuid:tournament_id>/cancel",
        apis.TournamentCancelApi.as_view(),
        name="tournament-cancel",
    ),
    path(
        "tournaments/<uuid:tournament_id>/invitations/accept",
        apis.TournamentInvitationAcceptApi.as_view(),
        name="tournament-invitation-accept",
    ),
    path(
        "tournaments/<uuid:tournament_id>/invitations/decline",
        apis.TournamentInvitationDeclineApi.as_view(),
        name="tournament-invitation-decline",
    ),
    path(
        "tournaments/<uuid:tournament_id>/standings",
        apis.TournamentStandingsApi.as_view(),
        name="tournament-standings",
    ),
    path(
        "tournaments/<uuid:tournament_id>/standings.csv",
        apis.TournamentStandingsCsvApi.as_view(),
        name="tournament-standings-csv",
    ),
    path(
        "tournaments/<uuid:tournament_id>/tables",
        apis.TournamentTablesApi.as_view(),
        name="tournament-tables",
    ),
]
