"""The web client's API calls are typed from the served schema: web/app/api-types.d.ts is what
openapi-typescript (pinned in web/package-lock.json) makes of `manage.py spectacular`, and
`tsc --noEmit` (checkJs) finds no error in the client's modules. So a schema change that
breaks the client fails the suite."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.web.node_tools import WEB, tools

pytestmark = [pytest.mark.timeout(600), pytest.mark.tools]


def _tsc(bin_dir: Path, project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir / "tsc"), "--noEmit", "-p", str(project)],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_api_types_are_generated_from_the_served_schema(tmp_path: Path) -> None:
    bin_dir = tools()
    schema = tmp_path / "schema.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(schema))
    generated = tmp_path / "api-types.d.ts"
    subprocess.run(
        [str(bin_dir / "openapi-typescript"), str(schema), "-o", str(generated)],
        cwd=WEB,
        check=True,
        capture_output=True,
        timeout=300,
    )
    committed = (WEB / "app" / "api-types.d.ts").read_text(encoding="utf-8")
    assert generated.read_text(encoding="utf-8") == committed, (
        "web/app/api-types.d.ts is not the served schema's: run `make web-types` and commit it"
    )
    # The types name the routes the client calls.
    for route in ("/api/v1/matches/{match_id}/moves", "/api/v1/auth/stream-ticket"):
        assert json.dumps(route) in committed


def test_the_client_type_checks() -> None:
    run = _tsc(tools(), WEB / "tsconfig.json")
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_field_the_schema_does_not_have_fails_the_check(tmp_path: Path) -> None:
    """The check is in force: client code reading a field that the State schema lacks (as after
    a rename on the server) is a type error."""
    bin_dir = tools()
    snippet = tmp_path / "snippet.js"
    snippet.write_text(
        "// @ts-check\n"
        f'/** @param {{import("{WEB / "app" / "api.js"}").State}} view */\n'
        "export function stock(view) { return view.stock_size; }\n",
        encoding="utf-8",
    )
    config = tmp_path / "tsconfig.json"
    config.write_text(
        json.dumps({"extends": str(WEB / "tsconfig.json"), "include": [str(snippet)]}),
        encoding="utf-8",
    )
    run = _tsc(bin_dir, config)
    assert run.returncode != 0
    assert "stock_size" in run.stdout
