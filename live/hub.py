"""The hub: a version change of a match, told to every web process once it commits.

Publishing (any process that writes: web or worker, games.events says what): `publish(message,
people)` sends ONE message on ONE Redis channel (`<LIVE_CHANNEL_PREFIX>:events`); the same Lua
script also appends the players' `me` events to a per-player log under a per-player sequence,
so a `me` stream resumes from `Last-Event-ID` out of that log (`me_log`).

Receiving (a web process under ASGI): one `Hub` per process holds the one subscription (the
redis client's asyncio pub/sub) and hands each message to the bounded queues (`Waiter`) of the
streams and long-polls waiting on that match or player (live.streams). A queue that is full is
dropped with its reader: a slow reader never makes the process buffer without bound.

Without LIVE_REDIS_URL (the embedded default) the hub is in-process: the publisher hands the
message to the hub's event loop directly, which serves a single process.

The hub also keeps the stream slots (LIVE_STREAMS_PER_PLAYER…): a slot per open stream, per
holder, in Redis under a per-process lease (`Hub.slot_take`).

A revoked API token (logout, rotation, a password change, the account deactivated or deleted:
any deletion of an ApiToken row, players.models) is told the same way once its transaction
commits (`token_revoked_on_commit`): every stream and long-poll that came with that token (by
header or by ticket) ends, wherever it is served. Tokens are named on the channel by a tag
(`token_tag`), never by their digest. A revocation told while a process's subscription was lost
is caught when it resubscribes: the process checks the tokens of its open streams then.

A process that is stopping (SIGTERM, Ctrl-C: live.protocol.HttpProtocol.shutdown) drains its
hub (`Hub.drain`): every waiter, and every one registered from then on, is told at once to end,
so that each stream sends `reconnect` and ends, and each waiting long-poll answers now.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import logging
import math
import os
import threading
import time
import uuid
from collections import OrderedDict, defaultdict, deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any, NamedTuple

import orjson
from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

# A player's `me` sequence starts, when its key is missing (the first event, or Redis lost its
# data), at the Redis clock in microseconds (16 digits, under 2**53 for JavaScript), not at 0: a
# sequence started again is past every id of the one before, so a client that resumes with an
# old id is told `resync` (live.streams) instead of being sent the new numbering's later events
# as if it had seen the earlier ones. The sequences stay below 18 digits (the Last-Event-ID bound).
_SEQ_START_LUA = """
local function seq_start(seq_key, ttl)
  if redis.call('EXISTS', seq_key) == 0 then
    local now = redis.call('TIME')
    redis.call('SET', seq_key, now[1] .. string.format('%06d', tonumber(now[2])), 'EX', ttl)
  end
end
"""

# Append the players' "me" events to their logs and publish them with the match message, as
# one message (a JSON array: the match's first, then each player's), atomically, once per
# publish id: a publish tried again (`publish`) whose first try did reach Redis does nothing.
# ARGV: prefix, match message, log length, ttl, the publish's id, how long its id is kept,
# then (player id, event json) pairs. The event json starts with "{" and gets its sequence
# spliced in as the first member.
_PUBLISH_LUA = (
    _SEQ_START_LUA
    + """
local prefix = ARGV[1]
if not redis.call('SET', prefix .. ':published:' .. ARGV[5], '1', 'NX', 'EX', ARGV[6]) then
  return 0
end
local channel = prefix .. ':events'
local parts = {}
if ARGV[2] ~= '' then parts[1] = ARGV[2] end
for i = 7, #ARGV, 2 do
  local player = ARGV[i]
  local seq_key = prefix .. ':me:' .. player .. ':seq'
  local log_key = prefix .. ':me:' .. player .. ':log'
  seq_start(seq_key, ARGV[4])
  local seq = string.format('%d', redis.call('INCR', seq_key))
  local event = '{"seq":' .. seq .. ',' .. string.sub(ARGV[i + 1], 2)
  redis.call('ZADD', log_key, seq, event)
  redis.call('ZREMRANGEBYRANK', log_key, 0, -(tonumber(ARGV[3]) + 1))
  redis.call('EXPIRE', log_key, ARGV[4])
  redis.call('EXPIRE', seq_key, ARGV[4])
  parts[#parts + 1] = '{"player":"' .. player .. '","event":' .. event .. '}'
end
if #parts > 0 then redis.call('PUBLISH', channel, '[' .. table.concat(parts, ',') .. ']') end
return 1
"""
)

# A player's current `me` sequence (started as above when missing) and their logged events after
# ARGV[2]. ARGV: the player's key prefix, after, ttl.
_ME_LOG_LUA = (
    _SEQ_START_LUA
    + """
local seq_key = ARGV[1] .. ':seq'
seq_start(seq_key, ARGV[3])
local logged = redis.call('ZRANGEBYSCORE', ARGV[1] .. ':log', '(' .. ARGV[2], '+inf')
return {redis.call('GET', seq_key), logged}
"""
)

# A stream slot per open stream, per holder (a player, or an anonymous spectator's address): a
# member `<process>|<n>` of the holder's set. A slot lives while its process's lease lives
# (`<prefix>:stream-lease:<process>`, LIVE_HEARTBEAT_SECONDS × 3, renewed by the process every
# LIVE_HEARTBEAT_SECONDS in one command, however many streams it holds): the slots of a process
# that died are not counted, and the holder's next take clears them (the sets have no expiry:
# a stream open for days still counts). KEYS[1]: the holder's set; ARGV: the lease key prefix,
# the cap, the new member.
_SLOT_LUA = """
local key = KEYS[1]
local live, alive = 0, {}
for _, member in ipairs(redis.call('SMEMBERS', key)) do
  local process = string.match(member, '^(.*)|')
  if alive[process] == nil then
    alive[process] = redis.call('EXISTS', ARGV[1] .. process) == 1
  end
  if alive[process] then live = live + 1 else redis.call('SREM', key, member) end
end
if live >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', key, ARGV[3])
return 1
"""


def _prefix() -> str:
    return settings.LIVE_CHANNEL_PREFIX


# ---- tracing a push (bench/live.py --trace): where the time goes from commit to the client ----

# A diagnostic, not a setting: when set, a match message carries `at` (the publisher's clock, on
# commit) and `got` (the receiving hub's), and each stream appends one line per event it sends
# to `<LIVE_TRACE_FILE>.<pid>` (trace_sent). The machine's one clock: web processes and workers
# of one host.
TRACE_FILE = os.environ.get("LIVE_TRACE_FILE", "")
_trace_out: Any = None


def trace_sent(message: dict[str, Any], woke: float, read: float, sent: float) -> None:
    """One line: published, received by the hub, stream woken, view read and rendered, handed
    to the server (time.time() each)."""
    global _trace_out
    if "at" not in message:
        return
    if _trace_out is None:
        _trace_out = open(f"{TRACE_FILE}.{os.getpid()}", "a", buffering=1)  # noqa: SIM115
    _trace_out.write(f"{message['at']} {message.get('got', 0)} {woke} {read} {sent}\n")


def token_tag(digest: str) -> str:
    """The name of an API token (its digest) on the live channel: a hash of the digest, so
    the channel never carries what the database keeps."""
    return hashlib.sha256(f"live-token:{digest}".encode()).hexdigest()[:32]


def token_revoked_on_commit(digest: str) -> None:
    """Once the current transaction commits, end every stream and long-poll of the token whose
    digest is `digest`, on every web process. Never fails the write."""
    transaction.on_commit(lambda: token_revoked(digest), robust=True)


def token_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    """post_delete of players.ApiToken (games.apps): its streams end once the deletion commits."""
    token_revoked_on_commit(instance.digest)


def token_revoked(digest: str) -> None:
    """Tell every hub that the token of `digest` is revoked. Redis slow or gone: tried again
    with the publishes (`_Retries`; telling it twice ends nothing more); past their window a
    hub that lost its subscription meanwhile checks its streams' tokens when it is back."""
    message = {"revoked": token_tag(digest)}
    about = "revocation of a token"
    try:
        if settings.LIVE_REDIS_URL:
            channel, payload = f"{_prefix()}:events", orjson.dumps(message)
            _redis_send(lambda: _redis().client.publish(channel, payload), about)
        else:
            local_publish(message, [])
    except Exception:  # not a Redis that failed to answer: the deletion has committed; log
        logger.warning("%s not published", about, exc_info=True)


# What a writer hands this process's own streams before its message (`hand_over`): a value
# the hub does not read, given to the consumer the streams register (live.streams).
_local_consumer: Callable[[Any], None] | None = None


def local_consumer_set(consumer: Callable[[Any], None]) -> None:
    """`consumer` gets each value handed over in this process (`hand_over`)."""
    global _local_consumer
    _local_consumer = consumer


# What the streams do with a match's message before its waiters wake (`Hub.dispatch`): the
# consumer they register (live.streams), given each message of a match this process waits on.
_message_consumer: Callable[[dict[str, Any]], None] | None = None


def message_consumer_set(consumer: Callable[[dict[str, Any]], None]) -> None:
    """`consumer` gets each match's message that has waiters here, before they are woken."""
    global _message_consumer
    _message_consumer = consumer


def hand_over(local: Any) -> None:
    """Give `local` to this process's streams (the consumer of `local_consumer_set`); never
    sent anywhere. Never fails: the streams read instead."""
    if _local_consumer is None:
        return
    try:
        _local_consumer(local)
    except Exception:
        logger.warning("local hand-over not taken", exc_info=True)


def publish(message: dict[str, Any] | None, people: list[tuple[str, dict[str, Any]]]) -> None:
    """Send `message` (a match's new version; None: only `people`'s `me` events). Never
    fails and never waits on Redis past its client's timeout: a publish Redis did not take
    (slow past it, or gone) is tried again on a thread of the process's own (`_Retries`), in
    the order of the publishes, for LIVE_PUBLISH_RETRY_SECONDS, and lands once however many
    tries reached Redis; past that it is logged and lost, which costs a stream a late update
    (streams re-read on reconnect, and every stream of a process whose subscription to Redis
    broke is told `resync`)."""
    if TRACE_FILE and message:
        message = {**message, "at": time.time()}
    about = f"match {message.get('match')}" if message else f"{len(people)} players"
    try:
        if settings.LIVE_REDIS_URL:
            _redis_publish(message, people, about)
        else:
            local_publish(message, people)
    except Exception:  # not a Redis that failed to answer: the move has committed; log, go on
        logger.warning("live event for %s not published", about, exc_info=True)


def player_streaming(player: str) -> bool:
    """Whether `player` has an open stream (a match's, their `me` or the lobby's, as SSE or
    WebSocket) or a waiting long-poll on any web process: a slot of theirs whose process's
    lease lives (Hub.slot_take). Redis down: False (better told twice than not at all)."""
    if not settings.LIVE_REDIS_URL:
        slots = _hub.slots if _hub is not None else {}
        return slots.get(player, 0) + slots.get(f"poll:{player}", 0) > 0
    try:
        client = _redis().client
        members: set[bytes] = set()
        for key in (player, f"poll:{player}"):
            members |= client.smembers(f"{_prefix()}:stream-slots:{key}")
        processes = {member.decode().split("|", 1)[0] for member in members}
        return any(client.exists(f"{_prefix()}:stream-lease:{process}") for process in processes)
    except Exception:
        logger.warning("stream slots of %s not read", player, exc_info=True)
        return False


class _SyncRedis(NamedTuple):
    """The publishers' Redis client (blocking) and its two scripts."""

    client: Any
    publish: Any  # _PUBLISH_LUA
    me_log: Any  # _ME_LOG_LUA


_sync_client: _SyncRedis | None = None
_sync_lock = threading.Lock()


def redis_ping() -> None:
    """PING the live tier's Redis on the publishers' client (its short timeouts); one of
    REDIS_DOWN where it does not answer."""
    _redis().client.ping()


def _redis() -> _SyncRedis:
    global _sync_client
    if _sync_client is None:
        import redis

        with _sync_lock:
            if _sync_client is None:
                client = redis.Redis.from_url(
                    settings.LIVE_REDIS_URL, socket_timeout=0.5, socket_connect_timeout=0.5
                )
                _sync_client = _SyncRedis(
                    client,
                    client.register_script(_PUBLISH_LUA),
                    client.register_script(_ME_LOG_LUA),
                )
    return _sync_client


def _redis_publish(
    message: dict[str, Any] | None, people: list[tuple[str, dict[str, Any]]], about: str
) -> None:
    match = orjson.dumps(message) if message else b""
    args: list[Any] = [_prefix(), match, settings.LIVE_ME_LOG, settings.LIVE_ME_TTL]
    args += [uuid.uuid4().hex, math.ceil(settings.LIVE_PUBLISH_RETRY_SECONDS) + 5]
    for player, event in people:
        args += [player, orjson.dumps(event)]
    _redis_send(lambda: _redis().publish(args=args), f"live event for {about}")


def _redis_send(send: Callable[[], Any], about: str) -> None:
    """`send()` now, or behind the sends waiting to be tried again (`_retries`); one that
    Redis did not take joins them."""
    if _retries.queue_after(send, about):
        return  # sends that failed before it wait: it goes after them
    try:
        send()
    except (RedisConnectionError, RedisTimeoutError):
        logger.info("%s not taken by Redis: tried again", about)
        _retries.queue(send, about)


class _Retries:
    """The sends to Redis it did not take (publishes, revocations), tried again in their
    order on one thread of the process's own (started on the first, and again in a process
    forked from one that had it), each until its deadline (LIVE_PUBLISH_RETRY_SECONDS after
    its first try) with waits of 50 ms doubling to 1 s; while any waits, later sends queue
    behind it. At most `limit` wait: a send past it is logged and lost (Redis has been gone
    that long)."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._waiting: deque[tuple[float, Callable[[], Any], str]] = deque()
        self._thread: threading.Thread | None = None

    def queue_after(self, send: Callable[[], Any], about: str) -> bool:
        """Queue `send` if sends wait already (True), else leave it to the caller."""
        with self._lock:
            if not self._waiting:
                return False
            self._add(send, about)
            return True

    def queue(self, send: Callable[[], Any], about: str) -> None:
        with self._lock:
            self._add(send, about)

    def _add(self, send: Callable[[], Any], about: str) -> None:
        if len(self._waiting) >= self.limit:
            logger.warning("%s not published: %d wait already", about, self.limit)
            return
        self._waiting.append((time.monotonic() + settings.LIVE_PUBLISH_RETRY_SECONDS, send, about))
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="live-publish", daemon=True)
            self._thread.start()
        self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._waiting:
                    self._wake.wait()
                deadline, send, about = self._waiting[0]
            self._try(deadline, send, about)
            with self._lock:
                self._waiting.popleft()  # only now: sends made meanwhile queued behind it

    @staticmethod
    def _try(deadline: float, send: Callable[[], Any], about: str) -> None:
        pause = 0.05
        while (left := deadline - time.monotonic()) > 0:
            try:
                send()
                return
            except (RedisConnectionError, RedisTimeoutError):
                time.sleep(min(pause, max(left, 0)))
                pause = min(pause * 2, 1.0)
            except Exception:
                logger.warning("%s not published", about, exc_info=True)
                return
        logger.warning(
            "%s not published: Redis did not take it for %s s",
            about,
            settings.LIVE_PUBLISH_RETRY_SECONDS,
        )


_retries = _Retries()


# ---- the in-process hub's publishing side (no Redis) ----

_local_lock = threading.Lock()
_local_seq: dict[str, int] = {}
_local_log: dict[str, deque[dict[str, Any]]] = {}
# When each player's sequence and log were last written (time.monotonic()), oldest first: they
# go LIVE_ME_TTL seconds after it, as the Redis keys expire, so that a long-running process
# keeps the players of the last LIVE_ME_TTL seconds only.
_local_written: OrderedDict[str, float] = OrderedDict()


def local_publish(message: dict[str, Any] | None, people: list[tuple[str, dict[str, Any]]]) -> None:
    """The Lua script's work in this process: sequence and log the `me` events, then hand the
    messages to the hub's loop."""
    out = [message] if message else []
    with _local_lock:
        _local_forget_expired()
        for player, event in people:
            _local_seq[player] = _local_seq_start(player) + 1
            logged = {"seq": _local_seq[player], **event}
            _local_log.setdefault(player, deque(maxlen=settings.LIVE_ME_LOG)).append(logged)
            _local_keep(player)
            out.append({"player": player, "event": logged})
    hub = _hub
    if hub is not None and hub.loop is not None and not hub.loop.is_closed():
        for item in out:
            hub.loop.call_soon_threadsafe(hub.dispatch, item)


def _local_seq_start(player: str) -> int:
    """The player's sequence, started at the clock in microseconds when new (as _SEQ_START_LUA:
    a process started again, or a sequence expired, numbers past the one before). Called with
    _local_lock held."""
    if player not in _local_seq:
        _local_seq[player] = time.time_ns() // 1000
        _local_keep(player)
    return _local_seq[player]


def _local_keep(player: str) -> None:
    """The player's sequence and log live LIVE_ME_TTL seconds from now (with _local_lock)."""
    _local_written[player] = time.monotonic()
    _local_written.move_to_end(player)


def _local_forget_expired() -> None:
    """Drop the sequences and logs past their time (with _local_lock)."""
    before = time.monotonic() - settings.LIVE_ME_TTL
    while _local_written:
        player, written = next(iter(_local_written.items()))
        if written > before:
            return
        del _local_written[player]
        _local_seq.pop(player, None)
        _local_log.pop(player, None)


def _local_me_log(player: str, after: int) -> tuple[int, list[dict[str, Any]]]:
    with _local_lock:
        _local_forget_expired()
        return _local_seq_start(player), [e for e in _local_log.get(player, ()) if e["seq"] > after]


def tokens_live(digests: list[str]) -> set[str]:
    """Those of `digests` that are still live API tokens (not revoked, not idle-expired) of an
    active user (blocking: run it with run_blocking)."""
    from players.models import ApiToken

    idle_before = timezone.now() - timedelta(seconds=settings.TOKEN_IDLE_SECONDS)
    return set(
        ApiToken.objects.filter(
            digest__in=digests, user__is_active=True, last_used__gt=idle_before
        ).values_list("digest", flat=True)
    )


# ---- the receiving side: one hub per process ----


class Waiter:
    """One stream's (or long-poll's) queue of messages from the hub, bounded.

    A list and one future at a time, not an asyncio.Queue (four deques and an Event) and a task
    per wait (asyncio.wait_for): thousands of waiters idle in each process for hours.
    """

    __slots__ = ("_wake", "dropped", "items", "restarting", "revoked")

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.dropped = False
        self.revoked = False  # the token it came with was revoked: it ends
        self.restarting = False  # the process is stopping: it ends, the client comes back
        self._wake: asyncio.Future[None] | None = None

    def revoke(self) -> None:
        self.revoked = True
        self._wake_up()

    def restart(self) -> None:
        self.restarting = True
        self._wake_up()

    def offer(self, item: dict[str, Any]) -> bool:
        """Queue `item`; False (and dropped) when the reader is LIVE_QUEUE_SIZE behind."""
        if len(self.items) >= settings.LIVE_QUEUE_SIZE:
            self.dropped = True
            self._wake_up()
            return False
        self.items.append(item)
        self._wake_up()
        return True

    def _wake_up(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    async def get(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None after `timeout` s without one (at once when dropped,
        revoked or restarting)."""
        if not self.items and not self.dropped and not self.revoked and not self.restarting:
            loop = asyncio.get_running_loop()
            wake = self._wake = loop.create_future()
            timer = loop.call_later(timeout, _time_up, wake)
            try:
                await wake
            finally:
                timer.cancel()
                self._wake = None
        return self.items.pop(0) if self.items else None


def _time_up(wake: asyncio.Future[None]) -> None:
    if not wake.done():
        wake.set_result(None)


RESYNC = {"resync": True}  # the subscription was lost for a while: re-read everything
# Seconds a stream being opened waits for Redis (its subscription, a stream slot) before it is
# refused (`503 unavailable`, live.streams): Redis is down.
LIVE_REDIS_TIMEOUT = 2.0
# What a Redis that is down or does not answer raises, through redis-py or a timeout above.
REDIS_DOWN: tuple[type[BaseException], ...] = (
    TimeoutError,
    OSError,
    RedisConnectionError,
    RedisTimeoutError,
)
# Seconds a hub remembers a revoked token for the streams still being opened with it.
REVOKED_MEMORY = 60.0


class Hub:
    """The process's one subscription and the waiters of every match and player."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.matches: dict[str, set[Waiter]] = defaultdict(set)
        self.players: dict[str, set[Waiter]] = defaultdict(set)
        self.lobby: set[Waiter] = set()  # the lobby's streams (`lobby` messages)
        # The waiters of each token (by token_tag), the digest of each tag, and the tags revoked
        # lately (tag -> loop time of the revocation): a stream authenticated just before its
        # token's revocation and registered just after it still ends.
        self.tokens: dict[str, set[Waiter]] = defaultdict(set)
        self.token_digests: dict[str, str] = {}
        self.revoked: dict[str, float] = {}
        self.slots: dict[str, int] = defaultdict(int)  # in-process stream slots per player
        self._ready: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._client: Any = None
        self._slot_script: Any = None
        self._slot_ids = itertools.count()
        # This process's slots in Redis: their prefix (unique per hub, on any host) and lease.
        self._process = uuid.uuid4().hex
        self._held: dict[str, str] = {}  # slot -> player, of this process's open streams (Redis)
        self._refresher: asyncio.Task[None] | None = None
        self._giving_back: set[asyncio.Task[None]] = set()  # slot_give_back_soon's
        self._lease_set_at = -math.inf  # loop time of the last lease renewal
        self._recheck: asyncio.Task[None] | None = None
        self.draining = False  # the process is stopping (drain)
        # Its subscription is confirmed and not lost since (`GET /health` says so).
        self.listening = False

    async def start(self, timeout: float | None = None) -> None:
        """Subscribe (once per process); returns when the subscription is confirmed, so that a
        waiter registered after it misses no message. TimeoutError after `timeout` s
        (LIVE_REDIS_TIMEOUT by default) without one: Redis is down, and the subscription goes
        on being tried meanwhile."""
        if self._ready is None:
            self.loop = asyncio.get_running_loop()
            self._ready = asyncio.Event()
            if settings.LIVE_REDIS_URL:
                import redis.asyncio as aioredis

                self._client = aioredis.Redis.from_url(
                    settings.LIVE_REDIS_URL, socket_connect_timeout=2, health_check_interval=30
                )
                self._slot_script = self._client.register_script(_SLOT_LUA)
                self._task = asyncio.create_task(self._listen())
                self._refresher = asyncio.create_task(self._refresh_slots())
            else:
                self._ready.set()
        if not self._ready.is_set():
            wait = LIVE_REDIS_TIMEOUT if timeout is None else timeout
            await asyncio.wait_for(self._ready.wait(), wait)

    async def stop(self) -> None:
        for task in (self._task, self._refresher, self._recheck):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._client is not None:
            await self._client.aclose()

    async def _listen(self) -> None:
        assert self._ready is not None
        channel = f"{_prefix()}:events"
        backoff = 0.1
        first = True
        while True:
            pubsub = self._client.pubsub()
            try:
                await pubsub.subscribe(channel)
                async for raw in pubsub.listen():
                    kind = raw.get("type")
                    if kind == "message":
                        # A writer's messages come as one array (_PUBLISH_LUA), others alone.
                        data = orjson.loads(raw["data"])
                        for message in data if isinstance(data, list) else (data,):
                            if TRACE_FILE:
                                message["got"] = time.time()
                            self.dispatch(message)
                    elif kind == "subscribe":
                        # Confirmed: from here on every published message reaches us.
                        self._ready.set()
                        self.listening = True
                        if not first:
                            self.broadcast(RESYNC)  # messages may have been lost meanwhile
                            self._recheck = asyncio.create_task(self._tokens_recheck())
                        first, backoff = False, 0.1
            except asyncio.CancelledError:
                self.listening = False
                await pubsub.aclose()
                raise
            except Exception as exc:
                self.listening = False
                if backoff == 0.1:  # the outage's first failure: its traceback, once
                    logger.warning("live subscription lost; reconnecting", exc_info=True)
                else:
                    logger.warning(
                        "live subscription still lost (%s: %s); again in %.1f s",
                        type(exc).__name__,
                        exc,
                        backoff,
                    )
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)

    def dispatch(self, message: dict[str, Any]) -> None:
        """Hand `message` to the waiters of its match or player; drop the ones that are full.
        A revocation ends the waiters of its token."""
        if "revoked" in message:
            self.revoke(message["revoked"])
            return
        if "player" in message:
            waiters = self.players.get(message["player"])
            item = message["event"]
        else:
            waiters = self.matches.get(message["match"])
            item = message
            if waiters and _message_consumer is not None:
                try:
                    _message_consumer(message)
                except Exception:  # the streams read instead
                    logger.warning("match message not taken", exc_info=True)
        if waiters:
            for waiter in [w for w in waiters if not w.offer(item)]:
                waiters.discard(waiter)
        if self.lobby and message.get("lobby"):
            for waiter in [w for w in self.lobby if not w.offer(message)]:
                self.lobby.discard(waiter)

    def revoke(self, tag: str) -> None:
        """End every waiter of the token `tag`, and any registered within REVOKED_MEMORY s."""
        assert self.loop is not None
        now = self.loop.time()
        self.revoked[tag] = now
        for old in [t for t, at in self.revoked.items() if at < now - REVOKED_MEMORY]:
            del self.revoked[old]
        for waiter in self.tokens.get(tag, ()):
            waiter.revoke()

    async def _tokens_recheck(self) -> None:
        """After the subscription was lost (a revocation may have been missed): end the
        waiters of every token that is no longer live."""
        digests = list(self.token_digests.values())
        for start in range(0, len(digests), 1000):
            chunk = digests[start : start + 1000]
            try:
                live = await run_blocking(tokens_live, chunk)
            except Exception:
                logger.warning("tokens of open streams not checked", exc_info=True)
                return
            for digest in set(chunk) - live:
                self.revoke(token_tag(digest))

    def _token_add(self, waiter: Waiter, token: str | None) -> str | None:
        """Register `waiter` as one of the token whose digest is `token` (None: anonymous)."""
        if token is None:
            return None
        tag = token_tag(token)
        self.tokens[tag].add(waiter)
        self.token_digests[tag] = token
        assert self.loop is not None
        at = self.revoked.get(tag)
        if at is not None and at >= self.loop.time() - REVOKED_MEMORY:
            waiter.revoke()
        return tag

    def _token_remove(self, waiter: Waiter, tag: str | None) -> None:
        if tag is None:
            return
        found = self.tokens.get(tag)
        if found is not None:
            found.discard(waiter)
            if not found:
                del self.tokens[tag]
                self.token_digests.pop(tag, None)

    def drain(self) -> None:
        """The process is stopping: every waiter ends now (its stream sends `reconnect`, its
        long-poll answers at once), and so does every waiter registered from now on."""
        self.draining = True
        for group in (*self.matches.values(), *self.players.values(), self.lobby):
            for waiter in group:
                waiter.restart()

    def _registered(self, waiter: Waiter) -> Waiter:
        if self.draining:
            waiter.restart()
        return waiter

    def broadcast(self, item: dict[str, Any]) -> None:
        for group in (*self.matches.values(), *self.players.values(), self.lobby):
            for waiter in [w for w in group if not w.offer(item)]:
                group.discard(waiter)

    @contextlib.asynccontextmanager
    async def watch_lobby(self, *, token: str | None = None):  # type: ignore[no-untyped-def]
        """A waiter on the lobby's messages, registered on a confirmed subscription; `token`:
        the digest of the caller's API token (None: anonymous), whose revocation ends it."""
        await self.start()
        waiter = self._registered(Waiter())
        self.lobby.add(waiter)
        tag = self._token_add(waiter, token)
        try:
            yield waiter
        finally:
            self.lobby.discard(waiter)
            self._token_remove(waiter, tag)

    @contextlib.asynccontextmanager
    async def watch(  # type: ignore[no-untyped-def]
        self, *, match: str | None = None, player: str | None = None, token: str | None = None
    ):
        """A waiter on `match` or `player`, registered (on a confirmed subscription) before the
        caller reads the current state, so nothing committed after that read is missed;
        `token` as for watch_lobby."""
        await self.start()
        group, key = (self.matches, match) if match is not None else (self.players, player)
        waiter = self._registered(Waiter())
        group[key].add(waiter)  # type: ignore[index]
        tag = self._token_add(waiter, token)
        try:
            yield waiter
        finally:
            found = group.get(key)  # type: ignore[arg-type]
            if found is not None:
                found.discard(waiter)
                if not found:
                    del group[key]  # type: ignore[arg-type]
            self._token_remove(waiter, tag)

    @property
    def subscribed(self) -> bool:
        """The process's subscription has been confirmed (`start`): watch registers at once."""
        return self._ready is not None and self._ready.is_set()

    @contextlib.contextmanager
    def watch_token(self, waiter: Waiter, token: str | None) -> Iterator[None]:
        """`token` as watch's, for a waiter registered before its caller was checked (a
        waiting long-poll's, live.asgi.StateEndpoint): its revocation from then on ends it."""
        tag = self._token_add(waiter, token)
        try:
            yield
        finally:
            self._token_remove(waiter, tag)

    # ---- per-player stream slots (LIVE_STREAMS_PER_PLAYER) ----

    async def slot_take(self, player: str, limit: int | None = None) -> str | None:
        """A slot id for one more open stream of `player` (any key: a player id, or a
        spectator's address), or None at the cap (LIVE_STREAMS_PER_PLAYER unless `limit`)."""
        await self.start()
        if limit is None:
            limit = settings.LIVE_STREAMS_PER_PLAYER
        slot = f"{self._process}|{next(self._slot_ids)}"
        if self._client is None:
            if self.slots[player] >= limit:
                return None
            self.slots[player] += 1
            return slot
        taken = await asyncio.wait_for(self._slot_claim(player, limit, slot), LIVE_REDIS_TIMEOUT)
        if not taken:
            return None
        self._held[slot] = player
        return slot

    async def _slot_claim(self, player: str, limit: int, slot: str) -> bool:
        # The first slot, or the first since the lease may have lapsed: renewed, unless it was
        # less than a heartbeat ago (it lives three), as for a process whose long-polls come
        # one after another.
        if not self._held and self._lease_age() >= settings.LIVE_HEARTBEAT_SECONDS:
            await self._lease_renew()
        taken = await self._slot_script(
            keys=[self._slot_key(player)], args=[self._lease_prefix(), limit, slot]
        )
        return bool(taken)

    async def _refresh_slots(self) -> None:
        """Every LIVE_HEARTBEAT_SECONDS, renew this process's lease: one command, however many
        slots it holds (renewing each slot held a loop for 0.17 s at 9,500 streams). A lease
        found lapsed (Redis was away longer than its life) may have had its slots cleared by
        another process: they are added again."""
        while True:
            await asyncio.sleep(settings.LIVE_HEARTBEAT_SECONDS)
            if not self._held:
                continue
            try:
                if not await self._lease_renew():
                    await self._slots_restore()
            except Exception:  # Redis away: the slots lapse, the streams go on
                logger.warning("live stream slots not refreshed", exc_info=True)

    async def _lease_renew(self) -> bool:
        """Set this process's lease for another slot life; whether it was still alive."""
        life = int(self._slot_life() * 1000)
        started = asyncio.get_running_loop().time()
        alive = await self._client.set(self._lease_key(), 1, px=life, get=True) is not None
        self._lease_set_at = started
        return alive

    def _lease_age(self) -> float:
        return asyncio.get_running_loop().time() - self._lease_set_at

    async def _slots_restore(self, chunk: int = 1000) -> None:
        """Add this process's held slots back, in chunks (each a round trip the loop waits
        out, not a stall of the loop)."""
        held = list(self._held.items())
        for start in range(0, len(held), chunk):
            async with self._client.pipeline(transaction=False) as pipe:
                for slot, player in held[start : start + chunk]:
                    pipe.sadd(self._slot_key(player), slot)
                await pipe.execute()

    async def slot_give_back(self, player: str, slot: str) -> None:
        if self._client is None:
            self.slots[player] -= 1
            if self.slots[player] <= 0:
                del self.slots[player]
            return
        self._held.pop(slot, None)
        with contextlib.suppress(Exception):
            await self._client.srem(self._slot_key(player), slot)

    def slot_give_back_soon(self, player: str, slot: str) -> None:
        """`slot_give_back`, not awaited: a long-poll answers without waiting for its round
        trip (the answer leaves by a thread, after the give-back has been sent)."""
        task = asyncio.ensure_future(self.slot_give_back(player, slot))
        self._giving_back.add(task)
        task.add_done_callback(self._giving_back.discard)

    def _slot_key(self, player: str) -> str:
        return f"{_prefix()}:stream-slots:{player}"

    @staticmethod
    def _lease_prefix() -> str:
        return f"{_prefix()}:stream-lease:"

    def _lease_key(self) -> str:
        return self._lease_prefix() + self._process

    @staticmethod
    def _slot_life() -> float:
        return settings.LIVE_HEARTBEAT_SECONDS * 3


def me_log(player: str, after: int) -> tuple[int, list[dict[str, Any]]]:
    """The player's current `me` sequence and their logged events after `after` (blocking:
    run it with run_blocking)."""
    if not settings.LIVE_REDIS_URL:
        return _local_me_log(player, after)
    seq, rows = _redis().me_log(args=[f"{_prefix()}:me:{player}", after, settings.LIVE_ME_TTL])
    return int(seq), [orjson.loads(row) for row in rows]


_hub: Hub | None = None


def current() -> Hub | None:
    """This process's hub if it has one on a running loop (any thread may ask), else None."""
    found = _hub
    if found is None or found.loop is None or found.loop.is_closed():
        return None
    return found


def hub() -> Hub:
    """This process's hub (created on first use, on the running loop)."""
    global _hub
    if _hub is None or (_hub.loop is not None and _hub.loop.is_closed()):
        _hub = Hub()
    return _hub


# ---- the streams' blocking work: a few threads, not one per waiting client ----

_executor: ThreadPoolExecutor | None = None


async def run_blocking(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` (database reads, token checks) on one of LIVE_DB_THREADS threads:
    thousands of waiting streams share these threads and their database connections."""
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(settings.LIVE_DB_THREADS, thread_name_prefix="live-db")

    def call() -> Any:
        try:
            return fn(*args, **kwargs)
        finally:
            # As at the end of a request: a pooled connection goes back to the pool, a broken
            # or expired one is closed.
            close_old_connections()

    return await asyncio.get_running_loop().run_in_executor(_executor, call)
