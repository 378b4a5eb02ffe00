"""The served OpenAPI schema describes every API route, with an example for every error code."""

from __future__ import annotations

import re
from html.parser import HTMLParser
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
                    # The event streams (live.streams): async views, GET only.
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


def _codes(response: dict) -> set[str]:
    examples = response.get("content", {}).get("application/json", {}).get("examples", {})
    return {example["value"]["code"] for example in examples.values()}


def test_every_route_that_takes_a_body_lists_its_refusal(schema, api, make_player):
    """A POST, PUT or PATCH reads a JSON body, even a route that takes no field (any field is
    refused): each lists `400 invalid`, and answers it to a field it does not take."""
    _, token = make_player()
    missing = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method not in ("post", "put", "patch"):
                continue
            if "invalid" not in _codes(operation["responses"].get("400", {})):
                missing.append(f"{method.upper()} {path}")
    assert not missing, missing
    # One route of each app that takes no field, with one.
    any_id = "00000000-0000-0000-0000-000000000000"
    for path in (
        "/api/v1/auth/logout",
        f"/api/v1/matches/{any_id}/resign",
        f"/api/v1/tournaments/{any_id}/start",
    ):
        refused = api.post(
            path, {"force": True}, format="json", HTTP_AUTHORIZATION=f"Token {token}"
        )
        assert refused.status_code == 400 and refused.json()["code"] == "invalid", path


def test_docs_page_is_served(api):
    response = api.get("/api/v1/docs/")
    assert response.status_code == 200 and b"swagger" in response.content.lower()


# ---- docs that work offline, and a schema that reads well ----


class _Assets(HTMLParser):
    """The `src` of every script and the `href` of every link of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {"script": "src", "link": "href"}
        for name, value in attrs:
            if tag in names and name == names[tag] and value:
                self.urls.append(value)


@pytest.mark.parametrize("page", ["/api/v1/docs/", "/api/v1/docs/redoc/"])
def test_docs_pages_load_only_files_the_server_serves(api, page):
    """Swagger UI and ReDoc come from drf-spectacular-sidecar: no CDN, no web font, so the
    pages work offline; and every file they name is served, whatever DEBUG says."""
    response = api.get(page)
    assert response.status_code == 200
    html = response.content.decode()
    assets = _Assets()
    assets.feed(html)
    assert assets.urls, "the page names no script"
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", html, flags=re.IGNORECASE)
    for url in assets.urls:
        assert url.startswith("/static/drf_spectacular_sidecar/"), url
        served = api.get(url)
        assert served.status_code == 200, url
        assert b"".join(served.streaming_content), url


def test_swagger_ui_calls_no_online_validator(api):
    """Swagger UI would send the schema to validator.swagger.io for its badge."""
    html = api.get("/api/v1/docs/").content.decode()
    assert re.search(r'"validatorUrl":\s*null', html)


def test_docs_assets_outside_the_sidecar_are_not_served(api):
    for outside in ("../../settings.py", "../admin/css/base.css", "no-such-file.js"):
        response = api.get(f"/static/drf_spectacular_sidecar/{outside}")
        assert response.status_code == 404, outside
        assert response.json()["code"] == "not_found"


def test_every_operation_has_a_summary_and_a_description(schema):
    missing = [
        f"{method.upper()} {path}"
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if method != "parameters"
        and not (operation.get("summary", "").strip() and operation.get("description", "").strip())
    ]
    assert not missing, missing
    summaries = [
        operation["summary"]
        for operations in schema["paths"].values()
        for method, operation in operations.items()
        if method != "parameters"
    ]
    assert all("\n" not in s and len(s) <= 80 for s in summaries), "a summary is one short line"


def test_every_parameter_is_described(schema):
    undescribed = [
        f"{method.upper()} {path} {parameter['in']}.{parameter['name']}"
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if method != "parameters"
        for parameter in operation.get("parameters", [])
        if not parameter.get("description", "").strip()
    ]
    assert undescribed == []


def test_component_names_are_stable_and_readable(schema):
    """Names a client generator turns into types: no hash-numbered enums (`Status7c1Enum`),
    no doubled suffix (`TokenRequestRequest`)."""
    names = set(schema["components"]["schemas"])
    assert {"Error", "ErrorCodeEnum", "Match", "State", "MovePostRequest"} <= names
    assert [n for n in names if re.search(r"\d+Enum$|RequestRequest", n)] == []


def test_schema_names_the_server_it_is_served_from(schema):
    assert schema["servers"] and schema["servers"][0]["url"] == "/"
    assert schema["info"]["license"]["name"] == "MIT"


def test_every_route_that_waits_on_the_hub_lists_its_slot_and_redis_errors(schema):
    """Event streams and the state's long-poll hold a slot of the caller's (429 when all are
    taken) and need the server's Redis (503 while it does not answer)."""
    waiting = [
        "/api/v1/matches/{match_id}/state",
        "/api/v1/matches/{match_id}/events",
        "/api/v1/me/events",
        "/api/v1/lobby/events",
    ]
    for path in waiting:
        assert {"429", "503"} <= set(schema["paths"][path]["get"]["responses"]), path


def test_the_schema_gives_the_bounds_this_server_enforces(api, settings):
    """A client generated from the schema sends nothing refused for a bound it could have
    known: the server's own caps (settings, read as the schema is served), not only the
    rules' wider ranges."""
    settings.MAX_DEALS_PER_MATCH = 12
    served = api.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    components = served["components"]["schemas"]
    for component in ("MatchCreateRequest", "TournamentCreateRequest"):
        assert components[component]["properties"]["deals"]["maximum"] == 12
    wait = components["QueueJoinRequest"]["properties"]["wait_seconds"]
    assert (wait["minimum"], wait["maximum"]) == (settings.QUEUE_WAIT_MIN, settings.QUEUE_WAIT_MAX)
    parameters = {
        (p["in"], p["name"]): p["schema"]
        for operations in served["paths"].values()
        for operation in operations.values()
        for p in operation.get("parameters", [])
    }
    assert parameters["query", "search"]["minLength"] == 2
    key = parameters["header", "Idempotency-Key"]
    assert (key["minLength"], key["maxLength"]) == (1, 255)


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("get", "/api/v1/schema/?format=xml", 404),
        ("post", "/api/v1/schema/", 405),
        ("get", "/api/v1/docs/?format=json", 404),
        ("post", "/api/v1/docs/", 405),
        ("post", "/api/v1/docs/redoc/", 405),
    ],
)
def test_the_schema_and_docs_pages_answer_errors_in_the_api_s_json(api, method, path, status):
    """Never the YAML or the HTML of the page it would have been: the API's error body."""
    response = getattr(api, method)(path)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] in ("not_found", "method_not_allowed")


def test_the_answers_of_http_itself_are_in_the_schema(schema, api, make_player):
    """406 (an `Accept` the route cannot answer), 415 (a body that is not JSON, on every route
    that reads one) and 304 (a GET whose ETag still holds) are answered and listed."""
    _, token = make_player()
    auth = {"HTTP_AUTHORIZATION": f"Token {token}"}
    refused = api.get("/api/v1/bots", HTTP_ACCEPT="text/html")
    assert refused.status_code == 406 and refused.json()["code"] == "not_acceptable"
    assert "not_acceptable" in _codes(schema["paths"]["/api/v1/bots"]["get"]["responses"]["406"])
    for path, operation in (
        ("/api/v1/auth/token", "post"),
        ("/api/v1/auth/logout", "post"),
        ("/api/v1/players/me", "patch"),
    ):
        sent = getattr(api, operation)(path, "name=x", content_type="text/plain", **auth)
        assert sent.status_code == 415, (path, sent.content)
        assert sent.json()["code"] == "unsupported_media_type"
        listed = schema["paths"][path][operation]["responses"]
        assert "unsupported_media_type" in _codes(listed["415"]), path
    first = api.get("/api/v1/bots")
    etag = first["ETag"]
    again = api.get("/api/v1/bots", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert "304" in schema["paths"]["/api/v1/bots"]["get"]["responses"]
    # Every route that reads a body lists 415, every JSON-only one 406.
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method in ("post", "put", "patch"):
                assert "415" in operation["responses"], (method, path)
            if not path.endswith(("/events", "/standings", "/standings.csv")):
                assert "406" in operation["responses"], (method, path)
