"""The tournament routes in the served OpenAPI schema: new error codes with examples, CSV."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(api):
    response = api.get("/api/v1/schema/?format=json")
    assert response.status_code == 200
    return json.loads(response.content)


def examples(operation, status):
    content = operation["responses"][status]["content"]["application/json"]
    return {e["value"]["code"] for e in content["examples"].values()}


def test_new_error_codes_have_examples(schema):
    paths = schema["paths"]
    start = paths["/api/v1/tournaments/{tournament_id}/start"]["post"]
    assert examples(start, "403") == {"not_organizer"}
    assert examples(start, "409") == {
        "tournament_started",
        "tournament_over",
        "invitations_pending",
        "not_enough_entrants",
    }
    assert examples(start, "401") == {"not_authenticated"}
    assert examples(start, "404") == {"not_found"}
    cancel = paths["/api/v1/tournaments/{tournament_id}/cancel"]["post"]
    assert examples(cancel, "403") == {"not_organizer"}
    assert examples(cancel, "409") == {"tournament_over"}
    create = paths["/api/v1/tournaments"]["post"]
    assert examples(create, "400") == {"invalid"}
    assert examples(create, "409") == {"too_many_tournaments"}
    assert examples(create, "429") == {"throttled"}
    for write in (create, start, cancel):
        assert "throttled" in examples(write, "429")
    for answer in ("accept", "decline"):
        route = paths[f"/api/v1/tournaments/{{tournament_id}}/invitations/{answer}"]["post"]
        assert examples(route, "403") == {"not_invited"}
        assert examples(route, "409") == {"tournament_started", "tournament_over"}
        assert examples(route, "401") == {"not_authenticated"}
        assert examples(route, "429") == {"throttled"}


def test_invitations_and_the_clock_are_in_the_tournament_schema(schema):
    fields = schema["components"]["schemas"]["Tournament"]["properties"]
    assert {"pending_invitations", "turn_seconds"} <= set(fields)
    create = schema["components"]["schemas"]["TournamentCreateRequest"]["properties"]
    assert create["turn_seconds"]["minimum"] == 1 and "nullable" not in create["turn_seconds"]
    listing = schema["paths"]["/api/v1/tournaments"]["get"]
    assert any(p["name"] == "invited" for p in listing["parameters"])


def test_standings_document_csv(schema):
    paths = schema["paths"]
    csv_only = paths["/api/v1/tournaments/{tournament_id}/standings.csv"]["get"]
    assert set(csv_only["responses"]["200"]["content"]) == {"text/csv"}
    both = paths["/api/v1/tournaments/{tournament_id}/standings"]["get"]
    assert set(both["responses"]["200"]["content"]) == {"application/json", "text/csv"}
    assert any(p["name"] == "format" for p in both["parameters"])
    tables = paths["/api/v1/tournaments/{tournament_id}/tables"]["get"]
    assert any(p["name"] == "mine" for p in tables["parameters"])


@pytest.mark.parametrize("path", ["standings", "standings.csv"])
def test_standings_errors_are_documented_as_the_json_they_are(schema, api, path):
    """schemathesis ST105: the CSV routes answer errors as JSON, and the schema says so."""
    operation = schema["paths"][f"/api/v1/tournaments/{{tournament_id}}/{path}"]["get"]
    for status in ("401", "404"):
        assert list(operation["responses"][status]["content"]) == ["application/json"]
    missing = api.get(f"/api/v1/tournaments/00000000-0000-0000-0000-000000000000/{path}")
    assert missing.status_code == 404
    assert missing["Content-Type"].startswith("application/json")
