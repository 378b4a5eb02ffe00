"""Node.js for the web client's tests: the pinned dev tools of web/package-lock.json, installed
with `npm ci` into web/node_modules (git-ignored) when missing. Without npm the tests skip,
except under CI=true, where they fail: CI always checks the client."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"


def _missing(what: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{what} is needed to check the web client (CI=true)")
    pytest.skip(f"{what} is not installed")


def node() -> str:
    found = shutil.which("node")
    if found is None:
        _missing("node")
    return str(found)


def tools() -> Path:
    """web/node_modules/.bin with typescript and openapi-typescript at their pinned versions."""
    if shutil.which("npm") is None:
        _missing("npm")
    node()
    bin_dir = WEB / "node_modules" / ".bin"
    if not (bin_dir / "tsc").exists() or not (bin_dir / "openapi-typescript").exists():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=WEB,
            check=True,
            capture_output=True,
            timeout=600,
        )
    return bin_dir
