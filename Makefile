# Two commands do all the set-up on a fresh machine: `make run` and `make test`
# (`make test-fast`: the engine and bot tests only, without Django).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: run test test-sqlite test-postgres test-fast lint format install install-server catalogs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# A server (the README's "Deploying"): the site's own dependencies, none of the test tools (pytest,
# playwright, ruff, mypy), upgraded to what pyproject.toml asks on every update.
install-server:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --upgrade -e .

# The message catalogs, compiled in pure Python (polib: no msgfmt needed), whenever a .po
# changed; the .mo files are git-ignored build products (threethirteen_site/catalogs.py).
PO_FILES := $(wildcard locale/*/LC_MESSAGES/*.po)
MO_FILES := $(PO_FILES:.po=.mo)
catalogs: $(MO_FILES)
$(MO_FILES) &: $(PO_FILES) | $(STAMP)
	$(PY) manage.py compile_catalogs --force --verbosity 0

# Migrating seeds the built-in variants (data migration); load_variants adds any
# preset that a later engine version brought; rate_games rates finished games
# that ended before ratings existed (a no-op afterwards).  Bots need no set-up:
# they are seats, not user accounts.  runserver is daphne's, so it serves ASGI.
# The move clock (timeouts and turn e-mails) runs inside the server process with
# the in-memory channel layer, so the turns it plays reach the open pages
# (games/live/clock.py); with REDIS_URL set it runs as `manage.py gameclock` in
# the background beside the server and is stopped when the server stops.
# The links in turn e-mails point at the port it serves on unless SITE_URL says otherwise.
run: export SITE_URL ?= http://127.0.0.1:$(PORT)
run: $(STAMP) catalogs
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_variants
	$(PY) manage.py rate_games
	if [ -n "$$REDIS_URL" ]; then \
	  $(PY) manage.py gameclock & clock=$$!; \
	  trap 'kill $$clock 2>/dev/null' EXIT; trap 'exit 130' INT TERM; \
	fi; \
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

# Every test, whatever its marker (CI runs them all), on SQLite and then on PostgreSQL.
# To leave some out, pass pytest's -m through ARGS, e.g. make test ARGS='-m "not browser and not slow"'
# (markers: slow, browser, redis; see pyproject.toml).  One database alone: make test-sqlite,
# make test-postgres.
test: test-sqlite test-postgres

test-sqlite: $(STAMP) catalogs
	$(PY) -m pytest $(ARGS)

# tests/postgres.py starts a throwaway PostgreSQL server (Debian's package: initdb into a
# temporary directory, a free loopback port; as the postgres user when run as root), runs
# pytest with DATABASE_URL pointing at it, and removes it afterwards.
test-postgres: $(STAMP) catalogs
	$(PY) -m tests.postgres $(ARGS)

# The rules, the bots and the analysis alone, in seconds: without pytest-django, and
# the run fails if anything imports Django (tests/conftest.py checks after each test).
test-fast: $(STAMP)
	$(PY) -m pytest -p no:django tests/engine tests/bots tests/analysis $(ARGS)

# ruff (lint and format check) and mypy (strict for the engine and the bots).
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis $(MO_FILES)
