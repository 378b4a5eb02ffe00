"""A client generated from the served schema by openapi-typescript with its default options
accepts the smallest request bodies the API takes: the required fields only, every field with a
server default left out. openapi-typescript makes a schema property that carries a `default`
required (its `defaultNonNullable`), so the request components carry none
(pisyedili_api.openapi.request_defaults_described)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.web.node_tools import WEB, tools

pytestmark = [pytest.mark.timeout(600), pytest.mark.tools]

# One body per route that takes one (POST, PATCH): what docs/api.md and the README send at the
# least.
MINIMAL_BODIES = {
    "/api/v1/auth/register": {"username": "ana", "password": "s3cret-pass"},
    "/api/v1/auth/token": {"username": "ana", "password": "s3cret-pass"},
    "/api/v1/auth/password": {"old_password": "s3cret-pass", "new_password": "n3w-s3cret-pass"},
    "/api/v1/auth/account/delete": {"password": "s3cret-pass"},
    "/api/v1/auth/stream-ticket": {"path": "/api/v1/me/events"},
    "/api/v1/players/me": {"display_name": "Ana"},
    "/api/v1/matches": {"seats": 2, "bots": ["greedy"]},
    "/api/v1/matches/{match_id}/join": {},
    "/api/v1/matches/{match_id}/invite": {"invite": ["bora"]},
    "/api/v1/matches/{match_id}/moves": {"action": "draw", "version": 17},
    "/api/v1/matches/{match_id}/talk": {"phrase": "good_game"},
    "/api/v1/queue": {"seats": 2, "wait_seconds": 30},
    "/api/v1/tournaments": {"name": "Friday cup", "format": "swiss", "table_size": 3},
    "/api/v1/tournaments/{tournament_id}/entrants/remove": {
        "player": "0f6c1d2e-3b4a-4c5d-8e9f-a0b1c2d3e4f5"
    },
    "/api/v1/me/push-subscriptions": {
        "endpoint": "https://push.example.com/send/1",
        "keys": {
            "p256dh": "BIPUL12DLfytvTajnryr2PRdAgXS3HGKiLqndGcJGabyhHheJYlNGCeX"
            "l1dn18gSJ1WAkAPIxr4gK0_dQds4yiI",
            "auth": "FPssNDTKnInHVndSTdbKFw",
        },
    },
    "/api/v1/me/webhooks": {"url": "https://app.example.com/pisyedili/notices"},
}

_BODY_TYPE = """import type { paths } from "./api-types";

type Json<O> = O extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
type Body<P extends keyof paths> = paths[P] extends { post: infer O }
    ? Json<O>
    : paths[P] extends { patch: infer O }
      ? Json<O>
      : never;
"""


def test_every_request_body_is_listed(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(schema))
    paths = json.loads(schema.read_text(encoding="utf-8"))["paths"]
    with_body = {
        path
        for path, operations in paths.items()
        for operation in operations.values()
        if isinstance(operation, dict) and "requestBody" in operation
    }
    assert with_body == set(MINIMAL_BODIES)


def test_a_generated_client_compiles_the_minimal_bodies(tmp_path: Path) -> None:
    bin_dir = tools()
    schema = tmp_path / "schema.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(schema))
    subprocess.run(
        [str(bin_dir / "openapi-typescript"), str(schema), "-o", str(tmp_path / "api-types.d.ts")],
        cwd=WEB,
        check=True,
        capture_output=True,
        timeout=300,
    )
    lines = [_BODY_TYPE]
    for number, (path, body) in enumerate(MINIMAL_BODIES.items()):
        lines.append(f"export const body{number}: Body<{json.dumps(path)}> = {json.dumps(body)};")
    (tmp_path / "minimal.ts").write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = tmp_path / "tsconfig.json"
    config.write_text(
        json.dumps(
            {
                "compilerOptions": {
                    "target": "ES2022",
                    "module": "ES2022",
                    "moduleResolution": "bundler",
                    "strict": True,
                    "noEmit": True,
                    "types": [],
                },
                "files": [str(tmp_path / "minimal.ts"), str(tmp_path / "api-types.d.ts")],
            }
        ),
        encoding="utf-8",
    )
    run = subprocess.run(
        [str(bin_dir / "tsc"), "--noEmit", "-p", str(config)],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
