"""Routes: the API under /api/v1/, its schema and docs, the admin; errors are JSON everywhere."""

import posixpath

from django.conf import settings
from django.contrib import admin
from django.contrib.staticfiles.views import serve as serve_static
from django.http import FileResponse, Http404, HttpRequest
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerView,
)

from pisyedili_api import webclient
from pisyedili_api.health import HealthApi
from pisyedili_api.renderers import ErrorsAsJSON
from players.throttles import admin_login


def docs_asset(request: HttpRequest, path: str) -> FileResponse:
    """A file of drf-spectacular-sidecar (Swagger UI, ReDoc), whatever DEBUG says; nothing
    outside it (`..` included): 404."""
    name = posixpath.normpath(f"drf_spectacular_sidecar/{path}")
    if not name.startswith("drf_spectacular_sidecar/"):
        raise Http404(path)
    return serve_static(request, name, insecure=True)


# The schema (YAML or JSON) and its docs pages (HTML): their errors are the API's JSON.
class SchemaView(ErrorsAsJSON, SpectacularAPIView):
    pass


class SwaggerView(ErrorsAsJSON, SpectacularSwaggerView):
    pass


class RedocView(ErrorsAsJSON, SpectacularRedocView):
    pass


# The match routes first: Django tries patterns in order, and moves are most of the traffic.
urlpatterns = [
    path("api/v1/", include("games.urls")),
    path("api/v1/", include("players.urls")),
    path("api/v1/", include("tournaments.urls")),
    path("api/v1/health", HealthApi.as_view(), name="health"),
    path("api/v1/schema/", SchemaView.as_view(), name="schema"),
    path("api/v1/docs/", SwaggerView.as_view(url_name="schema"), name="docs"),
    path(
        "api/v1/docs/redoc/",
        RedocView.as_view(url_name="schema", template_name="pisyedili_api/redoc.html"),
        name="redoc",
    ),
    # The docs pages' scripts and styles (drf-spectacular-sidecar), served by the app itself so
    # that the docs work offline on any deployment; a proxy that serves STATIC_ROOT (after
    # `collectstatic`) answers them first.
    path(
        f"{settings.STATIC_URL.strip('/')}/drf_spectacular_sidecar/<path:path>",
        docs_asset,
        name="docs-assets",
    ),
    # The admin's login, throttled as /auth/token is (players.throttles.admin_login).
    path("admin/login/", admin_login),
    path("admin/", admin.site.urls),
    # The web client's page (its modules: pisyedili_api.webclient, through WhiteNoise).
    path("", webclient.index, name="web-client"),
    # Its service worker, at the root so that its scope is the whole site (Web Push notices).
    path("sw.js", webclient.service_worker, name="web-client-worker"),
]

handler400 = "pisyedili_api.errors.json_400"
handler403 = "pisyedili_api.errors.json_403"
handler404 = "pisyedili_api.errors.json_404"
handler500 = "pisyedili_api.errors.json_500"
