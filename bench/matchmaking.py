"""Quick play's pairing at scale: 2,000 simulated players arriving over 60 s at mixed ratings,
table sizes and rules, paired by the real service (games.services.queue) against PostgreSQL with
a simulated clock; prints the median and p95 time to a seat, the mean rating gap at a table, the
share seated beside bots and the double seats, each against its target.

It drives the service, not the HTTP API: each arrival is `queue_join` (whose own pairing runs at
once, as POST /queue's does), and every simulated second the beat's `queue_pair` runs. Each
simulated step's joins and the beat run at once on `--threads` threads, each with its own
database connection, so pairings race as they do across web processes (the row locks decide).
Every table is a real match (match_create: seats, deal 1 dealt); the bots' first turns are not
played (the bench measures the pairing, not play). Players: ratings (ordinal) normal around 19
(sd 6); table sizes 2 (50%), 3 (25%) or 4 (25%); 80% classic rules, 20% the `quick` preset;
waits of 30, 60 or 120 s; 70% allow bots. The settings QUEUE_RATING_GAP / QUEUE_RATING_WIDEN
apply as the server's do.

Fills its own database (pisyedili_bench_mm, dropped and created here, dropped at the end unless
`--keep`):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pisyedili .venv/bin/python bench/matchmaking.py
    bench/matchmaking.py --players 2000 --arrivals 60 --threads 4 --seed 1
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from common import bench_database_url, drop_database, percentile, reset_database

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DB_NAME = "pisyedili_bench_mm"
STEP = 0.25  # simulated seconds between two steps (arrivals are joined at their step)

# Targets: a person is seated quickly and near their own rating, bots fill few seats, and nobody
# is ever seated twice.
TARGET_MEDIAN_S = 10.0
TARGET_P95_S = 45.0
TARGET_GAP = 6.0
TARGET_BOT_SHARE = 0.25


def players_create(n: int, rng: random.Random) -> list[Any]:
    from players.models import Player

    rows = []
    for i in range(n):
        ordinal = rng.gauss(19.0, 6.0)
        rows.append(
            Player(
                username=f"mm{i:05d}-{uuid.uuid4().hex[:6]}",
                display_name=f"mm {i}",
                rating_mu=ordinal + 6.0,
                rating_sigma=2.0,
            )
        )
    return Player.objects.bulk_create(rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--arrivals", type=float, default=60.0, help="seconds the arrivals span")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="leave the database")
    args = parser.parse_args()

    url = bench_database_url(DB_NAME, "bench/matchmaking.py")
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pisyedili_api.settings")
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ["LIVE_REDIS_URL"] = ""  # the events go to the in-process hub: nobody listens
    os.environ["QUEUE_WAIT_MAX"] = "600"
    reset_database(url)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    try:
        call_command("migrate", verbosity=0)
        run(args)
    finally:
        connections.close_all()
        if not args.keep:
            drop_database(url)


def run(args: argparse.Namespace) -> None:
    from django.conf import settings
    from django.db import connection
    from django.utils import timezone

    from games.models import QueueEntry
    from games.services import lifecycle, queue_join, queue_pair

    # The bench measures the pairing: a bot's first turn is not played.
    lifecycle.send_on_commit = lambda *a, **k: None  # type: ignore[assignment]

    rng = random.Random(args.seed)
    people = players_create(args.players, rng)
    plan = []
    for person in people:
        plan.append(
            (
                rng.uniform(0.0, args.arrivals),
                person,
                rng.choices([2, 3, 4], weights=[2, 1, 1])[0],
                "quick" if rng.random() < 0.2 else "classic",
                rng.choice([30, 60, 120]),
                rng.random() < 0.7,
            )
        )
    plan.sort(key=lambda p: p[0])
    start: datetime = timezone.now()
    print(
        f"bench/matchmaking.py: {args.players:,} players over {args.arrivals:.0f} s (simulated),"
        f" {args.threads} threads, seed {args.seed}; QUEUE_RATING_GAP {settings.QUEUE_RATING_GAP},"
        f" QUEUE_RATING_WIDEN {settings.QUEUE_RATING_WIDEN}/s"
    )

    def on_own_connection(call: Any) -> None:
        try:
            call()
        finally:
            connection.close()

    pool = ThreadPoolExecutor(args.threads)
    wall = time.perf_counter()
    step, next_beat, index = 0, 1.0, 0
    horizon = args.arrivals + 130.0
    while True:
        clock = step * STEP
        now = start + timedelta(seconds=clock)
        calls = []
        while index < len(plan) and plan[index][0] <= clock:
            _, person, seats, preset, wait, bots = plan[index]
            calls.append(
                lambda p=person, s=seats, r=preset, w=wait, b=bots, n=now: queue_join(
                    player=p, seats=s, preset=r, wait_seconds=w, bots_allowed=b, now=n
                )
            )
            index += 1
        if clock >= next_beat:
            calls.append(lambda n=now: queue_pair(now=n))
            next_beat += 1.0
        for future in [pool.submit(on_own_connection, c) for c in calls]:
            future.result()
        step += 1
        if index >= len(plan) and not QueueEntry.objects.filter(status="waiting").exists():
            break
        if clock > horizon:
            break
    pool.shutdown()
    wall = time.perf_counter() - wall
    report(args, wall)


def report(args: argparse.Namespace, wall: float) -> None:
    from django.db import connection

    from games.models import Match, QueueEntry

    entries = list(QueueEntry.objects.select_related("player"))
    seated = [e for e in entries if e.status == "seated"]
    expired = [e for e in entries if e.status == "expired"]
    waiting = [e for e in entries if e.status == "waiting"]
    waits = [(e.ended_at - e.created_at).total_seconds() for e in seated]
    by_match: dict[Any, list[Any]] = {}
    for e in seated:
        by_match.setdefault(e.match_id, []).append(e)
    gaps = [
        max(e.rating for e in group) - min(e.rating for e in group)
        for group in by_match.values()
        if len(group) > 1
    ]
    with_bots = [e for e in seated if e.bot_seats > 0]
    with connection.cursor() as cursor:
        # A person in two matches, or twice in one; or an entry whose match does not seat them.
        cursor.execute(
            "SELECT count(*) FROM (SELECT s.player_id FROM games_seat s"
            " JOIN players_player p ON p.id = s.player_id WHERE NOT p.is_bot"
            " GROUP BY s.player_id HAVING count(*) > 1) doubles"
        )
        doubles = cursor.fetchone()[0]
        cursor.execute(
            "SELECT count(*) FROM games_queueentry q WHERE q.status = 'seated' AND NOT EXISTS"
            " (SELECT 1 FROM games_seat s WHERE s.match_id = q.match_id"
            " AND s.player_id = q.player_id)"
        )
        unseated = cursor.fetchone()[0]
    matches = Match.objects.count()
    median, p95 = statistics.median(waits), percentile(waits, 0.95)
    mean_gap = statistics.fmean(gaps) if gaps else 0.0
    bot_share = len(with_bots) / max(1, len(seated))

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT MET"

    print(
        f"\n{len(entries):,} entries: {len(seated):,} seated at {matches:,} matches,"
        f" {len(expired):,} expired (no bots allowed), {len(waiting):,} still waiting;"
        f" {wall:.1f} s of wall time"
    )
    rows = [
        ("median time to a seat", f"{median:.1f} s", f"≤ {TARGET_MEDIAN_S:.0f} s",
         median <= TARGET_MEDIAN_S),
        ("p95 time to a seat", f"{p95:.1f} s", f"≤ {TARGET_P95_S:.0f} s", p95 <= TARGET_P95_S),
        ("mean rating gap at a table (max − min ordinal)", f"{mean_gap:.2f}",
         f"≤ {TARGET_GAP:.0f}", mean_gap <= TARGET_GAP),
        ("seated beside bots", f"{bot_share:.1%}", f"≤ {TARGET_BOT_SHARE:.0%}",
         bot_share <= TARGET_BOT_SHARE),
        ("double seats", f"{doubles + unseated}", "0", doubles + unseated == 0),
    ]  # fmt: skip
    print(f"\n{'figure':<50}{'measured':>10}  {'target':<8} verdict")
    for name, measured, target, ok in rows:
        print(f"{name:<50}{measured:>10}  {target:<8} {verdict(ok)}")


if __name__ == "__main__":
    main()
