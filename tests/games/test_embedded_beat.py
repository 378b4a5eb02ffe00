"""The embedded default's beat (pisyedili_api.tasks.embedded_beat_start): with no broker there is
no `celery beat`, so the server process runs the schedule itself and a person who lets their turn
clock run out has the greedy move played for them, as on the full stack.

Runs in a fresh process on a copy of the project with `make run`'s settings (tests/helpers.py)."""

from __future__ import annotations

import pytest

from tests.helpers import embedded_shell

# The embedded stack in processes of its own (make test-fast leaves it out).
pytestmark = pytest.mark.live

SCRIPT = """
import time

from django.conf import settings
from games.models import Match, Move
from games.services import match_create
from players.services import player_register
from pisyedili_api import tasks

assert settings.CELERY_TASK_ALWAYS_EAGER and settings.EMBEDDED_BEAT
started_before = tasks._beat_thread is not None
import live.asgi  # what uvicorn (`make run`) loads: starts the beat
ana, _ = player_register(username="ana", password="s3cret-pass")
ben, _ = player_register(username="ben", password="s3cret-pass")
match = match_create(player=ana, seats=2, seated=[ana, ben], deals=1, turn_seconds=1)
version = match.version
deadline = time.monotonic() + 20
while time.monotonic() < deadline and not Move.objects.filter(match=match).exists():
    time.sleep(0.2)
moves = list(Move.objects.filter(match=match).order_by("seq"))
print(
    "RESULT",
    started_before,
    tasks._beat_thread is not None and tasks._beat_thread.is_alive(),
    bool(moves) and all(m.by_bot and m.seat == 0 for m in moves),
    Match.objects.get(id=match.id).version > version,
)
"""


def test_the_embedded_server_runs_the_turn_clock_itself(tmp_path):
    done = embedded_shell(tmp_path, SCRIPT)
    assert done.returncode == 0, done.stderr[-3000:]
    result = next(line for line in done.stdout.splitlines() if line.startswith("RESULT"))
    # Not started by the shell itself; started by the server's entry point; seat 0 (the opener)
    # ran out of time and the clock played for it.
    assert result.split()[1:] == ["False", "True", "True", "True"]
