"""Settings of the test suite (pytest's DJANGO_SETTINGS_MODULE, pyproject.toml): the settings
of the environment (DATABASE_URL, CELERY_BROKER_URL, …) plus what only the tests change.

Subprocesses the tests start (Celery workers, servers) run `pisyedili_api.settings` like the
commands of docs/operations.md "The full stack" do; they inherit the key set here.
"""

import os

# settings.py refuses to load without a key unless DEBUG; the suite runs with DEBUG off.
os.environ.setdefault("DJANGO_SECRET_KEY", "test-suite-only-key-" + "x9Fq2LmP7vRt" * 4)
# Tests play whole matches in seconds with one token per player: moves are not throttled
# here (the servers the tests start inherit it) unless a test sets its own rate.
os.environ.setdefault("THROTTLE_MATCH_MOVE", "100000/sec")
# Nor registrations and sign-ins by the hundred from 127.0.0.1, which a kept server (the live
# pair, the browser suite's) would count against the default 60/min; the tests of that
# throttle set their own rate.
os.environ.setdefault("THROTTLE_AUTH", "1000/min")
# Nor tables made by the dozen by one player (a kept server's players); the test of that
# throttle sets its own rate.
os.environ.setdefault("THROTTLE_MATCH", "100000/min")
# Every deal a test finishes has its luck and skill estimated (here and on the servers the tests
# start); how close the estimates come is not what those tests measure, and the samples are most
# of a finished deal's cost: fewer keep it cheap. The tests of the estimates read the setting or
# set their own, and bench/luck.py measures what the samples buy.
os.environ.setdefault("ANALYSIS_LUCK_SAMPLES", "16")
os.environ.setdefault("ANALYSIS_SKILL_SAMPLES", "4")

from .settings import *  # noqa: E402, F403
from .settings import MIDDLEWARE, env_bool  # noqa: E402

# Every response body goes through the hidden-information scanner (tests/leakscan.py).
MIDDLEWARE = [*MIDDLEWARE, "tests.leakscan.LeakScanMiddleware"]

# Bot turns in-process by default; a test that starts a real worker switches this off.
CELERY_TASK_ALWAYS_EAGER = True

# Registration is not what these tests measure: a fast hasher keeps fixtures cheap.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The embedded beat (pisyedili_api.tasks) never runs inside the test process: a test that runs
# the server's lifespan must not leave a thread sweeping the test database. A server the tests
# start may ask for it (EMBEDDED_BEAT=1 in its environment: the quick-play browser test's
# server).
EMBEDDED_BEAT = env_bool("EMBEDDED_BEAT", False)

# A test reads a deal's luck right after the move that ended it: the analysis tasks run in the
# caller, as every other in-process task (tests/games/test_embedded_analysis.py switches it on).
EMBEDDED_ANALYSIS_IN_BACKGROUND = False
