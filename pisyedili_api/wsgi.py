"""WSGI entry point (gunicorn pisyedili_api.wsgi; `manage.py runserver` loads it too)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pisyedili_api.settings")

application = get_wsgi_application()

# No broker (the embedded default): the beat's schedule runs in this process.
from pisyedili_api.tasks import embedded_beat_start  # noqa: E402

embedded_beat_start()
