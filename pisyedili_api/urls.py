"""Routes: the API under /api/v1/, its schema and docs, the admin; errors are JSON everywhere."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

# The match routes first: Django tries patterns in order, and moves are most of the traffic.
urlpatterns = [
    path("api/v1/", include("games.urls")),
    path("api/v1/", include("players.urls")),
    path("api/v1/", include("tournaments.urls")),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/v1/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("admin/", admin.site.urls),
]

handler400 = "pisyedili_api.errors.json_400"
handler403 = "pisyedili_api.errors.json_403"
handler404 = "pisyedili_api.errors.json_404"
handler500 = "pisyedili_api.errors.json_500"
