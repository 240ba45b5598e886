"""``inspect eval playbench/... --model openai/... --model-base-url ...`` against an OpenAI-compatible server on
loopback, in the Inspect environment docs/inspect.md has users build: the [inspect] extra's openai (>=3.4, which
Inspect's OpenAI providers require and verifiers' pin keeps out of the test environment) in front, as
scripts/setup.sh installs it in ``.venv/inspect-openai``."""

import json
import os
import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

from inspect_ai.log import list_eval_logs, read_eval_log, resolve_sample_attachments
from packaging.requirements import Requirement

from playbench.inspect.events import episode_record
from playbench.inspect.messages import message_dicts
from playbench.models.fakeserver import FakeServer

INSPECT = Path(sys.executable).with_name("inspect")
OVERLAY = Path(sys.prefix) / "inspect-openai"
KEY = "sk-playbench-test-key-0123456789"


def _openai_version(env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", "import openai; print(openai.__version__)"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_inspects_openai_provider_plays_a_task_against_a_loopback_server(inspect_env: dict[str, str],
                                                                         tmp_path: Path) -> None:
    assert (OVERLAY / "openai").is_dir(), f"{OVERLAY} is missing: scripts/setup.sh installs it (the test extra)"
    env = {**inspect_env, "PYTHONPATH": os.pathsep.join([str(OVERLAY), inspect_env["PYTHONPATH"]]),
           "OPENAI_API_KEY": KEY}
    [extra] = [Requirement(r) for r in requires("playbench") or []
               if Requirement(r).name == "openai" and "inspect" in str(Requirement(r).marker)]
    assert extra.specifier.contains(_openai_version(env))  # the environment the [inspect] extra makes
    logs = tmp_path / "logs"
    with FakeServer(record=True) as server:
        done = subprocess.run([str(INSPECT), "eval", "playbench/balrog", "-T", "task=balrog/babyai/goto",
                               "-T", "episodes=1", "-T", "max_steps=3", "--model", "openai/gpt-4o-mini",
                               "--model-base-url", f"{server.url}/v1", "--log-dir", str(logs)],
                              capture_output=True, text=True, env=env, timeout=300)
        received = list(server.received)
    assert done.returncode == 0, done.stdout + done.stderr
    [info] = list_eval_logs(str(logs))
    log = read_eval_log(info.name)
    assert log.status == "success" and log.samples is not None
    sample = resolve_sample_attachments(log.samples[0])
    assert sample.error is None
    record = episode_record(sample.events)
    assert record is not None and record.status == "ok" and record.steps == 3
    # every request the transcript shows is the one the server got, in order, by Inspect's OpenAI client
    calls = [e for e in sample.events if e.event == "model"]
    assert [path for path, _ in received] == ["/v1/chat/completions"] * len(calls) and len(calls) == 3
    sent = [[{"role": m["role"], "content": m["content"]} for m in body["messages"]] for _, body in received]
    assert sent == [message_dicts(e.input) for e in calls]
    assert all(body["model"] == "gpt-4o-mini" for _, body in received)
    usage = sample.model_usage["openai/gpt-4o-mini"]
    assert usage.input_tokens > 0 and usage.output_tokens > 0  # the server's counts
    assert KEY not in json.dumps(log.model_dump(mode="json"))  # the key is never written to the log
