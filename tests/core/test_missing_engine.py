"""A task whose engine cannot be imported is refused before the run exists: one line with the install
command, exit 2, no run directory, no episode recorded. The engine is hidden from a real ``playbench``
process by a package of the same name, earlier on its path, that raises ImportError."""

import json
import os
from pathlib import Path

import pytest

from helpers import only_run_dir, run_cli
from playbench.core.registry import get_task, list_tasks
from playbench.suites.engines import NETHACK_INSTALL

CRAFTER = "pip install 'playbench[crafter]'"
CASES = [
    ("balrog/minihack/mazewalk-9x9", "minihack", NETHACK_INSTALL),
    ("balrog/nle/nethackchallenge", "nle", NETHACK_INSTALL),
    ("smartplay/crafter", "crafter", CRAFTER),
    ("balrog/crafter/default", "crafter", CRAFTER),
    ("balrog/textworld/coin_collector", "textworld", "pip install 'playbench[textworld]'"),
    ("balrog/babyai/goto", "minigrid", "pip install 'playbench[babyai]'"),
]


def hiding(tmp_path: Path, module: str) -> dict[str, str]:
    """The environment of a process in which ``module`` cannot be imported."""
    shadow = tmp_path / "shadow" / module
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(f"raise ImportError('simulated: {module} is not installed')\n")
    return {"PYTHONPATH": os.pathsep.join([str(shadow.parent), os.environ.get("PYTHONPATH", "")])}


@pytest.mark.parametrize(("task_id", "module", "install"), CASES)
def test_a_missing_engine_is_refused_before_the_run(tmp_path: Path, task_id: str, module: str, install: str) -> None:
    logs = tmp_path / "runs"
    res = run_cli("eval", task_id, "--episodes", "1", "--log-dir", str(logs), env=hiding(tmp_path, module))
    assert res.returncode == 2, res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith(f"error: {task_id} needs ") and line.endswith(f"install it with: {install}"), line
    assert f"simulated: {module} is not installed" in line
    assert not logs.exists() or not any(logs.iterdir())


def test_a_group_with_a_missing_engine_is_refused(tmp_path: Path) -> None:
    """``quickstart`` after a plain ``pip install 'playbench[all]'`` (no MiniHack): refused, with the command."""
    res = run_cli("eval", "quickstart", "--log-dir", str(tmp_path / "runs"), env=hiding(tmp_path, "minihack"))
    assert res.returncode == 2 and NETHACK_INSTALL in res.stderr, res.stderr
    assert not (tmp_path / "runs").exists()


def test_resuming_without_the_engine_is_refused_and_records_nothing(tmp_path: Path) -> None:
    logs = tmp_path / "runs"
    assert run_cli("eval", "smartplay/crafter", "--episodes", "2", "-T", "max_steps=5", "--quiet",
                   "--log-dir", str(logs)).returncode == 0
    run = only_run_dir(logs)
    episodes = run / "episodes.jsonl"
    episodes.write_text(episodes.read_text().splitlines(keepends=True)[0])
    before = {p.name: p.read_bytes() for p in (episodes, run / "run.json")}
    res = run_cli("eval", "--resume", str(run), env=hiding(tmp_path, "crafter"))
    assert res.returncode == 2 and CRAFTER in res.stderr, res.stderr
    assert {p.name: p.read_bytes() for p in (episodes, run / "run.json")} == before
    assert [json.loads(x)["status"] for x in episodes.read_text().splitlines()] == ["ok"]


def test_tasks_that_need_an_engine_declare_it() -> None:
    engines = {t.id: t.engine.modules for t in list_tasks() if t.engine is not None}
    assert all(engines.get(task_id) and module in " ".join(engines[task_id]) for task_id, module, _ in CASES)
    needing = {t.id for t in list_tasks() if t.suite == "balrog" and t.id.split("/")[1] in
               ("babyai", "textworld", "crafter", "minihack", "nle")} | {"smartplay/crafter"}
    assert needing <= set(engines)
    assert get_task("mango/df").engine is None and get_task("smartplay/hanoi-3").engine is None
