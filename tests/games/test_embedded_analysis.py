"""The embedded default (no broker) runs the analysis queue's tasks in a process of their own at
the lowest CPU priority (EMBEDDED_ANALYSIS_IN_BACKGROUND, pisyedili_api.tasks): the move that
ends a deal answers while the deal's luck is still being estimated, the luck is stored once
that process is done, and while it works, moves and bots' turns answer as fast as without it
(a thread beside the requests would hold the GIL against them). Off, the tasks run in the
request, as every other in-process task."""

from __future__ import annotations

import logging
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import psutil
import pytest
from django.db import connection
from django.utils import timezone

from games import services
from games.models import Deal, DealLuck
from games.tasks import background_wait, sweep
from pisyedili_api.tasks import (
    ANALYSIS_NICENESS,
    analysis_process_ids,
    analysis_process_stop,
    embedded_start,
    embedded_stop,
)
from tests.helpers import create_match, post_move, state

# The tasks run on commit; the analysis in a process of its own (make test-fast leaves it out).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.live]


@pytest.fixture
def analysis_process(settings) -> Iterator[None]:
    """The analysis process on, stopped once its jobs are done (it reads this test's
    database, which must outlive it)."""
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("another process cannot open an in-memory SQLite database")
    settings.EMBEDDED_ANALYSIS_IN_BACKGROUND = True
    try:
        yield
    finally:
        assert background_wait(300), "the analysis process never finished"
        analysis_process_stop()


def play_one_deal(client, timings=None, timed=lambda: True):
    """A one-deal match against the greedy bot, played to its end: the replies of every move
    (each answers the person's move and the bot's turn after it), timed into `timings` (a list,
    or anything with its `append`) when `timed()` still holds once it has answered."""
    match = create_match(client, seats=2, bots=["greedy"], deals=1)
    view, replies = state(client, match["id"]), []
    for _ in range(500):
        if view["status"] != "active":
            return match["id"], replies
        started = time.perf_counter()
        response = post_move(client, match["id"], view["legal_moves"][-1], view["version"])
        took = time.perf_counter() - started
        if timings is not None and timed():
            timings.append(took)
        assert response.status_code == 200, response.content
        replies.append(response)
        view = state(client, match["id"])
    raise AssertionError("the deal did not end")


def test_the_move_that_ends_a_deal_answers_before_its_luck_is_estimated(
    settings, make_player, client_for, analysis_process
):
    settings.ANALYSIS_LUCK_SAMPLES = 20_000  # a second or more of the analysis process's CPU
    _, token = make_player()
    match_id, _ = play_one_deal(client_for(token))
    # Every reply came back while the estimate runs elsewhere: none stored yet.
    assert not DealLuck.objects.filter(deal__match_id=match_id).exists()
    assert background_wait(300)
    deal = Deal.objects.get(match_id=match_id, number=1)
    assert sorted(DealLuck.objects.filter(deal=deal).values_list("seat", flat=True)) == [0, 1]
    assert {r.samples for r in DealLuck.objects.filter(deal=deal)} == {20_000}
    # It ran in the analysis process, at the lowest priority.
    (pid,) = analysis_process_ids()
    assert pid != os.getpid() and os.getpriority(os.PRIO_PROCESS, pid) == ANALYSIS_NICENESS


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


class _HeldInTurn:
    """Where play_one_deal times its moves while an estimate runs: one move with the analysis
    processes `pids` stopped (SIGSTOP: the estimate held, no CPU of its own), the next with them
    going on, in turn, so that what the rest of the machine does meanwhile weighs on both
    alike; a stopped process is let go on (SIGCONT) before the next move."""

    def __init__(self, pids: list[int]) -> None:
        self.pids, self.held, self.running = pids, [], []
        self._send(signal.SIGSTOP)

    def _send(self, sign: signal.Signals) -> None:
        for pid in self.pids:
            os.kill(pid, sign)
        self.holding = sign == signal.SIGSTOP

    def append(self, took: float) -> None:
        (self.held if self.holding else self.running).append(took)
        self._send(signal.SIGCONT if self.holding else signal.SIGSTOP)

    def release(self) -> None:
        self._send(signal.SIGCONT)


def test_a_running_analysis_delays_no_move_and_no_bots_turn(
    settings, make_player, client_for, analysis_process
):
    """The bot's reply to a person's move while a deal's luck is being estimated (a long one:
    seconds of CPU), against the same with that estimate held, move by move in turn: its p90
    with the estimate running stays within twice its p90 without."""
    settings.ANALYSIS_LUCK_SAMPLES = 4  # the deals timed have a luck of no cost
    (_, token), (_, other_token) = make_player(), make_player()
    client, other = client_for(token), client_for(other_token)
    play_one_deal(client)  # not timed: the first requests' imports and connections
    settings.ANALYSIS_LUCK_SAMPLES = 60_000
    settings.ANALYSIS_MAX_ACTIONS = 10**9
    match_id, _ = play_one_deal(other)  # its luck is now being estimated
    settings.ANALYSIS_LUCK_SAMPLES = 4
    deal = Deal.objects.get(match_id=match_id, number=1)
    deadline = time.monotonic() + 60
    while Deal.objects.get(id=deal.id).luck_attempted_at is None:  # the process has started it
        assert time.monotonic() < deadline, "the analysis process did not start the estimate"
        time.sleep(0.05)
    pids = analysis_process_ids()
    assert pids, "no analysis process: the estimate runs beside the requests"
    timings = _HeldInTurn(pids)
    running = lambda: not DealLuck.objects.filter(deal=deal).exists()  # noqa: E731
    try:
        while running() and len(timings.running) < 60:
            play_one_deal(client, timings, running)  # each move answered while the estimate ran
    finally:
        timings.release()
    # Timed enough: the rest of the estimate would only hold the test's teardown for a minute.
    for pid in analysis_process_ids():
        os.kill(pid, signal.SIGKILL)
    before, during = timings.held, timings.running
    assert len(during) >= 20, "the estimate ended too soon to time anything beside it"
    assert p90(during) <= 2 * p90(before) + 0.02, (p90(before), p90(during))


@pytest.fixture
def luck_held(monkeypatch):
    """The task games.deal_luck waits for `release` (set within 30 s) before it estimates,
    recording the thread it ran on."""
    release, ran_on = threading.Event(), []
    estimate = services.deal_luck

    def held(**kwargs):
        ran_on.append(threading.current_thread().name)
        assert release.wait(30), "the test never released the luck estimate"
        return estimate(**kwargs)

    monkeypatch.setattr(services, "deal_luck", held)  # the name games.tasks calls
    return release, ran_on


def test_switched_off_the_luck_is_estimated_in_the_request(
    settings, make_player, client_for, luck_held
):
    settings.EMBEDDED_ANALYSIS_IN_BACKGROUND = False
    release, ran_on = luck_held
    release.set()
    _, token = make_player()
    match_id, _ = play_one_deal(client_for(token))
    assert ran_on == [threading.current_thread().name]
    assert DealLuck.objects.filter(deal__match_id=match_id).count() == 2


def test_a_stopping_server_ends_the_analysis_process_at_once_and_the_sweeper_sends_its_job_again(
    settings, make_player, client_for, analysis_process, caplog
):
    """The server's shutdown (live.asgi's lifespan: embedded_stop) with a deal's luck being
    estimated: the process ends at once, with no error logged and nothing stored; started
    again (embedded_start), once the attempt's lease has passed, the sweeper sends the estimate
    again."""
    settings.ANALYSIS_LUCK_SAMPLES = 20_000  # a second or more of the analysis process's CPU
    _, token = make_player()
    match_id, _ = play_one_deal(client_for(token))
    deal = Deal.objects.get(match_id=match_id, number=1)
    deadline = time.monotonic() + 60
    while not Deal.objects.filter(id=deal.id, luck_attempted_at__isnull=False).exists():
        assert time.monotonic() < deadline, "the estimate never started"
        time.sleep(0.02)
    (pid,) = analysis_process_ids()
    started = time.monotonic()
    try:
        with caplog.at_level(logging.ERROR):
            embedded_stop()
        assert time.monotonic() - started < 5
        assert not psutil.pid_exists(pid) and analysis_process_ids() == []
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
        assert not DealLuck.objects.filter(deal=deal).exists()
    finally:
        embedded_start()  # the restart (no beat here: EMBEDDED_BEAT is off in the tests)

    lease = timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 1)
    Deal.objects.filter(id=deal.id).update(luck_attempted_at=timezone.now() - lease)
    settings.GAMES_STUCK_SECONDS = 0
    settings.ANALYSIS_STUCK_SECONDS = 0
    settings.ANALYSIS_LUCK_SAMPLES = 20
    sweep()
    assert background_wait(300)
    assert DealLuck.objects.filter(deal=deal).count() == 2


def test_the_analysis_process_ends_when_its_server_is_killed(tmp_path):
    """A server killed without its exit (SIGKILL) takes its analysis process with it: the
    process's own watch (pisyedili_api.tasks._exit_with_parent) ends it within a second or
    two, instead of leaving it behind for good with its database sessions."""
    script = (
        "import multiprocessing, os, sys, time\n"
        "from concurrent import futures\n"
        "from pisyedili_api.tasks import _exit_with_parent\n"
        "pool = futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context('spawn'),"
        " initializer=_exit_with_parent)\n"
        "print(pool.submit(os.getpid).result(), flush=True)\n"
        "time.sleep(600)\n"
    )
    server = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "DJANGO_SECRET_KEY": "insecure-test-key"},
    )
    try:
        child = int(server.stdout.readline())
        os.kill(child, 0)  # alive
        server.kill()
        server.wait(10)
        deadline = time.monotonic() + 10
        while True:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            # Reaped by init once it exits; until then it may show as a zombie.
            if _zombie(child):
                break
            assert time.monotonic() < deadline, "the analysis process outlived its server"
            time.sleep(0.1)
    finally:
        server.kill()


def _zombie(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
