"""Settings, 12-factor: everything comes from the environment, with working defaults.

No environment at all is the embedded default: a SQLite file next to the project and Celery
tasks run in-process. `DATABASE_URL=postgres://…` and `CELERY_BROKER_URL=redis://…` select the
real stack (tests, docker-compose, production).
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.conf import global_settings
from django.core.exceptions import ImproperlyConfigured
from kombu import Exchange, Queue

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", False)
# No known key in production: without DJANGO_SECRET_KEY only a DEBUG server starts (`make run`
# passes a development key of its own; the test settings set theirs).
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set: set it (50+ random characters) or DJANGO_DEBUG=1"
        )
    SECRET_KEY = "insecure-development-key-set-DJANGO_SECRET_KEY"
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver,[::1]")

# HTTPS (manage.py check --deploy is clean with DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS and
# DJANGO_SECURE_PROXY_SSL_HEADER set). Production terminates TLS at a proxy that sets a header
# saying so, e.g. DJANGO_SECURE_PROXY_SSL_HEADER="HTTP_X_FORWARDED_PROTO,https"; set it only if
# the proxy also strips that header from clients. With it, plain-http requests are redirected
# to https (DJANGO_SECURE_SSL_REDIRECT overrides; without the header a redirect would loop).
# HSTS and the cookies' Secure flag take effect on https only, so they are on unless DEBUG.
_proxy_ssl_header = env_list("DJANGO_SECURE_PROXY_SSL_HEADER", "")
if _proxy_ssl_header and len(_proxy_ssl_header) != 2:
    raise ImproperlyConfigured('DJANGO_SECURE_PROXY_SSL_HEADER is "HEADER,value"')
SECURE_PROXY_SSL_HEADER = tuple(_proxy_ssl_header) if _proxy_ssl_header else None
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", SECURE_PROXY_SSL_HEADER is not None)
SECURE_HSTS_SECONDS = int(
    os.environ.get("DJANGO_SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000")
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", True)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", not DEBUG)

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
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc as static files: docs work offline
    "players",
    "games",
    "tournaments",
]

MIDDLEWARE = [
    # A waiting long-poll (marked by live.asgi) resolves to its own view (live.urls).
    "live.middleware.LongPollRouting",
    # Brotli or gzip for whole textual answers over COMPRESS_MIN_BYTES, never a stream
    # (pisyedili_api.compression); outside the ETags, which name the uncompressed body.
    "pisyedili_api.compression.CompressionMiddleware",
    # ETag and 304 on the GET answers that may be stored; API answers vary on the token.
    "pisyedili_api.middleware.ConditionalGetMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # WhiteNoise: static files and the web client (web/app, web/cards) under every server.
    "pisyedili_api.webclient.WebClientMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Error messages in the language of Accept-Language (English, Turkish): pisyedili_api.errors.
    "django.middleware.locale.LocaleMiddleware",
    # After the language is chosen: its refusal is in the caller's language too.
    "pisyedili_api.middleware.BodySizeLimitMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A view whose database does not answer: 503 `unavailable`, not 500.
    "pisyedili_api.middleware.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "pisyedili_api.urls"
# Every route is served by the ASGI application under uvicorn (live.asgi); there is
# no WSGI entry point.
ASGI_APPLICATION = "live.asgi.application"
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # pisyedili_api/templates: the ReDoc page without the stock template's web fonts.
        "DIRS": [BASE_DIR / "pisyedili_api" / "templates"],
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

# Persistent connections (CONN_MAX_AGE) with health checks, so a request does not pay a connect
# (a worker's tasks go without the check: pisyedili_api.celery).
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
    # SQLite serialises writers. A deferred transaction that reads, then writes, cannot wait
    # for the write lock (SQLite answers "database is locked" at once to avoid a deadlock), so
    # every transaction takes it at BEGIN (IMMEDIATE) and waits up to `timeout` seconds for it.
    # WAL lets readers go on while one writes; synchronous=NORMAL is safe under WAL (a power
    # loss may lose the last commits, never corrupt the file).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        transaction_mode="IMMEDIATE",
        timeout=20,
        init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    )
    DATABASES["default"]["CONN_MAX_AGE"] = 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# ---- Accounts: passwords, API tokens, login lockout (docs/api.md "Authentication") ----
# Registration applies Django's validators and answers 400 with their messages.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": int(os.environ.get("PASSWORD_MIN_LENGTH", "8"))},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "players.validators.NotBlankPasswordValidator"},
]
# How passwords are hashed (Django's PASSWORD_HASHERS, the first for new hashes): Django's own
# list (PBKDF2 first) unless DJANGO_PASSWORD_HASHERS names others, comma-separated.
PASSWORD_HASHERS = env_list("DJANGO_PASSWORD_HASHERS", ",".join(global_settings.PASSWORD_HASHERS))
# API tokens (players.auth): stored as SHA-256 digests; a token unused this long is refused.
# last_used moves on at most once per TOKEN_TOUCH_SECONDS; a login keeps a user's newest
# TOKEN_MAX_PER_USER tokens.
TOKEN_IDLE_SECONDS = int(os.environ.get("TOKEN_IDLE_SECONDS", str(30 * 24 * 3600)))
TOKEN_TOUCH_SECONDS = 60
TOKEN_MAX_PER_USER = int(os.environ.get("TOKEN_MAX_PER_USER", "10"))
# django-axes: LOGIN_FAILURE_LIMIT failed logins on one username (API and admin alike) lock it
# for LOGIN_LOCKOUT_SECONDS: 429 `throttled` with Retry-After; a success resets the count.
# Counts live in the database, which every process sees and which a Redis outage leaves
# counting (AXES_HANDLER, below CACHES).
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_LOCKOUT_PARAMETERS = ["username"]
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "10"))
AXES_COOLOFF_TIME = timedelta(seconds=int(os.environ.get("LOGIN_LOCKOUT_SECONDS", "900")))
AXES_RESET_ON_SUCCESS = True
# A lockout lasts its cool-off from the failure that set it: attempts during it do not extend it.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "players.throttles.lockout_response"
AXES_VERBOSE = False
# axes.W006 asks for ip_address among the lockout parameters: clients are throttled by address
# already (DRF scope `auth`), and a lockout by address would lock out everyone behind one NAT.
SILENCED_SYSTEM_CHECKS = ["axes.W006"]

LANGUAGE_CODE = "en"
# The languages of the API's messages (pisyedili_api/locale): `code`s never change.
LANGUAGES = [("en", "English"), ("tr", "Türkçe")]
LOCALE_PATHS = [BASE_DIR / "pisyedili_api" / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# The web client (README "Play in your browser"): web/index.html at `/`, web/app and web/cards
# served by WhiteNoise (pisyedili_api.webclient) under uvicorn and Django's test client alike.
WEB_CLIENT_ROOT = Path(os.environ.get("WEB_CLIENT_ROOT", str(BASE_DIR / "web")))
# WhiteNoise finds the apps' static files itself (no collectstatic needed); one minute of
# browser cache, none under DEBUG. Files are indexed once at start, unless WHITENOISE_AUTOREFRESH
# (default: DEBUG) looks them up on each request, for editing web/ with the server running.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = env_bool("WHITENOISE_AUTOREFRESH", DEBUG)

# Answers over this many bytes are compressed when the client accepts it (brotli, gzip).
COMPRESS_MIN_BYTES = int(os.environ.get("COMPRESS_MIN_BYTES", "1024"))

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
        # Per client: register and token (a login costs ~0.3 s of CPU for the password hash).
        "auth": os.environ.get("THROTTLE_AUTH", "60/min"),
        # Per username on /auth/token, from any client (players.throttles).
        "auth_username": os.environ.get("THROTTLE_AUTH_USERNAME", "10/min"),
        # Per user (per client when anonymous): GET …/deals/{n}/analysis (games.apis).
        "deal_analysis": os.environ.get("THROTTLE_DEAL_ANALYSIS", "30/min"),
        # Per user (per client when anonymous): GET /players?search=… (players.apis).
        "player_search": os.environ.get("THROTTLE_PLAYER_SEARCH", "60/min"),
        # Per user: the account routes (password, tokens, deletion; players.apis).
        "account": os.environ.get("THROTTLE_ACCOUNT", "20/min"),
        # Per user: POST …/resign (games.apis).
        "match_resign": os.environ.get("THROTTLE_MATCH_RESIGN", "30/min"),
        # Per user: POST …/talk, table talk's preset phrases (games.apis).
        "match_talk": os.environ.get("THROTTLE_MATCH_TALK", "10/min"),
        # Per user: POST /queue and POST /queue/leave, quick play (games.apis).
        "queue": os.environ.get("THROTTLE_QUEUE", "30/min"),
        # Per user: POST /matches, …/join (without a join code), …/leave, …/cancel and
        # …/rematch (games.apis): a table made and dropped by the dozen fills the lobby.
        "match": os.environ.get("THROTTLE_MATCH", "60/min"),
        # Per user: private tables' POST …/invite, …/invitations/accept|decline and a join
        # that brings a join code (games.apis).
        "match_invite": os.environ.get("THROTTLE_MATCH_INVITE", "30/min"),
        # Per user: the tournament writes, POST /tournaments, …/start, …/cancel and
        # …/invitations/accept|decline (tournaments.apis).
        "tournament": os.environ.get("THROTTLE_TOURNAMENT", "30/min"),
        # Per user: the notification routes, push subscriptions and webhooks (games.notify_apis).
        "notify": os.environ.get("THROTTLE_NOTIFY", "30/min"),
        # Per API token: the moves, POST …/moves and a match WebSocket's `move` on one count
        # (games.apis.MoveRateThrottle).
        "match_move": os.environ.get("THROTTLE_MATCH_MOVE", "10/sec"),
    },
    # The client of a throttle is REMOTE_ADDR, or with NUM_PROXIES > 0 the address that many
    # hops from the right of X-Forwarded-For; 0 ignores the header, which a client can forge.
    "NUM_PROXIES": int(os.environ.get("NUM_PROXIES", "0")),
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Pis Yedili API",
    "DESCRIPTION": "Play Pis Yedili (Dirty Seven) against people and bots (docs/api.md).",
    "VERSION": "1.0.0",
    # OpenAPI 3.1: a nullable reference is `oneOf: [$ref, null]`, not 3.0's `nullable` beside
    # a `$ref` (which linters refuse: tests/test_schema_lint.py).
    "OAS_VERSION": "3.1.0",
    "LICENSE": {"name": "MIT", "url": "https://opensource.org/licenses/MIT"},
    "SERVE_INCLUDE_SCHEMA": False,
    # Request bodies have components of their own (`…Request`), without the response's read-only
    # fields or defaults (pisyedili_api.openapi.request_defaults_described): a generated client
    # leaves out what the server fills in.
    "COMPONENT_SPLIT_REQUEST": True,
    # A PATCH body is described as its serializer requires it (PATCH /players/me needs its one
    # field), not as a "Patched…" copy with every field optional.
    "COMPONENT_SPLIT_PATCH": False,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    # Every enum component has a stable, readable name (never `Status3a2Enum`).
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": ["waiting", "active", "finished", "cancelled", "abandoned"],
        "DealStatusEnum": ["active", "over", "abandoned"],
        "TournamentStatusEnum": "tournaments.serializers.STATUSES",
        "TournamentFormatEnum": "tournaments.serializers.FORMATS",
        "SuitEnum": ["C", "D", "H", "S"],
        "MoveActionEnum": ["play", "draw", "pass"],
        "DealPhaseEnum": ["opening", "play", "ace_followup", "deal_over", "match_over"],
        "PlayPhaseEnum": ["opening", "play", "ace_followup", "deal_over"],
        "DealEndReasonEnum": ["shed", "stock_exhausted"],
        "DirectionEnum": [(1, 1), (-1, -1)],
        "ErrorCodeEnum": "pisyedili_api.openapi.ERROR_CODE_CHOICES",
        "HealthOkEnum": ["ok"],
        "HealthLiveEnum": ["ok", "waiting", "in_process"],
    },
    # The docs pages load Swagger UI and ReDoc from drf-spectacular-sidecar's static files
    # (served by pisyedili_api.urls), never from a CDN: they work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SWAGGER_UI_SETTINGS": {
        "deepLinking": True,
        "validatorUrl": None,  # no call to the public validator
    },
    # Relative: "try it out" calls the server that serves the page.
    "SERVERS": [{"url": "/", "description": "The server that serves this schema"}],
}

# Celery: JSON only, time limits; eager (in-process) when no broker is configured.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not CELERY_BROKER_URL)
if not CELERY_BROKER_URL:
    CELERY_BROKER_URL = "memory://"
elif CELERY_BROKER_URL.startswith("redis://"):
    CELERY_BROKER_TRANSPORT = "pisyedili_api.broker:Transport"  # one client a channel
CELERY_TASK_EAGER_PROPAGATES = True
# No results are kept (tasks write to the database); bench/bot_latency.py sets a backend to
# time games.noop.
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_SERIALIZER = "json"
# Every task's time limits, set once here (no task sets its own).
CELERY_TASK_SOFT_TIME_LIMIT = 20
CELERY_TASK_TIME_LIMIT = 30
# acks_late tasks: one message at a time per worker process, so a lost worker loses at most one.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A message taken by a worker that vanished is delivered again after this long (Redis); the beat
# sweeper re-sends stuck work much sooner, and the tasks are idempotent.
# A Redis that hangs (frozen, or a network that drops its packets) times a send out after a
# second instead of holding the request that sends it for as long as it hangs (a worker's
# BRPOP is read only once its socket is readable: no timeout cuts it).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 300,
    "socket_timeout": 1,
    "socket_connect_timeout": 1,
}
# Sending a task while Redis is down: give up within about a second (refused) or two (no
# answer) (the move has committed; the sweeper sends the work again) instead of blocking the
# response.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Queues (docs/architecture.md): bot turns and scoring apart, so a backlog of one never delays
# the other. A worker started without -Q consumes all three.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_BOT_QUEUE = os.environ.get("CELERY_BOT_QUEUE", "bots")
CELERY_SCORING_QUEUE = os.environ.get("CELERY_SCORING_QUEUE", "scoring")
# Luck and move analysis (seconds of CPU a deal): a queue of their own, never ahead of a move.
CELERY_ANALYSIS_QUEUE = os.environ.get("CELERY_ANALYSIS_QUEUE", "analysis")
# Web Push and webhook deliveries (outbound HTTP): the default queue unless pointed elsewhere.
CELERY_NOTIFY_QUEUE = os.environ.get("CELERY_NOTIFY_QUEUE", CELERY_TASK_DEFAULT_QUEUE)
CELERY_TASK_QUEUES = [
    Queue(name, Exchange(name, type="direct"), routing_key=name)
    for name in dict.fromkeys(
        [
            CELERY_BOT_QUEUE,
            CELERY_SCORING_QUEUE,
            CELERY_ANALYSIS_QUEUE,
            CELERY_NOTIFY_QUEUE,
            CELERY_TASK_DEFAULT_QUEUE,
        ]
    )
]
# Routes: every task's queue is declared here, never where it is sent. The value names the
# setting that holds the queue; the router (pisyedili_api.tasks.route) reads it when the task is
# sent, so a process may point CELERY_BOT_QUEUE elsewhere at run time.
CELERY_TASK_QUEUE_SETTINGS = {
    "games.match_play_bot_turn": "CELERY_BOT_QUEUE",
    "games.match_play_overdue_turn": "CELERY_BOT_QUEUE",
    "games.deal_score": "CELERY_SCORING_QUEUE",
    "games.match_settle": "CELERY_SCORING_QUEUE",
    "games.sweep": "CELERY_SCORING_QUEUE",
    "games.expire_turns": "CELERY_SCORING_QUEUE",
    "games.noop": "CELERY_SCORING_QUEUE",
    "games.queue_pair": "CELERY_SCORING_QUEUE",
    "games.deal_luck": "CELERY_ANALYSIS_QUEUE",
    "games.deal_analyse": "CELERY_ANALYSIS_QUEUE",
    "games.match_luck_count": "CELERY_ANALYSIS_QUEUE",
    "games.push_send": "CELERY_NOTIFY_QUEUE",
    "games.webhook_deliver": "CELERY_NOTIFY_QUEUE",
    "tournaments.tournament_advance": "CELERY_SCORING_QUEUE",
    "tournaments.sweep": "CELERY_SCORING_QUEUE",
}
CELERY_TASK_ROUTES = ["pisyedili_api.tasks.route"]

# Beat: the sweepers (games.sweep, tournaments.sweep) run every GAMES_SWEEP_SECONDS; games.sweep
# re-sends bot turns and scoring steps stuck longer than GAMES_STUCK_SECONDS; the turn clock
# plays for people past their deadline.
GAMES_STUCK_SECONDS = float(os.environ.get("GAMES_STUCK_SECONDS", "3"))
GAMES_SWEEP_SECONDS = float(os.environ.get("GAMES_SWEEP_SECONDS", "5"))
GAMES_TURN_CLOCK_SECONDS = float(os.environ.get("GAMES_TURN_CLOCK_SECONDS", "1"))
# A person whose turns the turn clock played this many times in a row, with no move of their
# own between, is resigned (docs/rules.md "Server policies": absent); 0: never.
TURN_CLOCK_RESIGN_AFTER = int(os.environ.get("TURN_CLOCK_RESIGN_AFTER", "3"))
# Quick play (games.services.queue): the beat pairs the queue every QUEUE_PAIR_SECONDS (and each
# join pairs its own table size and rules at once); a person waits QUEUE_WAIT_MIN..
# QUEUE_WAIT_MAX seconds; the rating gap accepted starts at QUEUE_RATING_GAP (ordinal points)
# and widens by QUEUE_RATING_WIDEN per second waited; bots of QUEUE_FILL_BOT fill a table whose
# wait ended; a quick-play table has a turn clock of QUEUE_TURN_SECONDS.
QUEUE_PAIR_SECONDS = float(os.environ.get("QUEUE_PAIR_SECONDS", "1"))
QUEUE_WAIT_MIN = int(os.environ.get("QUEUE_WAIT_MIN", "5"))
QUEUE_WAIT_MAX = int(os.environ.get("QUEUE_WAIT_MAX", "600"))
QUEUE_RATING_GAP = float(os.environ.get("QUEUE_RATING_GAP", "3"))
QUEUE_RATING_WIDEN = float(os.environ.get("QUEUE_RATING_WIDEN", "0.5"))
QUEUE_FILL_BOT = os.environ.get("QUEUE_FILL_BOT", "greedy")
QUEUE_TURN_SECONDS = int(os.environ.get("QUEUE_TURN_SECONDS", "60"))
# Luck and move analysis (games.services.analysis): simulated deals per luck estimate and per
# move value, paired play-outs per decision of the skill estimate (K), and how far back
# games.sweep looks for a scored deal with no luck yet.
ANALYSIS_LUCK_SAMPLES = int(os.environ.get("ANALYSIS_LUCK_SAMPLES", "256"))
ANALYSIS_SKILL_SAMPLES = int(os.environ.get("ANALYSIS_SKILL_SAMPLES", "32"))
ANALYSIS_MOVE_SAMPLES = int(os.environ.get("ANALYSIS_MOVE_SAMPLES", "64"))
ANALYSIS_SWEEP_HOURS = float(os.environ.get("ANALYSIS_SWEEP_HOURS", "1"))
# How long a luck estimate or a move analysis may wait on its queue, not yet begun, before the
# sweep counts it lost and sends it again: the analysis queue runs at the lowest CPU priority
# and waits its turn behind play for minutes (re-sent every sweep instead, the copies of one
# waiting backlog piled up on the queue).
ANALYSIS_STUCK_SECONDS = float(os.environ.get("ANALYSIS_STUCK_SECONDS", "120"))
# Bounds on one deal's analysis (games/engine/bots/analysis.py "Bounded cost"): the play-outs
# a deal's skill or move analysis aims at (fewer samples per decision for a long deal), the
# simulated moves one task may spend in all (past them the analysis fails), and the attempts
# before an analysis that keeps failing is stored as failed and never sent again.
ANALYSIS_MAX_PLAYOUTS = int(os.environ.get("ANALYSIS_MAX_PLAYOUTS", "40000"))
ANALYSIS_MAX_ACTIONS = int(os.environ.get("ANALYSIS_MAX_ACTIONS", "4000000"))
ANALYSIS_MAX_ATTEMPTS = int(os.environ.get("ANALYSIS_MAX_ATTEMPTS", "3"))
# Every beat entry alike: routed like any task, and expiring after one period (a beat sent
# while no worker listens is dropped, not piled up).
CELERY_BEAT_SCHEDULE = {
    key: {"task": task, "schedule": every, "options": {"expires": max(every, 1)}}
    for key, task, every in [
        ("games-sweep", "games.sweep", GAMES_SWEEP_SECONDS),
        ("games-expire-turns", "games.expire_turns", GAMES_TURN_CLOCK_SECONDS),
        ("games-queue-pair", "games.queue_pair", QUEUE_PAIR_SECONDS),
        ("tournaments-sweep", "tournaments.sweep", GAMES_SWEEP_SECONDS),
    ]
}
CELERY_BEAT_SCHEDULE_FILENAME = os.environ.get(
    "CELERY_BEAT_SCHEDULE_FILENAME", str(BASE_DIR / "celerybeat-schedule")
)

# ---- Cache: throttle counters and login lockouts (shared by every process) ----
# Redis when one is configured (CACHE_URL, else REDIS_URL, else a redis:// CELERY_BROKER_URL),
# so the web processes count together; the embedded default keeps them in process memory.
_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
_CACHE_URL = (
    os.environ.get("CACHE_URL")
    or os.environ.get("REDIS_URL")
    or (_BROKER_URL if _BROKER_URL.startswith(("redis://", "rediss://")) else "")
)
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": _CACHE_URL,
        "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "pisyedili"),
        # A cache that does not answer costs a request at most a second, never hangs it, and is
        # skipped (logged): while Redis is down, throttles and lockouts count nothing rather than
        # answering 500 to register, token and the admin login.
        "OPTIONS": {
            "SOCKET_CONNECT_TIMEOUT": 1,
            "SOCKET_TIMEOUT": 1,
            "IGNORE_EXCEPTIONS": True,
        },
    }
    if _CACHE_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}
# Login failures are counted in the database: every process sees them, and they keep counting
# while Redis is down (the cache skips a Redis that does not answer).
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_DISABLE_ACCESS_LOG = True  # no row per successful login
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Each line with its time, level and logger: the processes' logs are read side by side.
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    # A request with a Host not in ALLOWED_HOSTS logs one short line, not its traceback.
    "filters": {
        "one_line": {"()": "pisyedili_api.logfilters.OneLine"},
        "no_503": {"()": "pisyedili_api.logfilters.NoServiceUnavailable"},
    },
    "loggers": {
        "django.security.DisallowedHost": {"filters": ["one_line"]},
        # A refused request (4xx) is its client's to read, not a line each in the log; a
        # failure of the server's (5xx) is logged with its traceback; a 503 said on purpose
        # (a dependency down) is logged by what noticed it, once a minute.
        "django.request": {"level": "ERROR", "filters": ["no_503"]},
        # Its DEBUG lines name every URL a notice is POSTed to: a push endpoint is a device's
        # capability, a webhook's URL may hold its receiver's credentials.
        "urllib3": {"level": "WARNING"},
    },
}

# bench/api.py only: serve the bench URL conf (pisyedili_api/urls_bench.py: the API plus
# /bench/ceiling, one row lock + update + insert) on the same server. Production never does.
BENCH_ENDPOINTS = env_bool("BENCH_ENDPOINTS", False)
if BENCH_ENDPOINTS:
    ROOT_URLCONF = "pisyedili_api.urls_bench"

# Tournaments (docs/api.md "Tournaments"; the bounds: docs/architecture.md "Limits"): every
# tournament match runs a turn clock (the organizer's turn_seconds, else this default), and what
# one organizer and one tournament may create is bounded: tournaments in draft or running per
# organizer (429), entrants, and total deals (400).
TOURNAMENT_TURN_SECONDS = int(os.environ.get("TOURNAMENT_TURN_SECONDS", "120"))
MAX_ACTIVE_TOURNAMENTS_PER_PLAYER = int(os.environ.get("MAX_ACTIVE_TOURNAMENTS_PER_PLAYER", "5"))
TOURNAMENT_MAX_ENTRANTS = int(os.environ.get("TOURNAMENT_MAX_ENTRANTS", "64"))
TOURNAMENT_MAX_DEALS = int(os.environ.get("TOURNAMENT_MAX_DEALS", "2000"))
# The embedded default (no broker): the in-process tasks a request hands off (a tournament's
# start, its next round) run on this many background threads, so that request returns at once.
EMBEDDED_TASK_THREADS = max(1, int(os.environ.get("EMBEDDED_TASK_THREADS", "1")))
# ...and the notices' POSTs (CELERY_NOTIFY_QUEUE's tasks) on threads of their own, so a slow
# receiver never holds a turn clock or a sweep.
EMBEDDED_NOTIFY_THREADS = max(1, int(os.environ.get("EMBEDDED_NOTIFY_THREADS", "2")))
# The analysis queue's tasks (a deal's luck, a move analysis) run in a process of their own at
# the lowest CPU priority (pisyedili_api.tasks), so they never hold up a move or a bot's turn,
# and the move that ends a deal answers without waiting for them; off, they run in the request.
EMBEDDED_ANALYSIS_IN_BACKGROUND = env_bool("EMBEDDED_ANALYSIS_IN_BACKGROUND", True)
# The embedded default's beat (pisyedili_api.tasks.embedded_start): the server process runs
# CELERY_BEAT_SCHEDULE itself (turn clocks, sweepers), since no `celery beat` runs beside it.
EMBEDDED_BEAT = env_bool("EMBEDDED_BEAT", True)
# ---- Live play: push events, stream tickets, CORS ----
# How they work: docs/architecture.md "Live events"; deploying them: docs/operations.md "Live play".
# CORS on /api/ only. Auth is a header token (or a stream ticket in the query), never a cookie,
# so no credentials are allowed; with CORS_ALLOWED_ORIGINS unset any origin may call the API.
INSTALLED_APPS += ["corsheaders"]
# First, so that even the body-size guard's 400 carries the headers a browser needs to read it.
MIDDLEWARE.insert(0, "corsheaders.middleware.CorsMiddleware")
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOWED_ORIGINS = env_list("CORS_ALLOWED_ORIGINS", "")
CORS_ALLOW_ALL_ORIGINS = not CORS_ALLOWED_ORIGINS
CORS_ALLOW_CREDENTIALS = False
from corsheaders.defaults import default_headers  # noqa: E402

# default_headers has Authorization and Content-Type.
CORS_ALLOW_HEADERS = (*default_headers, "idempotency-key", "last-event-id", "if-none-match")
CORS_EXPOSE_HEADERS = ("retry-after", "etag")
# Version changes fan out through one Redis pub/sub channel (live.hub); without Redis an
# in-process hub serves a single process. The prefix names the channel and every key, so two
# deployments (or test runs) can share one Redis.
LIVE_REDIS_URL = os.environ.get(
    "LIVE_REDIS_URL",
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else "",
)
LIVE_CHANNEL_PREFIX = os.environ.get("LIVE_CHANNEL_PREFIX", "pisyedili")
LIVE_HEARTBEAT_SECONDS = float(os.environ.get("LIVE_HEARTBEAT_SECONDS", "15"))
LIVE_STREAMS_PER_PLAYER = int(os.environ.get("LIVE_STREAMS_PER_PLAYER", "20"))
# Anonymous spectators' open match streams per client address (NUM_PROXIES picks the address).
LIVE_STREAMS_PER_IP = int(os.environ.get("LIVE_STREAMS_PER_IP", "20"))
# Waiting long-polls (`…/state?after_version=&wait=` under ASGI) per player, and an anonymous
# spectator's per client address, over every process: slots of their own beside the streams'.
LIVE_LONG_POLLS_PER_PLAYER = int(os.environ.get("LIVE_LONG_POLLS_PER_PLAYER", "20"))
LIVE_LONG_POLLS_PER_IP = int(os.environ.get("LIVE_LONG_POLLS_PER_IP", "20"))
# Events a stream may have waiting; a reader that falls this far behind is dropped.
LIVE_QUEUE_SIZE = int(os.environ.get("LIVE_QUEUE_SIZE", "64"))
# Seconds a connection of the ASGI deployment may leave what it was sent unacknowledged (a
# client that stopped reading, one that vanished) before TCP drops it (TCP_USER_TIMEOUT:
# live.protocol.HttpProtocol); its stream slot is then given back.
LIVE_SEND_TIMEOUT = float(os.environ.get("LIVE_SEND_TIMEOUT", "30"))
# Seconds a client of the ASGI deployment has to send a whole request, line, headers and body
# (HttpProtocol: 408 past it, the connection closed).
LIVE_READ_TIMEOUT = float(os.environ.get("LIVE_READ_TIMEOUT", "10"))
# Seconds a live event that Redis did not take (slower than its client's 0.5 s, or gone) is
# tried again, in order, before it is logged and lost (live.hub.publish); 0: never again.
LIVE_PUBLISH_RETRY_SECONDS = float(os.environ.get("LIVE_PUBLISH_RETRY_SECONDS", "10"))
# The "me" stream keeps each player's last LIVE_ME_LOG events for resuming, for LIVE_ME_TTL s.
LIVE_ME_LOG = int(os.environ.get("LIVE_ME_LOG", "256"))
LIVE_ME_TTL = int(os.environ.get("LIVE_ME_TTL", str(7 * 24 * 3600)))
# Seconds a stream ticket opens its stream (live.tickets): every reconnect of that stream
# within them, EventSource's own included.
STREAM_TICKET_SECONDS = int(os.environ.get("STREAM_TICKET_SECONDS", "300"))
# Threads (and so database connections) per web process for the streams' reads.
LIVE_DB_THREADS = int(os.environ.get("LIVE_DB_THREADS", "4"))
# Threads per web process for Django's code, a request holding one while it runs (it waits for a
# free one): that many for plain requests and long-polls (live.asgi.WholeWSGI's pool), and as
# many for stream openings (live.asgi.RequestThreads); all made at startup.
LIVE_REQUEST_THREADS = int(os.environ.get("LIVE_REQUEST_THREADS", "8"))
# DATABASE_POOL=1 (live/asgi.py sets it): psycopg's connection pool instead of
# persistent connections. Under ASGI a request runs on whichever of the event loop's threads is
# free, and the hub's threads serve every stream; the pool bounds the connections per process
# whatever the number of waiting clients.
if env_bool("DATABASE_POOL", False) and (
    DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
):
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = False
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": int(os.environ.get("DATABASE_POOL_MIN", "2")),
        "max_size": int(os.environ.get("DATABASE_POOL_MAX", "16")),
        "timeout": 10,
    }
# The event streams are not DRF views: live.streams adds them to the served schema.
SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"] = [
    "drf_spectacular.hooks.postprocess_schema_enums",
    "live.streams.openapi_paths",
    "pisyedili_api.openapi.describe_path_parameters",
    "pisyedili_api.openapi.request_defaults_described",
    "pisyedili_api.openapi.server_limits",
    "pisyedili_api.openapi.protocol_answers",
]
# Matches (games): how long a move's Idempotency-Key replays (then games.sweep deletes its
# record, in bounded batches), and what one player may have running at once (4xx past it).
IDEMPOTENCY_TTL_SECONDS = int(os.environ.get("IDEMPOTENCY_TTL_SECONDS", str(24 * 3600)))
MAX_ACTIVE_MATCHES_PER_PLAYER = int(os.environ.get("MAX_ACTIVE_MATCHES_PER_PLAYER", "20"))
MAX_BOT_MATCHES_PER_PLAYER = int(os.environ.get("MAX_BOT_MATCHES_PER_PLAYER", "5"))
MAX_DEALS_PER_MATCH = int(os.environ.get("MAX_DEALS_PER_MATCH", "20"))
# games.sweep cancels a match still waiting for players this many seconds after its creation.
MATCH_WAITING_TTL = int(os.environ.get("MATCH_WAITING_TTL", "3600"))
# An invitation to a private match expires this many seconds after it was sent.
PRIVATE_INVITATION_SECONDS = int(os.environ.get("PRIVATE_INVITATION_SECONDS", "600"))
# Notifications of away players (games.services.notify): Web Push with the server's VAPID key
# (base64url of the raw P-256 private key; unset: push is off) and webhooks. Both POST to URLs a
# player gave: https only, and never to the server's own networks (loopback, private, link-local,
# …) unless NOTIFY_ALLOW_HTTP / NOTIFY_ALLOWED_NETWORKS (comma-separated CIDRs) say so.
WEB_PUSH_VAPID_PRIVATE_KEY = os.environ.get("WEB_PUSH_VAPID_PRIVATE_KEY", "")
WEB_PUSH_VAPID_SUBJECT = os.environ.get("WEB_PUSH_VAPID_SUBJECT", "mailto:admin@localhost")
WEB_PUSH_MAX_PER_PLAYER = int(os.environ.get("WEB_PUSH_MAX_PER_PLAYER", "10"))
WEB_PUSH_TTL_SECONDS = int(os.environ.get("WEB_PUSH_TTL_SECONDS", "3600"))
WEBHOOK_MAX_PER_PLAYER = int(os.environ.get("WEBHOOK_MAX_PER_PLAYER", "5"))
WEBHOOK_MAX_FAILURES = int(os.environ.get("WEBHOOK_MAX_FAILURES", "20"))
NOTIFY_TIMEOUT_SECONDS = float(os.environ.get("NOTIFY_TIMEOUT_SECONDS", "5"))
# A failed push or webhook POST is tried again after this, doubled each time (at most 30 s).
NOTIFY_RETRY_SECONDS = float(os.environ.get("NOTIFY_RETRY_SECONDS", "1"))
NOTIFY_ALLOW_HTTP = env_bool("NOTIFY_ALLOW_HTTP", False)
NOTIFY_ALLOWED_NETWORKS = env_list("NOTIFY_ALLOWED_NETWORKS", "")
