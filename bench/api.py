"""Move endpoint throughput and latency under load, beside a database ceiling on the same server.

Runs the web tier (uvicorn live.asgi, the deployment of docs/operations.md, `--workers`
processes) against PostgreSQL and loads it from 16 concurrent clients, each playing 2-seat
matches (both seats, human players, so only the API is measured, not bots):
  1. `POST /api/v1/matches/{id}/moves` while playing many matches (with the `GET …/state` a client
     needs to see the other seat's hand when the turn passes);
  2. `POST /bench/ceiling`: one transaction that locks a row, updates it and inserts a row — the
     least a move can cost in the database — served by the same processes: BENCH_ENDPOINTS=1
     makes the bench URL conf (pisyedili_api/urls_bench.py) its ROOT_URLCONF.
Prints requests/s and p50/p99 latency of each, and the move endpoint as a share of the ceiling.
After an uncounted warm-up (`--warmup`), the loads (moves in `draw` and `play` mode, and the
ceiling) take turns in slices (`--rounds`, default 4), so that a drift in the machine's speed
falls on all of them; each slice's shares are printed, with the lowest, median and highest
share of the move stream, and the server's and PostgreSQL's CPU time per request (psutil)
show where a request's time goes.

The tasks a move sends (scoring the deal it ends, settling the match, the luck estimate) run as
in production (`--tasks worker`, the default): on a private redis-server (a free port) to two
Celery workers, `-Q bots,scoring,celery` and `-Q analysis`, the analysis worker at the lowest
CPU priority (`chrt --idle 0`, docs/operations.md "Queues and workers"): background work that takes
what play leaves, on one machine with the web tier. Their CPU per deal is printed apart.
`--tasks eager` runs every task inside the request that sends it instead (the bench's older run
conditions: the move that ends a deal then pays for the deal's scoring and analysis).

    make bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pisyedili .venv/bin/python bench/api.py
    bench/api.py --clients 16 --seconds 20 --workers 3
    bench/api.py --tasks eager                 # tasks inside the requests, no broker
    bench/api.py --live local                  # live events not published to Redis
    bench/api.py --analysis none               # no worker on the analysis queue
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import psutil
import requests
from common import (
    ANALYSIS_PRIORITY,
    bench_database_url,
    ceiling_tables_create,
    cpu_seconds,
    free_port,
    percentile,
    pids_where,
    reset_database,
    wait_until_up,
)

ROOT = Path(__file__).resolve().parent.parent
PY = Path(sys.executable)


def in_groups(pgids: set[int]) -> Callable[[psutil.Process], bool]:
    def keep(process: psutil.Process) -> bool:
        try:
            return os.getpgid(process.pid) in pgids
        except OSError:
            return False

    return keep


def is_postgres(process: psutil.Process) -> bool:
    return process.name() == "postgres"


class CpuMeter:
    """CPU seconds of the web server (its process group), of PostgreSQL (local backends) and of
    the Celery workers (their process groups; none with `--tasks eager`), their ended children's
    included (common.cpu_seconds): where the time of a request goes, beside what the clients
    see."""

    def __init__(self, server_pgid: int, worker_pgids: set[int]) -> None:
        self.server, self.workers = in_groups({server_pgid}), in_groups(worker_pgids)

    def read(self) -> tuple[float, float, float]:
        return (
            cpu_seconds(pids_where(self.server)),
            cpu_seconds(pids_where(is_postgres)),
            cpu_seconds(pids_where(self.workers)),
        )


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.errors: dict[int, int] = {}

    def add(self, seconds: float, status: int, ok: bool) -> None:
        with self.lock:
            if ok:
                self.latencies.append(seconds)
            else:
                self.errors[status] = self.errors.get(status, 0) + 1


def register(session: requests.Session, base: str) -> str:
    name = "b" + uuid.uuid4().hex[:12]
    response = session.post(
        f"{base}/api/v1/auth/register", json={"username": name, "password": "bench-pass-1"}
    )
    response.raise_for_status()
    return response.json()["token"]


def play_matches(
    base: str,
    tokens: list[str],
    stop: threading.Event,
    posts: Recorder,
    gets: Recorder,
    matches: list[int],
    mode: str,
) -> None:
    """Play 2-seat matches with both seats' tokens.

    mode "play": each seat plays its first legal move; when the turn passes, a GET shows the
    next seat its hand (realistic mix, one GET per ~2 POSTs).
    mode "draw": after the opening club, seats alternate `draw` then `pass` (R-17: always legal in
    the play phase under draw_policy free) until the stock runs out and the deal ends; the POST
    answers carry the versions, so the stream is POSTs only and measures the move endpoint alone.
    """
    session = requests.Session()
    headers = [{"Authorization": f"Token {t}"} for t in tokens]

    def timed(recorder: Recorder, method: str, url: str, **kw: object) -> requests.Response:
        started = time.perf_counter()
        response = session.request(method, url, **kw)  # type: ignore[arg-type]
        recorder.add(time.perf_counter() - started, response.status_code, response.ok)
        return response

    while not stop.is_set():
        match = session.post(
            f"{base}/api/v1/matches", json={"seats": 2, "deals": 1}, headers=headers[0]
        ).json()
        moves_url = f"{base}/api/v1/matches/{match['id']}/moves"
        state_url = f"{base}/api/v1/matches/{match['id']}/state"
        session.post(f"{base}/api/v1/matches/{match['id']}/join", headers=headers[1])
        view = timed(gets, "GET", state_url, headers=headers[0]).json()
        while view["status"] == "active" and not stop.is_set():
            if view["turn"] is None:
                # The deal just ended (phase deal_over): scoring deals the next one on commit.
                view = timed(gets, "GET", state_url, headers=headers[view["you"]]).json()
                if view["turn"] is None:
                    time.sleep(0.01)
                continue
            if view["you"] == view["turn"]:
                actions = [m["action"] for m in view["legal_moves"]]
                if mode == "draw" and view["phase"] == "play" and "pass" in actions:
                    move = {"action": "pass"}
                elif mode == "draw" and view["phase"] == "play" and "draw" in actions:
                    move = {"action": "draw"}
                else:
                    move = view["legal_moves"][0]  # a play when there is one, so deals end
                seat = view["you"]
            elif mode == "draw" and view["phase"] == "play":
                move, seat = {"action": "draw"}, view["turn"]
            else:
                view = timed(gets, "GET", state_url, headers=headers[view["turn"]]).json()
                continue
            response = timed(
                posts,
                "POST",
                moves_url,
                json={**move, "version": view["version"]},
                headers=headers[seat],
            )
            if response.status_code != 200:
                break
            view = response.json()
        with posts.lock:
            matches.append(1)


def hit_ceiling(base: str, counter: int, stop: threading.Event, posts: Recorder) -> None:
    session = requests.Session()
    while not stop.is_set():
        started = time.perf_counter()
        response = session.post(f"{base}/bench/ceiling?counter={counter}")
        posts.add(time.perf_counter() - started, response.status_code, response.status_code == 200)


def run_phase(target, args_for, clients: int, seconds: float) -> float:
    stop = threading.Event()
    threads = [
        threading.Thread(target=target, args=args_for(i, stop), daemon=True) for i in range(clients)
    ]
    started = time.perf_counter()
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(timeout=30)
    return time.perf_counter() - started


def report(name: str, recorder: Recorder, elapsed: float) -> float:
    lat = recorder.latencies
    rate = len(lat) / elapsed
    print(
        f"{name:<28} {len(lat):>7} ok  {rate:>8.1f} req/s"
        f"  p50 {percentile(lat, 0.5) * 1000:6.1f} ms"
        f"  p99 {percentile(lat, 0.99) * 1000:6.1f} ms  mean {statistics.mean(lat) * 1000:6.1f} ms"
        + (f"  errors {recorder.errors}" if recorder.errors else "")
    )
    return rate


class Phase:
    """One kind of load (`draw`, `play` or `ceiling`), run in slices; totals over the slices."""

    def __init__(self) -> None:
        self.posts, self.gets = Recorder(), Recorder()
        self.matches: list[int] = []
        self.elapsed = self.server_cpu = self.database_cpu = self.worker_cpu = 0.0

    def run(
        self, base: str, pairs: list[list[str]], name: str, meter: CpuMeter, seconds: float
    ) -> None:
        if name == "ceiling":
            target, args_for = hit_ceiling, lambda i, stop: (base, i, stop, self.posts)
        else:
            target = play_matches
            args_for = lambda i, stop: (  # noqa: E731
                base,
                pairs[i],
                stop,
                self.posts,
                self.gets,
                self.matches,
                name,
            )
        server_before, database_before, worker_before = meter.read()
        self.elapsed += run_phase(target, args_for, len(pairs), seconds)
        server_after, database_after, worker_after = meter.read()
        self.server_cpu += server_after - server_before
        self.database_cpu += database_after - database_before
        self.worker_cpu += worker_after - worker_before


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20, help="per phase, over all rounds")
    parser.add_argument("--rounds", type=int, default=4, help="slices each phase is run in")
    parser.add_argument("--warmup", type=float, default=2, help="seconds per phase, not counted")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--port", type=int, default=8432)
    parser.add_argument(
        "--live",
        choices=["redis", "local"],
        default="redis",
        help="live events published to Redis (production), or in-process only: what the"
        " fan-out costs a move is the difference",
    )
    parser.add_argument(
        "--analysis",
        choices=["worker", "none"],
        default="worker",
        help="with --tasks worker: the analysis queue's worker, or none (its work waits in Redis):"
        " what the luck estimates on the same cores cost the web tier is the difference",
    )
    parser.add_argument(
        "--tasks",
        choices=["worker", "eager"],
        default="worker",
        help="Celery workers on a private Redis (production), or every task inside its request",
    )
    args = parser.parse_args()
    # A SIGTERM (`timeout`, a CI job's end) stops the servers, workers and Redis it started too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    url = bench_database_url("pisyedili_bench", "bench/api.py")
    reset_database(url)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "BENCH_ENDPOINTS": "1",
        "CELERY_TASK_ALWAYS_EAGER": "1" if args.tasks == "eager" else "0",
        "THROTTLE_AUTH": "100000/min",
        # Moves are counted (the throttle's cost is measured) but never refused.
        "THROTTLE_MATCH_MOVE": "100000/sec",
        "THROTTLE_MATCH": "100000/min",  # tables made by the dozen
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        # Production settings need a key; the bench's own unless one is given (make bench).
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or f"bench-api-{uuid.uuid4().hex}",
        # Live events (published on every move, both deployments) under a prefix of this run.
        "LIVE_CHANNEL_PREFIX": f"bench-api-{uuid.uuid4().hex[:8]}",
    }
    helpers: list[subprocess.Popen[bytes]] = []
    if args.tasks == "worker":
        redis_port = free_port()
        helpers.append(
            subprocess.Popen(
                ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no"],
                stdout=subprocess.DEVNULL, start_new_session=True,
            )
        )  # fmt: skip
        broker = f"redis://127.0.0.1:{redis_port}/0"
        env |= {
            "CELERY_BROKER_URL": broker,
            "LIVE_REDIS_URL": broker if args.live == "redis" else "",
        }
    subprocess.run([str(PY), "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    ceiling_tables_create(env)
    servers = {"asgi": start_server(args, env)}
    if args.tasks == "worker":
        celery = [str(PY.with_name("celery")), "-A", "pisyedili_api", "worker", "-c", "1",
                  "-l", "warning", "--without-gossip", "--without-mingle"]  # fmt: skip
        pools = [("bots,scoring,celery", [])]
        if args.analysis == "worker":
            pools.append(("analysis", ANALYSIS_PRIORITY))
        for queues, priority in pools:
            helpers.append(
                subprocess.Popen(
                    [*priority, *celery, "-Q", queues, "-n", f"bench-{queues.split(',')[0]}@%h"],
                    cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                )
            )  # fmt: skip
    try:
        for base, _ in servers.values():
            wait_until_up(base)
        print(f"asgi: uvicorn live.asgi, {args.workers} workers (uvloop)")
        print(
            f"PostgreSQL {url}; {args.clients} clients, {args.seconds:.0f} s per phase in"
            f" {args.rounds} slices\n"
        )

        # Players are registered before the clock starts (password hashing is not what we measure).
        first = next(iter(servers.values()))[0]
        with requests.Session() as session:
            pairs = [
                [register(session, first), register(session, first)] for _ in range(args.clients)
            ]
        print(
            "tasks: "
            + (
                "Celery workers -Q bots,scoring,celery"
                + (
                    f" and ({' '.join(ANALYSIS_PRIORITY)}) -Q analysis"
                    if args.analysis == "worker"
                    else ""
                )
                + ", private Redis"
                if args.tasks == "worker"
                else "eager, inside the request that sends them"
            )
            + "; live events "
            + ("to Redis" if args.live == "redis" and args.tasks == "worker" else "in-process")
        )
        workers = {proc.pid for proc in helpers[1:]}
        meters = {name: CpuMeter(proc.pid, workers) for name, (_, proc) in servers.items()}
        # Warm-up, not counted: every worker thread loads the URLconf, opens its connection and
        # imports what the first move of each kind needs (the tasks module, the broker client).
        for name, (base, _) in servers.items():
            for kind in ("draw", "play", "ceiling"):
                Phase().run(base, pairs, kind, meters[name], args.warmup)
        phases = {name: {k: Phase() for k in ("draw", "play", "ceiling")} for name in servers}
        draw_shares: dict[str, list[float]] = {name: [] for name in servers}
        slice_seconds = args.seconds / args.rounds
        for round_number in range(1, args.rounds + 1):
            # The phases (and servers) take turns in short slices, so a drift in the machine's
            # speed during the run (other tenants, heat) falls on all of them alike.
            for name, (base, _) in servers.items():
                shares = []
                for kind, phase in phases[name].items():
                    before = (len(phase.posts.latencies), phase.elapsed)
                    phase.run(base, pairs, kind, meters[name], slice_seconds)
                    posts = len(phase.posts.latencies) - before[0]
                    shares.append(posts / (phase.elapsed - before[1]))
                print(
                    f"round {round_number} {name:>8}: draw/pass {shares[0]:6.1f} POST/s, with"
                    f" plays {shares[1]:6.1f} POST/s, ceiling {shares[2]:6.1f}/s"
                    f" → {shares[0] / shares[2]:6.1%} / {shares[1] / shares[2]:6.1%}"
                )
                draw_shares[name].append(shares[0] / shares[2])
        for name in servers:
            summary(name, phases[name], draw_shares[name], args.clients)
    finally:
        # The web servers first, then the workers (each finishes its task), Redis last: a
        # process whose Redis went away first logs its reconnecting, or its lost task. A
        # worker's SIGTERM goes to its main process only, which stops its pool once the task
        # at hand is done (a pool process sent SIGTERM itself dies mid-task: WorkerLostError).
        def group(proc: subprocess.Popen[bytes]) -> None:
            os.killpg(proc.pid, signal.SIGTERM)

        def main_only(proc: subprocess.Popen[bytes]) -> None:
            proc.terminate()

        web = [proc for _, proc in servers.values()]
        for procs, stop in ((web, group), (helpers[:0:-1], main_only), (helpers[:1], group)):
            for proc in procs:
                stop(proc)
            for proc in procs:
                proc.wait(timeout=60)


def start_server(
    args: argparse.Namespace, env: dict[str, str]
) -> tuple[str, subprocess.Popen[bytes]]:
    """uvicorn (the deployment of docs/operations.md "Live play") on `--port`."""
    port = args.port
    command = [
        str(PY.with_name("uvicorn")), "live.asgi:application",
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(args.workers),
        "--loop", "uvloop", "--http", "live.asgi:HttpProtocol", "--no-access-log",
        "--no-proxy-headers", "--ws-max-size", "4096", "--timeout-graceful-shutdown", "10",
        "--log-level", "warning",
    ]  # fmt: skip
    proc = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    return f"http://127.0.0.1:{port}", proc


def summary(
    server: str, phases: dict[str, Phase], draw_shares: list[float], clients: int
) -> dict[str, float]:
    """Print one server's figures; its POST/s by phase."""
    print(f"\n== {server}")
    rates = {}
    for name, phase in phases.items():
        if name == "ceiling":
            rates[name] = report("POST /bench/ceiling", phase.posts, phase.elapsed)
        else:
            print(f"mode {name}: {len(phase.matches)} matches played")
            rates[name] = report(f"  POST …/moves ({name})", phase.posts, phase.elapsed)
            report(f"  GET …/state ({name})", phase.gets, phase.elapsed)
        requests_served = len(phase.posts.latencies) + len(phase.gets.latencies)
        print(
            f"  CPU per request: {server} {phase.server_cpu / requests_served * 1000:5.2f} ms,"
            f" PostgreSQL {phase.database_cpu / requests_served * 1000:5.2f} ms"
        )
        if phase.worker_cpu and phase.matches:
            print(
                f"  Celery workers: {phase.worker_cpu / len(phase.matches) * 1000:6.1f} ms CPU per"
                " deal played (1-deal matches; the analysis backlog may run on after the phase)"
            )
    little = {
        name: clients / statistics.mean(phase.posts.latencies) for name, phase in phases.items()
    }
    print(
        f"move POSTs only (draw/pass stream): {rates['draw']:7.1f} POST/s"
        f" = {rates['draw'] / rates['ceiling']:6.1%} of the ceiling"
        f" (by round: min {min(draw_shares):.1%}, median"
        f" {statistics.median(draw_shares):.1%}, max {max(draw_shares):.1%})"
    )
    print(
        f"moves with plays + the GETs between: {rates['play']:7.1f} POST/s"
        f" = {rates['play'] / rates['ceiling']:6.1%} of the ceiling"
        f" (clients/mean latency: {little['play'] / little['ceiling']:6.1%})"
    )
    return rates


if __name__ == "__main__":
    main()
