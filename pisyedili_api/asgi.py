"""ASGI entry point, the production deployment for live play (README "Live play"):

    uvicorn pisyedili_api.asgi:application --workers 2 --loop uvloop --http httptools

Django's ASGI handler with three differences:
- PostgreSQL connections come from psycopg's pool (DATABASE_POOL, settings): every ASGI request
  runs its sync code in a thread of its own, which a persistent connection would not outlive.
- Streams (`…/events`) and waiting long-polls (`…/state?…&wait=S`) run outside Django's
  per-request thread context: that context keeps a thread for as long as the request lasts,
  and a stream lasts hours. Their blocking steps use the hub's few threads (games.events).
- A waiting long-poll resolves to the async view games.streams.match_state_long_poll
  (pisyedili_api.urls_live) instead of the DRF view, so it awaits the hub; every other request
  resolves as under WSGI.
The lifespan startup subscribes the process's hub, so the first stream does not wait for it.
"""

import asyncio
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import IO, Any
from urllib.parse import parse_qs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pisyedili_api.settings")
os.environ.setdefault("DATABASE_POOL", "1")

import django  # noqa: E402

django.setup(set_prefix=False)

from django.core.handlers.asgi import ASGIHandler, ASGIRequest  # noqa: E402
from django.http import HttpResponseBase  # noqa: E402

from games import events  # noqa: E402

# The ASGI callables, as django-stubs names them for ASGIHandler.
_Receive = Callable[[], Awaitable[Mapping[str, Any]]]
_Send = Callable[[Mapping[str, Any]], Awaitable[None]]

_STREAM_PATH = re.compile(r"^/api/v1/(?:matches/[0-9a-fA-F-]{36}|me)/events$")
_STATE_PATH = re.compile(r"^/api/v1/matches/[0-9a-fA-F-]{36}/state$")


def _is_long_poll(scope: Mapping[str, Any]) -> bool:
    if not _STATE_PATH.match(scope["path"]):
        return False
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return "wait" in query and "after_version" in query


class LiveASGIHandler(ASGIHandler):
    async def __call__(self, scope: dict[str, Any], receive: _Receive, send: _Send) -> None:
        # An ASGI application's return value is unused: each branch awaits and stops.
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] == "http" and scope.get("method") == "GET":
            if _STREAM_PATH.match(scope["path"]):
                await self.handle(scope, receive, send)
                return
            if _is_long_poll(scope):
                await self.handle({**scope, "pisyedili_long_poll": True}, receive, send)
                return
        await super().__call__(scope, receive, send)

    def create_request(
        self, scope: Mapping[str, Any], body_file: IO[bytes]
    ) -> tuple[ASGIRequest, None] | tuple[None, HttpResponseBase]:
        created = super().create_request(scope, body_file)
        request = created[0]
        if request is not None and scope.get("pisyedili_long_poll"):
            # request.urlconf is Django's documented per-request URLconf; the stubs leave it out.
            request.urlconf = "pisyedili_api.urls_live"  # type: ignore[attr-defined]
        return created

    async def _lifespan(self, receive: _Receive, send: _Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await asyncio.wait_for(events.hub().start(), 10)
                except Exception as exc:
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await events.hub().stop()
                await send({"type": "lifespan.shutdown.complete"})
                return


application = LiveASGIHandler()

# No broker (the embedded default): the beat's schedule runs in this process.
from pisyedili_api.tasks import embedded_beat_start  # noqa: E402

embedded_beat_start()
