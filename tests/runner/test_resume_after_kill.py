"""A real ``playbench eval`` killed with SIGKILL mid-run resumes to the same records."""

import json
import os
import signal
import subprocess
import time

import playbench
from helpers import PLAYBENCH, only_run_dir, run_cli, stable_lines, stable_trajectories

ARGS = ["smartplay/hanoi-3", "smartplay/rps-basic", "--agent", "random", "--episodes", "1500", "--seed", "3", "--quiet"]


def test_sigkill_then_resume_equals_uninterrupted(tmp_path):
    ref_log = tmp_path / "ref"
    assert run_cli("eval", *ARGS, "--log-dir", str(ref_log)).returncode == 0
    reference = only_run_dir(ref_log)

    log = tmp_path / "killed"
    proc = subprocess.Popen([*PLAYBENCH, "eval", *ARGS, "--log-dir", str(log)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    episodes = None
    while time.time() < deadline:
        runs = list(log.glob("*/episodes.jsonl")) if log.exists() else []
        if runs and runs[0].read_bytes().count(b"\n") >= 50:
            episodes = runs[0]
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert episodes is not None, "the run never got going"
    done_before = episodes.read_bytes().count(b"\n")
    assert done_before < 3000, "the run finished before it was killed"
    # simulate the worst moment: a torn, half-written last line
    with open(episodes, "ab") as fh:
        fh.write(b'{"task": "smartplay/hanoi-3", "ind')
    run_dir = only_run_dir(log)

    res = run_cli("eval", "--resume", str(run_dir), "--quiet")
    assert res.returncode == 0, res.stderr
    assert stable_lines(run_dir) == stable_lines(reference)
    assert stable_trajectories(run_dir) == stable_trajectories(reference)
    lines = (run_dir / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 3000 and all(json.loads(x) for x in lines)
    checked = playbench.verify(run_dir)  # the resumed run re-plays to its records through fresh engines
    assert (checked.verified, checked.differing, checked.not_verifiable) == (3000, 0, 0)


SMALL = ["smartplay/hanoi-3", "--agent", "random", "--episodes", "4", "--seed", "3", "--quiet"]


def test_resume_refuses_a_different_config(tmp_path):
    assert run_cli("eval", *SMALL, "--log-dir", str(tmp_path)).returncode == 0
    run_dir = only_run_dir(tmp_path)
    before = (run_dir / "episodes.jsonl").read_bytes()
    res = run_cli("eval", "smartplay/hanoi-3", "--agent", "oracle", "--resume", str(run_dir))
    assert res.returncode == 2
    assert "--agent would change the results" in res.stderr and "Traceback" not in res.stderr
    assert (run_dir / "episodes.jsonl").read_bytes() == before
    # the same arguments are accepted and there is nothing left to do
    res = run_cli("eval", *SMALL, "--resume", str(run_dir))
    assert res.returncode == 0, res.stderr
    assert (run_dir / "episodes.jsonl").read_bytes() == before
