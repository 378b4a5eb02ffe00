"""CPU of one move POST inside one process, for comparing two revisions on a busy machine.

bench/api.py measures the move endpoint under load, which needs a machine doing nothing else.
This one plays the same draw/pass stream through Django's handler in one thread (the test
client: URL conf, middleware, DRF, the move service, PostgreSQL) and reports per move POST:

- `--measure time` (the default): user and system CPU (getrusage) a mid-deal move (median) and
  a deal-ending move (mean: with `--tasks eager` that move also runs the deal's scoring and
  analysis tasks);
- `--measure instructions`: the same stream re-run under `valgrind --tool=callgrind`, counting
  only the instructions of the mid-deal POSTs (each POST runs inside libc's `qsort`, called
  through ctypes with a one-element comparison, so `--toggle-collect=qsort_r` brackets exactly
  it). Instruction counts repeat whatever else the machine does; they leave out the kernel and
  the stalls of a busy CPU.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pisyedili .venv/bin/python bench/move_cpu.py
    bench/move_cpu.py --measure instructions --moves 100
    bench/move_cpu.py --broker redis://127.0.0.1:6391/0    # tasks sent, live events to Redis

Another revision: copy this file and bench/common.py into its checkout and run them there with
this venv; the code measured is that of the checkout the file is in. The database is the
bench's own, `pisyedili_move_cpu`, dropped and created afresh.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from common import bench_database_url, reset_database

ROOT = Path(__file__).resolve().parent.parent
PY = Path(sys.executable)
WARMUP = 40

_libc = ctypes.CDLL("libc.so.6")
_COMPARE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


def inside_qsort(call: Any) -> Any:
    """`call()` run from inside libc qsort_r (the comparison of a two-element sort), so that a
    callgrind run with `--toggle-collect=qsort_r` counts its instructions and nothing else."""
    box: dict[str, Any] = {}

    def compare(a: Any, b: Any) -> int:
        box["result"] = call()
        return 0

    pair = (ctypes.c_int * 2)(1, 2)
    _libc.qsort(pair, 2, ctypes.sizeof(ctypes.c_int), _COMPARE(compare))
    return box["result"]


def play(moves: int, *, bracket: bool) -> dict[str, Any]:
    """Play `moves` measured move POSTs (after WARMUP unmeasured ones) of 2-seat one-deal
    matches, both seats by one client: after the opening, draw then pass (R-17) until the deal
    ends. Returns the per-move CPU figures."""
    import django

    django.setup()
    from django.test import Client

    client = Client()

    def register() -> dict[str, str]:
        name = "c" + uuid.uuid4().hex[:12]
        body = {"username": name, "password": "bench-pass-1"}
        token = client.post("/api/v1/auth/register", body, content_type="application/json")
        return {"HTTP_AUTHORIZATION": f"Token {token.json()['token']}"}

    seats = [register(), register()]
    mid: list[tuple[float, float]] = []
    ending: list[float] = []
    bracketed = 0
    played = 0
    while played < WARMUP + moves:
        match = client.post(
            "/api/v1/matches", {"seats": 2, "deals": 1}, content_type="application/json", **seats[0]
        ).json()
        if "id" not in match:
            sys.exit(f"could not create a match: {match}")
        state = f"/api/v1/matches/{match['id']}/state"
        url = f"/api/v1/matches/{match['id']}/moves"
        client.post(
            f"/api/v1/matches/{match['id']}/join", "{}", content_type="application/json", **seats[1]
        )
        view = client.get(state, **seats[0]).json()
        while view["status"] == "active" and view["turn"] is not None:
            if played >= WARMUP + moves:
                break
            seat = view["turn"]
            if view["you"] != seat:
                view = client.get(state, **seats[seat]).json()
                continue
            actions = [m["action"] for m in view["legal_moves"]]
            if view["phase"] == "play" and "pass" in actions:
                move: dict[str, Any] = {"action": "pass"}
            elif view["phase"] == "play" and "draw" in actions:
                move = {"action": "draw"}
            else:
                move = view["legal_moves"][0]
            body = json.dumps({**move, "version": view["version"]})
            measured = played >= WARMUP
            in_bracket = bracket and measured and view["stock_count"] > 3
            before = resource.getrusage(resource.RUSAGE_SELF)

            def post(body: str = body, seat: int = seat, url: str = url) -> Any:
                return client.post(url, body, content_type="application/json", **seats[seat])

            response = inside_qsort(post) if in_bracket else post()
            after = resource.getrusage(resource.RUSAGE_SELF)
            played += 1
            bracketed += in_bracket
            if response.status_code != 200:
                sys.exit(f"move refused: {response.status_code} {response.content[:200]!r}")
            view = response.json()
            if measured:
                user = after.ru_utime - before.ru_utime
                system = after.ru_stime - before.ru_stime
                if view["turn"] is None or view["status"] != "active":
                    ending.append(user + system)
                else:
                    mid.append((user, system))
    return {"mid": mid, "ending": ending, "bracketed": bracketed}


def child(args: argparse.Namespace) -> None:
    """The measuring process: plays, prints its figures as one JSON line."""
    figures = play(args.moves, bracket=args.measure == "instructions")
    print("FIGURES " + json.dumps(figures))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--measure", choices=["time", "instructions"], default="time")
    parser.add_argument("--moves", type=int, default=1500, help="measured move POSTs")
    parser.add_argument("--tasks", choices=["eager", "none"], default="eager",
                        help="run the tasks a move sends in the request, or send them to "
                        "--broker where no worker takes them")  # fmt: skip
    parser.add_argument("--broker", default="", help="a redis:// URL for --tasks none")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tasks == "none" and not args.broker:
        parser.error("--tasks none needs --broker redis://…")
    if args.child:
        child(args)
        return

    url = bench_database_url("pisyedili_move_cpu", "bench/move_cpu.py")
    reset_database(url)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "pisyedili_api.settings",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or f"move-cpu-{uuid.uuid4().hex}",
        "DJANGO_ALLOWED_HOSTS": "testserver",
        "THROTTLE_AUTH": "100000/min",
        # Moves are counted (the throttle's cost is measured) but never refused.
        "THROTTLE_MATCH_MOVE": "100000/sec",
        "THROTTLE_MATCH": "100000/min",  # tables made by the dozen
        "MAX_ACTIVE_MATCHES_PER_PLAYER": "100000",
        "CELERY_TASK_ALWAYS_EAGER": "1" if args.tasks == "eager" else "0",
        "CELERY_BROKER_URL": args.broker,
        "LIVE_CHANNEL_PREFIX": f"move-cpu-{uuid.uuid4().hex[:8]}",
        "EMBEDDED_BEAT": "0",
        "PYTHONPATH": str(ROOT),  # this checkout's code, whatever the venv has installed
    }
    subprocess.run([str(PY), "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    command = [str(PY), __file__, "--child", *sys.argv[1:]]
    if args.measure == "instructions":
        out = Path(f"/tmp/move-cpu-{os.getpid()}.callgrind")
        command = ["valgrind", "--tool=callgrind", "--toggle-collect=qsort_r",
                   f"--callgrind-out-file={out}", *command]  # fmt: skip
    started = time.monotonic()
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    line = next((ln for ln in run.stdout.splitlines() if ln.startswith("FIGURES ")), None)
    if run.returncode != 0 or line is None:
        sys.exit(f"the measuring process failed:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    figures = json.loads(line.removeprefix("FIGURES "))
    mid, ending = figures["mid"], figures["ending"]
    revision = subprocess.run(
        ["git", "log", "-1", "--format=%h %s"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    print(f"tree {ROOT} at {revision[:70]}; tasks {args.tasks}; {time.monotonic() - started:.0f} s")
    if args.measure == "instructions":
        total = next(
            (int(ln.rsplit(maxsplit=1)[-1].replace(",", ""))
             for ln in run.stderr.splitlines() if "Collected" in ln),
            None,
        )  # fmt: skip
        if total is None or not figures["bracketed"]:
            sys.exit(f"no instruction count in valgrind's output:\n{run.stderr[-2000:]}")
        print(
            f"{total / figures['bracketed']:,.0f} instructions a mid-deal move POST"
            f" ({figures['bracketed']} moves counted; callgrind output {out})"
        )
        return
    users = [u for u, _ in mid]
    systems = [s for _, s in mid]
    print(
        f"mid-deal move POST ({len(mid)}): median {statistics.median(users) * 1e6:.0f} µs user"
        f" + {statistics.median(systems) * 1e6:.0f} µs system CPU"
        f" (mean {statistics.mean(users) * 1e6:.0f} + {statistics.mean(systems) * 1e6:.0f})"
    )
    if ending:
        print(
            f"deal-ending move POST ({len(ending)}): mean {statistics.mean(ending) * 1e3:.1f} ms"
            " CPU (with --tasks eager: the deal's scoring and analysis included)"
        )


if __name__ == "__main__":
    main()
