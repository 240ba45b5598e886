# Two entry points (see README): `make demo` and `make test`. Both set up .venv first.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

$(STAMP): pyproject.toml scripts/setup.sh
	bash scripts/setup.sh $(VENV)
	touch $(STAMP)

.PHONY: setup demo test lint
setup: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/playbench eval quickstart --view

test: $(STAMP)
	bash scripts/test.sh $(VENV)

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
