"""The web client (web/): its page at `/`, its modules and card faces through WhiteNoise.

Plain ES modules, no build step: what is in web/app and web/cards is what the browser gets,
under every server (runserver, gunicorn, uvicorn). Nothing else of web/ is served (its dev
tools, node_modules)."""

import warnings
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest
from django.utils.cache import patch_cache_control
from whitenoise.middleware import WhiteNoiseMiddleware

# The folders of web/ the browser loads, each served under its own name (/app/…, /cards/…).
SERVED_FOLDERS = ("app", "cards")


class WebClientMiddleware(WhiteNoiseMiddleware):
    """WhiteNoise (the static files, as configured) plus the client's folders."""

    def __init__(self, get_response: Any = None, settings: Any = settings) -> None:
        with warnings.catch_warnings():
            # STATIC_ROOT exists only after `collectstatic`; the finders serve without it.
            warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)
            super().__init__(get_response, settings)  # type: ignore[no-untyped-call]
        root = Path(settings.WEB_CLIENT_ROOT)
        for name in SERVED_FOLDERS:
            if (root / name).is_dir():
                self.add_files(str(root / name), prefix=f"{name}/")  # type: ignore[no-untyped-call]


def index(request: HttpRequest) -> FileResponse:
    """`GET /`: the client's page; the client routes by the URL's hash from there."""
    page = Path(settings.WEB_CLIENT_ROOT) / "index.html"
    if not page.is_file():
        raise Http404("no web client")
    response = FileResponse(page.open("rb"), content_type="text/html; charset=utf-8")
    patch_cache_control(response, no_cache=True)
    return response
