"""Stream slots across web processes (live.hub.Hub, LIVE_STREAMS_PER_PLAYER) on the real
Redis of CELERY_BROKER_URL, under a key prefix of each test: a slot lives while its process's
lease lives; the lease is renewed in one command however many slots the process holds; the
slots of a process whose lease lapsed are not counted, and a process that finds its own lease
lapsed adds its slots back."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.test import override_settings

from live import hub as events

REDIS = os.environ.get("CELERY_BROKER_URL", "")

pytestmark = pytest.mark.skipif(
    not REDIS.startswith("redis://"), reason="needs CELERY_BROKER_URL=redis://…"
)


def _run(scenario: Callable[[Any, events.Hub, events.Hub], Awaitable[None]]) -> None:
    """`scenario(client, one, two)`: two hubs (two web processes) on the test Redis, under a
    prefix of this test's own whose keys are deleted afterwards; both hubs stopped after it."""
    import redis.asyncio as aioredis

    prefix = f"test-slots-{uuid.uuid4().hex[:12]}"

    async def run() -> None:
        client = aioredis.Redis.from_url(REDIS)
        one, two = events.Hub(), events.Hub()
        try:
            await scenario(client, one, two)
        finally:
            await one.stop()
            await two.stop()
            keys = [key async for key in client.scan_iter(f"{prefix}:*")]
            if keys:
                await client.delete(*keys)
            await client.aclose()

    # A loop of its own on a thread of its own: the browser tests' Playwright keeps an event
    # loop running on the main thread for the whole session.
    with (
        override_settings(
            LIVE_REDIS_URL=REDIS,
            LIVE_CHANNEL_PREFIX=prefix,
            LIVE_STREAMS_PER_PLAYER=3,
            LIVE_HEARTBEAT_SECONDS=0.2,
        ),
        ThreadPoolExecutor(1) as thread,
    ):
        thread.submit(asyncio.run, run()).result()


def test_the_cap_counts_every_process_and_a_slot_given_back_frees_one() -> None:
    async def scenario(client: Any, one: events.Hub, two: events.Hub) -> None:
        taken = [await one.slot_take("p"), await two.slot_take("p"), await one.slot_take("p")]
        assert all(taken) and len(set(taken)) == 3  # unique across processes
        assert await two.slot_take("p") is None  # 3 over both processes
        assert await two.slot_take("q") is not None  # another holder's cap
        await one.slot_give_back("p", taken[0])  # type: ignore[arg-type]
        assert await two.slot_take("p") is not None

    _run(scenario)


def test_the_slots_of_a_process_whose_lease_lapsed_are_not_counted() -> None:
    async def scenario(client: Any, dead: events.Hub, alive: events.Hub) -> None:
        for _ in range(3):
            assert await dead.slot_take("p") is not None
        assert await alive.slot_take("p") is None
        # The process died: its refresher stops, its lease runs out (here: deleted).
        await dead.stop()
        await client.delete(dead._lease_key())
        assert await alive.slot_take("p") is not None
        # Taking a slot cleared the dead process's members.
        members = await client.smembers(alive._slot_key("p"))
        assert {m.decode().split("|")[0] for m in members} == {alive._process}

    _run(scenario)


def test_the_lease_is_renewed_in_one_command_and_restores_what_lapsed() -> None:
    async def scenario(client: Any, hub: events.Hub, other: events.Hub) -> None:
        slots = [await hub.slot_take(f"p{i % 2}") for i in range(4)]
        assert all(slots)
        lease = hub._lease_key()
        life = await client.pttl(lease)
        assert 0 < life <= 600  # LIVE_HEARTBEAT_SECONDS × 3
        commands: list[tuple[Any, ...]] = []
        execute = hub._client.execute_command

        async def counted(*args: Any, **options: Any) -> Any:
            commands.append(args)
            return await execute(*args, **options)

        hub._client.execute_command = counted  # type: ignore[method-assign]
        await asyncio.sleep(0.5)  # two renewals or more
        assert commands and all(c[0] == "SET" and c[1] == lease for c in commands)
        assert await client.pttl(lease) > 0
        # Redis lost the lease (away longer than its life): another process clears the
        # slots; the next renewal adds them back, and they count again.
        await client.delete(lease)
        assert await other.slot_take("p0") is not None  # clears hub's two p0 slots
        assert len(await client.smembers(hub._slot_key("p0"))) == 1
        await asyncio.sleep(0.5)
        held = {m.decode() for m in await client.smembers(hub._slot_key("p0"))}
        assert {slots[0], slots[2]} <= held and len(held) == 3
        assert await other.slot_take("p0") is None  # the cap of 3 holds again

    _run(scenario)


def test_slots_taken_one_after_another_renew_the_lease_once_a_heartbeat() -> None:
    """A process whose long-polls come one at a time holds no slot between them: the next one
    renews the lease only when the last renewal is a heartbeat old (the lease lives three)."""

    async def scenario(client: Any, hub: events.Hub, _other: events.Hub) -> None:
        commands: list[tuple[Any, ...]] = []

        async def take_and_give_back() -> None:
            slot = await hub.slot_take("p")
            assert slot is not None
            await hub.slot_give_back("p", slot)

        await take_and_give_back()  # the first: renews
        execute = hub._client.execute_command

        async def counted(*args: Any, **options: Any) -> Any:
            commands.append(args)
            return await execute(*args, **options)

        hub._client.execute_command = counted  # type: ignore[method-assign]
        for _ in range(3):
            await take_and_give_back()
        assert not [c for c in commands if c[0] == "SET"]
        assert await client.pttl(hub._lease_key()) > 0
        await asyncio.sleep(0.25)  # a heartbeat (0.2 s) with no slot held: no renewal ran
        await take_and_give_back()
        assert [c[1] for c in commands if c[0] == "SET"] == [hub._lease_key()]

    _run(scenario)
