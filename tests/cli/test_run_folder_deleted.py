"""A run folder deleted while ``playbench eval`` writes it, seen from the command line: a real ``eval`` process
against a slow loopback FakeServer, the folder removed while it plays. The run stops saying why, not with a
reader's complaint about a folder that is not a run."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playbench.models.fakeserver import FakeServer


@pytest.mark.parametrize("quiet", [[], ["--quiet"]], ids=["report", "quiet"])
def test_eval_whose_run_folder_is_deleted_says_it_disappeared(tmp_path: Path, quiet: list[str]) -> None:
    log_dir = tmp_path / "runs"
    with FakeServer(latency=0.05) as srv:
        proc = subprocess.Popen(
            [sys.executable, "-m", "playbench.cli.main", "eval", "smartplay/hanoi-3", "--model", "openai/fake",
             "--base-url", srv.url, "--episodes", "40", "--max-episodes", "2", "-T", "max_steps=5",
             "--log-dir", str(log_dir), *quiet],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
        try:
            deadline = time.monotonic() + 60
            while not list(log_dir.glob("*/episodes.jsonl")) or srv.stats.requests < 6:  # playing, a record or two in
                assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
                time.sleep(0.02)
            (run,) = log_dir.iterdir()
            shutil.rmtree(run)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 1, err
    assert "not a playbench run" not in err and "Traceback" not in err
    assert f"the run folder {run} disappeared while the run was writing it (deleted or moved); the run stops here" \
        in err
    assert "continue with" not in err and "run written to" not in out  # nothing is left to resume
    assert srv.stats.requests < 40 * 5  # it stopped rather than playing on into a folder nobody will read
    assert not run.exists()
