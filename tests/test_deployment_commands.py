"""The documented deployments as written (Makefile `run`, docker-compose.yml, docs/operations.md):
no known secret key, no port open beyond the machine unless the operator says so, and uvicorn
with the options that bound what a client sends and leave X-Forwarded-For to NUM_PROXIES."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"


def checkout(where: Path) -> Path:
    """A checkout with the repository's Makefile and a venv whose python runs `manage.py` and
    whose uvicorn only write down the key and the arguments they were started with; its pip
    writes down `start`, takes a second, then writes down `end`."""
    where.mkdir()
    shutil.copy(ROOT / "Makefile", where / "Makefile")
    (where / "pyproject.toml").touch()
    bin_ = where / ".venv" / "bin"
    bin_.mkdir(parents=True)
    calls = where / "calls"
    (bin_ / "python").write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = manage.py ]; then echo "manage.py $DJANGO_SECRET_KEY" >> {calls}\n'
        "exit 0; fi\n"
        'if [ "$1" = -m ] && [ "$2" = pip ]; then\n'
        f"  echo start >> {calls}; sleep 1; echo end >> {calls}; exit 0\n"
        "fi\n"
        f'exec {sys.executable} "$@"\n'
    )
    (bin_ / "uvicorn").write_text(f'#!/bin/sh\necho "uvicorn $DJANGO_SECRET_KEY $*" >> {calls}\n')
    for script in (bin_ / "python", bin_ / "uvicorn"):
        script.chmod(0o755)
    (where / ".venv" / ".installed-serve").touch()  # newer than pyproject.toml: installed
    return where


def make_run(where: Path, **env: str) -> list[list[str]]:
    """`make run` in `where` with no DJANGO_ variable set (but `env`): each command it ran, as
    [program, key, arguments…]."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "MAKE"))}
    done = subprocess.run(
        ["make", "run", "PORT=1"],
        cwd=where,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    calls = [line.split() for line in (where / "calls").read_text().splitlines()]
    (where / "calls").unlink()
    return calls


def test_make_run_takes_a_random_key_made_once_per_checkout(tmp_path: Path) -> None:
    first, second = checkout(tmp_path / "first"), checkout(tmp_path / "second")
    keys = []
    for where in (first, second):
        calls = make_run(where)
        assert [c[0] for c in calls] == ["manage.py", "uvicorn"]
        key_file = where / ".secret-key"
        key = key_file.read_text().strip()
        assert len(key) >= 50 and len(set(key)) >= 5  # what check --deploy asks of a key
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        assert calls[0][1] == calls[1][1] == key
        keys.append(key)
    assert keys[0] != keys[1]
    # Kept: the next run of a checkout has the same key (cursors and sessions stay valid).
    assert {call[1] for call in make_run(first)} == {keys[0]}
    # A key the environment sets wins, and the checkout's stays as it was.
    assert {call[1] for call in make_run(first, DJANGO_SECRET_KEY="k" * 50)} == {"k" * 50}
    assert (first / ".secret-key").read_text().strip() == keys[0]


def test_two_makes_that_install_at_once_take_turns_at_pip(tmp_path: Path) -> None:
    """`make run` and `make test` started together after pyproject.toml changed: each installs
    into the one venv, one pip after the other, never both at once. On a PATH with no flock(1)
    (util-linux's; macOS has none): only the programs the two rules run."""
    where = checkout(tmp_path / "checkout")
    path = tmp_path / "bin"
    path.mkdir()
    for program in ("make", "sh", "touch", "sleep"):
        found = shutil.which(program)
        assert found is not None, program
        (path / program).symlink_to(found)
    os.utime(where / "pyproject.toml")  # changed since the venv's installs
    os.utime(where / ".venv" / ".installed-serve", (1, 1))
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    clean["PATH"] = str(path)
    makes = [
        subprocess.Popen([path / "make", target], cwd=where, env=clean, stdout=subprocess.DEVNULL)
        for target in (".venv/.installed-serve", ".venv/.installed-dev")
    ]
    assert [make.wait(timeout=60) for make in makes] == [0, 0]
    assert (where / "calls").read_text().split() == ["start", "end", "start", "end"]


def test_the_key_file_is_never_committed() -> None:
    done = subprocess.run(
        ["git", "check-ignore", "-q", ".secret-key"], cwd=ROOT, capture_output=True, timeout=30
    )
    if done.returncode == 128:
        pytest.skip("not a git checkout")
    assert done.returncode == 0, "`.secret-key` is not in .gitignore"


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def test_docker_compose_has_no_key_and_refuses_to_start_without_one() -> None:
    environments = [
        service.get("environment", {}) for service in compose()["services"].values()
    ] + [compose()["x-app"]["environment"]]
    keys = [env["DJANGO_SECRET_KEY"] for env in environments if "DJANGO_SECRET_KEY" in env]
    assert len(keys) >= 2  # the services' shared environment and beat's own
    for key in keys:
        # Compose's `${VAR:?message}`: no default, and `up` stops with the message when unset.
        assert key.startswith("${DJANGO_SECRET_KEY:?") and key.endswith("}"), key


def test_docker_compose_publishes_its_ports_on_127_0_0_1_unless_told() -> None:
    published = [
        port for service in compose()["services"].values() for port in service.get("ports", [])
    ]
    assert len(published) == 1  # proxy (nginx, in front of the uvicorn replicas)
    for port in published:
        assert isinstance(port, str) and port.startswith("${BIND_ADDRESS:-127.0.0.1}:"), port


# ---- every documented uvicorn command ----


def ws_max_size_bound() -> int:
    """live.protocol.WS_MAX_SIZE, read from the source (importing it would
    set the process up as a server)."""
    found = re.search(r"^WS_MAX_SIZE = (\d+)$", (ROOT / "live" / "protocol.py").read_text(), re.M)
    assert found
    return int(found.group(1))


def documented_uvicorn_commands(tmp_path: Path) -> dict[str, list[str]]:
    """Each uvicorn command of the deployments, as words: what `make run` runs, the asgi service
    of docker-compose.yml, and the web command of docs/operations.md."""
    commands = {"make run": make_run(checkout(tmp_path / "checkout"))[1][2:]}
    services = compose()["services"]
    asgi = services["asgi-1"]["command"]
    assert services["asgi-2"]["command"] == asgi  # the two replicas behind nginx
    commands["docker-compose"] = shlex.split(asgi)[1:]
    text = (ROOT / "docs" / "operations.md").read_text()
    found = re.search(r"^\.venv/bin/uvicorn .*?(?<!\\)$", text, flags=re.M | re.S)
    assert found, "no uvicorn command in docs/operations.md"
    commands["operations.md"] = shlex.split(found.group(0).replace("\\\n", " "), comments=True)[1:]
    return commands


def test_every_documented_uvicorn_command_has_the_deployments_options(tmp_path: Path) -> None:
    for where, words in documented_uvicorn_commands(tmp_path).items():
        assert words[0] == "live.asgi:application", (where, words)
        options = " ".join(words)
        # The protocol that times out slow requests and answers malformed ones in JSON.
        assert "--http live.asgi:HttpProtocol" in options, where
        # X-Forwarded-For is the application's (NUM_PROXIES), never uvicorn's.
        assert "--no-proxy-headers" in words and "--proxy-headers" not in words, where
        assert "--forwarded-allow-ips" not in options, where
        size = words[words.index("--ws-max-size") + 1]
        assert 0 < int(size) <= ws_max_size_bound(), (where, size)
        # A stop (a deploy's SIGTERM, Ctrl-C) ends within a bound: the streams are told to
        # reconnect at once (tests/live/test_restart.py), a stuck request is cut off at it.
        grace = words[words.index("--timeout-graceful-shutdown") + 1]
        assert 0 < int(grace) <= 10, (where, grace)


def test_operations_md_gives_the_nginx_config_as_it_is() -> None:
    """docs/operations.md "Behind nginx" shows deploy/nginx.conf (docker-compose's and
    tests/live/test_nginx.py's) word for word."""
    text = (ROOT / "docs" / "operations.md").read_text()
    found = re.search(r"^```nginx\n(.*?)^```$", text, flags=re.M | re.S)
    assert found, "no nginx block in docs/operations.md"
    assert found.group(1) == (ROOT / "deploy" / "nginx.conf").read_text()
    proxy = compose()["services"]["proxy"]
    assert "./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro" in proxy["volumes"]
