"""The ASGI deployment's command as docs/operations.md gives it (uvicorn with
pisyedili_api.asgi.HttpProtocol, its flags), on the embedded default: a forged X-Forwarded-For
is nobody's address."""

from __future__ import annotations

import os
import re
import secrets
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.backing_services import free_port

ROOT = Path(__file__).resolve().parents[2]


def documented_uvicorn_command() -> list[str]:
    """The web command of docs/operations.md "The full stack", one process."""
    text = (ROOT / "docs" / "operations.md").read_text()
    found = re.search(r"^\.venv/bin/uvicorn .*?(?<!\\)$", text, flags=re.MULTILINE | re.DOTALL)
    assert found, "no uvicorn command in docs/operations.md"
    words = shlex.split(found.group(0).replace("\\\n", " "), comments=True)
    for option in ("--workers", "--host", "--port"):
        if option in words:
            at = words.index(option)
            del words[at : at + 2]
    return [sys.executable, "-m", "uvicorn", *words[1:]]


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """That command on a port of its own and a SQLite file of its own, its throttle of logins
    at 3 a minute; the port."""
    tmp = tmp_path_factory.mktemp("asgi-deployment")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "CELERY_", "LIVE_", "CACHE_", "NUM_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="pisyedili_api.settings",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}",
        EMBEDDED_BEAT="0",
        THROTTLE_AUTH="3/min",
    )
    manage = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
    subprocess.run(manage, cwd=ROOT, env=env, check=True, timeout=120)
    port = free_port()
    command = [*documented_uvicorn_command(), "--host", "127.0.0.1", "--port", str(port)]
    log = open(tmp / "uvicorn.log", "wb")  # noqa: SIM115
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, (tmp / "uvicorn.log").read_text()
            try:
                requests.get(f"http://127.0.0.1:{port}/api/v1/bots", timeout=2)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, "uvicorn did not come up"
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


# ---- proxies as documented: NUM_PROXIES=0 trusts no X-Forwarded-For ----


def test_a_forged_x_forwarded_for_does_not_escape_the_throttle(deployment: int) -> None:
    """uvicorn would take each forged address as the client's (it trusts 127.0.0.1): every
    login would then be counted apart."""
    url = f"http://127.0.0.1:{deployment}/api/v1/auth/token"
    codes = [
        requests.post(
            url,
            json={"username": f"spoof{i}", "password": "x"},
            headers={"X-Forwarded-For": f"10.0.{i}.1", "Connection": "close"},
            timeout=10,
        ).status_code
        for i in range(5)
    ]
    assert codes == [401, 401, 401, 429, 429]
