"""The embedded default (`make run`, no environment): no broker, so bot turns, scoring and
settlement run in-process, and a match against bots plays to its end and settles.

Runs in a fresh process on a copy of the project in a temporary directory, with no
DATABASE_URL and no CELERY_* variables at all, so the settings are exactly `make run`'s (a
SQLite file next to the project, task_always_eager)."""

from __future__ import annotations

import pytest

from tests.helpers import embedded_shell

# The embedded stack in processes of its own (make test-fast leaves it out).
pytestmark = pytest.mark.live

SCRIPT = """
from django.conf import settings
from games import engine
from games.models import Deal, Match, ScoreEntry
from games.serializers import move_reply
from games.services import match_apply_move, match_create
from players.services import player_register

assert settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")
assert settings.CELERY_TASK_ALWAYS_EAGER and settings.CELERY_BROKER_URL == "memory://"
person, _ = player_register(username="ana", password="s3cret-pass")
match = match_create(player=person, seats=3, bots=["greedy", "random"], deals=2)
for _ in range(3000):
    match = Match.objects.get(id=match.id)
    if match.status == "finished":
        break
    state = engine.State.from_json(match.state)
    # Bots and scoring ran in-process before the previous call returned: it is our turn.
    assert state.turn == 0, (state.turn, state.phase)
    match_apply_move(
        match_id=match.id,
        player_id=person.id,
        move=engine.legal_moves(state)[-1],
        version=match.version,
        reply=move_reply,
    )
person.refresh_from_db()
print(
    "RESULT",
    match.status,
    match.settled_at is not None,
    Deal.objects.filter(match=match, scored_at__isnull=False).count(),
    ScoreEntry.objects.filter(match=match).count(),
    person.matches,
)
"""


def test_no_broker_runs_every_task_in_process(tmp_path):
    done = embedded_shell(tmp_path, SCRIPT)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "project" / "db.sqlite3").exists()
    result = next(line for line in done.stdout.splitlines() if line.startswith("RESULT"))
    assert result.split()[1:] == ["finished", "True", "2", "6", "1"]
