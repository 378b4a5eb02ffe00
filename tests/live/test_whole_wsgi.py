"""live.asgi.WholeWSGI, under which every plain HTTP request runs: the body is read whole by
the loop before the WSGI call, a response is sent whole once the call returns, a streaming one
part by part as it is iterated, and a client that leaves mid-body calls nothing."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def whole_wsgi() -> Any:
    before = os.environ.get("DATABASE_POOL")
    from live.asgi import WholeWSGI

    if before is None:  # live.asgi sets it for its own servers, not for this process's
        os.environ.pop("DATABASE_POOL", None)
    return WholeWSGI


SCOPE = {
    "type": "http",
    "http_version": "1.1",
    "method": "POST",
    "path": "/echo",
    "query_string": b"",
    "headers": [(b"content-type", b"text/plain"), (b"content-length", b"9")],
    "client": ("127.0.0.1", 5000),
    "server": ("127.0.0.1", 8000),
}


class Streamed:
    """A response iterable that says it streams (as Django's StreamingHttpResponse and
    FileResponse do), each part produced on the thread that iterates it."""

    streaming = True

    def __init__(self) -> None:
        self.threads: set[str] = set()
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        for part in (b"one ", b"", b"two"):
            self.threads.add(threading.current_thread().name)
            yield part

    def close(self) -> None:
        self.closed = True


def run(app: Any, body_parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    inbox = list(body_parts)
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(0)  # the parts arrive one loop turn apart
        return inbox.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(SCOPE, receive, send))
    return sent


def test_the_body_is_read_whole_and_the_response_sent_whole(whole_wsgi: Any) -> None:
    seen: list[tuple[bytes, str]] = []

    def echo(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append((environ["wsgi.input"].read(), environ["REQUEST_METHOD"]))
        start_response("201 Created", [("Content-Type", "text/plain"), ("X-Seen", "yes")])
        return [b"got ", environ["PATH_INFO"].encode()]

    parts = [
        {"type": "http.request", "body": b"abc", "more_body": True},
        {"type": "http.request", "body": b"def", "more_body": True},
        {"type": "http.request", "body": b"ghi", "more_body": False},
    ]
    sent = run(whole_wsgi(echo, 2), parts)
    assert seen == [(b"abcdefghi", "POST")]
    assert sent == [
        {
            "type": "http.response.start",
            "status": 201,
            "headers": [(b"content-type", b"text/plain"), (b"x-seen", b"yes")],
        },
        {"type": "http.response.body", "body": b"got /echo"},
    ]


def test_a_streaming_response_is_sent_part_by_part_from_the_thread(whole_wsgi: Any) -> None:
    response = Streamed()

    def stream(environ: dict[str, Any], start_response: Any) -> Streamed:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return response

    sent = run(whole_wsgi(stream, 1), [{"type": "http.request", "body": b"", "more_body": False}])
    assert [m["type"] for m in sent] == ["http.response.start"] + ["http.response.body"] * 3
    assert [(m.get("body"), m.get("more_body", False)) for m in sent[1:]] == [
        (b"one ", True),
        (b"two", True),
        (b"", False),
    ]
    assert response.closed
    assert all(name.startswith("wsgi") for name in response.threads), response.threads


def test_a_client_that_leaves_mid_body_calls_nothing(whole_wsgi: Any) -> None:
    called: list[bool] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        called.append(True)
        start_response("200 OK", [])
        return [b""]

    parts: list[dict[str, Any]] = [
        {"type": "http.request", "body": b"abc", "more_body": True},
        {"type": "http.disconnect"},
    ]
    assert run(whole_wsgi(app, 1), parts) == []
    assert called == []


def test_a_request_sets_nothing_for_the_next_and_the_cache_client_is_made_once(
    whole_wsgi: Any,
) -> None:
    from django.core.cache import caches
    from django.utils import translation

    seen: list[tuple[str, int]] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append((translation.get_language(), id(caches["default"])))
        translation.activate("tr")  # as LocaleMiddleware does for `Accept-Language: tr`
        start_response("200 OK", [])
        return [b""]

    wsgi = whole_wsgi(app, 1)  # one thread: both requests run on it
    request = [{"type": "http.request", "body": b"", "more_body": False}]
    run(wsgi, list(request))
    run(wsgi, list(request))
    (first_language, first_cache), (second_language, second_cache) = seen
    assert second_language == first_language != "tr"
    assert second_cache == first_cache
