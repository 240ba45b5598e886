# Two entry points (see README): `make demo` and `make test`. Each sets up .venv first: `demo` with the
# quickstart group's engines only, `test` (and `setup`, `lint`) with every engine and the test tools.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo

# everything (.[all,test]); a full install also serves the demo
$(STAMP): pyproject.toml scripts/setup.sh
	bash scripts/setup.sh $(VENV) all,test
	touch $(STAMP) $(DEMO_STAMP)

# the demo's engines only (.[demo]): no Ray, Playwright or test tools
$(DEMO_STAMP): pyproject.toml scripts/setup.sh
	bash scripts/setup.sh $(VENV) demo
	touch $(DEMO_STAMP)

.PHONY: setup demo test lint
setup: $(STAMP)

demo: $(DEMO_STAMP)
	$(VENV)/bin/playbench eval quickstart --view

test: $(STAMP)
	bash scripts/test.sh $(VENV)

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks scripts
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
