"""Quick play across two web processes: people ask for two-seat tables at the same instant, half
on each process; the pairings of both processes race on the same rows, and nobody is seated
twice or beside themselves (the row locks decide, not a process's memory). The seat is told on
the person's `me` stream, opened on the other process."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from django.test import override_settings

from games.models import Match, QueueEntry
from games.services import queue_pair

from .sse import Event
from .test_streams import Player

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def test_joins_on_two_processes_at_once_seat_everyone_once(live: Any) -> None:
    one, two = live.bases
    people = [Player(one) for _ in range(12)]
    watched = people[0].stream(two, "/api/v1/me/events")
    ready = watched.next()
    assert isinstance(ready, Event) and ready.event == "ready"
    start, answers = threading.Barrier(len(people)), [None] * len(people)

    def join(index: int) -> None:
        start.wait()
        base = (one, two)[index % 2]
        answers[index] = people[index].post(  # type: ignore[call-overload]
            base, "/api/v1/queue", {"seats": 2, "wait_seconds": 60}
        )

    threads = [threading.Thread(target=join, args=(i,)) for i in range(len(people))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a.status_code for a in answers] == [201] * len(people), [a.text for a in answers]
    # The beat: pairs whoever a racing pairing skipped, telling the servers' streams.
    with override_settings(LIVE_CHANNEL_PREFIX=live.prefix):
        queue_pair()
    entries = {str(e.player_id): e for e in QueueEntry.objects.all()}
    assert set(entries) == {p.id for p in people}
    assert {e.status for e in entries.values()} == {"seated"}
    matches = Match.objects.filter(id__in={e.match_id for e in entries.values()})
    seated = Counter(p for m in matches for p in m.seat_players)
    assert len(matches) == len(people) // 2
    assert seated == Counter({p.id: 1 for p in people})  # each once, no bots, nobody alone
    assert all(m.status == "active" and len(set(m.seat_players)) == 2 for m in matches)
    # The first person's stream, on the other process, told the wait and the seat.
    told = []
    while not told or told[-1]["status"] == "waiting":
        event = watched.next()
        assert isinstance(event, Event), event
        if event.event == "queue":
            told.append(event.data)
    assert told[-1]["status"] == "seated"
    assert told[-1]["match"] == str(entries[people[0].id].match_id)
    watched.close()
