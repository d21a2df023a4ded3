# Deniable — one command to run, one to test. See README.md.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# One venv, two idempotent stamps: `run` needs the runtime requirements only; `test`, `test-fast`
# and `lint` (and `install`) add the dev requirements. Installing the dev set also marks the
# runtime set as installed (it is a superset), so `make run` after `make test` installs nothing.
RUN_STAMP := $(VENV)/.installed-run-$(shell cat requirements.txt constraints.txt 2>/dev/null | sha256sum | cut -c1-16)
DEV_STAMP := $(VENV)/.installed-dev-$(shell cat requirements.txt requirements-dev.txt constraints.txt 2>/dev/null | sha256sum | cut -c1-16)

# Extra flags for pip's install of the dev set: CI passes --no-compile (.ci/run says why). Left
# empty, pip compiles every module once at install, which keeps a shell with
# PYTHONDONTWRITEBYTECODE=1 from compiling the app's dependencies in every process.
PIP_FLAGS ?=
.PHONY: install install-run run test test-fast test-js smoke lint lint-js bench bench-quick bench-venv check clean messages
NODE_STAMP := node_modules/.package-lock.json

install: $(DEV_STAMP)

install-run: $(RUN_STAMP)

$(RUN_STAMP): requirements.txt constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip==26.3"
	$(BIN)/python -m pip install --quiet -r requirements.txt -c constraints.txt
	@rm -f $(VENV)/.installed-run-*
	@touch $@

$(DEV_STAMP): requirements.txt requirements-dev.txt constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip==26.3"
	$(BIN)/python -m pip install --quiet $(PIP_FLAGS) -r requirements-dev.txt -c constraints.txt
	@rm -f $(VENV)/.installed-*
	@touch $@ $(RUN_STAMP)

# axe-core for the browser tests' accessibility checks, and ESLint and Prettier for `make lint-js`,
# pinned in package-lock.json (npm writes node_modules/.package-lock.json on install). Without npm
# the axe-core checks skip locally and `make lint-js` fails; CI has npm.
$(NODE_STAMP): package.json package-lock.json
	@if command -v npm >/dev/null; then npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm is missing: the axe-core checks will skip (sudo apt-get install -y npm)"; fi

# Embedded defaults: SQLite under var/, tasks in-process, a demo survey with simulated respondents.
run: install-run
	@mkdir -p var/static
	DJANGO_DEBUG=$${DJANGO_DEBUG:-true} $(BIN)/python manage.py migrate --noinput
	DJANGO_DEBUG=$${DJANGO_DEBUG:-true} $(BIN)/python manage.py seed_demo --base-url http://127.0.0.1:$(PORT)
	DJANGO_DEBUG=$${DJANGO_DEBUG:-true} $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# The whole suite, in parallel (pytest-xdist, `-n auto`: one worker per core; `make test XDIST=4`
# to choose, `XDIST=0` for one process): the page modules' unit tests, then pytest. Every worker
# has its own test database, its own private Redis for the cache, its own live server port and
# temp dirs; `--dist loadgroup` keeps together what must share a worker (testsupport/xdist.py:
# a module's module-scoped fixture such as the e2e modules' Chromium, and the integration tests,
# one at a time). CI runs this. Browser tests need Debian's chromium (installed here when missing
# and root). `TEST_JS=` leaves the JS tests out (CI runs them first).
XDIST ?= auto
TEST_JS ?= test-js
test: install $(NODE_STAMP) $(TEST_JS)
	@bash scripts/ensure-chromium.sh
	$(BIN)/python -m pytest -n $(XDIST) --dist loadgroup $(PYTEST_ARGS)

# The browser's randomizer, memo and fetch helper as ES modules under Node's own test runner
# (tests/js/, no dependencies; Node 20 or later). Same as `npm test`.
test-js:
	@command -v node >/dev/null || { echo "node is missing (sudo apt-get install -y nodejs)"; exit 1; }
	node --test tests/js/

# Unit and API tests only, in parallel like `make test`, without the `slow`, `e2e` and
# `integration` tests (`make test` runs everything). test_schemathesis.py is `slow` as a whole
# and its import builds the OpenAPI schema (~3 s of CPU in every worker), so it is not even
# collected here.
test-fast: install
	$(BIN)/python -m pytest -n $(XDIST) --dist loadgroup -m "not e2e and not integration and not slow" \
		--ignore=tests/fuzz/test_schemathesis.py $(PYTEST_ARGS)

# From a fresh `git clone` of HEAD: the README's `make run` on a free port (a new .venv with the
# runtime requirements only), then a respondent and a researcher in Chromium, axe-core on every
# page, and the README's marked snippets against that server (tests/smoke/; CI runs it).
smoke: install $(NODE_STAMP)
	@bash scripts/ensure-chromium.sh
	$(BIN)/python -m pytest -m smoke tests/smoke $(PYTEST_ARGS)

# The respondent interface's catalogues (docs/translations.md#maintainers): collect every marked
# string into locale/en and locale/es, give English its own words (msgen), compile the .mo files.
# Needs GNU gettext (Debian: apt-get install gettext). Then translate the new Spanish entries
# (no empty or fuzzy msgstr: tests/i18n/test_catalogues.py) and run it again to compile.
MESSAGE_IGNORES := --ignore='.venv*' --ignore=node_modules --ignore=var --ignore=tests \
	--ignore=bench --ignore=testsupport --ignore=docs
messages: install-run
	@command -v msgfmt >/dev/null || { echo "GNU gettext is missing (sudo apt-get install -y gettext)"; exit 1; }
	$(BIN)/python manage.py makemessages -l en -l es --no-location $(MESSAGE_IGNORES)
	# English is its own source: every msgstr is emptied and refilled with its msgid (msgen keeps
	# a non-empty one, so a msgid merged fuzzily from a similar string would keep stale words).
	msgattrib --clear-fuzzy --clear-previous locale/en/LC_MESSAGES/django.po -o locale/en/LC_MESSAGES/django.po
	msgfilter --keep-header -i locale/en/LC_MESSAGES/django.po -o locale/en/LC_MESSAGES/django.po sed -e 's/.*//'
	msgen --force-po locale/en/LC_MESSAGES/django.po -o locale/en/LC_MESSAGES/django.po
	$(BIN)/python manage.py compilemessages -l en -l es $(MESSAGE_IGNORES)

lint: install lint-js
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy --strict dpcore
	$(BIN)/mypy
	$(BIN)/python manage.py check
	$(BIN)/python manage.py makemigrations --check --dry-run

# The page modules and their tests: ESLint (eslint.config.js) and Prettier's layout (.prettierrc.json),
# from node_modules (installed offline from package-lock.json by `npm ci`).
lint-js: $(NODE_STAMP)
	node_modules/.bin/eslint static/js tests/js eslint.config.js
	node_modules/.bin/prettier --check static/js tests/js eslint.config.js

# Benchmarks run in their own venv: OpenDP (a comparison baseline, bench/requirements.txt) must
# never reach the app's environment or requirements-dev.txt. The bench venv sees the app's dev set
# through a .pth file naming .venv's site-packages (searched after its own), so only OpenDP is
# installed into it: one copy of the dev set on disk, and CI's bench venv takes seconds instead of
# a second full install beside the suite. pip itself comes from .venv the same way.
BENCH_VENV := .venv-bench
BENCH_STAMP := $(BENCH_VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt constraints.txt bench/requirements.txt 2>/dev/null | sha256sum | cut -c1-16)

$(BENCH_STAMP): $(DEV_STAMP) bench/requirements.txt
	@test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv --without-pip $(BENCH_VENV)
	@$(BIN)/python -c "import sysconfig; print(sysconfig.get_path('purelib'))" > \
		"$$($(BENCH_VENV)/bin/python -c "import sysconfig; print(sysconfig.get_path('purelib'))")/deniable-dev.pth"
	$(BENCH_VENV)/bin/python -m pip install --quiet -r bench/requirements.txt -c constraints.txt
	@rm -f $(BENCH_VENV)/.installed-*
	@touch $@

# The benchmarks' venv alone (CI builds it beside the suite, before `make bench-quick` uses it).
bench-venv: $(BENCH_STAMP)

# BENCH_ARGS e.g. "--only stat_efficiency".
bench: $(BENCH_STAMP)
	$(BENCH_VENV)/bin/python -m bench.run_all $(BENCH_ARGS)

bench-quick: $(BENCH_STAMP)
	$(BENCH_VENV)/bin/python -m bench.run_all --quick $(BENCH_ARGS)

clean:
	rm -rf $(VENV) $(BENCH_VENV) var node_modules .pytest_cache .hypothesis
