"""The ASGI deployment's command as docs/operations.md gives it (uvicorn with
live.protocol.HttpProtocol, its flags), on the embedded default, against raw sockets: what a
client sends is bounded and answered in the API's JSON, and a forged X-Forwarded-For is nobody's
address."""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import yaml
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tests.backing_services import free_port, wait_serving

ROOT = Path(__file__).resolve().parents[2]
READ_TIMEOUT = 2.0


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
def deployment_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the deployment keeps its SQLite file and its log (`uvicorn.log`)."""
    return tmp_path_factory.mktemp("asgi-deployment")


@pytest.fixture(scope="module")
def deployment(deployment_dir: Path) -> Iterator[int]:
    """That command on a port of its own and a SQLite file of its own, its throttle of logins
    at 3 a minute and its read timeout at READ_TIMEOUT; the port."""
    tmp = deployment_dir
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
        LIVE_READ_TIMEOUT=str(READ_TIMEOUT),
    )
    manage = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
    subprocess.run(manage, cwd=ROOT, env=env, check=True, timeout=120)
    port = free_port()
    command = [*documented_uvicorn_command(), "--host", "127.0.0.1", "--port", str(port)]
    log = open(tmp / "uvicorn.log", "wb")  # noqa: SIM115
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_serving(server, f"http://127.0.0.1:{port}/api/v1/bots", tmp / "uvicorn.log")
        yield port
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def exchange(port: int, *parts: bytes, pause: float = 0) -> tuple[float, bytes]:
    """Send `parts` (`pause` s apart) on one connection, then read until the server closes it:
    the seconds it took and what the server sent."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT + 8) as sock:
        try:
            for i, part in enumerate(parts):
                if i and pause:
                    time.sleep(pause)
                sock.sendall(part)
        except OSError:  # closed by the server while sending
            pass
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:  # closed with what was sent left unread
            pass
    return time.monotonic() - started, answer


def json_error(answer: bytes) -> tuple[int, dict[str, str]]:
    """The status and the JSON body of an error response, whose headers must say so."""
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines)}
    assert headers["content-type"] == "application/json", answer
    assert int(headers["content-length"]) == len(body), answer
    error = json.loads(body)
    assert error["code"] == "invalid" and error["message"], error
    return int(status_line.split()[1]), error


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


# ---- malformed HTTP: the API's JSON error ----

GET = b"GET /api/v1/bots HTTP/1.1\r\nHost: 127.0.0.1\r\n"
MANY_HEADERS = b"".join(b"X-%d: 1234567890\r\n" % i for i in range(3000))


@pytest.mark.parametrize(
    ("sent", "status", "words"),
    [
        (b"GARBAGE\r\n\r\n", 400, "Malformed HTTP request"),
        (b"GET /api/v1/bots HTTP/9.9\r\nHost: a\r\n\r\n", 400, "Malformed HTTP request"),
        (GET + b"no colon here\r\n\r\n", 400, "Malformed HTTP request"),
        (
            b"POST /api/v1/matches HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n",
            400,
            "Malformed HTTP request",
        ),
        (GET + b"X-Big: " + b"x" * 40_000 + b"\r\n\r\n", 431, "at most 32768 bytes"),
        (GET + b"X-Big: " + b"x" * 4_000_000 + b"\r\n\r\n", 431, "at most 32768 bytes"),
        (GET + MANY_HEADERS + b"\r\n", 431, "at most 32768 bytes"),
        (
            GET + b"Accept-Language: tr\r\nX-Big: " + b"x" * 40_000 + b"\r\n\r\n",
            431,
            "en çok 32768 bayt",
        ),
        (
            b"GET /api/v1/lobby/events HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n",
            400,
            "Sec-WebSocket-Key",
        ),
        (
            b"GET /api/v1/lobby/events HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n"
            b"Accept-Language: tr\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n",
            400,
            "WebSocket el sıkışması reddedildi: missing Sec-WebSocket-Key",
        ),
    ],
    ids=[
        "request-line",
        "http-version",
        "header",
        "length-and-chunked",
        "header-too-large",
        "header-of-4-MB",
        "too-many-headers",
        "header-too-large-in-turkish",
        "websocket-handshake",
        "websocket-handshake-in-turkish",
    ],
)
def test_malformed_http_answers_json(deployment: int, sent: bytes, status: int, words: str) -> None:
    _, answer = exchange(deployment, sent)
    got, error = json_error(answer)
    assert got == status and words in error["message"], error


def test_a_well_formed_request_still_reaches_the_api(deployment: int) -> None:
    _, answer = exchange(
        deployment, GET + b"X-Fine: " + b"x" * 8000 + b"\r\nConnection: close\r\n\r\n"
    )
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]


# ---- slow requests are timed out ----


@pytest.mark.parametrize(
    ("parts", "pause"),
    [
        ((GET,), 0),  # headers never finished
        ((b"GET /api/v1/bots HTTP/1.1\r\n", *(b"X-Slow: 1\r\n",) * 12), 0.5),  # one at a time
        (
            (
                b"POST /api/v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n",
                b'{"username": ',
            ),
            0.5,
        ),  # a body never finished
    ],
    ids=["headers", "headers-trickled", "body"],
)
def test_a_request_not_sent_whole_in_time_is_408(
    deployment: int, parts: tuple[bytes, ...], pause: float
) -> None:
    took, answer = exchange(deployment, *parts, pause=pause)
    status, error = json_error(answer)
    assert status == 408 and "not sent whole" in error["message"], error
    assert READ_TIMEOUT - 0.2 < took < READ_TIMEOUT + 3


def test_a_connection_that_sends_nothing_is_closed(deployment: int) -> None:
    took, answer = exchange(deployment)
    assert answer == b"" and READ_TIMEOUT - 0.2 < took < READ_TIMEOUT + 3


def test_a_body_past_the_limit_is_refused_before_it_ends(deployment: int) -> None:
    """Only MAX_REQUEST_BODY_BYTES + 1 bytes are read: the refusal comes while the client is
    still sending, not once 10 MB are in (Django's ASGI handler reads a body whole first)."""
    head = (
        b"POST /api/v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 10000000\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", deployment), timeout=READ_TIMEOUT + 8) as sock:
        sock.sendall(head + b" " * 70_000)
        started = time.monotonic()
        answer = sock.recv(65536)
        took = time.monotonic() - started
        try:  # the rest of the answer; the connection closes at the read timeout
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
    assert answer.startswith(b"HTTP/1.1 400 ") and took < READ_TIMEOUT - 0.5, (took, answer)
    assert b'"code":"invalid"' in answer.replace(b" ", b"") and b"65536 bytes" in answer


# ---- WebSocket messages ----


def test_a_websocket_message_past_the_bound_closes_the_socket_with_1009(deployment: int) -> None:
    with connect(f"ws://127.0.0.1:{deployment}/api/v1/lobby/events", proxy=None) as ws:
        assert json.loads(ws.recv(timeout=10))["event"] == "ready"
        ws.send("x" * 4000)  # read and ignored
        ws.send("x" * 5000)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_a_websocket_refused_with_an_answer_is_no_error_in_the_log(
    deployment: int, deployment_dir: Path
) -> None:
    """A socket refused before it opens (here a ticket that is none) gets the API's answer as
    an HTTP response, which is the protocol doing its work, not a failure of the server: the
    log has Django's line for the 401 and no ERROR."""
    log = deployment_dir / "uvicorn.log"
    before = log.stat().st_size
    match = "00000000-0000-4000-8000-000000000000"
    url = f"ws://127.0.0.1:{deployment}/api/v1/matches/{match}/events?ticket=none"
    with pytest.raises(InvalidStatus) as refused:
        connect(url, proxy=None, open_timeout=10)
    response = refused.value.response
    assert response.status_code == 401 and json.loads(response.body)["code"], response.body
    deadline = time.monotonic() + 5
    while f"/api/v1/matches/{match}/events" not in log.read_bytes()[before:].decode():
        assert time.monotonic() < deadline, "no line for the refused socket"
        time.sleep(0.05)
    time.sleep(0.2)  # what the server logs after its answer
    written = log.read_bytes()[before:].decode()
    assert "ERROR" not in written, written


def test_the_compose_healthcheck_passes_on_a_serving_process_and_fails_on_none(
    deployment: int,
) -> None:
    """docker-compose.yml's healthcheck of the web replicas, run as written but for the port
    (the replica's 8001): exit 0 against this process (GET /api/v1/health), not 0 where
    nothing serves."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    check = compose["services"]["asgi-1"]["healthcheck"]["test"]
    assert check[0] == "CMD" and check[1] == "python" and ":8001/api/v1/health" in check[3]
    for port, passes in ((deployment, True), (free_port(), False)):
        words = [sys.executable, *[w.replace(":8001/", f":{port}/") for w in check[2:]]]
        done = subprocess.run(words, capture_output=True, timeout=20)
        assert (done.returncode == 0) is passes, done.stderr.decode()
