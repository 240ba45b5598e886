"""Kill -9 at random moments of a run against a faulty server, with two resumers racing each time: no
episode is lost or duplicated, and the final records equal an uninterrupted run's."""

import json
import os
import random
import subprocess
import time
from pathlib import Path
from typing import Any

from helpers import PLAYBENCH, only_run_dir, run_cli, stable_trajectories, wait_for_episodes
from playbench.models.fakeserver import FakeServer

ENV = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
FAULTS = {"500": 0.1, "drop": 0.05, "malformed": 0.05}
#: how many requests an answer took depends on the faults drawn, not on the episode: compared apart
ATTEMPT_KEYS = ("attempts", "requests", "cost_micro_usd")


def _args(url: str) -> list[str]:
    return ["eval", "smartplay/hanoi-3", "smartplay/bandit-lowlow", "--model", "openai/fake", "--episodes", "10",
            "-T", "max_steps=6", "--seed", "4", "--retry-backoff", "0", "--max-retries", "20", "--max-connections", "4",
            "--base-url", url, "--quiet"]


def _comparable(run: Path) -> tuple[list[str], dict[str, Any]]:
    rows = [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines() if x.strip()]
    latest = {(r["task"], r["index"]): r for r in rows}
    lines = []
    for row in sorted(latest.values(), key=lambda r: (r["task"], r["index"])):
        row.pop("timing")
        row["usage"] = {k: v for k, v in row["usage"].items() if k not in ATTEMPT_KEYS}
        lines.append(json.dumps(row, sort_keys=True))
    trajectories = stable_trajectories(run)  # read back through playbench.log, as the first layout's lines
    for steps in trajectories.values():
        for step in steps:
            step["usage"] = {k: v for k, v in (step.get("usage") or {}).items() if k not in ATTEMPT_KEYS}
    return lines, trajectories


def _start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen([*PLAYBENCH, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **ENV})


def test_random_kills_with_racing_resumers_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    rng = random.Random(7)
    with FakeServer(latency=0.02, faults=FAULTS, seed=3) as server:
        reference = run_cli(*_args(server.url), "--log-dir", str(tmp_path / "ref"), env=ENV)
        assert reference.returncode == 0, reference.stderr
        expected = _comparable(only_run_dir(tmp_path / "ref"))

        log = tmp_path / "killed"
        proc = _start([*_args(server.url), "--log-dir", str(log)])
        run = wait_for_episodes(log, 1)
        time.sleep(rng.uniform(0.0, 1.0))
        proc.kill()
        proc.wait()
        for _ in range(3):
            racers = [_start(["eval", "--resume", str(run), "--base-url", server.url, "--quiet"]) for _ in range(2)]
            time.sleep(rng.uniform(0.3, 1.5))
            finished = [r for r in racers if r.poll() is not None]
            refused = [r for r in finished if r.returncode == 2]
            for r in refused:
                assert "is being written by" in r.communicate()[1]
            assert len(refused) <= 1
            for r in racers:
                if r.poll() is None:
                    r.kill()
                r.wait()
        final = run_cli("eval", "--resume", str(run), "--base-url", server.url, "--quiet", env=ENV)
        assert final.returncode == 0, final.stderr

    rows = [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines() if x.strip()]
    keys = [(r["task"], r["index"]) for r in rows if r["status"] == "ok"]
    assert len(keys) == len(set(keys)) == 20  # every episode once
    assert _comparable(run) == expected
