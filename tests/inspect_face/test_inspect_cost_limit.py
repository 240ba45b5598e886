"""The Inspect face's cost limit: ``inspect eval playbench/... --cost-limit USD --model-cost-config FILE`` with the
file playbench writes from its price source (``python -m playbench.models.pricing MODEL``) stops each episode's
sample at the limit, against a loopback OpenAI-compatible server."""

import json
import os
import subprocess
import sys
from pathlib import Path

from inspect_ai.log import list_eval_logs, read_eval_log

from playbench.models.fakeserver import FakeServer
from playbench.models.pricing import inspect_cost

INSPECT = Path(sys.executable).with_name("inspect")
OVERLAY = Path(sys.prefix) / "inspect-openai"


def test_inspects_cost_limit_stops_a_sample_with_playbenchs_prices(inspect_env: dict[str, str], tmp_path: Path) -> None:
    costs = tmp_path / "costs.json"
    made = subprocess.run([sys.executable, "-m", "playbench.models.pricing", "openai/gpt-4o-mini"], capture_output=True,
                          text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    costs.write_text(made.stdout)
    assert json.loads(made.stdout) == {"openai/gpt-4o-mini": inspect_cost("openai/gpt-4o-mini")}
    env = {**inspect_env, "PYTHONPATH": os.pathsep.join([str(OVERLAY), inspect_env["PYTHONPATH"]]),
           "OPENAI_API_KEY": "sk-playbench-test"}
    with FakeServer(record=True) as server:
        done = subprocess.run([str(INSPECT), "eval", "playbench/balrog", "-T", "task=balrog/babyai/goto",
                               "-T", "episodes=1", "-T", "max_steps=20", "--model", "openai/gpt-4o-mini",
                               "--model-base-url", f"{server.url}/v1", "--log-dir", str(tmp_path / "logs"),
                               "--cost-limit", "0.0001", "--model-cost-config", str(costs)],
                              capture_output=True, text=True, env=env, timeout=300)
        sent = len(server.received)
    assert done.returncode == 0, done.stdout + done.stderr
    [info] = list_eval_logs(str(tmp_path / "logs"))
    [sample] = read_eval_log(info.name).samples or []
    assert sample.limit is not None and sample.limit.type == "cost"
    assert 0 < sent < 20  # stopped before the episode's 20 steps
