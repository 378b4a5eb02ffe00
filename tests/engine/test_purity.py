"""The rules engine is pure Python (docs/architecture.md): importing it loads no Django, DRF or
Celery and none of the Django apps' models, services or tasks. `make lint` holds the rest: the
import-linter contract of pyproject.toml and mypy strict."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("django", "rest_framework", "celery", "games.models", "games.services", "games.tasks")


def _tool(name: str) -> str:
    """A console script of the running interpreter's environment, else one on PATH."""
    candidate = Path(sys.executable).parent / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed (it is a dev dependency in pyproject.toml)")
    return found


def _clean_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DJANGO_SETTINGS_MODULE", None)  # nothing may configure Django behind our back
    env["PYTHONPATH"] = str(ROOT)
    return env


def test_importing_the_engine_loads_no_django_drf_celery_or_app_modules() -> None:
    # Every module of the package (the bots included), not only what __init__ pulls in.
    script = (
        "import importlib, json, pkgutil, sys\n"
        "import games.engine\n"
        "for info in pkgutil.walk_packages(games.engine.__path__, 'games.engine.'):\n"
        "    importlib.import_module(info.name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    modules = json.loads(completed.stdout)
    assert "games.engine" in modules and "games.engine.transitions" in modules
    leaked = [
        name
        for name in modules
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN)
    ]
    assert leaked == []
