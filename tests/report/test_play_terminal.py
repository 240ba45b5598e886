"""A person plays Hanoi-3 through a pseudo-terminal; the result is a run that report reads."""

import json
import sys

import pexpect

from helpers import only_run_dir, run_cli

SOLUTION = ["2", "1", "6", "2", "3", "4", "2"]  # A→C, A→B, C→B, A→C, B→A, B→C, A→C


def test_play_hanoi_in_a_pty(tmp_path):
    child = pexpect.spawn(sys.executable, ["-m", "playbench.cli.main", "play", "smartplay/hanoi-3", "--log-dir",
                                           str(tmp_path)], encoding="utf-8", timeout=60, dimensions=(50, 200))
    child.expect("--- manual ---")
    child.expect("List of all actions:")
    child.expect("action> ")
    child.sendline("seven")  # not an action: asked again, not a move
    child.expect("not an action")
    for i, choice in enumerate(SOLUTION):
        if i:
            child.expect("action> ")
        child.sendline(choice)
    child.expect("run written to")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    run_dir = only_run_dir(tmp_path)
    rep = json.loads(run_cli("report", str(run_dir), "--json").stdout)
    entry = rep["tasks"]["smartplay/hanoi-3"]
    assert entry["completion"]["mean"] == 1.0 and entry["score"]["mean"] == 3 and entry["steps"] == 7
    assert rep["run"]["agent"] == "human"
