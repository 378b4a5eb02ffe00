"""Routes: the API under /api/v1/, its schema and docs, the admin; errors are JSON everywhere."""

import posixpath
from typing import Any

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
from pisyedili_api.renderers import JSONRenderer
from players.throttles import admin_login


def docs_asset(request: HttpRequest, path: str) -> FileResponse:
    """A file of drf-spectacular-sidecar (Swagger UI, ReDoc), whatever DEBUG says; nothing
    outside it (`..` included): 404."""
    name = posixpath.normpath(f"drf_spectacular_sidecar/{path}")
    if not name.startswith("drf_spectacular_sidecar/"):
        raise Http404(path)
    return serve_static(request, name, insecure=True)


class _JsonErrors:
    """The schema's and the docs pages' errors (an unknown `format`, another method) as the
    API's JSON error body, not in the YAML or HTML of the page they would have been."""

    def finalize_response(self, request: Any, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(  # type: ignore[misc]
            request, response, *args, **kwargs
        )
        if response.status_code >= 400:
            response.accepted_renderer = JSONRenderer()
            response.accepted_media_type = JSONRenderer.media_type
            response.template_name = None
        return response


class SchemaView(_JsonErrors, SpectacularAPIView):
    pass


class SwaggerView(_JsonErrors, SpectacularSwaggerView):
    pass


class RedocView(_JsonErrors, SpectacularRedocView):
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
