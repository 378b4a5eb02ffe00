"""A live event that Redis does not take at once (live.hub.publish): a private Redis that this
test starts (never the suite's) stalled past its client's timeout by a slow script, as a fork for
a save or a slow command stalls it. The writer is not held past that timeout; the publish, which
Redis runs once the stall ends though its client gave up on it, is tried again and lands once,
with its players' `me` events once, and the publishes made meanwhile land after it, in order.
One that Redis does not take within LIVE_PUBLISH_RETRY_SECONDS is logged, and the next one is
published. A token's revocation that Redis was gone for is told once it is back, before the
publishes made after it."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis

from live import hub
from tests.backing_services import PrivateRedis, free_port

pytestmark = pytest.mark.timeout(60)


# Keeps Redis busy (every other client waits) for ARGV[1] ms.
_STALL = """
local start = redis.call('TIME')
while true do
  local now = redis.call('TIME')
  if (now[1] - start[1]) * 1000000 + now[2] - start[2] >= tonumber(ARGV[1]) * 1000 then
    return 1
  end
end
"""


def _stall(client: redis.Redis, ms: int) -> threading.Thread:
    """Redis busy for `ms` ms from now (a script run on a thread of its own), once a client
    of its own no longer gets an answer within 50 ms."""
    thread = threading.Thread(target=client.eval, args=(_STALL, 0, ms), daemon=True)
    thread.start()
    probe = redis.Redis(**{**client.connection_pool.connection_kwargs, "socket_timeout": 0.05})
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            probe.ping()
            time.sleep(0.01)
    except redis.TimeoutError:
        return thread
    finally:
        probe.close()
    raise AssertionError("Redis answered all along: the script did not run")


@pytest.fixture
def private_redis(
    settings: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[PrivateRedis]:
    """The live tier of this process on a private Redis (also on a Unix socket: a way in for
    the test while its port is moved)."""
    private = PrivateRedis(unix_socket=tmp_path / "redis.sock").start()
    settings.LIVE_REDIS_URL = private.url
    settings.LIVE_CHANNEL_PREFIX = f"test-retry-{uuid.uuid4().hex[:12]}"
    monkeypatch.setattr(hub, "_sync_client", None)  # the publishers' client, made for it
    # A publish before: Redis holds the script (a stalled first EVALSHA of a script it did not
    # hold would only be told NOSCRIPT once the stall ends), as it does a minute into a run.
    hub.publish({"match": str(uuid.uuid4()), "version": 1, "status": "active"}, [])
    try:
        yield private
    finally:
        _retries_done(15)  # its window (10 s) and the timeouts of its tries
        monkeypatch.setattr(hub, "_sync_client", None)
        private.stop()


@pytest.fixture
def stalled_redis(private_redis: PrivateRedis) -> Iterator[redis.Redis]:
    """A client of that Redis to stall it with."""
    client = redis.Redis.from_url(private_redis.url)
    try:
        yield client
    finally:
        client.close()


def _retries_done(within: float) -> None:
    """Until no publish of this process waits to be tried again (live.hub._Retries)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        with hub._retries._lock:
            if not hub._retries._waiting:
                return
        time.sleep(0.02)
    raise AssertionError(f"publishes still waiting after {within} s")


def _collect(subscription: Any, count: int, within: float) -> list[Any]:
    got: list[Any] = []
    deadline = time.monotonic() + within
    extra: float | None = None
    while time.monotonic() < deadline and (extra is None or time.monotonic() < extra):
        raw = subscription.get_message(timeout=0.2)
        if raw and raw["type"] == "message":
            got.append(orjson.loads(raw["data"]))
            if len(got) >= count and extra is None:
                extra = time.monotonic() + 1.0
    return got


def _subscribed(client: redis.Redis) -> Any:
    subscription = client.pubsub()
    subscription.subscribe(f"{hub._prefix()}:events")
    assert subscription.get_message(timeout=2)["type"] == "subscribe"
    return subscription


def test_a_publish_redis_did_not_take_lands_once_and_those_after_it_in_order(
    stalled_redis: redis.Redis, settings: Any
) -> None:
    settings.LIVE_PUBLISH_RETRY_SECONDS = 10
    match, player = str(uuid.uuid4()), str(uuid.uuid4())
    ready, _ = hub.me_log(player, 0)
    subscription = _subscribed(stalled_redis)
    try:
        stalled = _stall(stalled_redis, 1500)
        started = time.monotonic()
        for version in (1, 2, 3):
            told = [(player, {"type": "your_turn", "match": match, "version": version})]
            hub.publish({"match": match, "version": version, "status": "active"}, told)
        # The first waited out the client's timeout (0.5 s); the others queued behind it.
        assert time.monotonic() - started < 1.2
        got = _collect(subscription, 3, within=12)
        stalled.join()
    finally:
        subscription.close()
    assert [m[0]["version"] for m in got] == [1, 2, 3], got
    seq, logged = hub.me_log(player, ready)
    assert [e["version"] for e in logged] == [1, 2, 3], logged
    assert [e["seq"] for e in logged] == [ready + 1, ready + 2, ready + 3] and seq == ready + 3


def test_a_publish_not_taken_within_the_retry_window_is_lost_and_the_next_lands(
    stalled_redis: redis.Redis, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.LIVE_PUBLISH_RETRY_SECONDS = 1
    match = str(uuid.uuid4())
    subscription = _subscribed(stalled_redis)
    try:
        stalled = _stall(stalled_redis, 3000)
        with caplog.at_level(logging.WARNING, logger="live.hub"):
            hub.publish({"match": match, "version": 1, "status": "active"}, [])
            _retries_done(10)
            assert "not published: Redis did not take it" in caplog.text
        stalled.join()
        hub.publish({"match": match, "version": 2, "status": "active"}, [])
        got = _collect(subscription, 1, within=5)
    finally:
        subscription.close()
    # Its first try reached Redis before the client's timeout and ran when the stall ended: it
    # landed then, once (its retries, given up, did not), and the next one after it.
    assert [m[0]["version"] for m in got] == [1, 2], got


def test_a_revocation_redis_was_gone_for_is_told_once_it_is_back_before_what_came_after(
    private_redis: PrivateRedis, settings: Any
) -> None:
    """Redis gone for the publishers (its port moved, their connection closed: the PUBLISH
    never reaches it) while a token is revoked: the revocation waits, and the publish made
    after it waits behind it; both land in that order once the port is back."""
    settings.LIVE_PUBLISH_RETRY_SECONDS = 10
    control = redis.Redis(unix_socket_path=str(private_redis.unix_socket))
    match, digest = str(uuid.uuid4()), uuid.uuid4().hex
    subscription = _subscribed(control)
    try:
        hub.publish({"match": match, "version": 1, "status": "active"}, [])
        assert [m[0]["version"] for m in _collect(subscription, 1, within=5)] == [1]
        control.config_set("port", free_port())  # the publishers' address refuses
        control.client_kill_filter(_type="normal")  # and their open connection is gone
        started = time.monotonic()
        hub.token_revoked(digest)
        hub.publish({"match": match, "version": 2, "status": "active"}, [])
        assert time.monotonic() - started < 1.2
        time.sleep(0.5)  # tried again meanwhile, refused
        control.config_set("port", private_redis.port)
        got = _collect(subscription, 2, within=12)
    finally:
        subscription.close()
        control.close()
    assert len(got) == 2 and got[0] == {"revoked": hub.token_tag(digest)}, got
    assert got[1][0]["version"] == 2, got
