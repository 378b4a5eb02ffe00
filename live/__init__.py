"""The live tier: what reaches a client as it happens (docs/architecture.md "Live events").

- `hub`: the process's one Redis subscription and the waiters of every match, player and the
  lobby; the publishing side (one message per version change, the players' `me` logs); the
  stream slots; token revocation.
- `events`: an event as a value (name, id, data).
- `streams`: the event streams (a match's, the caller's `me`, the lobby's), the waiting
  long-poll, a match socket's moves, the shared reads of a match per version.
- `tickets`: stream tickets, and who is calling a stream.
- `transports`: Server-Sent Events and WebSocket, each framing the events its own way.
- `asgi`: the ASGI entry point (Starlette's router, Django's ASGI application for HTTP).
- `protocol`: uvicorn's HTTP and WebSocket protocols with the deployment's bounds.
- `middleware`, `urls`: a waiting long-poll resolved to its own view.
"""
