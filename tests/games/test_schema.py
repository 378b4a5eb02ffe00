"""The served OpenAPI schema describes every API route, with an example for every error code."""

from __future__ import annotations

import re
from inspect import iscoroutinefunction

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from pisyedili_api.errors import ERROR_CODES

pytestmark = pytest.mark.django_db

API_CODES = {  # from the table of docs/api.md (tests/test_docs.py checks them all)
    "invalid",
    "invalid_move",
    "not_authenticated",
    "not_seated",
    "not_found",
    "stale_version",
    "not_your_turn",
    "match_not_active",
    "match_full",
    "illegal_move",
    "idempotency_mismatch",
    "throttled",
}


def api_routes() -> set[tuple[str, str]]:
    """(OpenAPI path, method) of every DRF view (and async view) under /api/v1/, from the URL
    resolver."""
    routes: set[tuple[str, str]] = set()

    def walk(patterns, prefix):
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                route = "/" + prefix + str(p.pattern)
                view = getattr(p.callback, "cls", None)
                if (
                    view is None
                    and route.startswith("/api/v1/")
                    and iscoroutinefunction(p.callback)
                ):
                    # The event streams (games.streams): async views, GET only.
                    routes.add((re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route), "get"))
                    continue
                if (
                    not route.startswith("/api/v1/")
                    or view is None
                    or "/schema" in route
                    or "/docs" in route
                ):
                    continue
                path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
                for method in ("get", "post", "put", "patch", "delete"):
                    if hasattr(view, method):
                        routes.add((path, method))

    walk(get_resolver().url_patterns, "")
    return routes


@pytest.fixture
def schema(api):
    response = api.get("/api/v1/schema/?format=json")
    assert response.status_code == 200
    import json

    return json.loads(response.content)


def test_every_api_route_is_in_the_schema(schema):
    routes = api_routes()
    assert len(routes) >= 12
    missing = {
        (path, method) for path, method in routes if method not in schema["paths"].get(path, {})
    }
    assert not missing, f"routes missing from the schema: {sorted(missing)}"
    documented = {
        (path, m) for path, ops in schema["paths"].items() for m in ops if m != "parameters"
    }
    assert documented == routes


def test_every_error_code_has_an_example(schema):
    seen: set[str] = set()
    for operations in schema["paths"].values():
        for operation in operations.values():
            for status, response in operation.get("responses", {}).items():
                for example in (
                    response.get("content", {})
                    .get("application/json", {})
                    .get("examples", {})
                    .values()
                ):
                    value = example.get("value", {})
                    if isinstance(value, dict) and "code" in value:
                        assert ERROR_CODES[value["code"]][0] == int(status)
                        seen.add(value["code"])
    assert seen >= API_CODES, f"no example for {sorted(API_CODES - seen)}"


def test_docs_page_is_served(api):
    response = api.get("/api/v1/docs/")
    assert response.status_code == 200 and b"swagger" in response.content.lower()
