"""Deployment defaults (pisyedili_api/settings.py), each in a fresh process with the environment
of a production server: no known secret key, `check --deploy` clean, https behind a proxy."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What a production deployment sets (docs/operations.md "The full stack"); nothing else.
PRODUCTION = {
    "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
    "DJANGO_ALLOWED_HOSTS": "api.example.com",
    "DJANGO_SECURE_PROXY_SSL_HEADER": "HTTP_X_FORWARDED_PROTO,https",
}


def run(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`args` under pisyedili_api.settings with only `env` set (and a database of its own)."""
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_", "SECURE_"))
    }
    base["DJANGO_SETTINGS_MODULE"] = "pisyedili_api.settings"
    base["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_for_the_production_settings(tmp_path):
    done = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], PRODUCTION, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout, done.stdout + done.stderr


def test_without_a_secret_key_the_server_refuses_to_start(tmp_path):
    env = {k: v for k, v in PRODUCTION.items() if k != "DJANGO_SECRET_KEY"}
    # What uvicorn loads (live.asgi), and a management command.
    for args in (["-c", "import live.asgi"], ["manage.py", "check"]):
        done = run(args, env, tmp_path)
        assert done.returncode != 0, done.stdout
        assert "ImproperlyConfigured: DJANGO_SECRET_KEY is not set" in done.stderr, done.stderr


def test_debug_without_a_secret_key_starts_with_the_development_key(tmp_path):
    done = run(["manage.py", "check"], {"DJANGO_DEBUG": "1"}, tmp_path)
    assert done.returncode == 0, done.stderr


REQUESTS = """
from django.test import Client
client = Client()
plain = client.get("/api/v1/bots")
print("plain", plain.status_code, plain.get("Location"))
tls = client.get("/api/v1/bots", headers={"x-forwarded-proto": "https"})
print("proxied-https", tls.status_code, tls.get("Strict-Transport-Security"))
"""


def test_behind_the_proxy_http_is_redirected_and_https_gets_hsts(tmp_path):
    env = {**PRODUCTION, "DJANGO_ALLOWED_HOSTS": "api.example.com,testserver"}
    done = run(["manage.py", "shell", "-c", REQUESTS], env, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    assert lines["plain"] == "301 https://testserver/api/v1/bots"
    assert lines["proxied-https"] == "200 max-age=31536000; includeSubDomains; preload"
