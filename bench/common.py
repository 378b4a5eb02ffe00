"""What the server benchmarks share: a scratch PostgreSQL database of their own, the tables of
the ceiling endpoint, waiting for the server to answer, the nearest-rank percentile they
report, and the CPU time and memory of the processes they start (psutil)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import psutil
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


def child_pids(parent: int, *, recursive: bool = False) -> list[int]:
    """The processes whose parent is `parent` (a server master's workers), or with `recursive`
    every descendant of it; none once it is gone."""
    try:
        return [child.pid for child in psutil.Process(parent).children(recursive=recursive)]
    except psutil.NoSuchProcess:
        return []


def pids_where(keep: Callable[[psutil.Process], bool]) -> list[int]:
    """The processes of the machine that `keep` selects (one that ends meanwhile is left out)."""
    pids = []
    for process in psutil.process_iter():
        try:
            if keep(process):
                pids.append(process.pid)
        except psutil.NoSuchProcess:
            continue
    return pids


def cpu_seconds(pids: Iterable[int], *, ended_children: bool = True) -> float:
    """CPU time (user + system) used so far by `pids` (a process gone counts nothing), with
    `ended_children` the time of their children that have ended and been waited for too (a
    PostgreSQL backend that closed its connection: the postmaster reaped it), so that a
    process that ends during a measurement does not take its time out of it."""
    total = 0.0
    for pid in set(pids):
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
        if ended_children:
            total += times.children_user + times.children_system
    return total


def rss_mb(pids: Iterable[int]) -> float:
    """Resident memory of `pids` together, MB (a process gone counts nothing)."""
    total = 0
    for pid in set(pids):
        try:
            total += psutil.Process(pid).memory_info().rss
        except psutil.NoSuchProcess:
            continue
    return total / 2**20
