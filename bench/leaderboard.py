"""Leaderboard reads at scale: 100,000 players, 1,000,000 score entries, board rows as settlement
makes them; p50/p95 of a top page, a deep page (rank ~50,000, by cursor) and an around=me page,
through the selector and through the HTTP view; EXPLAIN (ANALYZE, BUFFERS) of every query.

Fills its own database (pisyedili_bench_lb, dropped and created here; `--keep` leaves it for a
second run with `--reuse`): players, finished matches (2-4 seats, 4 deals, 10% under house
rules, finished over the last 120 days), seats, deals and score entries by COPY. The board rows
and rating history are what `players.services.player_standings_settle` would have written
match by match (same pools, same openskill calls, same ruleset keys and periods), replayed in
finished order in Python and copied in. Finally it times incremental settlements on the full
database (the write side: no recount).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pisyedili .venv/bin/python bench/leaderboard.py
    bench/leaderboard.py --players 100000 --entries 1000000 --runs 200 [--keep] [--reuse]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common import bench_database_url, drop_database, percentile, reset_database

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DB_NAME = "pisyedili_bench_lb"
HOUSE_RULES = {"draw_policy": "until_playable", "deals_per_match": 4}
DEALS = 4


def drop_bench_database(url: str) -> None:
    from django.db import connections

    connections.close_all()
    drop_database(url)


def copy_rows(model: Any, rows: Iterable[dict[str, Any]]) -> int:
    """COPY `rows` (field name -> value; other fields take their model default) into `model`,
    as COPY text lines written here (psycopg's per-row adaptation is the slow part)."""
    from django.db import connection
    from django.db.models import BinaryField, BooleanField, JSONField

    fields = list(model._meta.concrete_fields)
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    defaults = {f.name: f.get_default() for f in fields}

    def text(field: Any, value: Any) -> str:
        if value is None:
            return "\\N"
        if isinstance(field, JSONField):
            value = json.dumps(value, separators=(",", ":"))
        elif isinstance(field, BooleanField):
            return "t" if value else "f"
        elif isinstance(field, BinaryField):
            return "\\\\x" + bytes(value).hex()
        elif isinstance(value, datetime):
            return value.isoformat()
        value = str(value)
        if "\\" in value or "\t" in value or "\n" in value:
            value = value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
        return value

    count = 0
    with connection.cursor() as cursor:
        raw = cursor.cursor  # the psycopg cursor under Django's wrapper
        with raw.copy(f"COPY {model._meta.db_table} ({columns}) FROM STDIN") as copy:
            lines = []
            for row in rows:
                lines.append(
                    "\t".join(
                        text(f, row[f.name] if f.name in row else defaults[f.name]) for f in fields
                    )
                )
                count += 1
                if len(lines) == 10_000:
                    copy.write("\n".join(lines) + "\n")
                    lines = []
            if lines:
                copy.write("\n".join(lines) + "\n")
    return count


class Fill:
    """Generates the matches and replays settlement over them, in memory, then copies."""

    def __init__(self, players: int, entries: int, seed: int = 7) -> None:
        from games import engine
        from players.boards import PERIODS, period_start, rules_for_board, ruleset_key
        from players.models import DEFAULT_MU, DEFAULT_SIGMA, Board
        from players.services import _rate

        self.rng = random.Random(seed)
        self.now = datetime.now(UTC)
        self.player_ids = [
            uuid.UUID(int=self.rng.getrandbits(128), version=4) for _ in range(players)
        ]
        self.is_bot = [i % 20 == 0 for i in range(players)]  # 5% bots
        self.global_rating = [(DEFAULT_MU, DEFAULT_SIGMA)] * players
        self.counters = [[0, 0, 0, 0, 0] for _ in range(players)]  # matches wins deals won points
        rng = self.rng
        matches = []
        total = 0
        while total < entries:
            left = (entries - total) // DEALS  # seats still to fill: end on exactly `entries`
            seats = left if left <= 4 else rng.choice((2, 3) if left == 5 else (2, 3, 4))
            rules = HOUSE_RULES if rng.random() < 0.1 else {"deals_per_match": DEALS}
            at = self.now - timedelta(seconds=rng.uniform(60, 120 * 86400))
            seated = rng.sample(range(players), seats)
            deals = []
            for _ in range(DEALS):
                winner = rng.randrange(seats)
                deals.append([0 if s == winner else rng.randint(1, 60) for s in range(seats)])
            matches.append((uuid.uuid4(), seated, deals, rules, at))
            total += seats * DEALS
        matches.sort(key=lambda m: m[4])
        self.matches = matches
        self.entries = total

        boards: dict[tuple[int, str], int] = {}
        self.boards: list[dict[str, Any]] = []
        self.board_rows: dict[tuple[int, str, Any, int], list[Any]] = {}
        self.history: list[dict[str, Any]] = []
        self.places: dict[uuid.UUID, list[int]] = {}
        for match_id, seated, deals, rules, at in matches:
            seats = len(seated)
            totals = [sum(d[s] for d in deals) for s in range(seats)]
            won = [sum(1 for d in deals if d[s] == 0) for s in range(seats)]
            places = engine.match_places(totals)
            self.places[match_id] = places
            rated = _rate([self.global_rating[p] for p in seated], places)
            for seat, p in enumerate(seated):
                self.global_rating[p] = rated[seat]
                c = self.counters[p]
                c[0] += 1
                c[1] += places[seat] == 1
                c[2] += DEALS
                c[3] += won[seat]
                c[4] += totals[seat]
            key = ruleset_key(rules)
            after = {}
            for board_seats in (seats, Board.ALL_SEATS):
                if (board_seats, key) not in boards:
                    boards[board_seats, key] = len(self.boards) + 1
                    self.boards.append(
                        {
                            "id": len(self.boards) + 1,
                            "seats": board_seats,
                            "ruleset": key,
                            "rules": rules_for_board(rules),
                            "player_count": 0,
                            "created_at": self.now,
                        }
                    )
                board_id = boards[board_seats, key]
                for kind in PERIODS:
                    pool = (board_id, kind, period_start(kind, at))
                    rows = [self.board_rows.get((*pool, p)) for p in seated]
                    before = [(r[10], r[11]) if r else (DEFAULT_MU, DEFAULT_SIGMA) for r in rows]
                    for seat, (mu, sigma) in enumerate(_rate(before, places)):
                        row = rows[seat]
                        if row is None:
                            row = self.board_rows[*pool, seated[seat]] = [0] * 10 + [0.0, 0.0]
                            if kind == "all":
                                self.boards[board_id - 1]["player_count"] += 1
                        row[0] += 1
                        row[1] += places[seat] == 1
                        row[2] += DEALS
                        row[3] += won[seat]
                        row[4] += totals[seat]
                        row[10], row[11] = mu, sigma
                        if kind == "all":
                            after[board_id, seated[seat]] = (board_seats, key, mu, sigma)
            for seat, p in enumerate(seated):
                mu, sigma = self.global_rating[p]
                self.history.append(
                    {
                        "player": p,
                        "match_id": match_id,
                        "finished_at": at,
                        "seats": seats,
                        "ruleset": key,
                        "place": places[seat],
                        "rating_mu": mu,
                        "rating_sigma": sigma,
                        "rating_ordinal": mu - 3 * sigma,
                        "boards": [
                            {
                                "seats": s or None,
                                "ruleset": k,
                                "mu": m,
                                "sigma": g,
                                "ordinal": m - 3 * g,
                            }
                            for (b, q), (s, k, m, g) in after.items()
                            if q == p
                        ],
                    }
                )

    def copy(self) -> None:
        from games.models import Deal, Match, ScoreEntry, Seat
        from players.models import Board, BoardEntry, BoardPeriod, Player, RatingHistory

        ids = self.player_ids
        timed(
            "copy players",
            lambda: copy_rows(
                Player,
                (
                    {
                        "id": pid,
                        "user": None,
                        "username": f"p{i}",
                        "display_name": f"Player {i}",
                        "is_bot": self.is_bot[i],
                        "strategy": "greedy" if self.is_bot[i] else "",
                        "rating_mu": self.global_rating[i][0],
                        "rating_sigma": self.global_rating[i][1],
                        "matches": self.counters[i][0],
                        "wins": self.counters[i][1],
                        "deals_played": self.counters[i][2],
                        "deals_won": self.counters[i][3],
                        "penalty_points": self.counters[i][4],
                        "created_at": self.now - timedelta(days=200),
                    }
                    for i, pid in enumerate(ids)
                ),
            ),
        )
        timed("copy boards", lambda: copy_rows(Board, self.boards))

        def match_rows() -> Iterable[dict[str, Any]]:
            for match_id, seated, deals, rules, at in self.matches:
                totals = [sum(d[s] for d in deals) for s in range(len(seated))]
                yield {
                    "id": match_id,
                    "status": "finished",
                    "created_by": ids[seated[0]],
                    "created_at": at - timedelta(minutes=20),
                    "finished_at": at,
                    "seat_count": len(seated),
                    "deals_total": DEALS,
                    "current_deal": DEALS,
                    "version": 400,
                    "rules": rules,
                    "seat_players": [str(ids[p]) for p in seated],
                    "seat_bots": ["greedy" if self.is_bot[p] else "" for p in seated],
                    "totals": totals,
                    "live_deal": None,
                    "state": None,
                    "settled_at": at,
                }

        timed("copy matches", lambda: copy_rows(Match, match_rows()))

        def seat_rows() -> Iterable[dict[str, Any]]:
            n = 0
            for match_id, seated, deals, _, _ in self.matches:
                for seat, p in enumerate(seated):
                    n += 1
                    yield {
                        "id": n,
                        "match": match_id,
                        "seat": seat,
                        "player": ids[p],
                        "total": sum(d[seat] for d in deals),
                        "place": self.places[match_id][seat],
                    }

        timed("copy seats", lambda: copy_rows(Seat, seat_rows()))

        def deal_rows() -> Iterable[dict[str, Any]]:
            n = 0
            for match_id, seated, deals, _, at in self.matches:
                for number, penalties in enumerate(deals, start=1):
                    n += 1
                    yield {
                        "id": n,
                        "match": match_id,
                        "number": number,
                        "dealer": (number - 1) % len(seated),
                        "opener": number % len(seated),
                        "seed": b"\0" * 32,
                        "commitment": "0" * 64,
                        "hands_at_start": [],
                        "status": "over",
                        "result": {"penalties": penalties},
                        "started_at": at - timedelta(minutes=5 * (DEALS - number + 1)),
                        "finished_at": at - timedelta(minutes=5 * (DEALS - number)),
                        "scored_at": at,
                    }

        timed("copy deals", lambda: copy_rows(Deal, deal_rows()))

        def score_rows() -> Iterable[dict[str, Any]]:
            n = deal = 0
            for match_id, seated, deals, _, at in self.matches:
                for penalties in deals:
                    deal += 1
                    for seat, p in enumerate(seated):
                        n += 1
                        yield {
                            "id": n,
                            "deal": deal,
                            "match": match_id,
                            "seat": seat,
                            "player": ids[p],
                            "penalty": penalties[seat],
                            "hand_penalty": penalties[seat],
                            "multiplier": 1,
                            "cards_left": [],
                            "won": penalties[seat] == 0,
                            "created_at": at,
                        }

        timed("copy score entries", lambda: copy_rows(ScoreEntry, score_rows()))

        pools: dict[tuple[int, str, Any], int] = {}
        for board, kind, start, _ in self.board_rows:
            pools.setdefault((board, kind, start), len(pools) + 1)
        timed(
            "copy board periods",
            lambda: copy_rows(
                BoardPeriod,
                (
                    {"id": n, "board": board, "period_kind": kind, "period_start": start}
                    for (board, kind, start), n in pools.items()
                ),
            ),
        )

        def entry_rows() -> Iterable[dict[str, Any]]:
            for n, ((board, kind, start, p), r) in enumerate(self.board_rows.items(), start=1):
                yield {
                    "id": n,
                    "pool": pools[board, kind, start],
                    "player": ids[p],
                    "is_human": not self.is_bot[p],
                    "matches": r[0],
                    "wins": r[1],
                    "deals_played": r[2],
                    "deals_won": r[3],
                    "penalty_points": r[4],
                    "avg_penalty": r[4] / r[2],
                    "rating_mu": r[10],
                    "rating_sigma": r[11],
                    "rating_ordinal": r[10] - 3 * r[11],
                    "updated_at": self.now,
                }

        timed("copy board entries", lambda: copy_rows(BoardEntry, entry_rows()))

        def history_rows() -> Iterable[dict[str, Any]]:
            for n, h in enumerate(self.history, start=1):
                yield {**h, "id": n, "player": ids[h["player"]]}

        timed("copy rating history", lambda: copy_rows(RatingHistory, history_rows()))


def timed(label: str, step: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = step()
    print(
        f"  {label}: {result if isinstance(result, int) else ''}"
        f" {time.perf_counter() - start:.1f} s"
    )
    return result


def reset_sequences() -> None:
    from django.core.management.color import no_style
    from django.db import connection

    from games.models import Deal, ScoreEntry, Seat
    from players.models import Board, BoardEntry, BoardPeriod, RatingHistory

    models = [Deal, ScoreEntry, Seat, Board, BoardPeriod, BoardEntry, RatingHistory]
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(sql)


def measure(label: str, runs: int, call: Callable[[int], Any]) -> tuple[float, float]:
    for i in range(5):  # warm the caches and the connection
        call(i)
    times = []
    for i in range(runs):
        start = time.perf_counter()
        call(i)
        times.append((time.perf_counter() - start) * 1000)
    p50, p95 = statistics.median(times), percentile(times, 0.95)
    verdict = "ok" if p95 <= 20 else "OVER 20 ms"
    print(
        f"  {label:<44} p50 {p50:6.2f} ms   p95 {p95:6.2f} ms   max {max(times):6.2f} ms  {verdict}"
    )
    return p50, p95


def explain(label: str, call: Callable[[], Any]) -> None:
    """EXPLAIN (ANALYZE, BUFFERS) of every SQL statement `call` runs."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        call()
    print(f"\n--- EXPLAIN {label}: {len(ctx.captured_queries)} queries")
    with connection.cursor() as cursor:
        for query in ctx.captured_queries:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            print(f"\n> {sql[:400]}{' …' if len(sql) > 400 else ''}")
            cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}")
            for (line,) in cursor.fetchall():
                print("    " + line)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--depth", type=int, default=50_000, help="position of the deep page")
    parser.add_argument("--keep", action="store_true", help="leave the database for --reuse")
    parser.add_argument("--reuse", action="store_true", help="measure the kept database")
    args = parser.parse_args()

    url = bench_database_url(DB_NAME, "bench/leaderboard.py")
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pisyedili_api.settings")
    os.environ["DJANGO_ALLOWED_HOSTS"] = "*"
    os.environ.pop("CELERY_BROKER_URL", None)  # settlement tasks (if any) in-process
    if not args.reuse:
        reset_database(url)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    try:
        if not args.reuse:
            print(f"filling {DB_NAME}: {args.players:,} players, {args.entries:,} score entries")
            call_command("migrate", verbosity=0)
            fill = timed("generate + replay settlement", lambda: Fill(args.players, args.entries))
            print(
                f"  {len(fill.matches):,} matches, {fill.entries:,} score entries, "
                f"{len(fill.board_rows):,} board rows, {len(fill.boards)} boards"
            )
            fill.copy()
            del fill
            reset_sequences()
            with connection.cursor() as cursor:
                start = time.perf_counter()
                cursor.execute("VACUUM (ANALYZE)")  # visibility map: index-only counts
                print(f"  vacuum analyze: {time.perf_counter() - start:.1f} s")
        run(args)
    finally:
        if not args.keep:
            drop_bench_database(url)


def run(args: argparse.Namespace) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from players.models import Board, BoardEntry, Player
    from players.selectors import Keyset, leaderboard_page
    from players.services import api_token_create

    board = Board.objects.get(seats=Board.ALL_SEATS, ruleset="default")
    on_board = BoardEntry.objects.filter(pool__board=board, pool__period_kind="all")
    size = on_board.count()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_size_pretty(pg_total_relation_size('players_boardentry')),"
            " (SELECT count(*) FROM players_boardentry), (SELECT count(*) FROM games_scoreentry),"
            " (SELECT count(*) FROM players_player)"
        )
        table_size, entries, scores, players = cursor.fetchone()
    print(
        f"\ndatabase: {players:,} players, {scores:,} score entries, {entries:,} board rows "
        f"({table_size} with indexes); default all-seats all-time board: {size:,} players"
    )
    depth = min(args.depth, size - 60)
    orders = {"rating": "-rating_ordinal", "wins": "-wins", "points": "avg_penalty"}
    deep: dict[str, Keyset] = {}
    for metric, order in orders.items():
        field = order.lstrip("-")
        tie = "-player_id" if order.startswith("-") else "player_id"
        row = on_board.order_by(order, tie).values_list(field, "player_id")[depth - 1]
        deep[metric] = Keyset(metric, row[0], row[1], True)
    rng = random.Random(3)
    middle = list(
        on_board.order_by("-rating_ordinal", "-player_id").values_list("player_id", flat=True)[
            max(0, size // 2 - 5_000) : size // 2 + 5_000
        ]
    )
    everyone = list(on_board.values_list("player_id", flat=True))
    around_mid = [rng.choice(middle) for _ in range(args.runs + 5)]
    around_any = [rng.choice(everyone) for _ in range(args.runs + 5)]

    print(f"\nselector players.selectors.leaderboard_page, {args.runs} runs each, limit 50")
    figures = {}
    for metric in orders:
        figures[metric, "top"] = measure(
            f"{metric}: top page",
            args.runs,
            lambda i, m=metric: leaderboard_page(metric=m, period="all"),
        )
        figures[metric, "deep"] = measure(
            f"{metric}: deep page (rank ~{depth:,}, cursor)",
            args.runs,
            lambda i, m=metric: leaderboard_page(metric=m, period="all", cursor=deep[m]),
        )
        figures[metric, "around"] = measure(
            f"{metric}: around=me (players ranked ~{size // 2:,})",
            args.runs,
            lambda i, m=metric: leaderboard_page(
                metric=m, period="all", around_player_id=around_mid[i]
            ),
        )
        measure(
            f"{metric}: around=me (any player on the board)",
            args.runs,
            lambda i, m=metric: leaderboard_page(
                metric=m, period="all", around_player_id=around_any[i]
            ),
        )
    measure(
        "rating: humans_only deep page (cursor)",
        args.runs,
        lambda i: leaderboard_page(
            metric="rating", period="all", humans_only=True, cursor=deep["rating"]
        ),
    )
    measure(
        "rating: month top page",
        args.runs,
        lambda i: leaderboard_page(metric="rating", period="month"),
    )
    measure(
        "points: week top page",
        args.runs,
        lambda i: leaderboard_page(metric="points", period="week"),
    )

    # HTTP: the real view through Django's test client (routing, auth, serialisers, JSON).
    me = Player.objects.get(id=around_mid[0])
    user = get_user_model().objects.filter(username="bench-me").first()
    if user is None:  # a --reuse run finds the one of the first run
        user = get_user_model().objects.create_user(username="bench-me", password="bench-pass-1")
    Player.objects.filter(user=user).update(user=None)
    Player.objects.filter(id=me.id).update(user=user)
    token = api_token_create(user_id=user.pk)
    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    anonymous = Client()
    deep_url = "/api/v1/leaderboard?metric=rating&cursor=" + deep["rating"].cursor()

    def http(c: Client, url: str) -> None:
        response = c.get(url)
        assert response.status_code == 200, response.content

    print(f"\nHTTP GET through the Django test client, {args.runs} runs each")
    measure(
        "GET /leaderboard (top page)", args.runs, lambda i: http(anonymous, "/api/v1/leaderboard")
    )
    measure(
        f"GET /leaderboard?cursor=… (rank ~{depth:,})",
        args.runs,
        lambda i: http(anonymous, deep_url),
    )
    measure(
        "GET /leaderboard?around=me",
        args.runs,
        lambda i: http(client, "/api/v1/leaderboard?around=me"),
    )
    measure("GET /leaderboards", args.runs, lambda i: http(anonymous, "/api/v1/leaderboards"))
    measure(
        "GET /players/{id}/history",
        args.runs,
        lambda i: http(anonymous, f"/api/v1/players/{me.id}/history"),
    )
    page = leaderboard_page(metric="rating", period="all", cursor=deep["rating"])
    print(f"  (deep page ranks {page.results[0][0]:,}..{page.results[-1][0]:,})")

    settle_incrementally(args.runs // 4)

    explain("rating top page", lambda: leaderboard_page(metric="rating", period="all"))
    explain(
        "rating deep page (cursor)",
        lambda: leaderboard_page(metric="rating", period="all", cursor=deep["rating"]),
    )
    explain(
        "rating around=me",
        lambda: leaderboard_page(metric="rating", period="all", around_player_id=around_mid[0]),
    )
    explain(
        "wins deep page (cursor)",
        lambda: leaderboard_page(metric="wins", period="all", cursor=deep["wins"]),
    )
    explain(
        "points deep page (cursor)",
        lambda: leaderboard_page(metric="points", period="all", cursor=deep["points"]),
    )
    explain(
        "rating humans_only deep page",
        lambda: leaderboard_page(
            metric="rating", period="all", humans_only=True, cursor=deep["rating"]
        ),
    )


def settle_incrementally(runs: int) -> None:
    """Settlement on the full database: each call adds one match to 6 board rows a seat."""
    from django.utils import timezone

    from games import engine
    from players.models import Player
    from players.services import player_standings_settle

    ids = list(Player.objects.values_list("id", flat=True)[:20_000])
    rng = random.Random(5)
    print(f"\nplayers.services.player_standings_settle on the full database, {runs} matches")

    def one(i: int) -> None:
        seats = rng.choice((2, 3, 4))
        totals = [rng.randint(0, 200) for _ in range(seats)]
        player_standings_settle(
            match_id=uuid.uuid4(),
            player_ids=rng.sample(ids, seats),
            places=engine.match_places(totals),
            rules={},
            finished_at=timezone.now(),
            deals_played=DEALS,
            deals_won=[1] * seats,
            penalties=totals,
        )

    measure("settle one match (2-4 seats)", runs, one)


if __name__ == "__main__":
    main()
