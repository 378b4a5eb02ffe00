"""HTTP helpers for tests against a live server (requests, real sockets, real PostgreSQL)."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests

_names = itertools.count()


class Client:
    """One connection per request, no keep-alive: the live server holds a DB connection per open
    HTTP connection (the test database must have none left when it is dropped), and a pooled
    connection the server has just closed would fail the next request."""

    def __init__(self, base: str, token: str | None = None):
        self.base = base.rstrip("/")
        self.headers = {"Connection": "close"}
        if token:
            self.headers["Authorization"] = f"Token {token}"

    def get(self, path: str, **kw: Any) -> requests.Response:
        return requests.get(self.base + path, headers=self.headers, timeout=60, **kw)

    def post(
        self, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> requests.Response:
        return requests.post(
            self.base + path, json=body, headers={**self.headers, **(headers or {})}, timeout=60
        )

    def state(self, match_id: str, query: str = "") -> dict[str, Any]:
        response = self.get(f"/api/v1/matches/{match_id}/state{query}")
        assert response.status_code == 200, response.text
        return response.json()


def register(base: str) -> tuple[str, Client]:
    name = f"live{next(_names)}_{threading.get_ident() % 10000}"
    response = Client(base).post(
        "/api/v1/auth/register", {"username": name, "password": "s3cret-pass"}
    )
    assert response.status_code == 201, response.text
    body = response.json()
    return body["id"], Client(base, body["token"])


def fire_together(count: int, call: Callable[[int], requests.Response]) -> list[requests.Response]:
    """`count` requests released at the same instant from `count` threads."""
    barrier = threading.Barrier(count)

    def run(i: int) -> requests.Response:
        barrier.wait()
        return call(i)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(run, range(count)))
