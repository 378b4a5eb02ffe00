"""Bot reply latency through a real Celery worker, beside the worker's no-op round trip.

Starts uvicorn, a Celery worker for the bots', scoring and default queues and one for the
analysis queue at the lowest CPU priority (the deployment of docs/operations.md), against
PostgreSQL and Redis, on a database and queues of its own, then plays 2-seat matches, one person
against the greedy bot (each deal's luck is estimated meanwhile, as in play):

  - bot reply: the person POSTs a move that leaves the bot on turn, then long-polls
    `GET …/state?after_version=<version of the answer>&wait=10` until the bot's move is visible.
    Timed from the POST's start ("move → reply visible") and from the POST's answer (the move
    has committed and `games.play_bot_turn` is on the broker by then);
  - no-op round trip: `games.noop` sent to the same worker and its result awaited (Redis result
    backend), measured in the same run while the worker is idle (before each of the person's
    moves).

Prints p50/p95 of each and the ratio of the p50s (target: bot reply ≤ 4 × no-op round trip).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pisyedili \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/bot_latency.py   # --turns 300 --pool prefork|solo --bot expert
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import requests
from celery import Celery
from common import (
    ANALYSIS_PRIORITY,
    bench_database_url,
    percentile,
    reset_database,
    wait_until_up,
)

ROOT = Path(__file__).resolve().parent.parent
PY = Path(sys.executable)
DB_NAME = "pisyedili_bot_latency"


def line(name: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return (
        f"{name:<44} n={len(ms):4d}  p50 {percentile(ms, 0.5):7.2f} ms  "
        f"p95 {percentile(ms, 0.95):7.2f} ms  mean {statistics.mean(ms):7.2f} ms"
    )


def pick(legal: list[dict]) -> dict:
    """A move for the person: the first legal play, else draw, else pass (keeps deals short)."""
    for action in ("play", "draw", "pass"):
        for move in legal:
            if move["action"] == action:
                return move
    raise AssertionError("no legal move")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=300, help="bot replies to measure")
    parser.add_argument("--pool", default="prefork", choices=["prefork", "solo"])
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--port", type=int, default=8432)
    parser.add_argument("--bot", default="greedy", help="the bot's strategy (default greedy)")
    args = parser.parse_args()

    url = bench_database_url(DB_NAME, "bench/bot_latency.py")
    reset_database(url)
    broker = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    backend = urlunparse(urlparse(broker)._replace(path="/1"))
    suffix = uuid.uuid4().hex[:8]
    bots_queue, scoring_queue = f"bench-bots-{suffix}", f"bench-scoring-{suffix}"
    default_queue, analysis_queue = f"bench-default-{suffix}", f"bench-analysis-{suffix}"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "CELERY_BROKER_URL": broker,
        "CELERY_RESULT_BACKEND": backend,
        "CELERY_BOT_QUEUE": bots_queue,
        "CELERY_SCORING_QUEUE": scoring_queue,
        "CELERY_TASK_DEFAULT_QUEUE": default_queue,
        "CELERY_ANALYSIS_QUEUE": analysis_queue,
        "THROTTLE_AUTH": "100000/min",
        # Moves are counted (the throttle's cost is measured) but never refused.
        "THROTTLE_MATCH_MOVE": "100000/sec",
        "THROTTLE_MATCH": "100000/min",  # tables made by the dozen
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50),
    }
    subprocess.run([str(PY), "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    base = f"http://127.0.0.1:{args.port}"
    web = [str(PY.with_name("uvicorn")), "live.asgi:application", "--host", "127.0.0.1"]
    web += ["--port", str(args.port), "--workers", "2", "--loop", "uvloop", "--no-access-log"]
    web += ["--http", "live.asgi:HttpProtocol", "--log-level", "warning"]
    celery = [str(PY.with_name("celery")), "-A", "pisyedili_api", "worker", "-l", "warning"]
    celery += ["-P", args.pool, "-c", str(args.concurrency), "--without-gossip", "--without-mingle"]
    worker = [*celery, "-Q", f"{bots_queue},{scoring_queue},{default_queue}"]
    analysis = [*ANALYSIS_PRIORITY, *celery, "-Q", analysis_queue]
    processes = [
        subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
        for command in (web, worker, analysis)
    ]
    client = Celery(broker=broker, backend=backend)
    try:
        wait_until_up(base)
        client.send_task("games.noop", queue=scoring_queue).get(timeout=60)  # worker is up
        print(
            f"uvicorn 2 workers, celery worker {args.pool} -c {args.concurrency} (bots, scoring, "
            f"default) and one under {' '.join(ANALYSIS_PRIORITY)} (analysis); "
            f"PostgreSQL {url}, Redis {broker}; {args.bot} bot, 2 seats\n"
        )
        session = requests.Session()
        name = "lat" + uuid.uuid4().hex[:10]
        token = session.post(
            f"{base}/api/v1/auth/register", json={"username": name, "password": "bench-pass-1"}
        ).json()["token"]
        session.headers["Authorization"] = f"Token {token}"

        from_post, from_answer, noop = [], [], []
        matches = 0
        while len(from_post) < args.turns:
            created = session.post(
                f"{base}/api/v1/matches", json={"seats": 2, "bots": [args.bot], "deals": 20}
            )
            created.raise_for_status()
            match_id, matches = created.json()["id"], matches + 1
            view = session.get(f"{base}/api/v1/matches/{match_id}/state").json()
            while view["status"] == "active" and len(from_post) < args.turns:
                if view["turn"] != 0:  # the bot's turn goes on, or a deal is being scored
                    view = session.get(
                        f"{base}/api/v1/matches/{match_id}/state",
                        params={"after_version": view["version"], "wait": 10},
                    ).json()
                    continue
                started = time.perf_counter()
                client.send_task("games.noop", queue=scoring_queue).get(timeout=10)
                noop.append(time.perf_counter() - started)

                body = {**pick(view["legal_moves"]), "version": view["version"]}
                started = time.perf_counter()
                answer = session.post(f"{base}/api/v1/matches/{match_id}/moves", json=body)
                answered = time.perf_counter()
                answer.raise_for_status()
                view = answer.json()
                if view["turn"] != 1:
                    continue  # still the person's turn, or the deal ended: no bot reply to time
                view = session.get(
                    f"{base}/api/v1/matches/{match_id}/state",
                    params={"after_version": view["version"], "wait": 10},
                ).json()
                seen = time.perf_counter()
                from_post.append(seen - started)
                from_answer.append(seen - answered)

        print(f"{matches} match(es), {len(from_post)} bot replies\n")
        print(line("bot reply visible, from the move's POST", from_post))
        print(line("bot reply visible, from the POST's answer", from_answer))
        print(line("no-op task round trip (games.noop)", noop))
        ratio = percentile(from_post, 0.5) / percentile(noop, 0.5)
        ratio_answer = percentile(from_answer, 0.5) / percentile(noop, 0.5)
        verdict = "met" if ratio <= 4 else "missed"
        print(
            f"\np50 bot reply / p50 no-op: {ratio:.1f}× from the POST, {ratio_answer:.1f}× "
            f"from its answer (target ≤ 4×: {verdict})"
        )
    finally:
        for process in processes:
            process.terminate()  # the main process only: a warm shutdown of its children
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        client.close()


if __name__ == "__main__":
    main()
