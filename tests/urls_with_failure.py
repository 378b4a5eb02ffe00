"""The project's URLs plus one route that fails, to check Django's 500 answers in JSON."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from pisyedili_api.urls import (  # noqa: F401
    handler400,
    handler403,
    handler404,
    handler500,
    urlpatterns,
)


def fail(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


urlpatterns = [*urlpatterns, path("api/v1/test-failure", fail)]
