#!/usr/bin/env bash
# Print the path of a working Python 3.12 (NeMo Gym's `nemo-gym` needs >= 3.12; playbench's own venv may be older),
# or nothing: `python3.12` on PATH, else pyenv's newest 3.12 (a pyenv shim on PATH fails unless 3.12 is selected).
# scripts/setup.sh builds the NeMo Gym environment with it; tests/rl/test_nemo_gym.py skips only when it prints nothing.
set -uo pipefail
candidates=(python3.12)
if command -v pyenv >/dev/null 2>&1; then
  for p in $(ls -d "$(pyenv root)"/versions/3.12.*/bin/python3.12 2>/dev/null | sort -V -r); do candidates+=("$p"); done
fi
for p in "${candidates[@]}"; do
  if "$p" -c 'import sys; assert sys.version_info[:2] == (3, 12)' >/dev/null 2>&1; then
    command -v "$p"
    exit 0
  fi
done
