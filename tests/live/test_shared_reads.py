"""The match streams of one process share one read of the match per version change, and one
rendering of each seat's view and of the public view (live.streams._SharedReads): a seat's
stream gets its own hand, never another seat's, and a spectator's no hand at all."""

from __future__ import annotations

import asyncio
import gc
import random
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID, uuid4

import orjson
import pytest
from django.conf import settings
from django.db import connections
from django.test import override_settings

from games import engine
from games.models import Match
from games.serializers import move_reply_state
from live import hub as events
from live import streams
from live.events import Event
from players.models import Player
from tests.helpers import create_match, post_move, state

pytestmark = pytest.mark.django_db(transaction=True)  # the reads run on the hub's threads


@pytest.fixture(autouse=True)
def _hub_threads_disconnected() -> Iterator[None]:
    """The hub's threads keep their database connections; close them, one task per thread (a
    barrier holds each thread to one), so that the test database can be dropped."""
    yield
    executor = events._executor
    if executor is None:
        return
    count = settings.LIVE_DB_THREADS
    barrier = threading.Barrier(count)

    def close() -> None:
        connections.close_all()
        barrier.wait(10)

    for done in [executor.submit(close) for _ in range(count)]:
        done.result(15)


def _data(event: Event | None) -> dict[str, Any]:
    assert event is not None and event.name == "state"
    return dict(orjson.loads(event.data))


def _reads_counted(shared: streams._SharedReads, monkeypatch: pytest.MonkeyPatch) -> list[UUID]:
    """The matches `shared` reads from the database from here on, one entry a read."""
    reads: list[UUID] = []
    real_read = shared.read

    async def counted(match: UUID) -> Any:
        reads.append(match)
        return await real_read(match)

    monkeypatch.setattr(shared, "read", counted)
    return reads


def _two_seated(make_player: Any, client_for: Any, **body: Any) -> tuple[list[Any], str]:
    """Two people's clients and the two-seat match (created with `body`) they sit at."""
    (_, ta), (_, tb) = make_player(), make_player()
    clients = [client_for(ta), client_for(tb)]
    match_id = create_match(clients[0], seats=2, **body)["id"]
    assert clients[1].post(f"/api/v1/matches/{match_id}/join").status_code == 200
    return clients, match_id


def test_streams_of_a_version_share_one_read_and_see_their_own_seat(
    make_player: Any, client_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    (_, ta), (_, tb) = make_player(), make_player()
    a, b = client_for(ta), client_for(tb)
    match_id = create_match(a, seats=2)["id"]
    assert b.post(f"/api/v1/matches/{match_id}/join").status_code == 200
    views = [state(a, match_id), state(b, match_id)]
    reads: list[UUID] = []
    shared = streams._SharedReads()
    real_read = shared.read

    async def counted(match: UUID) -> Any:
        reads.append(match)
        return await real_read(match)

    monkeypatch.setattr(shared, "read", counted)
    key = UUID(match_id)
    version = views[0]["version"]

    holders = _holders(match_id)

    async def woken(wanted: int, seats: Any = (0, 0, 1, None, None)) -> list[Any]:
        # two streams of seat 0, one of seat 1, two spectators
        try:
            return await asyncio.gather(
                *(shared.event(key, seat, holders[seat], wanted) for seat in seats)
            )
        finally:
            await shared.close()

    first = asyncio.run(woken(version))
    assert len(reads) == 1  # five streams, one read
    zero, zero_again, one, public, public_again = (_data(e) for _, _, e in first)
    assert first[0][2] is first[1][2] and first[3][2] is first[4][2]  # rendered once
    assert zero == views[0] and one == views[1]  # each seat's own view, as GET state
    assert zero["hand"] != one["hand"]
    assert public["you"] is None and public["hand"] == [] and public == public_again
    assert zero_again == zero

    # A newer version is a new read; a stream still waking for the old one joins it.
    turn = views[0]["turn"]
    moved = post_move([a, b][turn], match_id, views[turn]["legal_moves"][0], version).json()
    newer = asyncio.run(woken(moved["version"]))
    assert len(reads) == 2 and all(v == moved["version"] for v, _, _ in newer)
    [late] = asyncio.run(woken(version, seats=[1]))
    assert len(reads) == 2 and _data(late[2]) == state(b, match_id)
    shared.forget(key)
    assert not shared.matches


def test_the_read_on_the_event_loop_gives_the_match_the_orm_gives(
    make_player: Any, client_for: Any
) -> None:
    (_, ta), (_, tb) = make_player(), make_player()
    match_id = create_match(client_for(ta), seats=2)["id"]
    assert client_for(tb).post(f"/api/v1/matches/{match_id}/join").status_code == 200
    shared = streams._SharedReads()

    async def read() -> Any:
        try:
            found = await shared.read(UUID(match_id))
            assert shared._connection is not None  # its own connection, not a thread's
            assert await shared.read(uuid4()) == (None, None)  # no such match
            return found
        finally:
            await shared.close()

    match, deal = asyncio.run(read())
    orm = Match.objects.get(id=match_id)
    names = [f.attname for f in Match._meta.concrete_fields]
    assert {n: getattr(match, n) for n in names} == {n: getattr(orm, n) for n in names}
    assert deal == engine.State.from_json(orm.state)


@override_settings(LIVE_REDIS_URL="")
def test_a_move_written_by_this_process_is_its_streams_read(
    make_player: Any, client_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process that commits a move hands its streams of that match the match as written,
    its deal and the move's reply (live.streams.match_written): they render the move's version
    from it with no read of their own, each seat its own view as GET state gives it, the
    mover's seat its reply's view (not rendered again), and the match as written is the ORM's
    row. A match this process has no stream of is not kept."""
    (_, ta), (_, tb) = make_player(), make_player()
    clients = [client_for(ta), client_for(tb)]
    match_id = create_match(clients[0], seats=2, turn_seconds=60)["id"]  # a turn clock too
    assert clients[1].post(f"/api/v1/matches/{match_id}/join").status_code == 200
    key = UUID(match_id)
    shared = streams._shared_reads
    reads = _reads_counted(shared, monkeypatch)
    renders: list[int | None] = []
    real_render = streams._seat_render

    def rendered_seat(read: Any, seat: int | None) -> Any:
        renders.append(seat)
        return real_render(read, seat)

    monkeypatch.setattr(streams, "_seat_render", rendered_seat)

    names = [f.attname for f in Match._meta.concrete_fields]

    movers: list[int] = []

    def move() -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
        """One move by the seat on turn (on the caller's thread); the version, each seat's GET
        state and the match's row after it."""
        turn = state(clients[0], match_id)["turn"]
        seen = state(clients[turn], match_id)
        response = post_move(clients[turn], match_id, seen["legal_moves"][0], seen["version"])
        assert response.status_code == 200, response.content
        movers.append(turn)
        row = Match.objects.get(id=match_id)
        views = [state(c, match_id) for c in clients]
        connections.close_all()  # this thread's, before the test database is dropped
        return response.json()["version"], views, {n: getattr(row, n) for n in names}

    holders = _holders(match_id)

    async def scenario() -> tuple[Any, list[Any], list[dict[str, Any]], dict[str, Any], bool]:
        current = events.hub()
        try:
            async with current.watch(match=match_id) as waiter:
                version, views, row = await asyncio.to_thread(move)  # a writer's thread
                message = await waiter.get(5)  # dispatched after the hand-over
                assert message is not None and message["version"] == version
                written = await shared.match(key, version)
                rendered = [
                    await shared.event(key, seat, holders[seat], version) for seat in (0, 1)
                ]
            shared.forget_unwatched(key)
            await asyncio.to_thread(move)  # no stream of the match here now
            await asyncio.sleep(0.1)
            return written, rendered, views, row, key in shared.matches
        finally:
            await shared.close()

    (match, deal), rendered, views, row, kept = asyncio.run(scenario())
    assert reads == []  # rendered from the write, none read back
    assert [_data(event) for _, _, event in rendered] == views  # each seat its own view
    assert renders == [1 - movers[0]]  # the mover's view is its reply's, not rendered again
    assert views[0]["turn_deadline"]  # the clock's deadline as written, as read
    assert rendered[0][0] == views[0]["version"] == row["version"] and not rendered[0][1]
    assert {n: getattr(match, n) for n in names} == row  # the match as written is the row
    assert deal == engine.State.from_json(row["state"])
    assert not kept  # the second move, with no stream of it here, was not kept


@override_settings(LIVE_REDIS_URL="")
def test_a_move_another_process_wrote_is_applied_to_the_version_before_not_read(
    make_player: Any, client_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where this process holds the version before a move it did not write (no hand-over:
    another process's), the move's message brings the move's public facts and the streams
    render its version from them (live.streams._SharedReads.advance) with no read: each seat's
    view as GET state gives it, the match as the ORM reads its row (the turn clock's deadline
    too). The move that ends the deal too: each seat sees the deal over with its result, the
    mover its move's answer. A version no move made (the deal's scoring), or a message whose
    version is not the next, is read."""
    clients, match_id = _two_seated(make_player, client_for, turn_seconds=60)
    key = UUID(match_id)
    monkeypatch.setattr(events, "_local_consumer", None)  # the writer is another process
    shared = streams._shared_reads
    reads = _reads_counted(shared, monkeypatch)
    names = [f.attname for f in Match._meta.concrete_fields]
    rng = random.Random(5)

    def move() -> tuple[int, dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
        """A random legal move by the seat on turn (a draw now and then); its answer, then each
        seat's GET state and the match's row (the deal's scoring ran on the move's commit, in
        this process, where the move ended the deal)."""
        turn = state(clients[0], match_id)["turn"]
        seen = state(clients[turn], match_id)
        legal = seen["legal_moves"]
        draws = [m for m in legal if m["action"] == "draw"]
        chosen = rng.choice(draws if draws and rng.random() < 0.15 else legal)
        response = post_move(clients[turn], match_id, chosen, seen["version"])
        assert response.status_code == 200, response.content
        row = Match.objects.get(id=match_id)
        views = [state(c, match_id) for c in clients]
        connections.close_all()  # this thread's, before the test database is dropped
        return turn, response.json(), views, {n: getattr(row, n) for n in names}

    first = state(clients[0], match_id)["version"]

    holders = _holders(match_id)

    async def scenario() -> list[str]:
        kinds: list[str] = []
        try:
            async with events.hub().watch(match=match_id) as waiter:
                await shared.event(key, 0, holders[0], first)
                assert len(reads) == 1
                for _ in range(500):
                    before = len(reads)
                    mover, answer, views, row = await asyncio.to_thread(move)
                    version = answer["version"]
                    message = await waiter.get(5)
                    assert message is not None and message["version"] == version
                    assert set(message["move"]) == {"seat", "move", "turn_deadline"}
                    kinds.append(message["move"]["move"]["action"])
                    if kinds[-1] == "draw":  # the card drawn stays the drawer's
                        assert message["move"]["move"] == {"action": "draw"}
                    rendered = [
                        _data((await shared.event(key, s, holders[s], version))[2]) for s in (0, 1)
                    ]
                    assert len(reads) == before  # applied, not read
                    if answer["phase"] != "deal_over":
                        assert rendered == views
                        match, deal = await shared.match(key, version)
                        assert {n: getattr(match, n) for n in names} == row
                        assert deal == engine.State.from_json(row["state"])
                        continue
                    # The deal's last move: its version as the mover's answer shows it, then
                    # the scoring's (the next deal, or the match over), which is read.
                    assert all(v["phase"] == "deal_over" for v in rendered)
                    assert rendered[0]["result"] == rendered[1]["result"] == answer["result"]
                    assert rendered[mover] == move_reply_state(answer)
                    assert rendered[1 - mover]["hand"] != answer["hand"]
                    scored = await waiter.get(5)
                    assert scored is not None and scored["version"] == row["version"]
                    assert "move" not in scored
                    rendered = [
                        _data((await shared.event(key, s, holders[s], scored["version"]))[2])
                        for s in (0, 1)
                    ]
                    assert rendered == views and len(reads) == before + 1
                    break
                else:
                    pytest.fail("no deal ended in 500 moves")
                # A message that is not the next version of the one held is read.
                held = shared.matches[key].wanted
                shared.advance({**scored, "version": held + 2, "move": {"seat": 0}})
                assert shared.matches[key].wanted == held
            return kinds
        finally:
            await shared.close()

    kinds = asyncio.run(scenario())
    assert {"draw", "play"} <= set(kinds)


def _holders(match_id: Any) -> dict[int | None, str | None]:
    """Seat → the id of the player at it of a started match; None → None (a spectator)."""
    seats = Match.objects.get(id=match_id).seat_players
    return {None: None, **dict(enumerate(seats))}


def _a_move_to_wait_for(
    make_player: Any, client_for: Any, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, list[UUID], dict[str, Any], tuple[int, Player], Callable[[], dict[str, Any]]]:
    """A two-seat match whose moves are written as by another process (no hand-over); the
    reads of live.streams._shared_reads counted from here on; the view before the move (the
    mover's opponent's), that opponent's seat and player, and `move()`: the mover's first legal
    move posted, then the opponent's view as GET state gives it."""
    clients, match_id = _two_seated(make_player, client_for)
    monkeypatch.setattr(events, "_local_consumer", None)  # the writer is another process
    reads = _reads_counted(streams._shared_reads, monkeypatch)
    seen = state(clients[0], match_id)
    mover = seen["turn"]
    waiter = 1 - mover
    before = state(clients[mover], match_id)

    def move() -> dict[str, Any]:
        response = post_move(clients[mover], match_id, before["legal_moves"][0], before["version"])
        assert response.status_code == 200, response.content
        view = state(clients[waiter], match_id)
        connections.close_all()  # this thread's, before the test database is dropped
        return view

    player = Player.objects.get(id=Match.objects.get(id=match_id).seat_players[waiter])
    return match_id, reads, seen, (waiter, player), move


@override_settings(LIVE_REDIS_URL="")
def test_a_waiting_long_poll_is_answered_from_the_version_it_waited_past(
    make_player: Any, client_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-poll that waits past version V holds V's read; the move of V + 1 that another
    process writes (no hand-over here) is applied to it (live.streams._SharedReads.advance),
    and the poll answers the seat's view as GET state gives it with no read of its own."""
    match_id, reads, seen, waiter, move = _a_move_to_wait_for(make_player, client_for, monkeypatch)
    shared = streams._shared_reads

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], int]:
        poll = streams._LongPoll(
            UUID(match_id),
            *waiter,
            None,
            seen["version"],
            5,
            ("poll:test", 4, "%(limit)d"),
            None,
        )
        try:
            waiting = asyncio.ensure_future(poll(None))  # no waiter before the checks: it reads
            while not reads:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)
            assert not waiting.done()  # it waits past the version it read
            expected = await asyncio.to_thread(move)
            answer = await asyncio.wait_for(waiting, 5)
            return answer, expected, len(reads)
        finally:
            await shared.close()

    answer, expected, count = asyncio.run(scenario())
    assert answer == expected and answer["version"] == seen["version"] + 1
    assert count == 1  # the version it waited past; the move's was applied to it
    assert UUID(match_id) not in shared.matches  # none kept once the poll left


@pytest.mark.parametrize("committed", ["before the wait", "during the wait"])
def test_a_long_poll_watching_before_its_checks_read_misses_no_move_committed_meanwhile(
    make_player: Any, client_for: Any, monkeypatch: pytest.MonkeyPatch, committed: str
) -> None:
    """As live.asgi serves a waiting long-poll: its waiter is registered before the request's
    checks read the match (live.streams.poll_watching), and the wait reads nothing of its own.
    A move that another process commits after that read, before the wait starts or while it
    waits, is queued on the waiter and answered at once (not after the poll's `wait`); while
    it waits, the move is applied to the version the process holds (no read at all), and the
    poll keeps no read of its own (here the process held that version before it came)."""
    match_id, reads, seen, waiter, move = _a_move_to_wait_for(make_player, client_for, monkeypatch)
    shared = streams._shared_reads

    def checks_read() -> Any:
        read = streams._match_read(UUID(match_id))
        connections.close_all()
        return read

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        await events.hub().start()
        try:
            async with streams.poll_watching(match_id) as watching:
                assert watching is not None
                read = await asyncio.to_thread(checks_read)
                assert read[0].version == seen["version"]
                poll = streams._LongPoll(
                    UUID(match_id),
                    *waiter,
                    None,
                    seen["version"],
                    5,
                    ("poll:t", 4, "%(limit)d"),
                    read,
                )
                if committed == "before the wait":
                    expected = await asyncio.to_thread(move)
                    waiting = asyncio.ensure_future(poll(watching))
                else:
                    shared.prime(UUID(match_id), await asyncio.to_thread(checks_read))
                    its_own = weakref.ref(read[0])
                    del read
                    waiting = asyncio.ensure_future(poll(watching))
                    await asyncio.sleep(0.1)
                    assert not waiting.done()  # it waits past the version the checks read
                    gc.collect()
                    assert its_own() is None  # the process's copy is the one it waits on
                    expected = await asyncio.to_thread(move)
                answer = await asyncio.wait_for(waiting, 2)  # not the poll's 5 s
            return answer, expected
        finally:
            await shared.close()
            await events.hub().stop()

    answer, expected = asyncio.run(scenario())
    assert answer == expected and answer["version"] == seen["version"] + 1
    if committed == "during the wait":
        assert not reads  # the move was applied to the checks' read
    assert UUID(match_id) not in shared.matches  # none kept once the poll left
