"""The web client is served by the project itself: its page at `/`, its modules and styles
through WhiteNoise, nothing else of web/ (its dev tools, node_modules); and `make run` serves
it under uvicorn on the embedded default, with the event streams pushing (ASGI), no Node.js
needed at run time."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import psutil
import pytest
import requests
from websockets.sync.client import connect

from tests.backing_services import free_port, wait_serving
from tests.browser.harness import Person
from tests.helpers import make_run_environment

ROOT = Path(__file__).resolve().parents[2]


def test_the_page_is_served_at_the_root(client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    page = b"".join(response.streaming_content).decode()
    assert '<script type="module" src="/app/main.js">' in page
    assert "cdn" not in page.lower()


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/app/main.js", "text/javascript"),
        ("/app/views/table.js", "text/javascript"),
        ("/app/fairness.js", "text/javascript"),
        ("/app/style.css", "text/css"),
    ],
)
def test_the_modules_are_served(client, path: str, kind: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response["Content-Type"].startswith(kind)
    source = (ROOT / "web" / path.lstrip("/")).read_text(encoding="utf-8")
    assert response.content.decode() == source


@pytest.mark.parametrize("encoding", ["br", "gzip"])
def test_the_modules_are_sent_compressed_and_revalidated(client, encoding: str) -> None:
    """No build step compresses the modules ahead: the server does, as the browser accepts."""
    import gzip

    import brotli

    source = (ROOT / "web" / "app" / "i18n.js").read_bytes()
    response = client.get("/app/i18n.js", headers={"accept-encoding": f"{encoding}, deflate"})
    assert response.status_code == 200
    assert response["Content-Encoding"] == encoding
    assert "Accept-Encoding" in response["Vary"]
    unpack = brotli.decompress if encoding == "br" else gzip.decompress
    assert unpack(response.content) == source
    assert int(response["Content-Length"]) == len(response.content) < len(source) / 2
    again = client.get(
        "/app/i18n.js",
        headers={"accept-encoding": encoding, "if-none-match": response["ETag"]},
    )
    assert again.status_code == 304
    plain = client.get("/app/i18n.js")
    assert "Content-Encoding" not in plain and plain.content == source


def test_the_service_worker_is_served_at_the_root(client) -> None:
    """Its scope is the whole site only from there; it imports its words from the page's."""
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert "no-cache" in response["Cache-Control"]
    assert "default-src 'self'" in response["Content-Security-Policy"]
    source = (ROOT / "web" / "sw.js").read_text(encoding="utf-8")
    assert b"".join(response.streaming_content).decode() == source
    assert 'from "/app/notices.js"' in source


@pytest.mark.parametrize(
    "path",
    [
        "/package.json",
        "/package-lock.json",
        "/tsconfig.json",
        "/node_modules/.bin/tsc",
        "/app/../package.json",
        "/index.html",
        "/app/sw.js",
    ],
)
def test_nothing_else_of_web_is_served(client, path: str) -> None:
    assert client.get(path).status_code == 404


def test_no_module_loads_anything_from_another_host() -> None:
    for module in (ROOT / "web").glob("app/**/*.js"):
        text = module.read_text(encoding="utf-8")
        assert not re.search(r"""(import|from)\s*\(?\s*["']https?:""", text), module
        assert 'fetch("http' not in text and "fetch('http" not in text, module


@contextmanager
def _make_run_started(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str, Path]]:
    """`make run` itself (migrate, then uvicorn) on a SQLite file of its own, in a process
    group of its own: the process (make's), the server's address and its log; the group gets
    SIGTERM at the end. Its environment is `make run`'s but for the moves' throttle, raised:
    the tests play whole deals at the machine's speed."""
    env = make_run_environment(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", THROTTLE_MATCH_MOVE="100000/sec"
    )
    port = free_port()
    log_path = tmp_path / "make-run.log"
    log = open(log_path, "wb")  # noqa: SIM115
    server = subprocess.Popen(
        ["make", "run", f"PORT={port}", f"PY={sys.executable}", f"VENV={sys.prefix}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_serving(server, f"{base}/api/v1/bots", log_path, seconds=120)
        yield server, base, log_path
    finally:
        with suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()


@pytest.fixture
def make_run(tmp_path: Path) -> Iterator[str]:
    """`make run`'s address (_make_run_started)."""
    with _make_run_started(tmp_path) as (_server, base, _log):
        yield base


@pytest.mark.timeout(300)
@pytest.mark.live
def test_make_run_serves_the_client_and_live_streams(make_run: str) -> None:
    page = requests.get(f"{make_run}/", timeout=10)
    assert page.status_code == 200 and "/app/main.js" in page.text
    module = requests.get(f"{make_run}/app/main.js", timeout=10)
    assert module.status_code == 200
    assert module.headers["Content-Type"].startswith("text/javascript")
    # Web Push is on, with the checkout's own VAPID key (.vapid-key).
    key = requests.get(f"{make_run}/api/v1/push/vapid-public-key", timeout=10).json()
    assert key["enabled"] is True and len(key["public_key"]) == 87

    api = f"{make_run}/api/v1"
    person = Person(make_run)
    auth, match_id = person.headers, person.create(2, ["greedy"])
    # ASGI: the stream sends the view and stays open (under WSGI it would end at once with
    # `reconnect`); a move made meanwhile arrives on it as a newer version.
    with requests.get(
        f"{api}/matches/{match_id}/events", headers=auth, stream=True, timeout=30
    ) as stream:
        lines = stream.iter_lines(decode_unicode=True)
        first = _next_event(lines)
        assert first["event"] == "state"
        version = int(first["id"])
        view = requests.get(f"{api}/matches/{match_id}/state", headers=auth, timeout=10).json()
        assert view["turn"] == view["you"] == 0  # seat 0 opens deal 1
        move = view["legal_moves"][0]
        answer = requests.post(
            f"{api}/matches/{match_id}/moves",
            json={**move, "version": view["version"]},
            headers=auth,
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        second = _next_event(lines)
        assert second["event"] == "state"
        assert int(second["id"]) > version
    # The stream's WebSocket form, as a browser opens it (asking for compression): the same
    # view, uncompressed (docs/operations.md "Live play": compression costs memory per socket).
    url = make_run.replace("http://", "ws://") + f"/api/v1/matches/{match_id}/events"
    with connect(url, additional_headers=auth, compression="deflate", proxy=None) as socket:
        assert "Sec-WebSocket-Extensions" not in socket.response.headers
        state = json.loads(socket.recv(timeout=10))
        assert state["event"] == "state" and state["id"] >= int(second["id"])


def _next_event(lines: Iterator[str]) -> dict[str, str]:
    event: dict[str, str] = {}
    for line in lines:
        if line == "":
            if "event" in event:
                return event
            event = {}
        elif not line.startswith(":") and ":" in line:
            key, _, value = line.partition(":")
            event[key] = value.strip()
    raise AssertionError("the stream ended")


@pytest.mark.timeout(300)
@pytest.mark.live
@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm", "ctrl-c as it starts"])
def test_make_run_stops_with_its_analysis_process_and_nothing_left(
    tmp_path: Path, stop: str
) -> None:
    """A deal played under `make run` starts the embedded analysis process (its luck). Stopped
    as a terminal's Ctrl-C does (SIGINT to the whole process group) or as a process manager
    does (SIGTERM to the server alone), once that process has run its job or as soon as it
    exists (still starting), the server ends it itself and exits within its graceful timeout,
    with no traceback and no resource left to the tracker."""
    with _make_run_started(tmp_path) as (server, base, log_path):
        api = f"{base}/api/v1"
        person = Person(base)
        auth, match_id = person.headers, person.create(2, ["greedy"], deals=1)
        person.play_out(match_id)
        (uvicorn,) = [
            p for p in psutil.Process(server.pid).children() if "uvicorn" in " ".join(p.cmdline())
        ]
        deadline = time.monotonic() + 60
        if stop == "ctrl-c as it starts":
            while not any("spawn_main" in " ".join(p.cmdline()) for p in uvicorn.children()):
                assert time.monotonic() < deadline, "no analysis process started"
                time.sleep(0.01)
        else:
            # The deal's luck, estimated in the analysis process: it is up and has run a job.
            deal = f"{api}/matches/{match_id}/deals/1"
            while requests.get(deal, headers=auth, timeout=10).json()["luck"] is None:
                assert time.monotonic() < deadline, "the deal's luck was not estimated"
                time.sleep(0.2)
        helpers = uvicorn.children()  # the analysis process and multiprocessing's tracker
        started = time.monotonic()
        if stop == "sigterm":
            uvicorn.send_signal(signal.SIGTERM)
        else:
            os.killpg(server.pid, signal.SIGINT)
        uvicorn.wait(timeout=15)
        assert time.monotonic() - started < 10
        _gone, alive = psutil.wait_procs(helpers, timeout=5)
        assert not alive, alive
        server.wait(timeout=15)
    log = log_path.read_text()
    assert "Application shutdown complete." in log
    assert "Traceback" not in log, log
    assert "leaked" not in log, log
