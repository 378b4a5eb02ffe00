"""gunicorn settings of the checkout: gunicorn reads ./gunicorn.conf.py of its working directory
by default, so the `gunicorn pisyedili_api.wsgi …` of docs/operations.md "The full stack" and
of docker-compose.yml use it.

Malformed HTTP (a bad request line, header or framing) never reaches Django: gunicorn answers
it itself, with an HTML page. Its answer is JSON here, `{"code", "message"}` like every API
error (pisyedili_api/errors.py), with gunicorn's status: 400 or 431 (headers too large)
`invalid`, 403 `forbidden`, 500 `server_error`. A proxy in front answers what it refuses
itself with its own pages (docs/operations.md "The full stack").
"""

import json

from gunicorn import util


def write_json_error(sock, status_int, reason, mesg):
    """Drop-in for gunicorn.util.write_error (gunicorn 23): the same status line, JSON body."""
    code = {403: "forbidden", 500: "server_error"}.get(status_int, "invalid")
    body = json.dumps({"code": code, "message": f"{reason}: {mesg}" if mesg else reason})
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, (head + body).encode("latin1"))


def post_worker_init(worker):
    # The worker's only call site of write_error is Worker.handle_error (gunicorn 23.0.0,
    # pinned); tests/integration/test_gunicorn_errors.py checks the answer end to end.
    util.write_error = write_json_error
    # The application is loaded: what it loaded is never walked by the collector again.
    from pisyedili_api.heap import freeze_startup_heap

    freeze_startup_heap()
