"""Pis Yedili API project: settings, URLs, the Celery app and the one exception handler."""

from .celery import app as celery_app

__all__ = ("celery_app",)
