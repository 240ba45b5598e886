"""A task variant is one row: games are handed their row, and a row added to a facts table (as
docs/adding-a-task.md shows) gets its step limit, its gymnasium id and passes the facts tests, with no other
change. The tests walk the registry, not a list."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import only_run_dir, run_cli
from playbench.core.registry import list_tasks
from playbench.core.task import Task
from playbench.suites.balrog.facts import BalrogTask
from playbench.suites.engines import BABYAI, CRAFTER
from playbench.suites.smartplay.facts import SmartPlayTask

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "adding-a-task.md"
TASKS = list_tasks()
# TextWorld's games are files made on first use: one game is enough to build a task's game (it is not made here)
KWARGS = {t.id: {"games": 1} for t in TASKS if t.id.startswith("balrog/textworld/")}


def _row_limit(row: object) -> int | None:
    """The step limit a row declares, in its own suite's terms (None: the row has none)."""
    if isinstance(row, BalrogTask):
        return row.step_limit
    if isinstance(row, SmartPlayTask):
        return row.steps
    return None


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_every_game_keeps_its_rows_step_limit(task: Task) -> None:
    limit = _row_limit(task.facts)
    assert task.step_limit == limit
    game = task.make_game(task.params(KWARGS.get(task.id, {})), 0)  # built, not reset: no engine starts
    try:
        assert game.step_limit == limit
        if task.engine in (None, CRAFTER, BABYAI) and limit is not None:  # cheap to reset: the limit it plays
            game.reset(seed=0)
            assert game.max_steps == limit
    finally:
        game.close()


def _doc_row(suite: str) -> str:
    """The row line that follows ``<!-- row: SUITE -->`` in docs/adding-a-task.md."""
    found = re.search(rf"<!-- row: {suite} -->\n```python\n(.*?)\n```", DOC.read_text(), re.S)
    assert found, f"{DOC.name} has no row example for {suite}"
    return found.group(1)


@pytest.fixture(scope="module")
def with_rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A copy of the package whose SmartPlay and BALROG tables end with the page's example rows, and an
    environment that imports it."""
    root = tmp_path_factory.mktemp("rows")
    shutil.copytree(REPO / "src" / "playbench", root / "playbench", ignore=shutil.ignore_patterns("__pycache__"))
    for suite in ("smartplay", "balrog"):
        facts = root / "playbench" / "suites" / suite / "facts.py"
        text = facts.read_text()
        start = text.index("\nTASKS: tuple[")
        end = text.index("\n)\n", start)  # the table's closing parenthesis
        facts.write_text(text[:end] + "\n" + _doc_row(suite) + text[end:])
    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path}


def _python(code: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_new_row_has_its_gymnasium_id(with_rows: dict[str, str]) -> None:
    out = _python(
        "import gymnasium, playbench\n"
        "spec = gymnasium.registry['playbench/smartplay.hanoi-5-v0']\n"
        "env = gymnasium.make('playbench/smartplay.hanoi-5-v0')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(spec.max_episode_steps, gymnasium.registry['playbench/balrog.crafter.short-v0'].max_episode_steps,"
        " env.unwrapped.max_steps, obs.splitlines()[1].replace(' ', ''))\n", with_rows)
    assert out.split() == ["30", "300", "30", "-A:|bottom,[4,3,2,1,0],top|"]  # five disks on rod A


def test_a_new_balrog_row_on_an_existing_engine_plays_its_own_step_limit(with_rows: dict[str, str],
                                                                        tmp_path: Path) -> None:
    proc = run_cli("eval", "balrog/crafter/short", "--agent", "random", "--episodes", "1", "--quiet",
                   "--log-dir", str(tmp_path), env=with_rows)
    assert proc.returncode == 0, proc.stderr
    (record,) = [json.loads(line) for line in (only_run_dir(tmp_path) / "episodes.jsonl").read_text().splitlines()]
    assert (record["task"], record["status"]) == ("balrog/crafter/short", "ok")
    assert record["steps"] <= 300 and record["instance"]["max_steps"] == 300


def test_the_facts_tests_pass_with_the_new_rows(with_rows: dict[str, str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider",
                           "tests/core/test_suite_facts.py"], capture_output=True, text=True, timeout=600,
                          cwd=REPO, env={**os.environ, **with_rows})
    assert proc.returncode == 0, proc.stdout[-3000:]
    for task_id in ("smartplay/hanoi-5", "balrog/crafter/short"):  # the rows' own facts checks ran too
        assert f"test_every_task_has_its_suites_facts[{task_id}] PASSED" in proc.stdout
