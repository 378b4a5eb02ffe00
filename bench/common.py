"""What the server benchmarks share: a scratch PostgreSQL database of their own, the tables of
the ceiling endpoint, waiting for the server to answer, and the nearest-rank percentile they
report."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import psycopg
import requests

# The analysis worker's command prefix: the lowest CPU priority (docs/operations.md "Queues and
# workers").
ANALYSIS_PRIORITY = ["chrt", "--idle", "0"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def bench_database_url(name: str, script: str) -> str:
    """DATABASE_URL with its database renamed to `name` (the bench's own); PostgreSQL only."""
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/pisyedili")
    parts = urlparse(base)
    if not parts.scheme.startswith("postgres"):
        sys.exit(f"{script} needs DATABASE_URL=postgres://…")
    return urlunparse(parts._replace(path=f"/{name}"))


def _admin(url: str) -> psycopg.Connection:
    return psycopg.connect(urlunparse(urlparse(url)._replace(path="/postgres")), autocommit=True)


def reset_database(url: str) -> None:
    """Drop the database of `url` (whoever is connected) and create it empty."""
    name = urlparse(url).path.lstrip("/")
    with _admin(url) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")


def drop_database(url: str) -> None:
    name = urlparse(url).path.lstrip("/")
    with _admin(url) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def ceiling_tables_create(env: dict[str, str]) -> None:
    """The tables of `POST /bench/ceiling` (games.bench_views.SETUP_SQL) in the database of
    `env`'s DATABASE_URL, migrated already."""
    code = (
        "from games.bench_views import SETUP_SQL; from django.db import connection\n"
        "with connection.cursor() as c:\n    [c.execute(s) for s in SETUP_SQL]"
    )
    root = Path(__file__).resolve().parent.parent
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code], cwd=root, env=env, check=True
    )


def wait_until_up(base: str, seconds: float = 20) -> None:
    """Until the API at `base` answers `GET /api/v1/bots`; exit after about `seconds`."""
    for _ in range(int(seconds * 10)):
        try:
            if requests.get(f"{base}/api/v1/bots", timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    sys.exit(f"the server at {base} did not start")


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank q-quantile of `values` (NaN when there are none)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def child_pids(parent: int) -> list[int]:
    """The processes whose parent is `parent` (Linux /proc): a server master's workers."""
    pids = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2 :].split()[1]) == parent:
            pids.append(int(entry.name))
    return pids
