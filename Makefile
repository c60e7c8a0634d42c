# Two commands: `make run` and `make test`. Only Python 3.11+ is needed on the machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# the municipalities `make run` loads, each with its demo data (PACK=itagiba make run: one only)
PACKS ?= $(if $(PACK),$(PACK),alegre itagiba arapora)
HOST ?= 127.0.0.1
# `make test` runs the suite on every core (pytest-xdist; tests/parallel.py gives each worker its
# own Redis database and VAR_DIR); PYTEST_ARGS="-n0 tests/x" runs some tests in one process.
PYTEST_ARGS ?= -n auto --maxprocesses 8 --dist loadfile
PORT ?= 8000

.PHONY: install run test test-fast e2e lint format bench migrations-check deploy-check clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# HOST and PORT reach every step of `make run` (seed_demo issues PDFs with QR codes too), so that
# SITE_URL defaults to the address served (portal.settings.env.default_site_url).
run: export HOST := $(HOST)
run: export PORT := $(PORT)
## make run: install, migrate, load every pack with its demo data, serve with worker and beat.
run: install
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py migrate --noinput
	@for pack in $(PACKS); do \
	  DEBUG=$${DEBUG:-1} $(BIN)/python manage.py load_regulation $$pack || exit 1; \
	  DEBUG=$${DEBUG:-1} $(BIN)/python manage.py seed_demo --municipality $$pack --sample-data || exit 1; \
	done
	@echo "Municípios: $(foreach p,$(PACKS),http://$(p).localhost:$(PORT)) — lista em http://$(HOST):$(PORT)"
	DEBUG=$${DEBUG:-1} BIN=$(BIN) HOST=$(HOST) PORT=$(PORT) bash bin/serve

## make test: install what tests need and run the whole suite (e2e when Chromium is present).
test: install
	PORTAL_TESTING=1 $(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/ruff format --check . || true

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

migrations-check: install
	PORTAL_TESTING=1 $(BIN)/python manage.py makemigrations --check --dry-run

deploy-check: install
	DEBUG=0 SECRET_KEY=$$(head -c 64 /dev/urandom | base64 | tr -d '/+=\n') ALLOWED_HOSTS=portal.example SITE_URL=https://portal.example \
	  $(BIN)/python manage.py check --deploy --fail-level WARNING

bench: install
	$(BIN)/python bench/run.py

clean:
	rm -rf var/celery-queue var/screenshots .pytest_cache
