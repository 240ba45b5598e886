#!/usr/bin/env bash
# Run the whole test suite (lint first). Exits non-zero on any failure, including "no tests ran".
set -euo pipefail
venv="${1:-.venv}"
# The viewer is tested in Debian's Chromium, driven by Playwright (no browser download).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "the viewer tests need Debian's chromium: sudo apt-get install chromium" >&2
    exit 1
  fi
fi
"$venv/bin/ruff" check src tests benchmarks
"$venv/bin/python" -m pytest -q -p no:cacheprovider
