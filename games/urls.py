from django.urls import path

import pisyedili_api.converters  # noqa: F401  (registers <id:…>)
from live import streams

from . import apis, notify_apis

urlpatterns = [
    path("rules", apis.RuleListApi.as_view(), name="rule-list"),
    path("rules/presets", apis.RulePresetListApi.as_view(), name="rule-presets"),
    path("queue", apis.QueueApi.as_view(), name="queue"),
    path("queue/leave", apis.QueueLeaveApi.as_view(), name="queue-leave"),
    path("matches", apis.MatchListCreateApi.as_view(), name="match-list"),
    path("matches/<id:match_id>", apis.MatchDetailApi.as_view(), name="match-detail"),
    path("matches/<id:match_id>/join", apis.MatchJoinApi.as_view(), name="match-join"),
    path("matches/<id:match_id>/invite", apis.MatchInviteApi.as_view(), name="match-invite"),
    path(
        "matches/<id:match_id>/invitations/accept",
        apis.InvitationAcceptApi.as_view(),
        name="match-invitation-accept",
    ),
    path(
        "matches/<id:match_id>/invitations/decline",
        apis.InvitationDeclineApi.as_view(),
        name="match-invitation-decline",
    ),
    path("matches/<id:match_id>/leave", apis.MatchLeaveApi.as_view(), name="match-leave"),
    path("matches/<id:match_id>/cancel", apis.MatchCancelApi.as_view(), name="match-cancel"),
    path("matches/<id:match_id>/rematch", apis.MatchRematchApi.as_view(), name="match-rematch"),
    path("matches/<id:match_id>/resign", apis.MatchResignApi.as_view(), name="match-resign"),
    path("matches/<id:match_id>/talk", apis.MatchTalkApi.as_view(), name="match-talk"),
    path("matches/<id:match_id>/state", apis.MatchStateApi.as_view(), name="match-state"),
    path("matches/<id:match_id>/moves", apis.MatchMovesApi.as_view(), name="match-moves"),
    path(
        "matches/<id:match_id>/deals/<int:number>",
        apis.DealDetailApi.as_view(),
        name="deal-detail",
    ),
    path(
        "matches/<id:match_id>/deals/<int:number>/replay",
        apis.DealReplayApi.as_view(),
        name="deal-replay",
    ),
    path(
        "matches/<id:match_id>/deals/<int:number>/analysis",
        apis.DealAnalysisApi.as_view(),
        name="deal-analysis",
    ),
    # Live play (live.streams): Server-Sent Events, served by live.asgi.
    path("matches/<id:match_id>/events", streams.match_events, name="match-events"),
    path("me/events", streams.me_events, name="me-events"),
    path("lobby/events", streams.lobby_events, name="lobby-events"),
]
urlpatterns += [
    path("push/vapid-public-key", notify_apis.VapidKeyApi.as_view(), name="push-vapid-key"),
    path(
        "me/push-subscriptions",
        notify_apis.PushSubscriptionListApi.as_view(),
        name="push-subscriptions",
    ),
    path(
        "me/push-subscriptions/<id:subscription_id>/delete",
        notify_apis.PushSubscriptionDeleteApi.as_view(),
        name="push-subscription-delete",
    ),
    path("me/webhooks", notify_apis.WebhookListApi.as_view(), name="webhooks"),
    path(
        "me/webhooks/<id:webhook_id>/delete",
        notify_apis.WebhookDeleteApi.as_view(),
        name="webhook-delete",
    ),
]
