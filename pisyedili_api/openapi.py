"""OpenAPI helpers: the error body and an example for every error code a route can answer."""

from __future__ import annotations

import json
from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers

from .errors import ERROR_CODES, error_body

_EXAMPLE_DETAIL: dict[str, Any] = {
    "invalid": {"version": ["This field is required."]},
    "invalid_move": {"card": ["bad card code 'ZZ'"]},
    "stale_version": {"current_version": 18},
    "illegal_move": {
        "legal_moves": [{"action": "play", "card": "7H"}, {"action": "draw"}],
        "rule": "R-22",
    },
}


# The error codes in the order of the schema's ErrorCodeEnum (settings ENUM_NAME_OVERRIDES).
ERROR_CODE_CHOICES = sorted(ERROR_CODES)


class ErrorSerializer(serializers.Serializer[dict[str, Any]]):
    code = serializers.ChoiceField(choices=ERROR_CODE_CHOICES)
    message = serializers.CharField()
    detail = serializers.DictField(
        required=False, help_text="Field errors or facts about the error."
    )


# Every authenticated route may answer these.
AUTH = ("not_authenticated",)
COMMON = ("invalid",)


def error_responses(*codes: str) -> dict[tuple[int, str], OpenApiResponse]:
    """`responses=` entries for drf-spectacular: one per status, one example per code. Error
    bodies are JSON on every route, the CSV ones included, so they are keyed by media type."""
    by_status: dict[int, list[str]] = {}
    for code in codes:
        by_status.setdefault(ERROR_CODES[code][0], []).append(code)
    responses = {}
    for status, status_codes in sorted(by_status.items()):
        examples = [
            OpenApiExample(
                name=code,
                value=error_body(code, None, _EXAMPLE_DETAIL.get(code)),
                response_only=True,
                status_codes=[str(status)],
            )
            for code in status_codes
        ]
        responses[(status, "application/json")] = OpenApiResponse(
            response=ErrorSerializer,
            description=", ".join(f"`{code}`" for code in status_codes),
            examples=examples,
        )
    return responses


_PATH_PARAMETERS = {
    "match_id": "The match's id.",
    "number": "The deal's number in the match, from 1.",
    "player_id": "The player's id.",
    "tournament_id": "The tournament's id.",
    "token_id": "The id of one of the caller's tokens, as GET /auth/tokens lists it.",
    "subscription_id": "The id of one of the caller's push subscriptions.",
    "webhook_id": "The id of one of the caller's webhooks.",
}


def describe_path_parameters(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: every path parameter says what it names."""
    for operations in result["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path" and not parameter.get("description"):
                    parameter["description"] = _PATH_PARAMETERS[parameter["name"]]
    return result


_COMPONENT = "#/components/schemas/"


def request_defaults_described(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: a property of a request body's component (and of the
    components it refers to) that has a `default` says it in its description instead. A field
    with a server default is optional to the client, but openapi-typescript (its default
    options) makes a property that carries a `default` required; the request components are
    apart from the response ones (COMPONENT_SPLIT_REQUEST), which keep theirs."""
    components = result.get("components", {}).get("schemas", {})
    pending = [
        media["schema"]
        for operations in result["paths"].values()
        for operation in operations.values()
        if isinstance(operation, dict)
        for media in operation.get("requestBody", {}).get("content", {}).values()
    ]
    seen: set[str] = set()
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_COMPONENT) and ref not in seen:
            seen.add(ref)
            pending.append(components[ref.removeprefix(_COMPONENT)])
        for field in node.get("properties", {}).values():
            if isinstance(field, dict) and "default" in field:
                value = field.pop("default")
                default = value if isinstance(value, str) else json.dumps(value)
                described = f"{field.get('description', '')}\n\nDefault: `{default}`."
                field["description"] = described.strip()
        pending.extend(value for key, value in node.items() if key != "$ref")
    return result


def server_limits(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the bounds this server enforces beyond its fields'
    own, read from the settings as the schema is served, so that a client generated from it
    sends nothing the server refuses for a bound it could have known: a match's and a
    tournament's `deals` (at most MAX_DEALS_PER_MATCH, where docs/rules.md allows 52), a
    quick-play wait (QUEUE_WAIT_MIN..QUEUE_WAIT_MAX), a player search (its least length) and a
    move's Idempotency-Key (1..255 characters, printable ones)."""
    from django.conf import settings

    from players.apis import SEARCH_MIN

    components = result.get("components", {}).get("schemas", {})
    bounds = {
        ("MatchCreateRequest", "deals"): {"maximum": settings.MAX_DEALS_PER_MATCH},
        ("TournamentCreateRequest", "deals"): {"maximum": settings.MAX_DEALS_PER_MATCH},
        ("QueueJoinRequest", "wait_seconds"): {
            "minimum": settings.QUEUE_WAIT_MIN,
            "maximum": settings.QUEUE_WAIT_MAX,
        },
    }
    for (component, field), bound in bounds.items():
        components[component]["properties"][field].update(bound)
    parameters = {
        ("query", "search"): {"minLength": SEARCH_MIN},
        ("header", "Idempotency-Key"): {"minLength": 1, "maxLength": 255},
    }
    for operations in result["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                limits = parameters.get((parameter["in"], parameter["name"]))
                if limits is not None:
                    parameter["schema"].update(limits)
    return result


def protocol_answers(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the answers HTTP itself may give on a route, beside
    its own: `406 not_acceptable` where it answers JSON only and the `Accept` header asks for
    none of it, `415 unsupported_media_type` where a POST, PUT or PATCH is sent a body that is
    not JSON (every one reads its body, even one that takes no field), `422
    idempotency_mismatch` where it takes an `Idempotency-Key` (pisyedili_api.keyed), and, on a
    GET, `304 Not Modified` to an `If-None-Match` that still holds its answer's `ETag`
    (pisyedili_api.middleware.ConditionalGetMiddleware; a per-seat answer has no ETag)."""
    for operations in result["paths"].values():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            answers = [r for status, r in responses.items() if str(status).startswith("2")]
            json_only = all(
                set(answer.get("content", {})) <= {"application/json"} for answer in answers
            )
            if json_only and "406" not in responses:
                responses["406"] = _protocol_error("not_acceptable")
            if method in ("post", "put", "patch") and "415" not in responses:
                responses["415"] = _protocol_error("unsupported_media_type")
            keyed = any(
                p.get("in") == "header" and p.get("name") == "Idempotency-Key"
                for p in operation.get("parameters", [])
            )
            if keyed and "422" not in responses:
                responses["422"] = _protocol_error("idempotency_mismatch")
            if method == "get" and json_only and "304" not in responses:
                responses["304"] = {
                    "description": "Not modified: the `If-None-Match` sent holds the answer's"
                    " `ETag` (no body; only an answer that carries an `ETag`)."
                }
    return result


def _protocol_error(code: str) -> dict[str, Any]:
    """An error answer of the schema (the Error component), with its code's example."""
    name = "".join(part.title() for part in code.split("_"))
    return {
        "description": f"`{code}`",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "examples": {name: {"value": error_body(code), "summary": code}},
            }
        },
    }
