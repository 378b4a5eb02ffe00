"""The benchmark-only endpoints live in the bench URL conf (pisyedili_api/urls_bench.py), which
bench/api.py selects with BENCH_ENDPOINTS=1; production's URL conf never names them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.django_db
def test_production_urls_have_no_bench_endpoint(client, settings):
    assert settings.ROOT_URLCONF == "pisyedili_api.urls"
    response = client.post("/bench/ceiling?counter=1")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert "bench" not in (ROOT / "pisyedili_api" / "urls.py").read_text()


@pytest.mark.django_db
def test_the_bench_urls_serve_the_ceiling_beside_the_api(client, settings):
    from games.bench_views import SETUP_SQL

    if connection.vendor != "postgresql":
        pytest.skip("the ceiling's SQL is PostgreSQL's (bench/api.py runs on PostgreSQL)")
    with connection.cursor() as cursor:
        for statement in SETUP_SQL:
            cursor.execute(statement)
    settings.ROOT_URLCONF = "pisyedili_api.urls_bench"
    first = client.post("/bench/ceiling?counter=7")
    second = client.post("/bench/ceiling?counter=7")
    assert first.status_code == second.status_code == 200
    assert second.json()["version"] == first.json()["version"] + 1
    missing = client.get("/api/v1/matches/00000000-0000-0000-0000-000000000000/state")
    assert missing.status_code in (401, 404) and "code" in missing.json()  # the API is there


def test_bench_endpoints_select_the_bench_url_conf():
    script = "from django.conf import settings; print(settings.ROOT_URLCONF)"
    completed = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_SETTINGS_MODULE": "pisyedili_api.settings",
            "DJANGO_DEBUG": "1",
            "BENCH_ENDPOINTS": "1",
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "pisyedili_api.urls_bench"
