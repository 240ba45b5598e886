"""docs/adding-a-task.md, as written: its example modules register a SmartPlay variant and a new suite that
``playbench list``, ``eval`` (a real run) and ``report`` see, each in a fresh process."""

import json
import os
import re
from pathlib import Path

import pytest

from helpers import only_run_dir, run_cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "adding-a-task.md"


def _example(name: str) -> str:
    """The ```python block that follows ``<!-- example: NAME -->`` in the page."""
    found = re.search(rf"<!-- example: {re.escape(name)} -->\n```python\n(.*?)\n```", DOC.read_text(), re.S)
    assert found, f"{DOC.name} has no example {name}"
    return found.group(1) + "\n"


@pytest.fixture
def modules(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The page's example modules written to a temporary folder, and an environment that imports them."""
    for name in ("my_hanoi.py", "coin_suite.py"):
        (tmp_path / name).write_text(_example(name))
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH", "")) if p)
    return tmp_path, {"PYTHONPATH": path, "PLAYBENCH_SUITES": "my_hanoi,coin_suite"}


def _ok(proc) -> str:  # noqa: ANN001
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_variant_from_a_module_is_listed_run_and_reported(modules: tuple[Path, dict[str, str]]) -> None:
    tmp, env = modules
    listed = {row["id"]: row for row in json.loads(_ok(run_cli("list", "--json", env=env)))}
    assert listed["smartplay/hanoi-6"]["aliases"] == ["Hanoi6Disk-v0", "Hanoi6Disk"]
    assert listed["smartplay/hanoi-6"]["episodes"] == 10
    assert "smartplay/hanoi-6" not in listed["smartplay/benchmark-v0"]["group"]

    _ok(run_cli("eval", "Hanoi6Disk", "--agent", "random", "--episodes", "1", "--quiet",
                "--log-dir", str(tmp / "runs"), env=env))
    run = only_run_dir(tmp / "runs")
    (record,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert (record["task"], record["status"], record["steps"]) == ("smartplay/hanoi-6", "ok", 30)

    report = json.loads(_ok(run_cli("report", str(run), "--json", env=env)))
    normalized = report["tasks"]["smartplay/hanoi-6"]["normalized"]
    assert (normalized["value"], normalized["kind"]) == (record["score"] / 6, "range")
    assert report["smartplay"]["normalization"] == {"smartplay/hanoi-6": "range"}

    # without the module the task is unknown to a new process: nothing else holds its facts
    del env["PLAYBENCH_SUITES"]
    assert json.loads(_ok(run_cli("report", str(run), "--json", env=env)))["tasks"]["smartplay/hanoi-6"][
        "normalized"] is None


def test_a_new_suite_from_a_module_is_listed_run_and_reported(modules: tuple[Path, dict[str, str]]) -> None:
    tmp, env = modules
    listed = _ok(run_cli("list", env=env))
    assert re.search(r"^coin/five  \(4 episodes\)", listed, re.M)
    assert re.search(r"^coin/all  \(group of 1 tasks\)", listed, re.M)

    _ok(run_cli("eval", "coin/all", "--agent", "random", "--episodes", "1", "--quiet",
                "--log-dir", str(tmp / "runs"), env=env))
    run = only_run_dir(tmp / "runs")
    (record,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert (record["task"], record["status"], record["steps"]) == ("coin/five", "ok", 5)
    assert 0 <= record["score"] <= 5

    report = json.loads(_ok(run_cli("report", str(run), "--json", env=env)))
    assert report["tasks"]["coin/five"]["score"]["mean"] == record["score"]


def test_an_unknown_suite_module_is_a_one_line_error(tmp_path: Path) -> None:
    proc = run_cli("list", env={"PLAYBENCH_SUITES": "no_such_suite_module"})
    assert proc.returncode == 2
    assert "PLAYBENCH_SUITES: no module 'no_such_suite_module'" in proc.stderr
