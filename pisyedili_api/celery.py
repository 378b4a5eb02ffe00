"""The Celery app. Without CELERY_BROKER_URL tasks run in-process (task_always_eager).

A worker process that runs tasks (a prefork pool's child, or the solo pool's worker itself)
freezes what it loaded out of the garbage collector's way once it is ready (pisyedili_api.heap),
and runs its tasks on its persistent database connections without Django's health check.
"""

import os
from typing import Any

from celery import Celery
from celery.signals import worker_process_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pisyedili_api.settings")

app = Celery("pisyedili_api")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _connections_unchecked(**_: Any) -> None:
    """No `SELECT 1` before each task's first statement (CONN_HEALTH_CHECKS), as the web tier's
    pool checks no connection it hands out: a bot's reply waits one round trip less. A task
    whose connection broke meanwhile (PostgreSQL restarted) fails with a transient error and
    is retried (pisyedili_api.tasks.idempotent_task); Celery's Django fixup closes that
    connection after the task, and the retry opens another."""
    from django.db import connections

    for alias in connections:
        connections[alias].settings_dict["CONN_HEALTH_CHECKS"] = False


@worker_process_init.connect
@worker_ready.connect
def _freeze_startup_heap(**_: Any) -> None:
    from pisyedili_api.heap import freeze_startup_heap

    freeze_startup_heap()
