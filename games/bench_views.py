"""The ceiling endpoint of bench/api.py, in pisyedili_api/urls_bench.py (BENCH_ENDPOINTS=1).

One transaction: lock one row, update it, insert one row — the least a move could cost in the
database, served by the same Django process, so the bench can compare the move endpoint to it.
"""

from __future__ import annotations

from django.db import connection, transaction
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

SETUP_SQL = [
    "CREATE TABLE IF NOT EXISTS bench_ceiling_counter (id int PRIMARY KEY, version int NOT NULL)",
    "CREATE TABLE IF NOT EXISTS bench_ceiling_event"
    " (id bigserial PRIMARY KEY, counter int NOT NULL,"
    " version int NOT NULL, at timestamptz NOT NULL DEFAULT now())",
]


@csrf_exempt
def ceiling(request: HttpRequest) -> JsonResponse:
    counter = int(request.GET.get("counter", "0"))
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT version FROM bench_ceiling_counter WHERE id = %s FOR UPDATE", [counter]
        )
        row = cursor.fetchone()
        if row is None:
            cursor.execute(
                "INSERT INTO bench_ceiling_counter (id, version) VALUES (%s, 0)"
                " ON CONFLICT DO NOTHING",
                [counter],
            )
            version = 0
        else:
            version = row[0]
        cursor.execute(
            "UPDATE bench_ceiling_counter SET version = %s WHERE id = %s", [version + 1, counter]
        )
        cursor.execute(
            "INSERT INTO bench_ceiling_event (counter, version) VALUES (%s, %s)",
            [counter, version + 1],
        )
    return JsonResponse({"counter": counter, "version": version + 1})
