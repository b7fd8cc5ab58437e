# Skillboard: `make run` starts everything locally; `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
ADDR ?= 127.0.0.1:8000
SEED_USERS ?= 500
BENCH_USERS ?= 100000
# gunicorn worker processes for `make serve`; each runs DYNAMODB_MAX_POOL_CONNECTIONS threads.
WEB_CONCURRENCY ?= 2
# pytest-xdist workers for `make test`, each with its own DynamoDB Local; a test file stays on one.
TEST_WORKERS ?= 2
# The accessibility engine of tests/test_accessibility_browser.py, fetched with npm (not in git).
AXE_CORE_VERSION := 4.14.1
AXE_CORE := var/node/node_modules/axe-core

.PHONY: run address-free serve test lint format install system-deps dynamodb-local axe-core bench clean dist

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

.env:
	cp .env.example .env

system-deps:
	bin/install-system-deps

dynamodb-local: install system-deps
	$(PY) -m dynamo.local install

## axe-core: axe-core $(AXE_CORE_VERSION) into var/node with npm, once (again when the pin changes).
axe-core: system-deps
	@grep -qs '"version": "$(AXE_CORE_VERSION)"' $(AXE_CORE)/package.json || \
		npm install --prefix var/node --no-audit --no-fund --loglevel=error --silent \
			axe-core@$(AXE_CORE_VERSION) >/dev/null

## run: DynamoDB Local (data under var/), migrate, tables, demo data, a staff login, the server
## and the scheduler; ADDR's port is checked first (before any install), and SITE_URL follows
## ADDR. While it runs, `manage.py <command>` in another terminal works on its data
## (var/dynamodb-local/running.env). The launcher is the package's; seeding, the staff login
## run_schedule and consume_streams are Skillboard's, given to it here (SEED_USERS=0: no demo data).
# exec: the launcher is make's own child, so make's SIGTERM reaches it and its parent's death
# (make killed outright) stops it too; a shell between them would die alone.
run: address-free dynamodb-local .env
	exec $(PY) -m dynamo.local serve $(ADDR) \
		$(if $(filter-out 0,$(SEED_USERS)),--then "seed --users $(SEED_USERS) --if-empty") \
		--then "bootstrap_staff --url {site}/admin/" --beside run_schedule --beside consume_streams

# The system Python: on a fresh clone the venv does not exist yet, and the check needs none.
address-free:
	@$(PYTHON) -m dynamo.local check-address $(ADDR)

## serve: production from the real environment (no .env; see .env.production.example): the deploy
## check (any warning stops it), static files collected, gunicorn (DEBUG off) on ADDR.
serve: install
	DJANGO_DEBUG=false $(PY) manage.py check --deploy --fail-level WARNING
	DJANGO_DEBUG=false $(PY) manage.py collectstatic --no-input -v 0
	DJANGO_DEBUG=false exec $(VENV)/bin/gunicorn -c project/gunicorn.conf.py --bind $(ADDR) --workers $(WEB_CONCURRENCY)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-logo

## test: lint, then every test on moto (and on DynamoDB Local where the engines can differ),
## browser tests (axe-core's audit too) and the many-host tests (PostgreSQL, Redis, two gunicorn
## hosts) included, over TEST_WORKERS processes (one file to a process), the timed many-host and
## unresponsive-engine bursts (marked `alone`) after it with no other worker; then
## bin/test-package: the wheel alone in one venv per Django version it supports (5.2 on Python
## 3.11, 6.0 and 6.1 on pyenv's 3.12; cached under var/package-venvs), dynamo_admin's own tests
## (no Skillboard app installed) and the example project (examples/library) run against it on
## each, side by side.
test: dynamodb-local axe-core lint
	bin/install-system-deps --browser --servers
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile -m "not alone"; status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests: failing" >&2; status=1; fi; \
	$(PY) -m pytest -m alone; alone_status=$$?; \
	if [ $$alone_status -eq 5 ]; then echo "pytest collected no 'alone' tests: failing" >&2; alone_status=1; fi; \
	if [ $$status -eq 0 ]; then status=$$alone_status; fi; \
	PY=$(PY) bin/test-package; package_status=$$?; \
	if [ $$status -ne 0 ]; then exit $$status; fi; \
	exit $$package_status

## dist: the django-dynamo-admin wheel and sdist (dynamo and dynamo_admin only) into dist/.
dist: install
	PY=$(PY) bin/build-package dist

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

## bench: every benchmark on DynamoDB Local, results in bench/RESULTS.md (BENCH_USERS=100000;
## BENCH_ARGS=--resume keeps the sections already there and runs the others).
bench: dynamodb-local
	bin/install-system-deps --servers
	BENCH_USERS=$(BENCH_USERS) $(PY) bench/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
