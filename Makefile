# The two commands of the README: `make run` (embedded default) and `make test` (real stack).
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/pisyedili
TEST_BROKER_URL ?= redis://127.0.0.1:6379/0

.PHONY: run test services migrate lint bench

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -e '.[dev]'

# Serve the API on SQLite with Celery tasks in-process (no env needed).
run: $(PY)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py runserver --insecure 127.0.0.1:$(PORT)

# PostgreSQL and Redis must answer; start them if not (commands from docs/architecture.md).
services:
	@pg_isready -q -h 127.0.0.1 -p 5432 || pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start
	@redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
	@for i in $$(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done; pg_isready -h 127.0.0.1 -p 5432
	@for i in $$(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done; redis-cli -h 127.0.0.1 -p 6379 ping

# The whole suite on PostgreSQL and Redis.
test: $(PY) services
	DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) \
	DJANGO_TEST_DATABASE_NAME=test_pisyedili_$$$$ $(PY) -m pytest $(PYTEST_ARGS)

lint: $(PY)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: $(PY) services
	DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) $(PY) bench/api.py
