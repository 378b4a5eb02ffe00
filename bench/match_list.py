"""The match list of one player ("my matches", GET /matches?player=…) at scale: 200,000
matches of two seats over a year, 2,000 players, and one player whose matches are all among
the oldest. Prints EXPLAIN (ANALYZE, BUFFERS) of the page query the API runs (the first page
and a cursor page) and its median time over a few runs.

Fills its own database (pisyedili_bench_ml, dropped and created here; `--keep` leaves it).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pisyedili .venv/bin/python bench/match_list.py
    bench/match_list.py --matches 200000 --runs 20 [--keep]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from common import bench_database_url, drop_database, reset_database

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DB_NAME = "pisyedili_bench_ml"


def fill(matches: int, players: int) -> str:
    """Players, matches and their seats by INSERT … SELECT; the id of the player whose few
    matches are the oldest."""
    from django.db import connection

    from games.models import Match, Seat
    from players.models import Player

    q = connection.ops.quote_name
    seat, match = (q(m._meta.db_table) for m in (Seat, Match))
    with connection.cursor() as cursor:
        Player.objects.bulk_create(
            Player(username=f"p{i:05}", display_name=f"P{i}") for i in range(players)
        )
        ids = list(Player.objects.order_by("username").values_list("id", flat=True))
        old = ids[0]
        # Match i (1 = oldest) is between two different players spread over all of them, except
        # that the old player (index 0) sits only in the 20 oldest matches.
        cursor.execute(
            "CREATE TEMP TABLE m AS SELECT i, gen_random_uuid() AS id,"
            " now() - (%s - i) * interval '2 minutes' AS at,"
            " CASE WHEN i <= 20 THEN 0 ELSE 1 + i %% (%s - 1) END AS a,"
            " 1 + (i %% (%s - 1) + 1 + i %% 13) %% (%s - 1) AS b FROM generate_series(1, %s) i",
            [matches, players, players, players, matches],
        )
        cursor.execute(
            "CREATE TEMP TABLE p AS SELECT row_number() OVER () - 1 AS n, id"
            " FROM unnest(%s::uuid[]) WITH ORDINALITY AS t(id, o) ORDER BY o",
            [ids],
        )
        cursor.execute(
            f"INSERT INTO {match} (id, status, created_by_id, created_at, seat_count,"
            " deals_total, current_deal, version, rules, seat_players, seat_bots, totals,"
            " move_count) SELECT m.id, 'finished', pa.id, m.at, 2, 4, 4, 100, '{}', "
            " jsonb_build_array(pa.id::text, pb.id::text), '[\"\", \"\"]', '[0, 0]', 100"
            " FROM m JOIN p pa ON pa.n = m.a JOIN p pb ON pb.n = m.b"
        )
        cursor.execute(
            f"INSERT INTO {seat} (match_id, seat, player_id, total, match_created_at)"
            " SELECT m.id, 0, pa.id, 0, m.at FROM m JOIN p pa ON pa.n = m.a"
            " UNION ALL SELECT m.id, 1, pb.id, 0, m.at FROM m JOIN p pb ON pb.n = m.b"
        )
        cursor.execute("ANALYZE")
    return str(old)


def page_query(player_id: str, cursor: str | None) -> tuple[str, list]:
    """The SQL of the page GET /matches?player=…[&cursor=…] runs, from the API's own
    paginator (the prefetches of seats and deals are separate, bounded queries)."""
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from games.apis import MatchCursorPagination
    from games.selectors import match_list

    params = {"player": player_id, **({"cursor": cursor} if cursor else {})}
    request = Request(APIRequestFactory().get("/api/v1/matches", params))
    paginator = MatchCursorPagination()
    captured: list = []

    from django.db import connection

    def capture(execute, sql, params, many, context):
        if not captured:
            captured.append((sql, list(params)))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        paginator.paginate_queryset(match_list(player_id=player_id), request)
    next_link = paginator.get_next_link()
    return captured[0][0], captured[0][1], next_link


def explain(sql: str, params: list, runs: int) -> None:
    """EXPLAIN ANALYZE of the custom plan (for these values) and of the generic plan that
    PostgreSQL may switch to once the server has prepared the statement (settings:
    prepare_threshold), each with its median time over `runs` executions."""
    from django.db import connection

    numbered = sql
    for n in range(1, len(params) + 1):
        numbered = numbered.replace("%s", f"${n}", 1)
    # EXECUTE is a utility statement: its arguments go in as literals.
    execute = connection.ops.compose_sql(f"EXECUTE page({', '.join(['%s'] * len(params))})", params)
    for mode in ("force_custom_plan", "force_generic_plan"):
        with connection.cursor() as cursor:
            cursor.execute(f"SET plan_cache_mode = {mode}")
            cursor.execute(f"PREPARE page AS {numbered}")
            cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {execute}")
            print(f"-- {mode}")
            print("\n".join(row[0] for row in cursor.fetchall()))
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                cursor.execute(execute)
                cursor.fetchall()
                times.append((time.perf_counter() - start) * 1000)
            cursor.execute("DEALLOCATE page")
            cursor.execute("RESET plan_cache_mode")
        print(f"median {statistics.median(times):.2f} ms over {runs} runs\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    url = bench_database_url(DB_NAME, "bench/match_list.py")
    reset_database(url)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pisyedili_api.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    try:
        call_command("migrate", verbosity=0)
        old = fill(args.matches, args.players)
        sql, params, next_link = page_query(old, None)
        print(f"== first page of the player whose 20 matches are the oldest of {args.matches}")
        explain(sql, params, args.runs)
        cursor = next_link.split("cursor=")[1].split("&")[0] if next_link else None
        from urllib.parse import unquote

        page = page_query(old, unquote(cursor)) if cursor else None
        if page is not None:
            print("== a cursor page of the same list")
            explain(page[0], page[1], args.runs)
    finally:
        connections.close_all()
        if not args.keep:
            drop_database(url)


if __name__ == "__main__":
    main()
