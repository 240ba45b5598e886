#!/usr/bin/env bash
# Create the virtual environment and install playbench with the given extras (default: every engine and the
# test tools, `all,test`; `make demo` asks for `demo`, the quickstart group's engines only).
set -euo pipefail
venv="${1:-.venv}"
extras="${2:-all,test}"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -e ".[$extras]"
# NetHack/MiniHack for BALROG: BALROG's NLE build (wheel, carries the language wrapper) and legacy gym, then
# minihack 0.1.6 without deps (its `nle==0.9.0` pin would try to build plain nle from source, which fails).
# (balrog-nle and gym come with the [nethack] extra, which both `all` and `demo` hold.)
"$venv/bin/python" -m pip install -q --no-deps minihack==0.1.6
# OpenEnv for tests/rl/test_openenv.py, without its web UI's gradio (which caps pillow below 13); its other
# needs are in the test extra (see the [openenv] extra in pyproject.toml).
case ",$extras," in *,test,*) "$venv/bin/python" -m pip install -q --no-deps "openenv-core>=0.3,<0.4" ;; esac
# The [inspect] extra's openai (>=3.4, which Inspect's OpenAI providers need and verifiers in `all` caps below 3),
# in a folder of its own: tests/inspect_face puts it in front for the `inspect eval --model openai/...` it runs,
# making the Inspect environment docs/inspect.md describes. openai's own needs are in this environment already.
case ",$extras," in *,test,*) "$venv/bin/python" -m pip install -q --no-deps --upgrade --target "$venv/inspect-openai" \
  "openai>=3.4,<4" ;; esac
# NeMo Gym for tests/rl/test_nemo_gym.py: nemo-gym needs Python >= 3.12 (0.5 and later >= 3.13.14), so when a
# Python 3.12 is found (scripts/python312.sh), "$venv/py312" holds nemo-gym 0.4 without its dependencies (ray[default],
# mlflow, datasets ...: 1.4 GB) and only those its gymnasium server, agent and client import (0.65 GB), and playbench
# with BabyAI. No Python 3.12: no environment, and the test says it was not run.
py312="$(bash scripts/python312.sh)"
case ",$extras," in *,test,*) if [ -n "$py312" ]; then
  "$py312" -m venv "$venv/py312"
  "$venv/py312/bin/python" -m pip install -q --upgrade pip
  "$venv/py312/bin/python" -m pip install -q --no-deps "nemo-gym>=0.4,<0.5"
  "$venv/py312/bin/python" -m pip install -q -e ".[babyai]" "openai<=2.7.2" "anthropic<=0.109.2" fastapi uvicorn \
    omegaconf hydra-core itsdangerous python-multipart requests wandb ray yappi gprof2dot pydot psutil pandas
fi ;; esac
