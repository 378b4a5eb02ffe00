"""The one seam between the apps and Celery (docs/architecture.md, "Tasks").

- `idempotent_task(name=…)`: the decorator of every task that changes something. The task is
  safe to run twice (a moved version, a claimed row, a lock decide), so it is acknowledged late
  and rejected when its worker is lost: a worker that dies mid-task has the message delivered
  again. Transient errors (the database or the broker unreachable) are retried a bounded number
  of times with exponential backoff; anything else fails the task and is left to the beat
  sweepers. Beat tasks pass `retry=False`: the next beat is their retry.
- `send(task, *args)` / `send_on_commit(task, *args)`: send a task, now or once the current
  transaction commits. The queue comes from CELERY_TASK_ROUTES (`route`), the time limits from
  CELERY_TASK_SOFT_TIME_LIMIT / CELERY_TASK_TIME_LIMIT. The tasks modules pass the task itself;
  the services pass its registered name (`"games.deal_score"`), because the tasks modules
  import the services and a reference back would be an import cycle.
- `in_background()`, `background_submit`, `background_wait`: the embedded default's thread pool,
  and its analysis process (the analysis queue's tasks, at the lowest CPU priority).
- `embedded_start()` / `embedded_stop()`: the server's lifespan (live.asgi). The embedded
  default's beat (the sweepers and the turn clock of CELERY_BEAT_SCHEDULE run in the server
  process when there is no `celery beat`) runs from one to the other; at the stop no analysis
  job starts any more and the analysis process ends.

This module imports no app's services or tasks, so the services can send through it while the
tasks modules import the services (the import-linter contracts in pyproject.toml).
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
import os
import signal
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from concurrent import futures
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from typing import Any

from celery import Task, shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError, connections, transaction
from kombu.exceptions import OperationalError as BrokerOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .celery import app
from .logfilters import Repeated

logger = logging.getLogger(__name__)
_local = threading.local()

TRANSIENT_ERRORS = (
    OperationalError,
    InterfaceError,
    BrokerOperationalError,
    RedisConnectionError,
    RedisTimeoutError,
)

_RETRY: dict[str, Any] = {
    "autoretry_for": TRANSIENT_ERRORS,
    "max_retries": 5,
    "retry_backoff": 1,  # 1, 2, 4, 8, 16 s (with jitter), at most 30
    "retry_backoff_max": 30,
    "retry_jitter": True,
}


class RetryLater(Exception):
    """A task's work could not be done now for a reason that may pass (a remote server that
    answered 5xx or not at all): retried as a transient error is, by a task that says so
    (`idempotent_task(retry_later=True)`)."""


def idempotent_task(
    *, name: str, retry: bool = True, retry_later: bool = False
) -> Callable[[Callable[..., Any]], Task[Any, Any]]:
    """The task decorator of both apps: an explicit registered name, acks_late with
    reject_on_worker_lost, no result kept, and (unless `retry=False`) bounded retries of
    transient errors, and of RetryLater with `retry_later`. Time limits are the app's
    (CELERY_TASK_*_TIME_LIMIT), never per task. A beat task (`retry=False`, run every few
    seconds) that meets a transient error does nothing this time, and says so in a line a
    minute (`Repeated`), not in a traceback a run: the next beat is its retry."""
    options: dict[str, Any] = {
        "acks_late": True,
        "reject_on_worker_lost": True,
        "ignore_result": True,
        **(_RETRY if retry else {}),
    }
    if retry and retry_later:
        options["autoretry_for"] = (*TRANSIENT_ERRORS, RetryLater)
    if retry:
        return shared_task(name=name, **options)

    def beat(work: Callable[..., Any]) -> Task[Any, Any]:
        down = Repeated(logger, f"{name}: the database or the broker does not answer; skipped")

        @functools.wraps(work)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return work(*args, **kwargs)
            except TRANSIENT_ERRORS:
                down.warning(exc_info=True)
                return None

        return shared_task(name=name, **options)(run)  # type: ignore[no-any-return, no-untyped-call]

    return beat


def route(name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **kw: Any) -> Any:
    """CELERY_TASK_ROUTES: a task's queue is the value of the setting CELERY_TASK_QUEUE_SETTINGS
    names for it, read when the task is sent (a process may point CELERY_BOT_QUEUE elsewhere
    at run time). None for a task not listed: Celery's default queue."""
    setting = settings.CELERY_TASK_QUEUE_SETTINGS.get(name)
    return None if setting is None else {"queue": getattr(settings, setting)}


def send_on_commit(task: Task[Any, Any] | str, *args: Any) -> None:
    """Send `task` with `args` once the current transaction commits (at once outside one).
    Never raises into the committed request (see `send`)."""
    transaction.on_commit(lambda: send(task, *args))


def send(task: Task[Any, Any] | str, *args: Any) -> None:
    """Send `task` (a task, or by its registered name from a service) to a worker, or run it
    here in the embedded default.

    The transaction that asked for it has committed, so a failure here (the broker down) is
    logged and never turns that request's response into an error: the beat sweepers send the
    work again once it is stuck. In the embedded default (task_always_eager) tasks run
    in-process; tasks sent while one runs are queued and drained by a loop instead of nesting,
    so a long chain of bot moves and deals cannot exhaust the stack. Inside `in_background()`
    they run on the background pool instead of in the caller.
    """
    name = task if isinstance(task, str) else task.name
    try:
        if not app.conf.task_always_eager:
            _publish(name, args)
            return
    except Exception:
        logger.exception("could not send %s%s; the sweeper will send it again", name, args)
        return
    if _analysis_in_background(name):
        _analysis_submit(name, args)
        return
    if settings.CELERY_TASK_QUEUE_SETTINGS.get(name) == "CELERY_NOTIFY_QUEUE":
        # A notice's POST waits on a server a player named (seconds, at worst): on threads of
        # its own, never before a turn clock or a sweep (the background pool's work).
        _background_job(_run, name, args, lane="notify")
        return
    if getattr(_local, "background", False):
        background_submit(send, name, *args)
        return
    pending: deque[tuple[str, tuple[Any, ...]]] | None = getattr(_local, "pending", None)
    if pending is not None:
        pending.append((name, args))
        return
    _local.pending = pending = deque([(name, args)])
    try:
        while pending:
            _run(*pending.popleft())
    finally:
        _local.pending = None


def _run(name: str, args: tuple[Any, ...]) -> None:
    """The task `name` here and now, in-process, its failure logged (never raised into the
    request or job that sent it)."""
    try:
        _task(name).apply(args=args, throw=True)
    except Exception:
        logger.exception("%s%s failed in-process", name, args)


def _analysis_in_background(name: str) -> bool:
    """In the embedded default, a task of the analysis queue (a deal's luck, a move analysis:
    tenths of a second of CPU, seconds for a long deal) runs in the analysis process, never in
    the request whose move ended the deal nor on a thread beside the requests
    (EMBEDDED_ANALYSIS_IN_BACKGROUND)."""
    return (
        settings.EMBEDDED_ANALYSIS_IN_BACKGROUND
        and not _in_analysis_process
        and settings.CELERY_TASK_QUEUE_SETTINGS.get(name) == "CELERY_ANALYSIS_QUEUE"
    )


def _publish(name: str, args: tuple[Any, ...]) -> None:
    """To the broker, by name: the router picks the queue; the publish retry policy
    (CELERY_TASK_PUBLISH_RETRY_POLICY) bounds the wait when the broker is down. No one waits
    for the result (`ignore_result`): with a result backend set (CELERY_RESULT_BACKEND),
    Celery would otherwise subscribe to the task's result channel before the message goes
    out and unsubscribe when the handle is let go, two commands a send whose confirmations
    nothing in the process reads (169 bytes a send left on that connection, kept by the
    kernel, then by Redis)."""
    app.send_task(name, args=args, ignore_result=True)


_importing_tasks = threading.Lock()


def _task(name: str) -> Task[Any, Any]:
    """The registered task `name`, importing the apps' tasks modules the first time (a web
    process that only sends by name has not imported them). One thread imports them while the
    others wait: a thread that asked while another was importing them found no task
    (NotRegistered)."""
    tasks = app.tasks
    if name not in tasks:
        with _importing_tasks:
            if name not in tasks:
                app.loader.import_default_modules()
    return tasks[name]


# ---- The embedded default's background thread ----
# Under task_always_eager a request that hands off a lot of work (a tournament's start or next
# round) sends it inside `in_background()`: the tasks then run, and drain as above, on a small
# thread pool (EMBEDDED_TASK_THREADS) instead of in the request. With a broker it changes nothing.

_background_lock = threading.Lock()
# The pools by lane, and the setting of each one's thread count: "tasks", and "notify" (the
# notices' POSTs, see send).
_LANE_THREADS = {"tasks": "EMBEDDED_TASK_THREADS", "notify": "EMBEDDED_NOTIFY_THREADS"}
_background_pools: dict[str, futures.ThreadPoolExecutor] = {}
_background_jobs: set[futures.Future[None]] = set()


@contextmanager
def in_background() -> Iterator[None]:
    """Tasks sent in this block (or by on_commit hooks of a transaction it commits) that would
    run in-process run on a background thread instead."""
    previous = getattr(_local, "background", False)
    _local.background = True
    try:
        yield
    finally:
        _local.background = previous


def background_submit(function: Callable[..., Any], *args: Any) -> None:
    """Run `function(*args)` on the background pool, then close that thread's database
    connections (a pooled thread must not hold one open between jobs)."""
    _background_job(function, *args)


def _background_job(
    function: Callable[..., Any], *args: Any, lane: str = "tasks"
) -> futures.Future[None]:
    def job() -> None:
        _local.pooled = True  # a task sent from here runs here (see send)
        try:
            function(*args)
        finally:
            connections.close_all()

    with _background_lock:
        pool = _background_pools.get(lane)
        if pool is None:
            pool = _background_pools[lane] = futures.ThreadPoolExecutor(
                max_workers=getattr(settings, _LANE_THREADS[lane]),
                thread_name_prefix=f"embedded-{lane}",
            )
        future = pool.submit(job)
        _background_jobs.add(future)
    future.add_done_callback(_background_jobs.discard)
    return future


# ---- The embedded default's analysis process ----
# A CPU-bound task on a thread of the server process would hold the GIL against every request:
# a move, a bot's turn, the turn clock's beat. So the analysis queue's tasks run in ONE process
# of their own (spawned: a fork of a threaded server is unsafe), at the lowest CPU priority
# (nice 19), one at a time; the same task sent again while it waits is not queued twice. Each
# job carries the server's ANALYSIS_* and CELERY_TASK_* settings and the names of its databases
# (a test's own), which the process applies before it runs the task.

_analysis_pool: futures.ProcessPoolExecutor | None = None
_analysis_queued: set[tuple[str, tuple[Any, ...]]] = set()
_in_analysis_process = False
# Pools whose process the server ended (analysis_process_stop, `abandon`): their jobs' end is
# no failure.
_analysis_abandoned: weakref.WeakSet[futures.ProcessPoolExecutor] = weakref.WeakSet()
ANALYSIS_NICENESS = 19


def _analysis_settings() -> dict[str, Any]:
    return {
        name: getattr(settings, name)
        for name in dir(settings)
        if name.startswith(("ANALYSIS_", "CELERY_TASK_"))
    }


def _analysis_submit(name: str, args: tuple[Any, ...]) -> None:
    global _analysis_pool
    key = (name, args)
    with _background_lock:
        if _embedded_stopped.is_set():
            # The server is stopping (embedded_stop): the sweeper sends it again after the
            # restart, as it does a job the stop ended.
            logger.info("%s%s not started: the server is stopping", name, args)
            return
        if key in _analysis_queued:
            return  # sent again (the sweeper) while it waits: once is enough
        if _analysis_pool is None:
            names = {alias: connections[alias].settings_dict["NAME"] for alias in connections}
            _analysis_pool = futures.ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_analysis_process_start,
                initargs=(names,),
            )
        # The pool starts its process in `submit`, from this thread: with SIGINT blocked here,
        # the process starts with it blocked too (a mask survives the spawn), until it ignores it.
        unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            future = _analysis_pool.submit(_analysis_process_run, name, args, _analysis_settings())
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
        _analysis_queued.add(key)
        _background_jobs.add(future)
        pool = _analysis_pool

    def done(finished: futures.Future[Any]) -> None:
        with _background_lock:
            _analysis_queued.discard(key)
        _background_jobs.discard(finished)
        if finished.cancelled():
            return
        if pool in _analysis_abandoned and isinstance(finished.exception(), BrokenProcessPool):
            return  # its process ended with the server (analysis_process_stop, `abandon`)
        if finished.exception() is not None:
            logger.error(
                "%s%s failed in the analysis process", name, args, exc_info=finished.exception()
            )

    future.add_done_callback(done)


def _exit_with_parent(every: float = 0.5) -> None:
    """In a spawned process: a thread that ends the process once its parent is gone. A server
    killed without its exit (SIGKILL, or past its graceful timeout) would otherwise leave the
    process behind for good, holding database sessions: its job queue's pipe never closes,
    since the process holds the writing end too. What it was doing is re-sent by the sweeper."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _analysis_process_start(databases: dict[str, str]) -> None:
    """In the analysis process, once: gone with the server, the lowest CPU priority, Django on
    the server's databases."""
    global _in_analysis_process
    # A terminal's Ctrl-C reaches its whole process group: the server ends this process
    # (analysis_process_stop), not the interrupt, which was blocked since the spawn
    # (_analysis_submit).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _exit_with_parent()
    os.nice(ANALYSIS_NICENESS)
    _in_analysis_process = True
    for alias, name in databases.items():
        settings.DATABASES[alias]["NAME"] = name
    import django

    django.setup()
    for alias, name in databases.items():
        connections[alias].settings_dict["NAME"] = name


def _analysis_process_run(name: str, args: tuple[Any, ...], values: dict[str, Any]) -> None:
    """In the analysis process: run task `name` (and what it sends) here, then close the
    database connections (none is held between jobs)."""
    for setting, value in values.items():
        setattr(settings, setting, value)
    try:
        send(name, *args)
    finally:
        connections.close_all()


def analysis_process_stop(*, abandon: bool = False) -> None:
    """Stop the analysis process once its jobs are done (tests). `abandon` (the server's
    shutdown, embedded_stop): at once, its queued jobs cancelled and the one under way
    ended with the process (its transaction rolls back); the sweeper sends each again
    (games.tasks.sweep), as after a server that was killed. The process and the pool's
    semaphores are gone when this returns, before the server's own exit."""
    global _analysis_pool
    with _background_lock:
        pool, _analysis_pool = _analysis_pool, None
    if pool is None:
        return
    if abandon:
        _analysis_abandoned.add(pool)
        for pid in _pool_pids(pool):
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
    pool.shutdown(wait=True, cancel_futures=abandon)


def _pool_pids(pool: futures.ProcessPoolExecutor) -> list[int]:
    # concurrent.futures has no public list of a pool's processes (nor a way to end them)
    # before Python 3.14's terminate_workers().
    processes = getattr(pool, "_processes", None) or {}
    return list(processes)


def analysis_process_ids() -> list[int]:
    """The analysis process's id (none before the first analysis)."""
    pool = _analysis_pool
    return [] if pool is None else _pool_pids(pool)


def background_wait(timeout: float) -> bool:
    """Wait until no background job is queued or running (jobs a job submits included); False
    if some still are after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while _background_jobs and time.monotonic() < deadline:
        futures.wait(list(_background_jobs), timeout=0.05)
    return not _background_jobs


# ---- The embedded default's beat, and the server's stop ----
# Without a broker there is no `celery beat`: the server process (live.asgi's lifespan) starts
# this daemon thread instead, which sends each CELERY_BEAT_SCHEDULE entry's task every
# `schedule` seconds onto the background pool, so the turn clock and the sweepers run as they
# do on the full stack. Like a beat entry's `expires`, an entry whose last run has not finished
# is skipped, not piled up. The lifespan's shutdown stops it (embedded_stop).

_beat_lock = threading.Lock()
_beat_thread: threading.Thread | None = None
_embedded_stopped = threading.Event()


def embedded_start() -> bool:
    """The server's start (live.asgi's lifespan): analysis jobs may start, and the embedded
    beat runs in this process (once); False where the beat does not apply (a broker is
    configured: `celery beat` sends the schedule, or EMBEDDED_BEAT is off)."""
    global _beat_thread
    with _beat_lock:
        _embedded_stopped.clear()
        if not app.conf.task_always_eager or not settings.EMBEDDED_BEAT:
            return False
        if _beat_thread is None or not _beat_thread.is_alive():
            schedule: dict[str, dict[str, Any]] = settings.CELERY_BEAT_SCHEDULE
            entries = [(entry["task"], float(entry["schedule"])) for entry in schedule.values()]
            _beat_thread = threading.Thread(
                target=_beat_loop, args=(entries,), name="embedded-beat", daemon=True
            )
            _beat_thread.start()
    return True


def embedded_stop() -> None:
    """The server's shutdown (live.asgi's lifespan): the beat sends nothing more (its thread
    ends at once), no analysis job starts from now on (a sweep under way that
    sends one: the sweeper sends it again after the restart), and the analysis process ends
    at once (analysis_process_stop, `abandon`)."""
    with _beat_lock:
        _embedded_stopped.set()
        beat = _beat_thread
    if beat is not None:
        beat.join(1.0)  # it waits on _embedded_stopped, not in a sleep
    analysis_process_stop(abandon=True)


def _beat_loop(entries: list[tuple[str, float]]) -> None:
    due = {name: time.monotonic() + every for name, every in entries}
    running: dict[str, futures.Future[None]] = {}
    while not _embedded_stopped.is_set():
        now = time.monotonic()
        for name, every in entries:
            if now < due[name]:
                continue
            due[name] = now + every
            if name in running and not running[name].done():
                continue
            running[name] = _background_job(send, name)
        _embedded_stopped.wait(max(0.05, min(due.values()) - time.monotonic()))
