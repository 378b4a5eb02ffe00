"""The cyclic garbage collector of a long-running server process: a web worker under uvicorn, a
Celery worker process.

CPython's collector walks every tracked object of the generations it collects. A full
(generation 2) collection of a web process also walks the ~10⁶ objects that importing Django,
DRF, the apps and their schema left behind, none of which will ever be garbage: measured under
bench/live.py (`--trace`), such a collection held a web process, and every stream and request on
it, for 100–200 ms, a few times a minute. `freeze_startup_heap()` runs once the process has
loaded what it serves (the URL conf imports every view and, through them, the services and the
engine): it collects once, then moves every object left to the permanent generation
(`gc.freeze()`), which no collection walks. Later full collections walk only what the process
made while serving. The generations' thresholds stay Python's.

SERVER_GC_FREEZE=0 leaves the collector as Python sets it (to compare). With LIVE_TRACE_FILE set
(bench/live.py --trace) each collection also appends one line, `<time> <generation>
<milliseconds>`, to `<LIVE_TRACE_FILE>.gc.<pid>`.
"""

from __future__ import annotations

import gc
import os
import time
from typing import Any

_frozen = False


def freeze_startup_heap() -> None:
    """Once per process, when it is ready to serve: load the URL conf, collect, freeze."""
    global _frozen
    if _frozen:
        return
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018  (imports every view)
    if os.environ.get("SERVER_GC_FREEZE", "1") != "0":
        gc.collect()
        gc.freeze()
    _frozen = True
    trace = os.environ.get("LIVE_TRACE_FILE", "")
    if trace:
        _trace_collections(f"{trace}.gc.{os.getpid()}")


def _trace_collections(path: str) -> None:
    out = open(path, "a", buffering=1)  # noqa: SIM115  (for the life of the process)
    started = [0.0]

    def record(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pause = (time.perf_counter() - started[0]) * 1000
            out.write(f"{time.time()} {info['generation']} {pause:.3f}\n")

    gc.callbacks.append(record)
