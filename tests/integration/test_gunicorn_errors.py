"""Malformed HTTP under gunicorn (the production server) answers JSON like every API error:
gunicorn answers it itself, before Django, with the body of gunicorn.conf.py's write_json_error."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.backing_services import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory):
    """The web command of docs/operations.md "The full stack" (gunicorn pisyedili_api.wsgi …
    -k gthread) from the checkout."""
    tmp = tmp_path_factory.mktemp("gunicorn")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="pisyedili_api.settings",
        DJANGO_SECRET_KEY="test-only-key-of-the-gunicorn-errors-test",
        DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}",
    )
    port = free_port()
    command = [str(Path(sys.executable).with_name("gunicorn")), "pisyedili_api.wsgi"]
    command += ["-b", f"127.0.0.1:{port}", "-w", "1", "-k", "gthread", "--threads", "2"]
    log = open(tmp / "gunicorn.log", "wb")  # noqa: SIM115
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while True:
        assert server.poll() is None, (tmp / "gunicorn.log").read_text()
        try:
            requests.get(f"http://127.0.0.1:{port}/api/v1/bots", timeout=2)
            break
        except (requests.ConnectionError, requests.Timeout):  # not up, or still booting
            assert time.monotonic() < deadline, "gunicorn did not come up"
            time.sleep(0.2)
    yield port
    server.terminate()
    server.wait(timeout=30)
    log.close()


def raw(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return int(status_line.split()[1]), {k.lower(): v for k, v in headers.items()}, body


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        (b"GARBAGE\r\n\r\n", 400, "invalid"),
        (b"GET /api/v1/bots HTTP/9.9\r\nHost: a\r\n\r\n", 400, "invalid"),
        (b"GET /api/v1/bots HTTP/1.1\r\nHost: a\r\nno colon here\r\n\r\n", 400, "invalid"),
        (
            b"GET /api/v1/bots HTTP/1.1\r\nHost: a\r\nX-Big: " + b"x" * 9000 + b"\r\n\r\n",
            431,
            "invalid",
        ),
        (
            b"POST /api/v1/matches HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n",
            400,
            "invalid",
        ),
    ],
    ids=["request-line", "http-version", "header", "header-too-large", "length-and-chunked"],
)
def test_malformed_http_answers_json(gunicorn, request_bytes, status, code):
    got_status, headers, body = raw(gunicorn, request_bytes)
    assert got_status == status, body
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(body)
    answer = json.loads(body)
    assert answer["code"] == code and answer["message"], answer


def test_a_well_formed_request_still_reaches_the_api(gunicorn):
    status, headers, body = raw(
        gunicorn, b"GET /api/v1/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    assert status == 200 and headers["content-type"].startswith("application/json"), body
