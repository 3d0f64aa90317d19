# Two commands: `make demo` runs the app, `make test` runs the suite (`make
# test-fast`: the edit-test loop, no browser, worker or training run). Each
# installs what is missing first (Debian packages as root, .venv, node_modules;
# the test and lint targets add requirements-dev.txt).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# How many procedural sketches `make demo` seeds (the original project graded 1,664).
DEMO_SKETCHES ?= 1664
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: demo test test-fast deps dev-deps system lint bench clean

# What `make test-fast` runs: every tier but these (tests/conftest.py marks each test).
FAST_TIERS := not browser and not worker and not training

deps: system $(VENV)/.installed node_modules/.installed
dev-deps: deps $(VENV)/.installed-dev

system:
	@scripts/system_deps.sh

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Stamp files: each list is installed again only when it changes.
$(VENV)/.installed: requirements.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

demo: deps
	@scripts/ensure_redis.sh .make/redis-demo.pid
	$(PY) manage.py migrate --noinput
	$(PY) manage.py ensure_admin
	$(PY) manage.py seed_corpus --count $(DEMO_SKETCHES)
	$(PY) manage.py bootstrap_policy --if-missing --queue
	@echo
	@echo "paintrl: open http://$${PAINTRL_HOST:-127.0.0.1}:$${PAINTRL_PORT:-8000}/  (Ctrl-C stops web and workers)"
	@echo
	@trap 'scripts/stop_redis.sh .make/redis-demo.pid' EXIT; $(VENV)/bin/honcho start

test: dev-deps
	@scripts/ensure_redis.sh
	$(PY) -m pytest $(PYTEST_ARGS)

test-fast: dev-deps
	@scripts/ensure_redis.sh
	$(PY) -m pytest -m "$(FAST_TIERS)" $(PYTEST_ARGS)

lint: system $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .

bench: deps
	$(PY) benchmarks/render_bench.py

clean:
	rm -rf $(VENV) node_modules .make media staticfiles paintrl.sqlite3
