"""Live-play capacity: 16 active clients play while N idle clients wait, on the ASGI deployment.

Starts the production stack of docs/operations.md "Live play" (bench/stack.py) on a private
PostgreSQL and a private redis-server, on free ports: uvicorn live.asgi with
`--workers` processes, Celery workers `-Q bots,scoring,celery` and `-Q analysis` (the latter at
`chrt --idle 0`, docs/operations.md "Queues and workers"; `--analysis none` starts none). Never the
shared services.

Each phase opens N idle clients, then 16 active clients (8 two-seat matches) play for
`--seconds`: each holds the event stream of its match and moves when an event says it is on
turn: by `POST …/moves` on a connection of its own (`--moves rest`), or on the match's
WebSocket, which is then its event stream too (`--moves socket`: docs/api.md "On the match's
WebSocket"); the default runs every phase both ways, socket first, and the targets judge the
socket's figures with the route's beside them. Phases: N idle *streams* (`GET …/events` on
idle matches), then N idle *long-polls* (`GET …/state?after_version=V&wait=25`, asked again
when answered); `--modes sockets`: N idle WebSockets on the streams' paths (their WebSocket
form). Printed per phase: move
POST p50/p99, move → event delivery p50/p99 (POST sent → the opponent's event arrived),
errors, server RSS per 1,000 idle connections (uvicorn processes, before/after opening them),
PostgreSQL connections in use, the CPU a move costs each tier (web, PostgreSQL, workers, Redis,
the load generator); then each target of the issue and whether it was met.

Last, the floor: as many clients as there are moves in flight (one per match: 8) post
`POST /bench/ceiling` (games/bench_views.py: one transaction that locks a row, updates it and
inserts one, in a plain Django view: no DRF, no rules, no push) in a closed loop on the same
stack, no idle client. Its p99 is the least a durable write takes here at that concurrency,
under any move path this stack serves; a delivery is a move and its push, so it cannot be below.
With `--rounds R`, the phases and the floor take turns R times: each figure is over all of its
rounds, and the ratios the targets judge are also printed round by round, beside that round's
floor (a drift in the machine's speed then falls on both).

    .venv/bin/python bench/live.py                                # N = 0, 1000, 5000, 10000
    .venv/bin/python bench/live.py --idle 0,500 --seconds 8       # a quick look
    .venv/bin/python bench/live.py --idle 1000 --modes streams --think 0.2   # not saturated
    .venv/bin/python bench/live.py --idle 0,1000 --modes streams --moves socket,rest --seconds 10
    .venv/bin/python bench/live.py --idle 0,1000 --modes streams --moves socket,rest --rounds 3

The idle clients share `--idle-players` players (the per-player stream cap is raised for the
bench: it limits one person, and these are not people). The file-descriptor limit is raised to
its hard limit; each idle client needs one descriptor here and one in a server process.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import resource
import signal
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import orjson
import uvloop
from common import ANALYSIS_PRIORITY, ceiling_tables_create, percentile
from stack import ROOT, Stack

IDLE_MATCHES = 50
PHASE_GRACE = 30.0  # seconds the active clients get to finish once a phase is over
# --trace: the stages of a push on the server, between the marks of live.hub.trace_sent.
TRACE_STAGES = [
    ("publish -> hub", "at", "got"),  # Redis PUBLISH to the subscription's message parsed
    ("hub -> stream woken", "got", "woke"),  # the stream's generator runs again
    ("read + render", "woke", "read"),  # the (shared) match read and the seat's view
    ("render -> sent", "read", "sent"),  # the event handed to uvicorn
    ("commit -> sent", "at", "sent"),  # all of the above
]


# ---- the stack (bench/stack.py) ----


def stack_start(workers: int, trace: bool, analysis: str) -> Stack:
    """The deployment of docs/operations.md "Live play" on a private stack: uvicorn with
    `workers` processes; the queues scaled apart, the analysis worker (seconds of CPU a deal,
    background work) at the lowest CPU priority, so it takes what play leaves (`analysis`
    "none": no analysis worker). With `trace`, the web processes write LIVE_TRACE_FILE."""
    stack = Stack(
        "live",
        env={
            "LIVE_STREAMS_PER_PLAYER": "1000000",
            # A fixed pool per web process, so the count of connections shows what N changes.
            "DATABASE_POOL_MIN": "8",
            "DATABASE_POOL_MAX": "8",
            # The floor's endpoint (pisyedili_api/urls_bench.py): the production routes and it.
            "BENCH_ENDPOINTS": "1",
        },
    )
    stack.env["LIVE_REDIS_URL"] = stack.env["CELERY_BROKER_URL"]  # streams and pushes
    try:
        if trace:
            stack.env["LIVE_TRACE_FILE"] = str(stack.dir / "trace")  # live.hub.trace_sent
        stack.services_start()
        ceiling_tables_create(stack.env)  # the floor's endpoint
        stack.worker("play", "-Q", "bots,scoring,celery")
        if analysis == "worker":
            stack.worker("analysis", "-Q", "analysis", idle=True)
        stack.uvicorn(workers)
        stack.wait_web()
    except BaseException:
        stack.stop()
        raise
    return stack


def push_stages(stack: Stack, start: float, end: float) -> dict[str, list[float]]:
    """The servers' trace lines (--trace) of the pushes published in [start, end]: the
    milliseconds of each stage, from the commit to the event handed to uvicorn."""
    stages: dict[str, list[float]] = {name: [] for name, _, _ in TRACE_STAGES}
    if "LIVE_TRACE_FILE" not in stack.env:
        return stages
    trace = Path(stack.env["LIVE_TRACE_FILE"])
    for path in trace.parent.glob(f"{trace.name}.*"):
        if not path.name.removeprefix(f"{trace.name}.").isdigit():
            continue  # not a push trace (the collector's: gc_pauses)
        for line in path.read_text().splitlines():
            at, got, woke, read, sent = (float(x) for x in line.split())
            if not start <= at <= end:
                continue
            marks = {"at": at, "got": got, "woke": woke, "read": read, "sent": sent}
            for name, a, b in TRACE_STAGES:
                stages[name].append((marks[b] - marks[a]) * 1000)
    return stages


def gc_pauses(stack: Stack, start: float, end: float) -> dict[str, dict[int, list[float]]]:
    """The servers' garbage collections in [start, end] (--trace; pisyedili_api.heap): per
    tier (web, workers), per generation, each collection's pause in ms."""
    pauses: dict[str, dict[int, list[float]]] = {"web": {}, "workers": {}}
    if "LIVE_TRACE_FILE" not in stack.env:
        return pauses
    trace = Path(stack.env["LIVE_TRACE_FILE"])
    web = set(stack.web_children())
    for path in trace.parent.glob(f"{trace.name}.gc.*"):
        tier = "web" if int(path.name.rsplit(".", 1)[1]) in web else "workers"
        for line in path.read_text().splitlines():
            at, generation, ms = line.split()
            if start <= float(at) <= end:
                pauses[tier].setdefault(int(generation), []).append(float(ms))
    return pauses


# ---- players and matches, written straight through the services (fast, no HTTP) ----


def django_setup(env: dict[str, str]) -> None:
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "CELERY_BROKER_URL", "LIVE_REDIS_URL")})
    os.environ["DJANGO_SECRET_KEY"] = env["DJANGO_SECRET_KEY"]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pisyedili_api.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def players(count: int) -> list[tuple[Any, str]]:
    from players.services import player_register

    return [
        player_register(username=f"b{uuid.uuid4().hex[:12]}", password="bench-pass-1")
        for _ in range(count)
    ]


def new_match(a: Any, b: Any, deals: int = 20) -> tuple[str, int]:
    from django.db import connection

    from games.services import match_create

    try:
        match = match_create(player=a, seats=2, seated=[a, b], deals=deals)
    finally:
        connection.close()  # the bench's own connections do not count among the server's
    return str(match.id), match.version


# ---- raw HTTP/1.1 clients (thousands of them must be cheap) ----


async def request(port: int, path: str, token: str, extra: str = "") -> tuple[int, Any, Any]:
    """`GET path` as `token` on a new connection (`extra`: more header lines, each ending in
    CRLF); its status, the reader (at the headers) and the writer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {token}\r\n"
        f"{extra}\r\n".encode()
    )
    status = int((await reader.readline()).split()[1])
    return status, reader, writer


async def headers(reader: Any) -> dict[str, str]:
    found = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        found[name.strip().lower()] = value.strip()
    return found


async def response_body(reader: Any, found: dict[str, str]) -> bytes:
    """The body of a response whose headers are `found`: Content-Length or chunked."""
    if "content-length" in found:
        return bytes(await reader.readexactly(int(found["content-length"])))
    body = b""
    while size := int((await reader.readline()).strip() or b"0", 16):
        body += (await reader.readexactly(size + 2))[:-2]
    await reader.readline()
    return body


class Connection:
    """One keep-alive HTTP/1.1 connection for a client's moves: a raw request costs the load
    generator a fraction of what an HTTP library's does, and its CPU is the server's too here
    (the same 2 cores)."""

    def __init__(self, port: int, token: str | None) -> None:
        self.port = port
        self.auth = f"Authorization: Token {token}\r\n" if token else ""
        self.reader: Any = None
        self.writer: Any = None

    async def post(self, path: str, body: Any) -> tuple[int, bytes]:
        data = orjson.dumps(body)
        for attempt in (1, 2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            try:
                self.writer.write(
                    f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    f"{self.auth}Content-Type: application/json\r\n"
                    f"Content-Length: {len(data)}\r\n\r\n".encode()
                    + data
                )
                status = int((await self.reader.readline()).split()[1])
                found = await headers(self.reader)
                answer = await response_body(self.reader, found)
                if found.get("connection", "").lower() == "close":
                    self.close()
                return status, answer
            except (OSError, IndexError, asyncio.IncompleteReadError):
                self.close()  # the server closed a kept-alive connection: once more, anew
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def sse_events(reader: Any):  # type: ignore[no-untyped-def]
    """(id, event, data) of a chunked event stream."""
    buffer = b""
    while True:
        size = int((await reader.readline()).strip() or b"0", 16)
        if size == 0:
            return
        buffer += (await reader.readexactly(size + 2))[:-2]
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            fields: dict[str, str] = {}
            for line in block.decode().splitlines():
                if line.startswith(":"):
                    continue
                name, _, value = line.partition(": ")
                fields[name] = value
            if "event" in fields:
                data = orjson.loads(fields["data"]) if "data" in fields else None
                yield fields.get("id"), fields["event"], data


class Idle:
    def __init__(self) -> None:
        self.behind = False  # long-polls: the server had not taken them all (open_idle)
        self.held = 0
        self.errors = 0
        self.tasks: list[asyncio.Task[None]] = []
        self.writers: list[Any] = []


async def idle_stream(port: int, match: str, token: str, idle: Idle, ready: asyncio.Event) -> None:
    try:
        status, reader, writer = await request(port, f"/api/v1/matches/{match}/events", token)
        idle.writers.append(writer)
        await headers(reader)
        if status != 200:
            raise ConnectionError(status)
        events = sse_events(reader)
        await anext(events)  # the first view: the stream is held
        idle.held += 1
        ready.set()
        async for _ in events:
            pass
    except (OSError, ConnectionError, asyncio.IncompleteReadError, StopAsyncIteration):
        idle.errors += 1
        ready.set()


async def ws_frame(reader: Any, writer: Any) -> bytes:
    """The payload of the server's next data frame (RFC 6455: unmasked, unfragmented here);
    a ping is answered with its pong (uvicorn closes a socket that does not answer), a close
    ends the socket."""
    while True:
        head = await reader.readexactly(2)
        opcode, size = head[0] & 0x0F, head[1] & 0x7F
        if size == 126:
            size = int.from_bytes(await reader.readexactly(2), "big")
        elif size == 127:
            size = int.from_bytes(await reader.readexactly(8), "big")
        payload = bytes(await reader.readexactly(size))
        if opcode == 0x9:  # ping: a pong, masked as every client frame is
            mask = os.urandom(4)
            masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            writer.write(bytes([0x8A, 0x80 | len(payload)]) + mask + masked)
        elif opcode == 0x8:
            raise ConnectionError("closed")
        else:
            return payload


async def idle_socket(port: int, match: str, token: str, idle: Idle, ready: asyncio.Event) -> None:
    """An idle client on the match stream's WebSocket form, with a handshake and frames by
    hand (thousands of them must be cheap)."""
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        upgrade = (
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        )
        status, reader, writer = await request(
            port, f"/api/v1/matches/{match}/events", token, upgrade
        )
        idle.writers.append(writer)
        await headers(reader)
        if status != 101:
            raise ConnectionError(status)
        await ws_frame(reader, writer)  # the first view: the socket is held
        idle.held += 1
        ready.set()
        while True:
            await ws_frame(reader, writer)
    except (OSError, ConnectionError, asyncio.IncompleteReadError, IndexError):
        idle.errors += 1
        ready.set()


async def idle_poll(
    port: int, match: str, version: int, token: str, idle: Idle, ready: asyncio.Event
) -> None:
    path = f"/api/v1/matches/{match}/state?after_version={version}&wait=25"
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        idle.writers.append(writer)
        held = False
        while True:
            writer.write(
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Token {token}\r\n\r\n".encode()
            )
            await writer.drain()
            if not held:
                idle.held += 1
                held = True
                ready.set()
            status = int((await reader.readline()).split()[1])
            length = int((await headers(reader)).get("content-length", "0"))
            await reader.readexactly(length)
            if status != 200:
                raise ConnectionError(status)
    except (OSError, ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError):
        idle.errors += 1
        ready.set()


async def open_idle(
    mode: str, n: int, port: int, idle_matches: list[tuple[str, int, str, str]]
) -> Idle:
    idle = Idle()
    gate = asyncio.Semaphore(200)  # connections being opened at once

    async def one(i: int) -> None:
        match, version, token_a, token_b = idle_matches[i % len(idle_matches)]
        token = token_a if (i // len(idle_matches)) % 2 == 0 else token_b
        ready = asyncio.Event()
        async with gate:
            if mode == "streams":
                coro = idle_stream(port, match, token, idle, ready)
            elif mode == "sockets":
                coro = idle_socket(port, match, token, idle, ready)
            else:
                coro = idle_poll(port, match, version, token, idle, ready)
            idle.tasks.append(asyncio.create_task(coro))
            await asyncio.wait_for(ready.wait(), 60)

    await asyncio.gather(*(one(i) for i in range(n)), return_exceptions=True)
    if mode == "polls" and n:
        await asyncio.sleep(1.0)  # the last requests reach the server
        # A long-poll is held once the server has read its match and waits; it says nothing
        # until then. Its first steps run on each process's hub threads in arrival order, so a
        # long-poll sent now is answered (it asks for a version already passed) only once the
        # polls before it are waiting: the phase starts on the idle clients held, not on a
        # burst of their first requests. Several, so that every process gets one.
        match, version, token, _ = idle_matches[0]
        path = f"/api/v1/matches/{match}/state?after_version={version - 1}&wait=1"
        try:
            await asyncio.wait_for(
                asyncio.gather(*(poll_once(port, path, token) for _ in range(8))), 60
            )
        except TimeoutError:
            idle.behind = True
            print(f"  polls N={n}: the server has not taken them all after 60 s; measured so")
    return idle


async def poll_once(port: int, path: str, token: str) -> None:
    status, reader, writer = await request(port, path, token)
    await response_body(reader, await headers(reader))
    writer.close()
    if status != 200:
        raise ConnectionError(status)


async def close_idle(idle: Idle) -> None:
    for task in idle.tasks:
        task.cancel()
    for writer in idle.writers:
        writer.close()
    await asyncio.gather(*idle.tasks, return_exceptions=True)


# ---- the active clients ----


class Play:
    def __init__(self, think: float = 0.0) -> None:
        self.think = think  # seconds an active client waits on turn before it moves
        self.moves: list[float] = []
        self.delivery: list[float] = []
        self.errors = 0
        self.sent: dict[tuple[str, int], tuple[float, int]] = {}
        # (match, version) -> when the mover had its reply / the opponent its event: the push
        # part of the delivery (negative when the event came first: it is sent on commit).
        self.replied: dict[tuple[str, int], float] = {}
        self.arrived: dict[tuple[str, int], float] = {}

    def push(self) -> list[float]:
        return [self.arrived[k] - t for k, t in self.replied.items() if k in self.arrived]


async def seat_client(port: int, match: str, token: str, play: Play, stop: asyncio.Event) -> None:
    status, reader, writer = await request(port, f"/api/v1/matches/{match}/events", token)
    await headers(reader)
    if status != 200:
        play.errors += 1
        return
    events = sse_events(reader)
    http = Connection(port, token)
    pending: asyncio.Future[Any] | None = None
    try:
        while not stop.is_set():
            pending = pending or asyncio.ensure_future(anext(events))
            done, _ = await asyncio.wait({pending}, timeout=1.0)
            if not done:
                continue  # nothing new (a heartbeat at most): look at `stop` again
            event_id, event, view = pending.result()
            pending = None
            now = time.perf_counter()
            if event != "state":
                return  # close: the match is over
            sent = play.sent.pop((match, int(event_id or 0)), None)
            if sent is not None and sent[1] != view["you"]:
                play.delivery.append(now - sent[0])
                play.arrived[(match, int(event_id or 0))] = now
            elif sent is not None:
                play.sent[(match, int(event_id or 0))] = sent  # the opponent's copy is due
            if stop.is_set():
                return
            if view["turn"] == view["you"] and view["legal_moves"]:
                if play.think:
                    await asyncio.sleep(play.think)
                body = {**view["legal_moves"][0], "version": view["version"]}
                started = time.perf_counter()
                play.sent[(match, view["version"] + 1)] = (started, view["you"])
                code, answer = await http.post(f"/api/v1/matches/{match}/moves", body)
                replied = time.perf_counter()
                play.moves.append(replied - started)
                play.replied[(match, view["version"] + 1)] = replied
                if code != 200:
                    play.errors += 1
                    print(f"  move refused: {code} {answer[:200]!r}")
    except StopAsyncIteration:
        pass
    finally:
        if pending is not None:
            pending.cancel()
        writer.close()
        http.close()


def ws_text(payload: bytes) -> bytes:
    """One text frame of a client (RFC 6455: masked), for a payload under 64 KB."""
    mask = os.urandom(4)
    size = len(payload)
    head = (
        bytes([0x81, 0x80 | size]) if size < 126 else bytes([0x81, 0xFE]) + size.to_bytes(2, "big")
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def seat_socket(port: int, match: str, token: str, play: Play, stop: asyncio.Event) -> None:
    """As seat_client, on the match's WebSocket: its events, and its moves sent on it as
    `{"type": "move", …, "key"}`, each answered there (`{"event": "move", "key", "status"}`)."""
    key = base64.b64encode(os.urandom(16)).decode()
    upgrade = (
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
    )
    status, reader, writer = await request(port, f"/api/v1/matches/{match}/events", token, upgrade)
    await headers(reader)
    if status != 101:
        play.errors += 1
        writer.close()
        return
    sent_moves: dict[str, tuple[float, tuple[str, int]]] = {}  # key -> (sent at, (match, v))
    count = 0
    pending: asyncio.Future[Any] | None = None
    try:
        while not stop.is_set() or sent_moves:
            pending = pending or asyncio.ensure_future(ws_frame(reader, writer))
            done, _ = await asyncio.wait({pending}, timeout=1.0)
            if not done:
                if stop.is_set():
                    break  # an answer that does not come: the phase is over
                continue
            message = orjson.loads(pending.result())
            pending = None
            now = time.perf_counter()
            event = message["event"]
            if event == "heartbeat":
                continue
            if event == "move":
                started, version_key = sent_moves.pop(message["key"])
                play.moves.append(now - started)
                play.replied[version_key] = now
                if message["status"] != 200:
                    play.errors += 1
                    print(f"  move refused: {message['status']} {message['data']!r:.200}")
                continue
            if event != "state":
                if sent_moves:
                    continue  # the match is over: the last answer is still due
                return
            event_id, view = int(message.get("id") or 0), message["data"]
            sent = play.sent.pop((match, event_id), None)
            if sent is not None and sent[1] != view["you"]:
                play.delivery.append(now - sent[0])
                play.arrived[(match, event_id)] = now
            elif sent is not None:
                play.sent[(match, event_id)] = sent  # the opponent's copy is due
            if stop.is_set():
                continue
            if view["turn"] == view["you"] and view["legal_moves"]:
                if play.think:
                    await asyncio.sleep(play.think)
                body = {**view["legal_moves"][0], "version": view["version"]}
                count += 1
                move_key = f"{match}-{view['you']}-{count}"
                started = time.perf_counter()
                play.sent[(match, view["version"] + 1)] = (started, view["you"])
                sent_moves[move_key] = (started, (match, view["version"] + 1))
                writer.write(ws_text(orjson.dumps({"type": "move", **body, "key": move_key})))
    except (OSError, ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        if pending is not None:
            pending.cancel()
        writer.close()


async def pair(
    port: int, people: tuple[Any, Any], play: Play, stop: asyncio.Event, via: str = "rest"
) -> None:
    (a, token_a), (b, token_b) = people
    loop = asyncio.get_running_loop()
    client = seat_socket if via == "socket" else seat_client
    while not stop.is_set():
        match, _ = await loop.run_in_executor(None, new_match, a, b)
        await asyncio.gather(
            client(port, match, token_a, play, stop),
            client(port, match, token_b, play, stop),
        )


async def run_phase(
    stack: Stack,
    mode: str,
    n: int,
    seconds: float,
    active: list[Any],
    idle_matches: list[Any],
    think: float = 0.0,
    via: str = "rest",
) -> dict[str, Any]:
    rss_before = stack.web_rss_mb()
    idle = await open_idle(mode, n, stack.web_port, idle_matches)
    await asyncio.sleep(1.0)
    rss_after = stack.web_rss_mb()
    play, stop = Play(think), asyncio.Event()
    began = time.time()
    cpu_before = stack.cpu_seconds()
    pairs = [
        asyncio.create_task(pair(stack.web_port, (active[i], active[i + 1]), play, stop, via))
        for i in range(0, len(active), 2)
    ]
    await asyncio.sleep(seconds / 2)
    pg = await asyncio.get_running_loop().run_in_executor(None, stack.pg_connections)
    await asyncio.sleep(seconds / 2)
    stop.set()
    # A server beyond its capacity (long-polls it cannot keep up with) may not answer a request
    # for minutes: the clients it still owes an answer after PHASE_GRACE s are stopped and
    # counted as errors, so that the phase ends and says so.
    _, owed = await asyncio.wait(pairs, timeout=PHASE_GRACE)
    for task in owed:
        task.cancel()
    await asyncio.gather(*owed, return_exceptions=True)
    play.errors += len(owed) + sum(
        not t.cancelled() and t.exception() is not None for t in pairs if t not in owed
    )
    if owed:
        print(
            f"  {mode} N={n}: {len(owed)} of {len(pairs)} active pairs still waiting on the"
            f" server {PHASE_GRACE:g} s after the phase: stopped, counted as errors"
        )
    lost = idle.errors
    ended = time.time()
    cpu_after = stack.cpu_seconds()
    await close_idle(idle)
    return {
        "stages": push_stages(stack, began, ended),
        "gc": gc_pauses(stack, began, ended),
        "mode": mode,
        "via": via,
        "n": n,
        "think": think,
        "held": idle.held - idle.errors,
        "idle_errors": lost,
        "behind": idle.behind,
        "seconds": seconds,
        "moves": play.moves,
        "delivery": play.delivery,
        "push": play.push(),
        "errors": play.errors,
        "rss_growth": rss_after - rss_before,
        "rss": rss_after,
        "cpu": {tier: cpu_after[tier] - cpu_before[tier] for tier in cpu_after},
        "pg": pg,
    }


def pooled(slices: list[dict[str, Any]]) -> dict[str, Any]:
    """One phase's figures over its slices (one a round): the moves, latencies and CPU of all
    of them together; the fewest streams held, the most memory per 1,000 streams."""
    first = slices[0]
    moves = [t for s in slices for t in s["moves"]]
    delivery = [t for s in slices for t in s["delivery"]]
    push = [t for s in slices for t in s["push"]]
    seconds = sum(s["seconds"] for s in slices)
    n = first["n"]
    return {
        "stages": {k: [v for s in slices for v in s["stages"][k]] for k in first["stages"]},
        "gc": {
            tier: {
                g: [ms for s in slices for ms in s["gc"][tier].get(g, [])]
                for g in {g for s in slices for g in s["gc"][tier]}
            }
            for tier in first["gc"]
        },
        "mode": first["mode"],
        "via": first["via"],
        "n": n,
        "think": first["think"],
        "held": min(s["held"] for s in slices),
        "idle_errors": sum(s["idle_errors"] for s in slices),
        "behind": sum(s["behind"] for s in slices),
        "moves": len(moves),
        "moves_per_s": len(moves) / seconds,
        "move_p50": percentile(moves, 0.5) * 1000,
        "move_p99": percentile(moves, 0.99) * 1000,
        "delivery_p50": percentile(delivery, 0.5) * 1000,
        "delivery_p99": percentile(delivery, 0.99) * 1000,
        "push_p50": percentile(push, 0.5) * 1000,
        "push_p99": percentile(push, 0.99) * 1000,
        "errors": sum(s["errors"] for s in slices),
        "rss_per_1000": max(s["rss_growth"] for s in slices) / n * 1000 if n else float("nan"),
        "rss": slices[-1]["rss"],
        "cpu_per_move": {
            tier: sum(s["cpu"][tier] for s in slices) / max(len(moves), 1) * 1000
            for tier in first["cpu"]
        },
        "pg": [s["pg"] for s in slices],
    }


async def floor_phase(stack: Stack, clients: int, seconds: float) -> dict[str, Any]:
    """`clients` closed loops of `POST /bench/ceiling`, each on a counter row of its own (no
    lock waits on another): the least a durable write takes at that concurrency here."""
    latencies: list[float] = []
    stop = asyncio.Event()

    async def client(counter: int) -> None:
        http = Connection(stack.web_port, None)  # the ceiling view reads no token
        try:
            while not stop.is_set():
                started = time.perf_counter()
                code, answer = await http.post(f"/bench/ceiling?counter={counter}", {})
                if code != 200:
                    raise RuntimeError(f"bench/ceiling: {code} {answer[:200]!r}")
                latencies.append(time.perf_counter() - started)
        finally:
            http.close()

    tasks = [asyncio.create_task(client(i)) for i in range(clients)]
    await asyncio.sleep(1.0)  # not counted: each web process's first requests and pool
    latencies.clear()
    cpu_before = stack.cpu_seconds()
    await asyncio.sleep(seconds)
    stop.set()
    count = len(latencies)
    cpu_after = stack.cpu_seconds()
    await asyncio.gather(*tasks)
    return {
        "clients": clients,
        "seconds": seconds,
        "latencies": latencies[:count],
        "cpu": {t: cpu_after[t] - cpu_before[t] for t in cpu_after},
    }


def floor_pooled(slices: list[dict[str, Any]]) -> dict[str, Any]:
    """The floor's figures over its slices (one a round)."""
    latencies = [t for s in slices for t in s["latencies"]]
    count = max(len(latencies), 1)
    cpu = {t: sum(s["cpu"][t] for s in slices) for t in slices[0]["cpu"]}
    return {
        "clients": slices[0]["clients"],
        "per_s": len(latencies) / sum(s["seconds"] for s in slices),
        "p50": percentile(latencies, 0.5) * 1000,
        "p99": percentile(latencies, 0.99) * 1000,
        "cpu": sum(cpu.values()) / count * 1000,
        "cpu_tiers": {t: c / count * 1000 for t, c in cpu.items()},
    }


# The tiers a move's CPU is judged on against the floor's (the workers' background work, the
# analysis, is printed apart; the load generator is not the server's).
SERVER_TIERS = ("web", "postgres", "redis")


def server_cpu(tiers: dict[str, float]) -> float:
    """The CPU of the tiers a move is judged on (SERVER_TIERS), from ms by tier."""
    return sum(tiers.get(t, 0.0) for t in SERVER_TIERS)


def label(r: dict[str, Any]) -> str:
    """A phase's name: what the idle clients hold, and how the active ones move."""
    return f"{r['mode']}/{r['via']}"


def report(results: list[dict[str, Any]], floor: dict[str, Any] | None = None) -> None:
    print(
        f"{'phase':>14} {'N':>6} {'held':>6} {'moves/s':>8} {'move p50':>9} {'p99':>7}"
        f" {'deliv p50':>10} {'p99':>7} {'(push p50':>10} {'p99)':>7} {'errors':>7}"
        f" {'MB/1000':>8} {'RSS MB':>7} {'PG':>4}"
    )
    for r in results:
        print(
            f"{label(r):>14} {r['n']:>6} {str(r['held']) + '*' * r['behind']:>6}"
            f" {r['moves_per_s']:>8.1f}"
            f" {r['move_p50']:>8.1f}ms {r['move_p99']:>5.1f}ms {r['delivery_p50']:>8.1f}ms"
            f" {r['delivery_p99']:>5.1f}ms {r['push_p50']:>8.1f}ms {r['push_p99']:>5.1f}ms"
            f" {r['errors'] + r['idle_errors']:>7}"
            f" {r['rss_per_1000']:>8.1f} {r['rss']:>7.0f} {max(r['pg']):>4}"
        )
    if any(r["behind"] for r in results):
        print("* long-polls sent, but not all taken by the server within 60 s: beyond capacity")
    print(
        "deliv = move POST sent -> the opponent's event arrived (the target's figure: the move"
        " itself included);\n(push) = the mover's reply arrived -> the opponent's event arrived,"
        " the push alone, for information\n(below 0 when the event came first: it leaves on"
        " commit, before the reply)."
    )
    tiers = list(results[0]["cpu_per_move"]) if results else []
    print("\nCPU a move, ms (user + system; the 2 cores are shared by every tier):")
    print(f"{'phase':>14} {'N':>6} " + " ".join(f"{tier:>9}" for tier in tiers) + f" {'all':>9}")
    for r in results:
        cells = [r["cpu_per_move"][tier] for tier in tiers]
        if not r["moves"]:
            print(f"{label(r):>14} {r['n']:>6} " + " ".join(f"{'-':>9}" for _ in [*cells, 0]))
            continue
        print(
            f"{label(r):>14} {r['n']:>6} "
            + " ".join(f"{c:>9.2f}" for c in cells)
            + f" {sum(cells):>9.2f}"
        )
    if any(r["stages"]["commit -> sent"] for r in results):
        print("\nWhere a push's time goes on the server (--trace; ms p50/p99, per stream event):")
        print(f"{'phase':>14} {'N':>6} " + " ".join(f"{name:>21}" for name, _, _ in TRACE_STAGES))
        for r in results:
            cells = [
                f"{percentile(ms, 0.5):>9.2f} / {percentile(ms, 0.99):>7.2f}"
                for ms in (r["stages"][name] for name, _, _ in TRACE_STAGES)
            ]
            print(f"{label(r):>14} {r['n']:>6} " + " ".join(f"{c:>21}" for c in cells))
    if any(r["gc"]["web"] or r["gc"]["workers"] for r in results):
        print(
            "\nGarbage collections in the phase (--trace; pisyedili_api.heap): count / longest"
            " pause in ms, per generation, all processes of the tier"
        )
        print(
            f"{'phase':>14} {'N':>6} {'tier':>8} " + " ".join(f"{f'gen {g}':>15}" for g in range(3))
        )
        for r in results:
            for tier, found in r["gc"].items():
                cells = [
                    f"{len(found.get(g, [])):>5} / {max(found.get(g, [0.0])):>6.1f}"
                    for g in range(3)
                ]
                print(
                    f"{label(r):>14} {r['n']:>6} {tier:>8} " + " ".join(f"{c:>15}" for c in cells)
                )
    if floor is not None:
        print(
            f"\nFloor: POST /bench/ceiling, {floor['clients']} in flight, no idle client (a"
            " move's least durable write: no DRF, no rules, no push):"
            f" p50 {floor['p50']:.1f} ms, p99 {floor['p99']:.1f} ms, {floor['per_s']:.0f}/s,"
            f" {floor['cpu']:.2f} ms CPU each (all tiers: "
            + ", ".join(f"{t} {c:.2f}" for t, c in floor["cpu_tiers"].items())
            + ").\nA delivery is a move and its push:"
            " no move path this stack serves delivers below this floor here."
        )
    print("\nTargets (docs: issue 'Live play at scale'; moves on the socket where measured):")
    every_stream = [r for r in results if r["mode"] == "streams"]
    primary = "socket" if any(r["via"] == "socket" for r in every_stream) else "rest"
    streams = [r for r in every_stream if r["via"] == primary]
    if not streams:
        return
    base = next((r for r in streams if r["n"] == 0), None)
    top = max(streams, key=lambda r: r["n"])
    held = max((r["held"] for r in streams if r["idle_errors"] == 0), default=0)

    def line(ok: bool | None, text: str) -> None:
        mark = "n/a " if ok is None else ("met " if ok else "MISS")
        print(f"  [{mark}] {text}")

    line(
        True if held >= 10000 else (None if top["n"] < 10000 else False),
        f"10,000 idle streams held: most held without errors {held}"
        + ("" if top["n"] >= 10000 else f" (N up to {top['n']} asked)"),
    )
    if base is not None and top["n"] > 0:
        line(
            top["move_p99"] <= 2 * base["move_p99"],
            f"move p99 with {top['n']} streams {top['move_p99']:.1f} ms ≤ 2 × with none"
            f" ({base['move_p99']:.1f} ms)" + ("" if top["n"] >= 10000 else " [below 10,000]"),
        )
    at_1000 = next((r for r in streams if r["n"] >= 1000), None)
    thinking = at_1000 is not None and at_1000["think"] > 0
    line(
        None if at_1000 is None or thinking else at_1000["delivery_p99"] <= 20,
        "delivery p99 ≤ 20 ms at 1,000 streams: "
        + ("not measured" if at_1000 is None else f"{at_1000['delivery_p99']:.1f} ms")
        + (
            f" (clients think {at_1000['think']:g} s a move: for information, the target is"
            " judged with none)"
            if thinking
            else ""
        ),
    )
    if floor is not None and at_1000 is not None:
        rest = next((r for r in every_stream if r["via"] == "rest" and r["n"] >= 1000), None)
        line(
            None if thinking else at_1000["delivery_p99"] <= 2 * floor["p99"],
            f"delivery p99 at {at_1000['n']} streams, moves on the {primary}:"
            f" {at_1000['delivery_p99']:.1f} ms ≤ 2 × the floor's p99 ({floor['p99']:.1f} ms)"
            + (
                f"; on the route: {rest['delivery_p99']:.1f} ms"
                if rest and primary != "rest"
                else ""
            ),
        )
        cpu = server_cpu(at_1000["cpu_per_move"])
        floor_cpu = server_cpu(floor["cpu_tiers"])
        rest_cpu = server_cpu(rest["cpu_per_move"]) if rest else None
        background = at_1000["cpu_per_move"].get("workers", 0.0)
        line(
            None if not at_1000["moves"] else cpu <= 2 * floor_cpu,
            f"CPU a move (web, PostgreSQL, Redis) at {at_1000['n']} streams, on the {primary}:"
            f" {cpu:.2f} ms ≤ 2 × the floor's ({floor_cpu:.2f} ms)"
            + (
                f"; on the route: {rest_cpu:.2f} ms"
                if rest_cpu is not None and primary != "rest"
                else ""
            )
            + f"; the workers (background) apart: {background:.2f} ms",
        )
    sized = [r for r in streams if r["n"] >= 500]
    line(
        None if not sized else all(r["rss_per_1000"] <= 20 for r in sized),
        "server memory ≤ 20 MB per 1,000 idle streams: "
        + ", ".join(f"{r['rss_per_1000']:.1f} MB at {r['n']}" for r in sized),
    )
    pgs = [pg for r in results for pg in r["pg"]]
    line(
        max(pgs) - min(pgs) <= 4,
        f"PostgreSQL connections independent of N: {min(pgs)}..{max(pgs)} over every phase",
    )


def by_round(
    slices: dict[tuple[str, int, str], list[dict[str, Any]]], floors: list[dict[str, Any]]
) -> None:
    """With more than one round: the ratios the targets judge (moves on the socket, or the
    route where no phase moved on it, at the first N of 1,000 or more) in each round, beside
    that round's floor."""
    if len(floors) < 2:
        return
    keys = [k for k in slices if k[0] == "streams" and k[1] >= 1000]
    key = next((k for k in keys if k[2] == "socket"), next(iter(keys), None))
    if key is None:
        return
    print(f"\nBy round, streams/{key[2]} at N={key[1]} against that round's floor:")
    cpu_ratios, delivery_ratios = [], []
    for number, (phase, floor) in enumerate(zip(slices[key], floors, strict=True), 1):
        one, base = pooled([phase]), floor_pooled([floor])
        cpu, floor_cpu = server_cpu(one["cpu_per_move"]), server_cpu(base["cpu_tiers"])
        cpu_ratios.append(cpu / floor_cpu)
        delivery_ratios.append(one["delivery_p99"] / base["p99"])
        print(
            f"  round {number}: CPU a move {cpu:.2f} ms, floor {floor_cpu:.2f} ms"
            f" ({cpu_ratios[-1]:.2f}×); delivery p99 {one['delivery_p99']:.1f} ms, floor p99"
            f" {base['p99']:.1f} ms ({delivery_ratios[-1]:.2f}×)"
        )
    for name, ratios in (("CPU", cpu_ratios), ("delivery p99", delivery_ratios)):
        print(
            f"  {name} ratio: min {min(ratios):.2f}×, median {statistics.median(ratios):.2f}×,"
            f" max {max(ratios):.2f}×"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--idle", default="0,1000,5000,10000", help="idle client counts")
    parser.add_argument(
        "--modes",
        default="streams,polls",
        help="what the idle clients hold: streams (SSE), polls (long-polls), sockets (the "
        "streams' WebSocket form)",
    )
    parser.add_argument(
        "--moves",
        default="socket,rest",
        help="how the active clients move: socket (on the match's WebSocket, their event stream"
        " too), rest (POST …/moves beside an event stream); each phase is run for each",
    )
    parser.add_argument("--seconds", type=float, default=10, help="per phase and round")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="times every phase and the floor are run, in turn (the figures are over all of"
        " them; the ratios to the floor are also printed for each round): a drift in the"
        " machine's speed then falls on the phases and the floor alike",
    )
    parser.add_argument("--workers", type=int, default=2, help="uvicorn worker processes")
    parser.add_argument("--active", type=int, default=16)
    parser.add_argument("--idle-players", type=int, default=100)
    parser.add_argument(
        "--warmup", type=float, default=3, help="seconds of play before the phases, not counted"
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="also print where a push's time goes on the server, and the servers' garbage "
        "collections with their longest pauses (LIVE_TRACE_FILE; it costs a little: compare the "
        "main table with a run without it)",
    )
    parser.add_argument(
        "--analysis",
        choices=["worker", "none"],
        default="worker",
        help="the analysis queue's worker (idle priority, as docs/operations.md 'Queues and "
        "workers' scales it apart), or "
        "none (its work waits in Redis): what the luck estimates on the same cores cost play",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="seconds an active client waits on its turn before it moves (default 0: as fast "
        "as the server answers, the load the targets are judged at); a think time shows the "
        "delivery a waiting player sees on a server that is not saturated",
    )
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    counts = [int(n) for n in args.idle.split(",")]
    if max(counts) + 1000 > hard:
        print(f"note: file-descriptor hard limit {hard} caps idle clients near {hard - 1000}")
    # A SIGTERM (`timeout`, a CI limit) stops the stack too, as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped (SIGTERM)"))
    stack = stack_start(args.workers, trace=args.trace, analysis=args.analysis)
    try:
        django_setup(stack.env)
        active = players(args.active)
        people = players(args.idle_players)
        idle_matches = []
        for i in range(IDLE_MATCHES):
            (a, token_a), (b, token_b) = (
                people[(2 * i) % len(people)],
                people[(2 * i + 1) % len(people)],
            )
            match, version = new_match(a, b)
            idle_matches.append((match, version, token_a, token_b))
        print(
            f"uvicorn live.asgi × {args.workers} workers, Celery workers -Q"
            " bots,scoring,celery"
            + (
                f" and ({' '.join(ANALYSIS_PRIORITY)}) -Q analysis"
                if args.analysis == "worker"
                else ""
            )
            + f", private "
            f"PostgreSQL :{stack.pg_port} and Redis :{stack.redis_port}; fd limit {hard}; "
            f"{args.active} active clients"
            + (f" thinking {args.think:g} s a move" if args.think else "")
            + f", {args.seconds:g} s per phase; load average "
            f"{os.getloadavg()[0]:.1f} at start (a shared machine)"
        )
        # Not counted: the first requests of each web process import what a move needs and fill
        # its connection pool, which would weigh on the first phase only (N = 0, the baseline).
        slices: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
        floors: list[dict[str, Any]] = []
        # uvloop, as the server: the load generator shares the server's 2 cores.
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(run_phase(stack, "streams", 0, args.warmup, active, idle_matches))
            for round_number in range(1, args.rounds + 1):
                for mode in args.modes.split(","):
                    for n in counts:
                        for via in args.moves.split(","):
                            phase = run_phase(
                                stack, mode, n, args.seconds, active, idle_matches, args.think, via
                            )
                            result = runner.run(phase)
                            print(
                                f"  round {round_number} {mode}/{via} N={n}: held"
                                f" {result['held']}, {len(result['moves'])} moves, errors"
                                f" {result['errors'] + result['idle_errors']}",
                                flush=True,
                            )
                            slices.setdefault((mode, n, via), []).append(result)
                floors.append(runner.run(floor_phase(stack, args.active // 2, args.seconds)))
        results = [pooled(phase_slices) for phase_slices in slices.values()]
        floor = floor_pooled(floors)
        print()
        report(results, floor)
        by_round(slices, floors)
        print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
