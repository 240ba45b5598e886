#!/usr/bin/env bash
# Create the virtual environment and install playbench with every engine and the test tools.
set -euo pipefail
venv="${1:-.venv}"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -e '.[all,test]'
