"""WSGI entry point (gunicorn pisyedili_api.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pisyedili_api.settings")

application = get_wsgi_application()
