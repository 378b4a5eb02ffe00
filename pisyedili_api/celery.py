"""The Celery app. Without CELERY_BROKER_URL tasks run in-process (task_always_eager)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pisyedili_api.settings")

app = Celery("pisyedili_api")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
