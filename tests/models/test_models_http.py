"""Real HTTP against a loopback server (OpenAI, Anthropic, Gemini formats) and real `playbench eval` processes."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from helpers import stable_trajectories
from playbench.cli.eval_cmd import command as eval_command
from playbench.log import read_run
from playbench.log.store import RunStore
from playbench.models.fakeserver import FakeServer
from playbench.report.build import build_report

PLAYBENCH = str(Path(sys.executable).parent / "playbench")
PLANTED = "sk-planted-7f3a9c1e5b2d4680"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(extra)
    return env


def eval_cmd(*args: str, env: dict[str, str] | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([PLAYBENCH, "eval", *args], capture_output=True, text=True, env=env or _env(),
                          timeout=timeout)


def run_dir_of(log_dir: Path) -> Path:
    runs = [p for p in log_dir.iterdir() if (p / "run.json").exists()]
    assert len(runs) == 1, runs
    return runs[0]


def report_of(run: Path) -> dict:
    return build_report(RunStore.open(run))


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    """``playbench eval`` in this process (fast); the loopback server runs in its own thread."""
    return CliRunner().invoke(eval_command, list(args), env=env, catch_exceptions=False)


def episodes_of(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines() if line.strip()]


def steps_of(run: Path) -> list[dict]:
    log = read_run(run)
    return [json.loads(step.json_line()) for record in log.episodes() for step in log.iter_trajectory(record)]


PROVIDERS = [("openai", "/v1"), ("anthropic", ""), ("google", "")]


@pytest.mark.parametrize("provider,suffix", PROVIDERS)
def test_faults_are_retried_and_counted_exactly(tmp_path: Path, provider: str, suffix: str) -> None:
    faults = {"429": 0.08, "500": 0.08, "malformed": 0.06, "empty": 0.04, "drop": 0.06, "slow": 0.03}
    with FakeServer(faults=faults, unusable_rate=0.15, seed=7, retry_after="0.05", slow_seconds=3.0) as srv:
        proc = invoke("smartplay/hanoi-3", "--model", f"{provider}/fake-1", "--base-url", srv.url + suffix,
                      "--episodes", "6", "--max-connections", "4", "--max-retries", "12", "--timeout", "0.6",
                      "--retry-backoff", "0.01", "--log-dir", str(tmp_path), "--quiet")
        stats = srv.stats
    assert proc.exit_code == 0, proc.output
    run = run_dir_of(tmp_path)
    episodes = episodes_of(run)
    assert len(episodes) == 6 and all(e["status"] == "ok" for e in episodes)
    steps = steps_of(run)
    usage = report_of(run)["tasks"]["smartplay/hanoi-3"]["usage"]
    fault_total = sum(stats.faults.values())
    assert fault_total > 0 and set(stats.faults) >= {"429", "500", "malformed", "drop"}
    assert stats.requests == usage["attempts"] == stats.answers + fault_total
    assert usage["calls"] == stats.answers == len(steps) == sum(e["steps"] for e in episodes)
    assert stats.formats == {"gemini" if provider == "google" else provider: stats.answers}
    invalid = sum(e["invalid_actions"] for e in episodes)
    assert stats.unusable > 0 and invalid == stats.unusable
    assert invalid == sum(1 for s in steps if not s["valid"])
    assert all(s["executed"] == "Move the top disk of rod A to the top of rod B" for s in steps if not s["valid"])
    assert sum(s["usage"]["attempts"] for s in steps) == stats.requests


def test_server_down_gives_infra_errors_then_resume_completes(tmp_path: Path) -> None:
    with FakeServer(down=True) as srv:
        proc = eval_cmd("smartplay/bandit-highlow", "--model", "openai/fake", "--base-url", srv.url + "/v1",
                        "--episodes", "3", "-T", "max_steps=5", "--max-retries", "2", "--retry-backoff", "0.01",
                        "--log-dir", str(tmp_path), "--quiet")
        assert srv.stats.requests == 3 * 3  # every episode: 1 try + 2 retries, then infra-error
    assert proc.returncode == 1
    run = run_dir_of(tmp_path)
    assert f"--resume {run}" in proc.stderr
    episodes = episodes_of(run)
    assert [e["status"] for e in episodes] == ["infra-error"] * 3
    assert all(e["invalid_actions"] == 0 and e["score"] is None and "3 attempts" in e["error"] for e in episodes)
    report = report_of(run)["tasks"]["smartplay/bandit-highlow"]
    assert report["status"]["infra-error"] == 3 and report["score"]["n"] == 0
    with FakeServer() as healthy:
        again = eval_cmd("--resume", str(run), "--base-url", healthy.url + "/v1", "--quiet")
        assert healthy.stats.answers == 3 * 5
    assert again.returncode == 0, again.stderr
    report = report_of(run)["tasks"]["smartplay/bandit-highlow"]
    assert report["status"]["ok"] == 3 and sum(report["status"].values()) == 3
    assert report["steps"] == 15


def _strip(records: list[dict]) -> list[dict]:
    return sorted(({k: v for k, v in r.items() if k != "timing"} for r in records),
                  key=lambda r: (r.get("task", ""), r.get("index", r.get("step", 0))))


def test_kill_9_then_resume_matches_uninterrupted_run(tmp_path: Path) -> None:
    args = ["smartplay/hanoi-3", "smartplay/rps-basic", "--model", "openai/fake", "--episodes", "4", "-T", "max_steps=12",
            "--max-connections", "2", "--quiet"]
    with FakeServer(latency=0.03) as srv:
        base = ["--base-url", srv.url + "/v1"]
        full = eval_cmd(*args, *base, "--log-dir", str(tmp_path / "full"))
        assert full.returncode == 0, full.stderr
        log = tmp_path / "killed"
        proc = subprocess.Popen([PLAYBENCH, "eval", *args, *base, "--log-dir", str(log)], env=_env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline:
            files = list(log.glob("*/episodes.jsonl"))
            if files and len(files[0].read_text().splitlines()) >= 2:
                break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        killed = run_dir_of(log)
        assert 2 <= len(episodes_of(killed)) < 8
        resumed = eval_cmd("--resume", str(killed), *base)
        assert resumed.returncode == 0, resumed.stderr
    full_run = run_dir_of(tmp_path / "full")
    assert _strip(episodes_of(killed)) == _strip(episodes_of(full_run))
    assert len(episodes_of(killed)) == 8
    assert stable_trajectories(killed) == stable_trajectories(full_run)


def test_api_key_never_written(tmp_path: Path) -> None:
    env = _env(OPENAI_API_KEY=PLANTED, ANTHROPIC_API_KEY=PLANTED + "-a")
    with FakeServer() as srv:
        ok = eval_cmd("smartplay/bandit-highlow", "--model", "openai/fake", "--base-url", srv.url + "/v1",
                      "--episodes", "2", "-T", "max_steps=3", "--log-dir", str(tmp_path / "ok"), env=env)
        assert ok.returncode == 0, ok.stderr
        assert srv.stats.auth[f"Bearer {PLANTED}"] == 6  # the key did travel, in the header only
    with FakeServer(reject_auth=True) as srv:
        bad = eval_cmd("smartplay/bandit-highlow", "--model", "openai/fake", "--base-url", srv.url + "/v1",
                       "--episodes", "2", "-T", "max_steps=3", "--log-dir", str(tmp_path / "bad"), env=env)
        assert srv.stats.faults["auth"] == 2  # a 401 is not retried
    with FakeServer(reject_auth=True) as srv:
        anth = invoke("smartplay/bandit-highlow", "--model", "anthropic/fake", "--base-url", srv.url,
                      "--episodes", "1", "-T", "max_steps=3", "--log-dir", str(tmp_path / "anth"), env=env)
        assert srv.stats.auth[PLANTED + "-a"] == 1
    assert bad.returncode == 1 and anth.exit_code == 1
    errors = [e["error"] for e in episodes_of(run_dir_of(tmp_path / "bad"))]
    assert all("HTTP 401" in e and "***" in e for e in errors)
    for out in (ok, bad):
        assert PLANTED not in out.stdout + out.stderr
    assert PLANTED not in anth.output
    hits = [p for p in tmp_path.rglob("*") if p.is_file() and PLANTED.encode() in p.read_bytes()]
    assert hits == []


def test_cache_answers_repeat_runs_without_requests(tmp_path: Path) -> None:
    env = _env(PLAYBENCH_CACHE_DIR=str(tmp_path / "cache"))
    args = ["smartplay/hanoi-3", "--model", "openai/fake", "--episodes", "2", "-T", "max_steps=6", "--cache",
            "-M", "temperature=0", "--quiet"]
    with FakeServer() as srv:
        first = invoke(*args, "--base-url", srv.url + "/v1", "--log-dir", str(tmp_path / "a"), env=env)
        sent = srv.stats.requests
        second = invoke(*args, "--base-url", srv.url + "/v1", "--log-dir", str(tmp_path / "b"), env=env)
        assert srv.stats.requests == sent > 0
    assert first.exit_code == 0 and second.exit_code == 0, second.output
    a, b = run_dir_of(tmp_path / "a"), run_dir_of(tmp_path / "b")
    assert [e["score"] for e in episodes_of(a)] == [e["score"] for e in episodes_of(b)]
    usage = report_of(b)["tasks"]["smartplay/hanoi-3"]["usage"]
    assert usage["cache_hits"] == usage["calls"] == 12 and usage["attempts"] == 0
    assert json.loads((b / "run.json").read_text())["config"]["model_params"] == {"temperature": "0"}
