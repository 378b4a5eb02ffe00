"""The Celery app. Without CELERY_BROKER_URL tasks run in-process (task_always_eager).

A worker process that runs tasks (a prefork pool's child, or the solo pool's worker itself)
freezes what it loaded out of the garbage collector's way once it is ready (pisyedili_api.heap).
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
@worker_ready.connect
def _freeze_startup_heap(**_: Any) -> None:
    from pisyedili_api.heap import freeze_startup_heap

    freeze_startup_heap()
