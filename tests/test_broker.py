"""The broker's Redis transport (pisyedili_api.broker): one client a channel, on the suite's
Redis (CELERY_BROKER_URL)."""

from __future__ import annotations

import os
import uuid

import pytest
from django.conf import settings
from kombu import Connection, Queue

from pisyedili_api.broker import Channel
from pisyedili_api.celery import app

BROKER = os.environ.get("CELERY_BROKER_URL", "")
pytestmark = pytest.mark.skipif(not BROKER.startswith("redis://"), reason="no Redis broker")


def test_the_settings_name_the_transport() -> None:
    assert settings.CELERY_BROKER_TRANSPORT == "pisyedili_api.broker:Transport"
    assert app.conf.broker_transport == "pisyedili_api.broker:Transport"


def test_a_channel_sends_every_message_on_one_client_made_again_after_its_pool() -> None:
    queue = Queue(f"test-broker-{uuid.uuid4().hex}")
    with Connection(BROKER, transport="pisyedili_api.broker:Transport") as connection:
        channel = connection.default_channel
        assert isinstance(channel, Channel)
        producer = connection.Producer(channel)
        clients = []
        for n in range(3):
            producer.publish({"n": n}, routing_key=queue.name, declare=[queue])
            clients.append(channel._sending)
        assert clients[0] is not None and all(c is clients[0] for c in clients)
        channel._disconnect_pools()  # as after a fork: a new pool, so a new client
        producer.publish({"n": 3}, routing_key=queue.name, declare=[queue])
        assert channel._sending is not clients[0]
        assert channel._sending.connection_pool is channel.pool
        with connection.SimpleQueue(queue.name) as simple:
            got = [simple.get(timeout=2) for _ in range(4)]
            for message in got:
                message.ack()
        assert [m.payload["n"] for m in got] == [0, 1, 2, 3]
        queue(channel).delete()
