"""The documents in docs/ are the project's authority and contract; these tests hold them to the
code: docs/rules.md to the engine's rule ids and options, docs/api.md to the URL conf, the error
codes and the schema's version, docs/operations.md to the settings the code reads, every
relative link to a file (and heading) that exists, and no reference to a file outside the
repository. The README stays short, and its curl tour runs, twice in a row, against `make
run`'s server."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from inspect import iscoroutinefunction
from pathlib import Path
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from games.engine.rules import _BOOLEANS, _CHOICES, _RANGES, Rules
from pisyedili_api.errors import ERROR_CODES
from tests.integration import test_embedded_sqlite_server

REPO_ROOT = Path(__file__).resolve().parent.parent
DOCS = REPO_ROOT / "docs"
RULES_MD = DOCS / "rules.md"
API_MD = DOCS / "api.md"
OPERATIONS_MD = DOCS / "operations.md"
README_MD = REPO_ROOT / "README.md"
README_MAX_LINES = 200
RULE_COUNT = 32  # R-1 … R-32


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# ---- docs/rules.md ----


def rules_body() -> str:
    """The rules themselves: everything from section 1 on (the options index comes before)."""
    text = read(RULES_MD)
    start = text.index("\n## 1. ")
    return text[start:]


def rule_texts() -> dict[int, str]:
    """R-n -> the text of its bullet (continuation lines and sub-bullets included)."""
    texts: dict[int, str] = {}
    current: int | None = None
    for line in rules_body().splitlines():
        found = re.match(r"^- \*\*R-(\d+)\b", line)
        if found:
            current = int(found.group(1))
            assert current not in texts, f"R-{current} is defined twice"
            texts[current] = line
        elif line.startswith(("- ", "## ")) or current is None:
            current = None
        else:
            texts[current] += "\n" + line
    return texts


def section_texts() -> dict[int, str]:
    """§n -> the text of section n, its heading included."""
    sections = re.split(r"^(?=## \d+\. )", rules_body(), flags=re.MULTILINE)
    return {
        int(re.match(r"## (\d+)\.", part).group(1)): part  # type: ignore[union-attr]
        for part in sections
        if part.startswith("## ")
    }


def options_table() -> dict[str, dict[str, Any]]:
    """option -> {default, values, rules} from the table "Rule options at a glance"."""
    text = read(RULES_MD)
    table = text[text.index("## Rule options at a glance") : text.index("\n## 1. ")]
    rows: dict[str, dict[str, Any]] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`"):
            continue
        name, default, values, cited = cells
        rows[name.strip("`")] = {
            "default": default.strip("`"),
            "values": tuple(v.strip().strip("`") for v in values.split(",")),
            "rules": [r.strip() for r in cited.split(",")],
        }
    return rows


def doc_value(value: Any) -> str:
    """An option value as docs/rules.md and the JSON of a request write it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def cited_text(references: list[str]) -> str:
    """The text of the rules (R-n, R-a..R-b) and sections (§n) a table row cites."""
    rules, sections = rule_texts(), section_texts()
    parts = []
    for reference in references:
        if span := re.fullmatch(r"R-(\d+)\.\.R-(\d+)", reference):
            low, high = int(span.group(1)), int(span.group(2))
            parts += [rules[n] for n in range(low, high + 1)]
        elif one := re.fullmatch(r"R-(\d+)", reference):
            parts.append(rules[int(one.group(1))])
        elif section := re.fullmatch(r"§(\d+)", reference):
            parts.append(sections[int(section.group(1))])
        else:
            raise AssertionError(f"not a rule or section reference: {reference!r}")
    return "\n".join(parts)


def test_rules_md_defines_exactly_r1_to_r32_once_each() -> None:
    assert sorted(rule_texts()) == list(range(1, RULE_COUNT + 1))
    mentioned = {int(n) for n in re.findall(r"\bR-(\d+)\b", read(RULES_MD))}
    assert mentioned == set(range(1, RULE_COUNT + 1)), "a rule id that no rule defines"


def test_rules_md_lists_every_engine_option_with_its_default_and_values() -> None:
    table = options_table()
    defaults = Rules().to_json()
    assert set(table) == set(Rules.option_names()), "options table ≠ games.engine.rules"
    for name, row in table.items():
        assert row["default"] == doc_value(defaults[name]), name
        if name in _CHOICES:
            assert row["values"] == _CHOICES[name], name
        elif name in _BOOLEANS:
            assert row["values"] == ("true", "false"), name
        else:
            low, high = _RANGES[name]
            assert row["values"] == (f"{low}..{high}",), name
    assert set(_CHOICES) | set(_BOOLEANS) | set(_RANGES) == set(Rules.option_names())


def test_every_option_is_defined_by_the_rules_its_row_cites() -> None:
    """The option's name, each value other than the default, and a number's default appear in
    the rules the table cites (the default of a choice may be said in words: "3·k", "no
    effect", "share first place")."""
    for name, row in options_table().items():
        text = cited_text(row["rules"]).replace(",", "")  # "1,000" is 1000
        assert f"`{name}" in text, f"{name} is not named in {row['rules']}"
        if name in _RANGES:
            assert re.search(rf"\b{row['default']}\b", text), f"{name} default not in its rules"
            continue
        for value in row["values"]:
            if value != row["default"]:
                assert re.search(rf"\b{value}\b", text), f"{name}={value} not in {row['rules']}"


# ---- docs/api.md ----


def api_routes() -> set[tuple[str, str]]:
    """(METHOD, /api/v1/path) of every view under /api/v1/ (DRF views and the async event
    streams), path parameters as {name}."""
    routes: set[tuple[str, str]] = set()

    def walk(patterns: list[Any], prefix: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                route = "/" + prefix + str(pattern.pattern)
                view = getattr(pattern.callback, "cls", None)
                path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
                if route.startswith("/api/v1/") and iscoroutinefunction(pattern.callback):
                    routes.add(("GET", path))  # an event stream (live.streams), GET only
                    continue
                if not route.startswith("/api/v1/") or view is None:
                    continue
                for method in ("get", "post", "put", "patch", "delete"):
                    if hasattr(view, method):
                        routes.add((method.upper(), path))

    walk(get_resolver().url_patterns, "")
    return routes


def test_api_md_documents_exactly_the_routes_of_the_url_conf() -> None:
    documented = set(
        re.findall(
            r"^#{2,4} `(GET|POST|PUT|PATCH|DELETE) (/api/v1/[^`\s?]*)`",
            read(API_MD),
            flags=re.MULTILINE,
        )
    )
    routes = api_routes()
    assert len(routes) >= 20
    assert routes - documented == set(), "routes missing from docs/api.md"
    assert documented - routes == set(), "docs/api.md documents routes that do not exist"


def test_api_md_error_table_is_the_error_handlers() -> None:
    text = read(API_MD)
    table = text[text.index("## Errors") :]
    table = table[: table.index("\n## ", 1)]
    rows = re.findall(r"^\| (\d{3}) \| `(\w+)` \|", table, flags=re.MULTILINE)
    documented = {code: int(status) for status, code in rows}
    assert len(rows) == len(documented), "a code listed twice"
    assert documented == {code: status for code, (status, _) in ERROR_CODES.items()}


# Answered by the framework on any route, so the schema does not list them route by route.
HTTP_LEVEL_CODES = {
    "forbidden",
    "method_not_allowed",
    "not_acceptable",
    "unsupported_media_type",
    "server_error",
}


@pytest.mark.django_db
def test_every_code_routes_answer_has_an_example_in_the_schema(api: Any) -> None:
    text = read(API_MD)
    documented = set(re.findall(r"^\| \d{3} \| `(\w+)` \|", text, flags=re.MULTILINE))
    schema = api.get("/api/v1/schema/?format=json").json()
    examples = {
        example["value"]["code"]
        for operations in schema["paths"].values()
        for operation in operations.values()
        for response in operation.get("responses", {}).values()
        for example in response.get("content", {})
        .get("application/json", {})
        .get("examples", {})
        .values()
        if isinstance(example.get("value"), dict) and "code" in example["value"]
    }
    assert documented - HTTP_LEVEL_CODES - examples == set(), "codes without a schema example"


@pytest.mark.django_db
def test_the_openapi_version_the_docs_name_is_the_served_one(api: Any) -> None:
    served = api.get("/api/v1/schema/?format=json").json()["openapi"]
    for document in documents():
        for named in re.findall(r"\bOpenAPI (\d+(?:\.\d+)*)", read(document)):
            assert served == named or served.startswith(named + "."), (document.name, named)
    assert re.search(rf"OpenAPI {re.escape(served)} document", read(API_MD)), served


def content_security_policy(html: str) -> dict[str, list[str]]:
    """directive -> sources of the page's `<meta http-equiv="Content-Security-Policy">`."""
    found = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert found, "no Content-Security-Policy"
    policy = {}
    for directive in found.group(1).split(";"):
        name, *sources = directive.split()
        policy[name] = sources
    return policy


def test_the_redoc_page_asks_no_other_host_for_anything(client: Any) -> None:
    """docs/api.md: the docs pages load nothing from a CDN. The page names no URL, and its
    policy lets the browser load nothing but this server's files, inline styles, data: images
    and ReDoc's blob: worker, so the bundle's logo from cdn.redoc.ly is never fetched
    (tests/browser/test_docs_pages.py watches the requests and the console of both pages in
    Chromium)."""
    response = client.get("/api/v1/docs/redoc/")
    assert response.status_code == 200
    html = response.content.decode()
    assert not re.search(r"(?:https?:)?//[\w.-]", html), "a URL in the page"
    policy = content_security_policy(html)
    assert policy["default-src"] == ["'self'"]
    for name, sources in policy.items():
        assert set(sources) <= {"'self'", "'unsafe-inline'", "data:", "blob:"}, (name, sources)
    assert "blob:" not in policy.get("script-src", policy["default-src"])
    assert "'unsafe-inline'" not in policy.get("img-src", policy["default-src"])


# ---- docs/operations.md ----

# Settings read from the environment by a library rather than by our code.
READ_BY_LIBRARIES = {"DATABASE_URL"}  # dj_database_url.config()
ENVIRONMENT_READ = re.compile(
    r"""(?:os\.environ\.get|os\.environ\.setdefault|os\.getenv|env_bool|env_list)"""
    r"""\(\s*["']([A-Z][A-Z0-9_]*)["']|os\.environ\[["']([A-Z][A-Z0-9_]*)["']\]"""
)


def settings_read() -> set[str]:
    """Every environment variable the server's code reads (the apps and pisyedili_api)."""
    names = set(READ_BY_LIBRARIES)
    for app in ("pisyedili_api", "games", "players", "tournaments"):
        for path in (REPO_ROOT / app).rglob("*.py"):
            if "migrations" not in path.parts:
                for found in ENVIRONMENT_READ.finditer(read(path)):
                    names.add(found.group(1) or found.group(2))
    return names


def settings_documented() -> set[str]:
    """The variables of the table of docs/operations.md "Settings"."""
    text = read(OPERATIONS_MD)
    table = text[text.index("\n## Settings\n") :]
    table = table[: table.index("\n## ", 1)]
    names: set[str] = set()
    for line in table.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`([A-Z][A-Z0-9_]*)`", line.split("|")[1]))
    return names


def test_operations_md_documents_every_setting_the_code_reads() -> None:
    read_by_code, documented = settings_read(), settings_documented()
    assert len(read_by_code) >= 60
    assert read_by_code - documented == set(), "settings missing from docs/operations.md"
    assert documented - read_by_code == set(), "docs/operations.md documents unread settings"


# ---- every document ----


def documents() -> list[Path]:
    return [REPO_ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def heading_anchors(path: Path) -> set[str]:
    """The fragments of a Markdown file's headings, as GitHub writes them."""
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", read(path), flags=re.MULTILINE):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("document", documents(), ids=lambda p: p.name)
def test_relative_links_resolve(document: Path) -> None:
    """Every relative link names a file of the repository, and a heading of it when it has a
    fragment."""
    links = re.findall(r"\]\(([^)\s]+)\)", read(document))
    broken = []
    for link in links:
        target, _, fragment = link.partition("#")
        if re.match(r"^[a-z]+:", target):
            continue  # a URL
        resolved = (document.parent / target).resolve() if target else document
        inside = resolved.exists() and REPO_ROOT in (resolved, *resolved.parents)
        if not inside or (
            fragment and resolved.suffix == ".md" and fragment not in heading_anchors(resolved)
        ):
            broken.append(link)
    assert broken == [], f"links in {document.name} to nothing in the repository: {broken}"


# ---- README.md ----


def test_readme_is_short() -> None:
    """The README says what this is, the two commands, the browser, the tour and where to read
    next; everything else lives in docs/ and is linked."""
    assert len(read(README_MD).splitlines()) <= README_MAX_LINES


def readme_tour() -> str:
    """The README's curl tour: its one shell block that talks to `PISYEDILI_URL`."""
    blocks = re.findall(r"^```sh\n(.*?)^```", read(README_MD), flags=re.MULTILINE | re.DOTALL)
    tours = [block for block in blocks if "PISYEDILI_URL" in block]
    assert len(tours) == 1, "the README has one tour"
    return tours[0]


def tour_checked(output: str) -> int:
    """Assert that a run of the tour printed what the README says it does; the moves played."""
    lines = output.splitlines()
    first, public, *moves, result, verified, replay, summary = lines
    view = json.loads(first)
    assert view["version"] >= 1 and view["phase"] in ("opening", "play"), view
    assert len(view["hand"]) == 7 and view["legal_moves"], view
    assert json.loads(public) == {**json.loads(public), "you": None, "hand": []}, public
    assert json.loads(public)["hand_counts"] == [7, 7, 7], public
    assert moves, "no move played"
    versions = [json.loads(line)["version"] for line in moves]
    assert all(isinstance(v, int) for v in versions), moves  # each move answered with its view
    assert versions == sorted(set(versions)), versions
    outcome = json.loads(result)
    assert outcome["winners"] and outcome["reason"] in ("shed", "stock_exhausted"), outcome
    assert len(outcome["penalties"]) == 3, outcome
    assert verified == "seed matches commitment: True"
    assert json.loads(replay)["positions"] >= len(moves) + 1, replay
    match = json.loads(summary)
    assert match["status"] == "finished", match
    assert [seat["seat"] for seat in match["seats"]] == [0, 1, 2], match
    assert all(seat["place"] is not None for seat in match["seats"]), match
    return len(moves)


@pytest.fixture
def make_run_server(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    """`make run`'s server (uvicorn on a SQLite file of its own, tasks in-process) with its own
    throttles: the tour meets the limits a newcomer's server has."""
    with test_embedded_sqlite_server.embedded(tmp_path) as server:
        yield server


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_readme_tour_runs_twice_in_a_row_against_make_run(make_run_server: Any) -> None:
    """The tour as a newcomer pastes it (bash, curl, jq, python3), run twice against one
    `make run` server: the second run registers a new player and plays a new match. Neither
    run is refused anything (the moves' throttle of `make run` included)."""
    missing = [tool for tool in ("bash", "curl", "jq", "python3") if shutil.which(tool) is None]
    if missing:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"the README's tour needs {missing} (CI=true: it must run)")
        pytest.skip(f"the README's tour needs {missing}")
    base, _, log = make_run_server
    env = {**os.environ, "PISYEDILI_URL": base.removesuffix("/api/v1")}
    for run in (1, 2):
        done = subprocess.run(
            ["bash", "-e", "-u", "-o", "pipefail", "-c", readme_tour()],
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert done.returncode == 0 and done.stderr == "", (
            f"run {run}: exit {done.returncode}\n{done.stdout}\n{done.stderr}\n"
            f"{log.read_text()[-2000:]}"
        )
        tour_checked(done.stdout)


def test_license_is_mit() -> None:
    text = read(REPO_ROOT / "LICENSE")
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 The Pis Yedili API authors" in text


SKIPPED_DIRS = {
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    "node_modules",
    "staticfiles",
    "build",
    "dist",
}
# Written in two pieces so that this file does not name them itself.
OUTSIDE_REFERENCES = re.compile(
    r"\.\./" + r"shared|\bshared/(?:RULES|API|DESIGN|STYLE)\.md|\b(?:RULES|API|DESIGN)" + r"\.md\b"
)


def repository_files() -> list[Path]:
    """Every file under the repository root, outside virtualenvs, caches and build output."""
    files = []
    for directory, subdirectories, names in os.walk(REPO_ROOT):
        subdirectories[:] = [
            d for d in subdirectories if d not in SKIPPED_DIRS and not d.endswith(".egg-info")
        ]
        files += [Path(directory, name) for name in names]
    return files


def test_nothing_refers_to_documents_outside_the_repository() -> None:
    """The rules, the contract and the design are docs/rules.md, docs/api.md and
    docs/architecture.md; a clone has nothing beside it to point at."""
    found = []
    for path in sorted(repository_files()):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # not a text file
        for number, line in enumerate(text.splitlines(), start=1):
            if OUTSIDE_REFERENCES.search(line):
                found.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()[:80]}")
    assert found == [], "\n".join(found)


def test_operations_md_shows_the_nginx_config_as_it_is() -> None:
    """docs/operations.md "Behind nginx" shows deploy/nginx.conf "as it is": the same text."""
    shown = re.search(r"```nginx\n(.*?)```", OPERATIONS_MD.read_text(), re.S)
    assert shown is not None, "docs/operations.md: no nginx config"
    assert shown.group(1) == (REPO_ROOT / "deploy" / "nginx.conf").read_text()
