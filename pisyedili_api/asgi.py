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
from urllib.parse import parse_qs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pisyedili_api.settings")
os.environ.setdefault("DATABASE_POOL", "1")

import django  # noqa: E402

django.setup(set_prefix=False)

from django.core.handlers.asgi import ASGIHandler  # noqa: E402

from games import events  # noqa: E402

_STREAM_PATH = re.compile(r"^/api/v1/(?:matches/[0-9a-fA-F-]{36}|me)/events$")
_STATE_PATH = re.compile(r"^/api/v1/matches/[0-9a-fA-F-]{36}/state$")


def _is_long_poll(scope: dict) -> bool:
    if not _STATE_PATH.match(scope["path"]):
        return False
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return "wait" in query and "after_version" in query


class LiveASGIHandler(ASGIHandler):
    async def __call__(self, scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "lifespan":
            return await self._lifespan(receive, send)
        if scope["type"] == "http" and scope.get("method") == "GET":
            if _STREAM_PATH.match(scope["path"]):
                return await self.handle(scope, receive, send)
            if _is_long_poll(scope):
                return await self.handle({**scope, "pisyedili_long_poll": True}, receive, send)
        return await super().__call__(scope, receive, send)

    def create_request(self, scope, body_file):  # type: ignore[no-untyped-def]
        request, error = super().create_request(scope, body_file)
        if request is not None and scope.get("pisyedili_long_poll"):
            request.urlconf = "pisyedili_api.urls_live"
        return request, error

    async def _lifespan(self, receive, send):  # type: ignore[no-untyped-def]
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
