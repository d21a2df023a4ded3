# Deniable — one command to run, one to test. See README.md.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt constraints.txt 2>/dev/null | sha256sum | cut -c1-16)

.PHONY: install run test test-fast lint bench bench-quick check clean

install: $(STAMP)

$(STAMP): requirements.txt requirements-dev.txt constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip==26.3"
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt -c constraints.txt
	@rm -f $(VENV)/.installed-*
	@touch $@

# Embedded defaults: SQLite under var/, tasks in-process, a demo survey with simulated respondents.
run: install
	@mkdir -p var
	DJANGO_DEBUG=$${DJANGO_DEBUG:-true} $(BIN)/python manage.py migrate --noinput
	DJANGO_DEBUG=$${DJANGO_DEBUG:-true} $(BIN)/python manage.py seed_demo
	DJANGO_DEBUG=$${DJANGO_DEBUG:-true} $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# The whole suite. Browser tests need Debian's chromium (installed here when missing and root).
test: install
	@bash scripts/ensure-chromium.sh
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-fast: install
	$(BIN)/python -m pytest -m "not e2e and not integration and not slow" $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/python manage.py check
	$(BIN)/python manage.py makemigrations --check --dry-run

bench: install
	$(BIN)/python -m bench.run_all

bench-quick: install
	$(BIN)/python -m bench.run_all --quick

clean:
	rm -rf $(VENV) var .pytest_cache .hypothesis
