"""Page cursors are signed (pisyedili_api.cursors): a forged, tampered or foreign cursor on any
paged list is 400 `invalid` naming `cursor`, never a 500, and changes nothing; the server's own
`next` links still page."""

from __future__ import annotations

import base64
import json
import uuid
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlparse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pisyedili_api.cursors import cursor_decode, cursor_encode
from pisyedili_api.errors import ApplicationError
from players.selectors import HistoryKeyset, Keyset
from tests.helpers import create_match
from tests.scale import scaled

pytestmark = pytest.mark.django_db


def _b64(text: str, urlsafe: bool = False) -> str:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return encode(text.encode()).decode()


def _paged_paths() -> list[str]:
    player = uuid.uuid4()
    return [
        "/api/v1/matches",
        f"/api/v1/matches?player={player}",
        "/api/v1/tournaments",
        "/api/v1/leaderboard?metric=rating",
        "/api/v1/leaderboard?metric=wins",
        "/api/v1/leaderboard?metric=points",
        "/api/v1/players/{player}/history",
    ]


# Forged cursors of every shape the old, unsigned cursors accepted, and values past 64 bits.
# Fixed ids (no row has them): every worker of a parallel run collects the same parameters.
FORGED = [
    _b64("p=garbage"),
    _b64("o=1&p=2020-01-01"),
    _b64("r=1&p=" + "9" * 40),
    _b64("o=99999999999999999999999"),
    _b64(json.dumps({"m": "wins", "v": 2**70, "p": str(uuid.UUID(int=1)), "d": "n"}), True),
    _b64(json.dumps({"m": "rating", "v": -(2**64), "p": str(uuid.UUID(int=2)), "d": "p"}), True),
    _b64(json.dumps({"m": "points", "v": 1e308, "p": str(uuid.UUID(int=3)), "d": "n"}), True),
    _b64(
        json.dumps({"t": "9999-12-31T23:59:59-23:59", "m": str(uuid.UUID(int=4)), "d": "n"}), True
    ),
    _b64(
        json.dumps({"t": "0001-01-01T00:00:00+23:59", "m": str(uuid.UUID(int=5)), "d": "p"}), True
    ),
    cursor_encode({"o": 0, "r": False, "p": "x"}, salt="elsewhere", scope="/api/v1/matches?"),
    "a:b:c",
    "%00",
]


@pytest.fixture
def history_path(make_player):
    player, _ = make_player()
    return f"/api/v1/players/{player.id}/history"


def _paths(history_path):
    return [p for p in _paged_paths() if "history" not in p] + [history_path]


def _assert_invalid(response):
    assert response.status_code == 400, (response.status_code, response.content)
    body = response.json()
    assert body["code"] == "invalid" and "cursor" in body["detail"], body


# Ids by position: a signed cursor carries the time it was made.
@pytest.mark.parametrize("cursor", FORGED, ids=[f"forged-{i}" for i in range(len(FORGED))])
def test_forged_cursors_are_invalid_on_every_paged_list(api, history_path, cursor):
    for path in _paths(history_path):
        _assert_invalid(
            api.get(path, {"cursor": cursor})
            if "?" not in path
            else api.get(f"{path}&cursor={cursor}")
        )


def test_an_empty_cursor_is_the_first_page_on_every_paged_list(api, history_path):
    for path in _paths(history_path):
        joiner = "&" if "?" in path else "?"
        first, empty = api.get(path), api.get(f"{path}{joiner}cursor=")
        assert empty.status_code == 200, (path, empty.content)
        assert empty.json()["results"] == first.json()["results"], path


@settings(max_examples=scaled(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(cursor=st.text(min_size=1, max_size=120).filter(lambda s: "\x00" not in s))
def test_random_cursors_are_invalid_on_every_paged_list(api, history_path, cursor):
    for path in _paths(history_path):
        base, _, query = path.partition("?")
        params = dict(p.split("=") for p in query.split("&") if p)
        _assert_invalid(api.get(base, {**params, "cursor": cursor}))


def test_a_tampered_next_link_is_invalid_and_a_true_one_pages(make_player, client_for, api):
    _, token = make_player()
    client = client_for(token)
    for _ in range(3):
        create_match(client, seats=3)
    first = api.get("/api/v1/matches?limit=2").json()
    second = api.get(first["next"])
    assert second.status_code == 200 and len(second.json()["results"]) == 1
    cursor = parse_qs(urlparse(first["next"]).query)["cursor"][0]
    flipped = cursor[:-1] + ("A" if cursor[-1] != "A" else "B")
    _assert_invalid(api.get("/api/v1/matches", {"limit": 2, "cursor": flipped}))
    # A match list's cursor is refused by the tournament list (salted per endpoint), and by
    # another list of matches (salted per list: its query but for the page's own parameters).
    _assert_invalid(api.get("/api/v1/tournaments", {"cursor": cursor}))
    _assert_invalid(api.get("/api/v1/matches", {"status": "finished", "cursor": cursor}))
    # The page's own parameters are not the list's: another limit takes it.
    assert api.get("/api/v1/matches", {"limit": 1, "cursor": cursor}).status_code == 200


@pytest.fixture
def people_with_history(make_player):
    """Two people with two settled matches against each other: two rows of history each, and
    two rows on each board of those matches."""
    from django.utils import timezone

    from players.services import player_standings_settle

    first, second = make_player()[0], make_player()[0]
    for places in ([1, 2], [2, 1]):
        player_standings_settle(
            match_id=uuid.uuid4(),
            player_ids=[first.id, second.id],
            places=places,
            rules={},
            finished_at=timezone.now(),
            deals_played=1,
            deals_won=[1 if place == 1 else 0 for place in places],
            penalties=[0 if place == 1 else 10 for place in places],
        )
    return first, second


def test_a_cursor_of_one_players_history_or_board_is_not_anothers(api, people_with_history):
    """A history's `next` does not page another player's history, nor a board's another board
    of the same metric (another table size, period or humans_only)."""
    first, second = people_with_history
    page = api.get(f"/api/v1/players/{first.id}/history?limit=1").json()
    cursor = parse_qs(urlparse(page["next"]).query)["cursor"][0]
    assert api.get(page["next"]).status_code == 200
    _assert_invalid(api.get(f"/api/v1/players/{second.id}/history", {"cursor": cursor}))
    board = api.get("/api/v1/leaderboard?metric=wins&limit=1").json()
    cursor = parse_qs(urlparse(board["next"]).query)["cursor"][0]
    assert api.get(board["next"]).status_code == 200
    for other in ({"seats": 2}, {"period": "week"}, {"humans_only": "true"}):
        _assert_invalid(
            api.get("/api/v1/leaderboard", {"metric": "wins", **other, "cursor": cursor})
        )


# ---- the decoders themselves, with values that overflow SQLite's 64-bit integers ----


@pytest.mark.parametrize(
    "value", [2**63, -(2**63) - 1, 2**64, 10**30, 2**53 + 1, float("inf"), float("nan"), True]
)
def test_leaderboard_keyset_refuses_values_past_the_backends_even_when_signed(value):
    body = {"m": "wins", "v": value, "p": str(uuid.uuid4()), "d": "n"}
    scope = "/api/v1/leaderboard?metric=wins"
    for cursor in (
        cursor_encode(body, salt="leaderboard", scope=scope),
        _b64(json.dumps(body), True),
    ):
        with pytest.raises(ApplicationError) as raised:
            Keyset.from_cursor(cursor, metric="wins", scope=scope)
        assert raised.value.code == "invalid" and "cursor" in raised.value.detail


@pytest.mark.parametrize(
    "at", ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59", "2026-01-01T00:00:00"]
)
def test_history_keyset_refuses_timestamps_out_of_range_even_when_signed(at):
    body = {"t": at, "m": str(uuid.uuid4()), "d": "n"}
    scope = "/api/v1/players/x/history?"
    for cursor in (cursor_encode(body, salt="history", scope=scope), _b64(json.dumps(body), True)):
        with pytest.raises(ApplicationError) as raised:
            HistoryKeyset.from_cursor(cursor, scope=scope)
        assert raised.value.code == "invalid"


def test_keysets_round_trip():
    key = Keyset("rating", 12.5, uuid.uuid4(), False)
    board = "/api/v1/leaderboard?metric=rating"
    assert Keyset.from_cursor(key.cursor(board), metric="rating", scope=board) == key
    history = HistoryKeyset(datetime(2026, 1, 2, tzinfo=UTC), uuid.uuid4(), True)
    mine = "/api/v1/players/x/history?"
    assert HistoryKeyset.from_cursor(history.cursor(mine), scope=mine) == history
    with pytest.raises(ApplicationError):
        cursor_decode(key.cursor(board), salt="history", scope=board)


def test_a_cursor_is_the_same_whenever_it_is_made(monkeypatch):
    """A page read again a second later has the same links: its body, and so its ETag, is
    that of its rows alone (a timestamped signature changed both every second)."""
    import time

    body = {"o": 1, "r": False, "p": "x"}
    now = cursor_encode(body, salt="matches", scope="/api/v1/matches?")
    later = time.time() + 5
    monkeypatch.setattr(time, "time", lambda: later)
    assert cursor_encode(body, salt="matches", scope="/api/v1/matches?") == now
    assert cursor_decode(now, salt="matches", scope="/api/v1/matches?") == body
