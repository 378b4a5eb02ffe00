"""The web client (web/): its page at `/`, its modules and card faces through WhiteNoise.

Plain ES modules, no build step: what is in web/app and web/cards is what the browser gets,
under uvicorn and Django's test client, and its service worker at `/sw.js`. Nothing else of
web/ is served (its dev tools, node_modules)."""

import warnings
from pathlib import Path
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.utils.cache import patch_cache_control
from whitenoise.middleware import WhiteNoiseMiddleware

# The folders of web/ the browser loads, each served under its own name (/app/…, /cards/…).
SERVED_FOLDERS = ("app", "cards")
# The page's Content-Security-Policy: it loads this server's modules, style sheet and images and
# talks to this server's API and streams only; no inline script or style element, no eval, no
# plugin, no other page may frame it. `data:` is its empty favicon. Inline `style` values set
# through the DOM (el.style) are not inline styles to a policy.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "img-src 'self' data:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class WebClientMiddleware(WhiteNoiseMiddleware):
    """WhiteNoise (the static files, as configured) plus the client's folders.

    Sync and async (WhiteNoise is sync only): under live.asgi a stream's opening runs the
    chain's async form, which would switch to a thread and back around a sync-only one.
    """

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Any = None, settings: Any = settings) -> None:
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)
        with warnings.catch_warnings():
            # STATIC_ROOT exists only after `collectstatic`; the finders serve without it.
            warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)
            super().__init__(get_response, settings)  # type: ignore[no-untyped-call]
        root = Path(settings.WEB_CLIENT_ROOT)
        for name in SERVED_FOLDERS:
            if (root / name).is_dir():
                self.add_files(str(root / name), prefix=f"{name}/")  # type: ignore[no-untyped-call]

    def serve(self, static_file: Any, request: HttpRequest) -> HttpResponseBase:  # type: ignore[override]
        """WhiteNoise's answer; a file of the client's folders as one body rather than a stream,
        so that CompressionMiddleware sends it brotli- or gzip-compressed (no build step makes
        compressed copies for WhiteNoise to pick; the files are a few KB each)."""
        client_file = request.path_info.startswith(tuple(f"/{name}/" for name in SERVED_FOLDERS))
        if request.method != "GET" or not client_file or "HTTP_RANGE" in request.META:
            return WhiteNoiseMiddleware.serve(static_file, request)  # type: ignore[no-untyped-call,no-any-return]
        served = static_file.get_response(request.method, request.META)
        if served.file is None:  # 304 Not Modified: no body
            response: HttpResponseBase = HttpResponse(status=int(served.status))
        else:
            with served.file as handle:
                response = HttpResponse(handle.read(), status=int(served.status))
        del response["Content-Type"]
        for key, value in served.headers:
            response[key] = value
        return response

    def __call__(self, request: HttpRequest) -> Any:  # type: ignore[override]
        if iscoroutinefunction(self):
            return self._acall(request)
        return super().__call__(request)  # type: ignore[no-untyped-call]

    async def _acall(self, request: HttpRequest) -> Any:
        if self.autorefresh:
            static_file = await sync_to_async(self.find_file)(request.path_info)
        else:
            static_file = self.files.get(request.path_info)
        if static_file is not None:
            return await sync_to_async(self.serve)(static_file, request)
        return await self.get_response(request)


def index(request: HttpRequest) -> FileResponse:
    """`GET /`: the client's page, under CONTENT_SECURITY_POLICY; the client routes by the
    URL's hash from there."""
    page = Path(settings.WEB_CLIENT_ROOT) / "index.html"
    if not page.is_file():
        raise Http404("no web client")
    response = FileResponse(page.open("rb"), content_type="text/html; charset=utf-8")
    patch_cache_control(response, no_cache=True)
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return response


def service_worker(request: HttpRequest) -> FileResponse:
    """`GET /sw.js`: the client's service worker (web/sw.js), served at the root so that its
    scope is the whole site; it shows Web Push notices. Under CONTENT_SECURITY_POLICY too (a
    worker's own policy is its script's), revalidated on each update check."""
    script = Path(settings.WEB_CLIENT_ROOT) / "sw.js"
    if not script.is_file():
        raise Http404("no service worker")
    response = FileResponse(script.open("rb"), content_type="text/javascript; charset=utf-8")
    patch_cache_control(response, no_cache=True)
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return response
