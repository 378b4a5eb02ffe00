"""The embedded default (`make run`, no environment: SQLite, tasks in-process): starting a
bots-only tournament answers before any bot has moved, and the background thread plays it to
the end. Runs in a fresh process on a copy of the project, with no DATABASE_URL and no CELERY_*
variables, as tests/games/test_tasks_embedded.py does for a match."""

from __future__ import annotations

import pytest

from tests.helpers import embedded_shell

# The embedded stack in processes of its own (make test-fast leaves it out).
pytestmark = pytest.mark.live

SCRIPT = """
import threading
from django.conf import settings
from games.models import Match, Move
from games.tasks import background_submit, background_wait
from players.services import bot_player_get_or_create, player_register
from tournaments.models import Tournament
from tournaments.services import tournament_create, tournament_start

assert settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")
assert settings.CELERY_TASK_ALWAYS_EAGER and settings.CELERY_BROKER_URL == "memory://"
organizer, _ = player_register(username="ana", password="s3cret-pass")
bots = [bot_player_get_or_create(strategy="greedy", ordinal=i) for i in range(1, 5)]
tournament = tournament_create(
    organizer=organizer, name="Bots", format="round_robin", table_size=2,
    players=[b.id for b in bots], deals=1,
)
release = threading.Event()
for _ in range(settings.EMBEDDED_TASK_THREADS):
    background_submit(release.wait, 60)
tournament_start(tournament_id=tournament.id, player=organizer)
matches = Match.objects.filter(tournament_table__tournament=tournament)
print("STARTED", Tournament.objects.get(id=tournament.id).status, matches.count(),
      Move.objects.filter(deal__match__in=matches).count())
release.set()
assert background_wait(240)
tournament.refresh_from_db()
print("RESULT", tournament.status, tournament.current_round,
      matches.exclude(status="finished").count(), matches.filter(settled_at=None).count())
"""


def test_start_returns_at_once_and_the_background_finishes_it(tmp_path):
    done = embedded_shell(tmp_path, SCRIPT)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines() if line}
    assert lines["STARTED"] == ["running", "2", "0"]  # round 1 dealt, no bot has moved
    assert lines["RESULT"] == ["finished", "3", "0", "0"]
