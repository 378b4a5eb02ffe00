"""The embedded default's beat (pisyedili_api.tasks.embedded_start): with no broker there is no
`celery beat`, so the server process runs the schedule itself from its lifespan's startup and a
person who lets their turn clock run out has the greedy move played for them, as on the full
stack. At the lifespan's shutdown (embedded_stop) the beat ends and no analysis job starts any
more: nothing is left to outlive the server.

Runs in a fresh process on a copy of the project with `make run`'s settings (tests/helpers.py)."""

from __future__ import annotations

import pytest

from tests.helpers import embedded_shell

# The embedded stack in processes of its own (make test-fast leaves it out).
pytestmark = pytest.mark.live

SCRIPT = """
import asyncio
import time

from django.conf import settings
from games.models import Match, Move
from games.services import match_create
from players.services import player_register
from pisyedili_api import tasks

assert settings.CELERY_TASK_ALWAYS_EAGER and settings.EMBEDDED_BEAT
assert settings.EMBEDDED_ANALYSIS_IN_BACKGROUND
import live.asgi  # what uvicorn (`make run`) loads

imported = tasks._beat_thread is not None


def turn_clock():
    ana, _ = player_register(username="ana", password="s3cret-pass")
    ben, _ = player_register(username="ben", password="s3cret-pass")
    match = match_create(player=ana, seats=2, seated=[ana, ben], deals=1, turn_seconds=1)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not Move.objects.filter(match=match).exists():
        time.sleep(0.2)
    moves = list(Move.objects.filter(match=match).order_by("seq"))
    played = bool(moves) and all(m.by_bot and m.seat == 0 for m in moves)
    return played and Match.objects.get(id=match.id).version > match.version


async def serve():
    async with live.asgi.lifespan(live.asgi.application):
        running = tasks._beat_thread is not None and tasks._beat_thread.is_alive()
        played = await asyncio.to_thread(turn_clock)
    beat_ended = not tasks._beat_thread.is_alive()
    tasks.send("games.deal_luck", "00000000-0000-0000-0000-000000000000", 1)
    return running, played, beat_ended, tasks.analysis_process_ids() == []


print("RESULT", imported, *asyncio.run(serve()))
"""


def test_the_embedded_server_runs_the_turn_clock_itself_until_it_stops(tmp_path):
    done = embedded_shell(tmp_path, SCRIPT)
    assert done.returncode == 0, done.stderr[-3000:]
    result = next(line for line in done.stdout.splitlines() if line.startswith("RESULT"))
    # Not started on import; running once the lifespan has started; seat 0 (the opener) ran out
    # of time and the clock played for it; after the lifespan's shutdown the beat has ended and
    # a deal's luck sent then starts no analysis process (the sweeper sends it after a restart).
    assert result.split()[1:] == ["False", "True", "True", "True", "True"]
