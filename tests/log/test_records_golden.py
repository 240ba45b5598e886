"""Records stay byte-identical: fixed runs of a toy suite compared with the lines recorded before.

The runs play ``golden/walk`` (``tests/golden_suite``, loaded through ``PLAYBENCH_SUITES``), a game of no
benchmark, so a change to a benchmark's game (a metric added to Hanoi) moves no golden line: these lines
change only when the record format does. Its records fill every field (metrics of each JSON kind, an invalid
action, the requests of the mock model). ``tests/data/golden/walk-*.json`` was written by this module's
``__main__`` at the commit that added the toy suite, whose records of Hanoi were still byte-identical to
those of commit 86767ae (the code before ``playbench.log`` existed). Each file holds the run's
``episodes.jsonl`` lines and trajectory lines exactly as written, with only the volatile ``timing`` object
cut out of each line (it is the last field of both record kinds), so key order, float formatting and every
other byte are compared.

Since then steps live in compact shards (``playbench.log.shard``): a trajectory is read back through
``read_run`` and compared as the line the first layout held (``StepRecord.json_line()``), and an episode
line's ``trajectory`` (the name of where its steps live) is compared as the first layout's file name.

Regenerate (only when a record format change is intended):
``PYTHONPATH=src python tests/log/test_records_golden.py``
"""

import json
import os
import re
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import only_run_dir, run_cli  # noqa: E402
from playbench.log import read_run, trajectory_path  # noqa: E402

TESTS = Path(__file__).resolve().parents[1]
GOLDEN = TESTS / "data" / "golden"
#: the toy suite's module, importable from the tests folder
TOY = {"PYTHONPATH": os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH", "")) if p),
       "PLAYBENCH_SUITES": "golden_suite.tasks"}

#: name -> eval arguments (a fixed config: task, agent, model, episodes, seed)
CASES = {
    "walk-random": ["golden/walk", "--agent", "random", "--episodes", "3", "--seed", "0"],
    "walk-mock": ["golden/walk", "--model", "mock/demo", "--episodes", "3", "--seed", "0"],
}

# ``timing`` is each record's last field and holds only flat numbers and strings
_TIMING = re.compile(rb',"timing":\{[^{}]*\}\}$')


def _stable(line: bytes) -> str:
    cut, count = _TIMING.subn(b"}", line)
    assert count == 1, f"no trailing timing object in {line[-200:]!r}"
    return cut.decode()


def _first_layout_name(line: str) -> str:
    row = json.loads(line)
    now = json.dumps(row["trajectory"])
    assert line.count(f'"trajectory":{now}') == 1
    return line.replace(f'"trajectory":{now}', f'"trajectory":{json.dumps(trajectory_path(row["task"], row["index"]))}')


def stable_records(run_dir: Path) -> dict:
    """The run's lines without ``timing``: episodes sorted by (task, index) (workers finish in any order),
    and each episode's steps read back through ``read_run``."""
    lines = [ln for ln in (run_dir / "episodes.jsonl").read_bytes().split(b"\n") if ln]
    episodes = sorted((_first_layout_name(_stable(ln)) for ln in lines),
                      key=lambda s: (json.loads(s)["task"], json.loads(s)["index"]))
    log = read_run(run_dir)
    trajectories = {
        trajectory_path(rec.task, rec.index): [_stable(step.json_line()[:-1]) for step in log.iter_trajectory(rec)]
        for rec in log.episodes()
    }
    return {"episodes": episodes, "trajectories": trajectories}


def record_case(name: str, log_dir: Path) -> dict:
    """Run one case through the real command and return its stable records."""
    done = run_cli("eval", *CASES[name], "--quiet", "--log-dir", str(log_dir), env=TOY)
    assert done.returncode == 0, done.stderr
    return stable_records(only_run_dir(log_dir))


@pytest.mark.parametrize("name", sorted(CASES))
def test_records_match_the_recorded_expectation(name: str, tmp_path: Path) -> None:
    expected = json.loads((GOLDEN / f"{name}.json").read_text())
    got = record_case(name, tmp_path)
    assert len(got["episodes"]) == 3
    assert got["episodes"] == expected["episodes"]
    assert sorted(got["trajectories"]) == sorted(expected["trajectories"])
    for path, lines in expected["trajectories"].items():
        assert got["trajectories"][path] == lines, path


def test_only_timing_is_cut(tmp_path: Path) -> None:
    """The comparison keeps every byte but ``timing``: cutting it changes nothing else of a line."""
    done = run_cli("eval", *CASES["walk-mock"], "--quiet", "--log-dir", str(tmp_path), env=TOY)
    assert done.returncode == 0, done.stderr
    run_dir = only_run_dir(tmp_path)
    log = read_run(run_dir)
    lines = [ln for ln in (run_dir / "episodes.jsonl").read_bytes().split(b"\n") if ln]
    lines += [step.json_line()[:-1] for rec in log.episodes() for step in log.iter_trajectory(rec)]
    assert len(lines) > 3
    for line in lines:
        whole = json.loads(line)
        assert whole.pop("timing")  # every record carries its timing
        cut = _stable(line)
        assert json.loads(cut) == whole
        assert line.startswith(cut[:-1].encode())  # the bytes before timing are untouched


if __name__ == "__main__":
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            out = GOLDEN / f"{case}.json"
            out.write_text(json.dumps(record_case(case, Path(tmp)), indent=1) + "\n")
            print(f"wrote {out}")
