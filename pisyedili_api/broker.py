"""The Celery broker's transport on Redis (CELERY_BROKER_TRANSPORT): kombu's, with one Redis
client a channel instead of one a command.

kombu's Redis channel builds a new `redis.Redis` over its connection pool for every message it
sends (`conn_or_acquire`), and redis-py fills each new client's table of about 160 reply
callbacks: a fifth of a task send's CPU (cProfile of `pisyedili_api.tasks._publish`), paid by the
move's request before it answers. The client kept here shares the same pool (a command still
takes a connection from it and gives it back), so nothing else changes; it is made again
after the pool is (a fork, a reconnect).
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis


class Channel(redis.Channel):
    _sending: Any = None

    def _create_client(self, asynchronous: bool = False) -> Any:
        if asynchronous:
            return super()._create_client(asynchronous=True)  # type: ignore[misc]
        client = self._sending
        if client is None or client.connection_pool is not self.pool:
            client = self._sending = super()._create_client()  # type: ignore[misc]
        return client


class Transport(redis.Transport):
    Channel = Channel
