"""The bench URL conf (bench/api.py; BENCH_ENDPOINTS=1 selects it as ROOT_URLCONF): the
production routes plus the benchmark-only endpoints, which production's urls.py never names."""

from django.urls import path

from games.bench_views import ceiling
from pisyedili_api.urls import handler400, handler403, handler404, handler500  # noqa: F401
from pisyedili_api.urls import urlpatterns as production_urlpatterns

urlpatterns = [
    *production_urlpatterns,
    path("bench/ceiling", ceiling, name="bench-ceiling"),
]
