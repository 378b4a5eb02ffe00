"""The tests' HTTP client for the servers they start: httpx's `get`, `post`, `stream`, … as
methods of one shared client (`http.get(url, …)` takes what httpx's own `get` takes).

httpx's module functions make a new client for every request, and with it a TLS context that
loads the CA bundle: about 30 ms of CPU a request, even for http://, and several thousand requests
a run. This client is made once; like those functions it keeps no connection open after a
response, so a server that a test stops and starts again never gets a stale connection."""

from __future__ import annotations

import httpx

http = httpx.Client(limits=httpx.Limits(max_keepalive_connections=0))
