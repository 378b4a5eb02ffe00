"""Settings, 12-factor: everything comes from the environment, with working defaults.

No environment at all is the embedded default: a SQLite file next to the project and Celery
tasks run in-process. `DATABASE_URL=postgres://…` and `CELERY_BROKER_URL=redis://…` select the
real stack (tests, docker-compose, production).
"""

import os
from pathlib import Path

import dj_database_url
from kombu import Exchange, Queue

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "insecure-development-key-set-DJANGO_SECRET_KEY")
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver,[::1]")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "players",
    "games",
    "tournaments",
]

MIDDLEWARE = [
    "pisyedili_api.middleware.BodySizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "pisyedili_api.urls"
WSGI_APPLICATION = "pisyedili_api.wsgi.application"
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Persistent connections (CONN_MAX_AGE) with health checks, so a request does not pay a connect.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "600")),
        conn_health_checks=True,
    )
}
if os.environ.get("DJANGO_TEST_DATABASE_NAME"):
    # `make test` names its test database per run, so two suites on one machine never share it.
    DATABASES["default"]["TEST"] = {"NAME": os.environ["DJANGO_TEST_DATABASE_NAME"]}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Parameters bound on the server, and statements prepared once a connection has run them
    # PREPARE_THRESHOLD times: PostgreSQL then skips parsing and planning them. The move path's
    # statements spent longer being planned than executed (bench/api.py, pg_stat_statements).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True,
        prepare_threshold=int(os.environ.get("DATABASE_PREPARE_THRESHOLD", "5")),
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite serialises writers; wait for the lock instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    DATABASES["default"]["CONN_MAX_AGE"] = 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 6},
    },
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

# Every request body is at most 64 KB; larger ones get a 400 JSON error (BodySizeLimitMiddleware).
MAX_REQUEST_BODY_BYTES = int(os.environ.get("MAX_REQUEST_BODY_BYTES", "65536"))
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY_BYTES

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["players.auth.PlayerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["pisyedili_api.parsers.BoundedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["pisyedili_api.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "pisyedili_api.negotiation.JsonFirstNegotiation",
    "EXCEPTION_HANDLER": "pisyedili_api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.ScopedRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "auth": os.environ.get("THROTTLE_AUTH", "600/min"),
    },
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Pis Yedili API",
    "DESCRIPTION": "Play Pis Yedili (Dirty Seven) against people and bots (shared/API.md).",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": ["waiting", "active", "finished"],
        "DealStatusEnum": ["active", "over"],
        "SuitEnum": ["C", "D", "H", "S"],
    },
}

# Celery: JSON only, time limits; eager (in-process) when no broker is configured.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not CELERY_BROKER_URL)
if not CELERY_BROKER_URL:
    CELERY_BROKER_URL = "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
# No results are kept (tasks write to the database); bench/bot_latency.py sets a backend to
# time games.noop.
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_SOFT_TIME_LIMIT = 20
CELERY_TASK_TIME_LIMIT = 30
# acks_late tasks: one message at a time per worker process, so a lost worker loses at most one.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A message taken by a worker that vanished is delivered again after this long (Redis); the beat
# sweeper re-sends stuck work much sooner, and the tasks are idempotent.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 300}
# Sending a task while Redis is down: give up within about a second (the move has committed;
# the sweeper sends the work again) instead of blocking the response.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Queues (DESIGN.md "Scale-out"): bot turns and scoring apart, so a backlog of one never delays
# the other. A worker started without -Q consumes all three.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_BOT_QUEUE = os.environ.get("CELERY_BOT_QUEUE", "bots")
CELERY_SCORING_QUEUE = os.environ.get("CELERY_SCORING_QUEUE", "scoring")
CELERY_TASK_QUEUES = [
    Queue(name, Exchange(name, type="direct"), routing_key=name)
    for name in dict.fromkeys([CELERY_BOT_QUEUE, CELERY_SCORING_QUEUE, CELERY_TASK_DEFAULT_QUEUE])
]

# Beat: the sweeper re-sends bot turns and scoring steps stuck longer than GAMES_STUCK_SECONDS;
# the turn clock plays for people past their deadline.
GAMES_STUCK_SECONDS = float(os.environ.get("GAMES_STUCK_SECONDS", "3"))
GAMES_SWEEP_SECONDS = float(os.environ.get("GAMES_SWEEP_SECONDS", "5"))
GAMES_TURN_CLOCK_SECONDS = float(os.environ.get("GAMES_TURN_CLOCK_SECONDS", "1"))
CELERY_BEAT_SCHEDULE = {
    "games-sweep": {
        "task": "games.sweep",
        "schedule": GAMES_SWEEP_SECONDS,
        "options": {"queue": CELERY_SCORING_QUEUE, "expires": GAMES_SWEEP_SECONDS},
    },
    "games-expire-turns": {
        "task": "games.expire_turns",
        "schedule": GAMES_TURN_CLOCK_SECONDS,
        "options": {"queue": CELERY_SCORING_QUEUE, "expires": max(GAMES_TURN_CLOCK_SECONDS, 1)},
    },
    "tournaments-sweep": {
        "task": "tournaments.sweep",
        "schedule": GAMES_SWEEP_SECONDS,
        "options": {"queue": CELERY_SCORING_QUEUE, "expires": GAMES_SWEEP_SECONDS},
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = os.environ.get(
    "CELERY_BEAT_SCHEDULE_FILENAME", str(BASE_DIR / "celerybeat-schedule")
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# bench/api.py only: expose /bench/ceiling (one row lock + update + insert) on the same server.
BENCH_ENDPOINTS = env_bool("BENCH_ENDPOINTS", False)

# Matches (games): how long a move's Idempotency-Key replays (then games.sweep deletes its
# record, in bounded batches), and what one player may have running at once (4xx past it).
IDEMPOTENCY_TTL_SECONDS = int(os.environ.get("IDEMPOTENCY_TTL_SECONDS", str(24 * 3600)))
MAX_ACTIVE_MATCHES_PER_PLAYER = int(os.environ.get("MAX_ACTIVE_MATCHES_PER_PLAYER", "20"))
MAX_BOT_MATCHES_PER_PLAYER = int(os.environ.get("MAX_BOT_MATCHES_PER_PLAYER", "5"))
MAX_DEALS_PER_MATCH = int(os.environ.get("MAX_DEALS_PER_MATCH", "20"))
