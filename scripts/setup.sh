#!/usr/bin/env bash
# Create the virtual environment and install playbench with every engine and the test tools.
set -euo pipefail
venv="${1:-.venv}"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -e '.[all,test]'
# NetHack/MiniHack for BALROG: BALROG's NLE build (wheel, carries the language wrapper) and legacy gym, then
# minihack 0.1.6 without deps (its `nle==0.9.0` pin would try to build plain nle from source, which fails).
# (balrog-nle and gym come with the [nethack] extra above.)
"$venv/bin/python" -m pip install -q --no-deps minihack==0.1.6
