"""Small helpers shared by the Django tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any


def create_match(client: Any, **body: Any) -> dict[str, Any]:
    response = client.post("/api/v1/matches", {"seats": 2, **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def state(client: Any, match_id: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/matches/{match_id}/state")
    assert response.status_code == 200, response.content
    return response.json()


def post_move(
    client: Any, match_id: str, move: dict[str, Any], version: int, **headers: Any
) -> Any:
    return client.post(
        f"/api/v1/matches/{match_id}/moves", {**move, "version": version}, format="json", **headers
    )


def play_until(
    clients: dict[int, Any], match_id: str, done: Any, limit: int = 2000
) -> dict[str, Any]:
    """Seated clients (by seat) play their first legal move until `done(view)` or the match ends."""
    view = state(next(iter(clients.values())), match_id)
    for _ in range(limit):
        if view["status"] != "active" or done(view):
            return view
        if view["turn"] is None:  # deal over: scored on commit, then the next deal is dealt
            view = state(next(iter(clients.values())), match_id)
            continue
        if view["you"] != view["turn"]:
            view = state(clients[view["turn"]], match_id)
        response = post_move(
            clients[view["turn"]], match_id, view["legal_moves"][0], view["version"]
        )
        assert response.status_code == 200, response.content
        view = response.json()
    raise AssertionError("the match did not get there")


def end_deal_by_last_card(match_id: Any, player_id: Any, seat: int) -> None:
    """Script the live deal so that `seat` (two seats) holds only 7D on a 9D and the other seat
    keeps JS 7C 3H (R-31: 144 points), then play the 7D for `player_id` through the service: the
    deal is over, its scoring sent on commit."""
    from games import engine
    from games.models import Match
    from games.serializers import move_reply
    from games.services import match_apply_move

    current = Match.objects.get(id=match_id)
    hands = ["JS 7C 3H", "JS 7C 3H"]
    hands[seat] = "7D"
    position = engine.deal_from_codes(
        hands=hands,
        top="9D",
        stock=["2C", "4C"],
        turn=seat,
        rules=engine.Rules.from_json(current.rules),
        phase="play",
    )
    Match.objects.filter(id=match_id).update(state=position.to_json())
    match_apply_move(
        match_id=match_id,
        player_id=player_id,
        move=engine.Move.from_json({"action": "play", "card": "7D"}),
        version=current.version,
        reply=move_reply,
    )


def embedded_shell(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    """`script` run by `manage.py shell` on the embedded default (`make run`: SQLite, tasks
    in-process, its development key), in a fresh process on a copy of the project with no
    DATABASE_URL, CELERY_*, DJANGO_*, GAMES_* or TOURNAMENT_* setting; migrated first."""
    root = Path(__file__).resolve().parents[1]
    project = tmp_path / "project"
    project.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("pisyedili_api", "games", "players", "tournaments"):
        shutil.copytree(root / name, project / name, ignore=ignore)
    shutil.copy(root / "manage.py", project / "manage.py")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CELERY_", "DATABASE_URL", "DJANGO_", "GAMES_", "TOURNAMENT_"))
    }
    env["PYTHONPATH"] = str(project)  # the copy, not the installed checkout
    env["DJANGO_SECRET_KEY"] = "insecure-development-key-of-make-run"  # as `make run` passes
    manage = [sys.executable, str(project / "manage.py")]
    subprocess.run([*manage, "migrate", "-v", "0"], cwd=project, env=env, check=True, timeout=120)
    return subprocess.run(
        [*manage, "shell", "-c", script],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def play_to_the_end(client: Any, match_id: Any, limit: int = 2000) -> dict[str, Any]:
    """The caller's last legal move, again and again, until the match is no longer active."""
    view = state(client, match_id)
    for _ in range(limit):
        if view["status"] != "active":
            return view
        response = post_move(client, match_id, view["legal_moves"][-1], view["version"])
        assert response.status_code == 200, response.content
        view = state(client, match_id)
    raise AssertionError("the match did not finish")
