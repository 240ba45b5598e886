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


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_every_game_keeps_its_rows_step_limit(task: Task) -> None:
    """The row's ``max_steps`` is the task's and its games' (None: the row has no step limit); ``-T max_steps``
    plays another."""
    limit = task.facts.max_steps if isinstance(task.facts, BalrogTask | SmartPlayTask) else None
    assert task.max_steps == limit
    game = task.make_game(task.params(KWARGS.get(task.id, {})), 0)  # built, not reset: no engine starts
    try:
        assert game.max_steps == limit
        if task.engine in (None, CRAFTER, BABYAI) and limit is not None:  # cheap to reset: the limit it plays
            game.reset(seed=0)
            assert game.max_steps == limit
    finally:
        game.close()
    if limit is not None:
        other = task.make_game(task.params({**KWARGS.get(task.id, {}), "max_steps": str(limit + 1)}), 0)
        assert other.max_steps == limit + 1
        other.close()


def _doc_row(suite: str) -> str:
    """The row line that follows ``<!-- row: SUITE -->`` in docs/adding-a-task.md."""
    found = re.search(rf"<!-- row: {suite} -->\n```python\n(.*?)\n```", DOC.read_text(), re.S)
    assert found, f"{DOC.name} has no row example for {suite}"
    return found.group(1)


def _add_doc_rows(package: Path) -> None:
    """End the SmartPlay and BALROG tables of ``package`` with the page's example rows, as a contributor
    does (a row the table already holds is not added again)."""
    for suite in ("smartplay", "balrog"):
        facts = package / "suites" / suite / "facts.py"
        text, row = facts.read_text(), _doc_row(suite)
        if row in text:
            continue
        start = text.index("\nTASKS: tuple[")
        end = text.index("\n)\n", start)  # the table's closing parenthesis
        facts.write_text(text[:end] + "\n" + row + text[end:])


def _importing(folder: Path) -> dict[str, str]:
    """An environment whose processes import playbench from ``folder``."""
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH", "")) if p)}


@pytest.fixture(scope="module")
def with_rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A copy of the package whose SmartPlay and BALROG tables end with the page's example rows, and an
    environment that imports it."""
    root = tmp_path_factory.mktemp("rows")
    shutil.copytree(REPO / "src" / "playbench", root / "playbench", ignore=shutil.ignore_patterns("__pycache__"))
    _add_doc_rows(root / "playbench")
    return _importing(root)


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


def test_the_pages_tests_pass_in_a_tree_with_its_rows(tmp_path: Path) -> None:
    """A contributor who adds exactly the page's rows to the tables still passes the page's tests (this file's
    and test_adding_a_task.py's): its examples and the rows do not collide."""
    tree = tmp_path / "tree"
    for part in ("src", "tests", "docs"):
        shutil.copytree(REPO / part, tree / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(REPO / "pyproject.toml", tree / "pyproject.toml")
    _add_doc_rows(tree / "src" / "playbench")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k",
                           "new_row or new_balrog_row or new_rows or from_a_module or unknown_suite",
                           "tests/core/test_rows.py", "tests/core/test_adding_a_task.py"],
                          capture_output=True, text=True, timeout=600, cwd=tree, env={**os.environ,
                                                                                      **_importing(tree / "src")})
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert re.search(r"\b6 passed\b", proc.stdout), proc.stdout[-1000:]
