#!/usr/bin/env bash
# Run the whole test suite (lint, types and import contracts first). Exits non-zero on any failure, including "no tests ran".
set -euo pipefail
venv="${1:-.venv}"
# Debian packages the tests drive: chromium (the viewer, through Playwright; no browser download) and
# faketime (NetHack records compared across calendar dates).
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v faketime >/dev/null 2>&1 || missing+=(faketime)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "the tests need Debian's ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
"$venv/bin/ruff" check src tests benchmarks scripts
# Types (pyproject [tool.mypy]: strict for core and runner) and layering (pyproject [tool.importlinter]).
"$venv/bin/mypy"
"$venv/bin/lint-imports"
"$venv/bin/python" -m pytest -q -p no:cacheprovider
