"""mypy's plugins are in force (pyproject.toml [tool.mypy]): with django-stubs and
djangorestframework-stubs, a model field that does not exist and a user that may be anonymous
are errors. `make lint` runs mypy over every app."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

# A cold run (no .mypy_cache) takes about 10 s on one core; a warm one a few. One worker runs
# both, one after the other: mypy's cache is not shared safely between processes.
pytestmark = [pytest.mark.timeout(300), pytest.mark.xdist_group("mypy"), pytest.mark.tools]


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=280,
    )


def _mypy_on(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    """mypy, with the project's settings and plugins, on `source` alone (a module in tmp_path)."""
    module = tmp_path / "snippet.py"
    module.write_text(source, encoding="utf-8")
    return _mypy(str(module))


def test_the_django_plugin_reads_the_models(tmp_path: Path) -> None:
    # The plugin gives the manager its model: a field the model lacks is an error.
    run = _mypy_on(
        tmp_path,
        "from games.models import Match\n"
        "def version(match_id: str) -> int:\n"
        "    return Match.objects.get(id=match_id).no_such_field\n",
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert '"Match" has no attribute "no_such_field"' in run.stdout, run.stdout


def test_the_drf_stubs_type_the_request(tmp_path: Path) -> None:
    # A plain Request's user may be the AnonymousUser, which has no player; the authenticated
    # views say so with players.auth.AuthenticatedRequest.
    run = _mypy_on(
        tmp_path,
        "from rest_framework.request import Request\n"
        "from players.auth import AuthenticatedRequest\n"
        "from players.models import Player\n"
        "def caller(request: AuthenticatedRequest) -> Player:\n"
        "    return request.user.player\n"
        "def anyone(request: Request) -> Player:\n"
        "    return request.user.player\n",
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.count("error:") == 1, run.stdout
    assert ':7: error: Item "AnonymousUser"' in run.stdout, run.stdout
