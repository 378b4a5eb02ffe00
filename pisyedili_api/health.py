"""`GET /api/v1/health`: whether this web process can serve, for a probe (a load balancer's, an
orchestrator's, docker-compose's healthcheck) and for a rolling restart, which restarts the
next process once the last one answers 200 here (docs/operations.md "Restarts and deploys").

It answers without a token and without a throttle, as cheaply as a route can: the database
is asked whether the connection it would use answers (Django's `is_usable`), the live tier is
read from this process's hub, in memory. PostgreSQL not answering is 503 `unavailable`: this
process serves nothing without it. Redis not answering is `"live": "waiting"` with a 200: the
process serves every route but new event streams (docs/api.md "Live events"), and its fellow
processes share the same Redis, so a probe that took them all out of a balancer would turn a
Redis outage into a whole one."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from live import hub

from .errors import error_body
from .openapi import error_responses

logger = logging.getLogger(__name__)

# Seconds a probe that found the database down is told to wait (Retry-After).
RETRY_AFTER = 5


def live_state() -> str:
    """`in_process` (no LIVE_REDIS_URL: the embedded default), `ok` (this process's hub is
    subscribed to Redis, and Redis answers a PING within the publishers' timeout) or `waiting`
    (it is not, or has no hub, or Redis does not answer: a Redis that stopped answering, hung
    or frozen, keeps its subscribers' connections open; new streams wait for it)."""
    if not settings.LIVE_REDIS_URL:
        return "in_process"
    found = hub.current()
    if found is None or not found.listening:
        return "waiting"
    try:
        hub.redis_ping()
    except hub.REDIS_DOWN:
        return "waiting"
    return "ok"


def database_answers() -> bool:
    """The connection this request would use answers (Django's `is_usable`: a trivial query)."""
    try:
        connection.ensure_connection()
        if connection.is_usable():
            return True
        logger.warning("health: the database does not answer")
    except DatabaseError:
        logger.warning("health: the database does not answer", exc_info=True)
    return False


class HealthApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []  # a token, good or bad, is not read

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        class Meta:
            ref_name = "Health"

        status = serializers.ChoiceField(choices=["ok"])
        database = serializers.ChoiceField(choices=["ok"], help_text="The database answers.")
        live = serializers.ChoiceField(
            choices=["ok", "waiting", "in_process"],
            help_text="`ok`: this process is subscribed to the live events' Redis; `waiting`:"
            " it is not (Redis down or not answering), and new event streams answer 503 until"
            " it is, while every other route serves; `in_process`: no Redis (the embedded"
            " default).",
        )

    @extend_schema(
        operation_id="health",
        summary="Whether this server process can serve",
        description=(
            "Public, not throttled, never cached. 200 while the process serves; 503 "
            "`unavailable` (with `Retry-After`) while its database does not answer, with "
            "`detail` saying what does and what does not; 400 `invalid` for a `Host` the "
            "server does not serve, as on every route."
        ),
        responses={200: OutputSerializer, **error_responses("invalid", "unavailable")},
        examples=[
            OpenApiExample(
                "serving",
                value={"status": "ok", "database": "ok", "live": "ok"},
                response_only=True,
                status_codes=["200"],
            ),
        ],
    )
    def get(self, request: Request) -> Response:
        live = live_state()
        if database_answers():
            response = Response({"status": "ok", "database": "ok", "live": live})
        else:
            detail = {"database": "unavailable", "live": live}
            response = Response(error_body("unavailable", None, detail), status=503)
            response["Retry-After"] = str(RETRY_AFTER)
        response["Cache-Control"] = "no-store"
        return response
