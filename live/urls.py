"""The URLconf of a waiting long-poll under live.asgi (live.middleware): its view only."""

from django.urls import path

import pisyedili_api.converters  # noqa: F401  (registers <id:…>)
from live.streams import match_state_long_poll

urlpatterns = [
    path("api/v1/matches/<id:match_id>/state", match_state_long_poll, name="match-state"),
]
handler404 = "pisyedili_api.errors.json_404"
handler500 = "pisyedili_api.errors.json_500"
