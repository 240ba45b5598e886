#!/usr/bin/env bash
# Run the whole test suite (lint first). Exits non-zero on any failure, including "no tests ran".
set -euo pipefail
venv="${1:-.venv}"
"$venv/bin/ruff" check src tests benchmarks
"$venv/bin/python" -m pytest -q -p no:cacheprovider
