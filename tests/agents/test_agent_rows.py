"""Agents are rows read by the registry: it imports no agent module, no import circle runs through it, every
row builds its agent, and a module named in ``PLAYBENCH_AGENTS`` (docs/adding-a-task.md's, as written) adds
rows the CLI plays."""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import grimp
import pytest

from helpers import only_run_dir, run_cli
from playbench.agents.registry import EXTRA_AGENTS_ENV, AgentSpec, get_agent, list_agents
from playbench.core.errors import PlaybenchError
from playbench.core.params import Params
from playbench.models import create_model

REGISTRY = "playbench.agents.registry"


def test_the_registry_imports_no_agent_module_when_it_lists_or_finds_agents() -> None:
    code = ("import sys\nfrom playbench.agents.registry import get_agent, list_agents\n"
            "names = [a.name for a in list_agents()]\nget_agent('naive'); get_agent('human')\n"
            "print(sorted(m for m in sys.modules if m.startswith('playbench.agents.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['playbench.agents.base',", "'playbench.agents.registry']"]


def test_no_import_circle_runs_through_the_registry() -> None:
    graph = grimp.build_graph("playbench", cache_dir=None)
    imported = graph.find_upstream_modules(REGISTRY)  # everything it imports, however indirectly, in any function
    assert REGISTRY not in imported
    assert {m for m in imported if m.startswith("playbench.agents.")} == {"playbench.agents.base"}


def test_every_row_builds_its_agent() -> None:
    model = create_model("mock/test")
    rows = list_agents()
    assert len({row.name for row in rows}) == len(rows) >= 12
    for row in rows:
        params = row.params({})
        assert isinstance(params, row.declaration()) and issubclass(row.declaration(), Params)
        agent = row.factory(params, model if row.needs_model else None)
        assert callable(agent.start) and callable(agent.act), row.name
        if row.reference:
            assert agent.policy == row.name  # type: ignore[attr-defined]


def test_rows_are_checked_when_used() -> None:
    with pytest.raises(PlaybenchError, match="unknown agent 'nave'; did you mean naive"):
        get_agent("nave")
    broken = AgentSpec("broken", "names no factory", "playbench.agents.reference:NoSuchThing")
    with pytest.raises(PlaybenchError, match="has no 'NoSuchThing'"):
        broken.factory(None, None)
    with pytest.raises(PlaybenchError, match="not a playbench.core.params.Params"):
        AgentSpec("broken", "", "playbench.agents.human:human_agent", "playbench.agents.human:HumanAgent").params({})


DOC = Path(__file__).resolve().parents[2] / "docs" / "adding-a-task.md"


def _example(name: str) -> str:
    """The ```python block that follows ``<!-- example: NAME -->`` in docs/adding-a-task.md."""
    found = re.search(rf"<!-- example: {re.escape(name)} -->\n```python\n(.*?)\n```", DOC.read_text(), re.S)
    assert found, f"{DOC.name} has no example {name}"
    return found.group(1)


def test_the_pages_agent_module_named_in_the_environment_adds_rows(tmp_path: Path) -> None:
    (tmp_path / "first_agent.py").write_text(_example("first_agent.py"))
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
           EXTRA_AGENTS_ENV: "first_agent"}
    assert "first-legal" in run_cli("eval", "--help", env=env).stdout
    done = run_cli("eval", "smartplay/hanoi-3", "--agent", "first-legal", "-A", "last=true", "--episodes", "1",
                   "--quiet", "--log-dir", str(tmp_path / "runs"), env=env)
    assert done.returncode == 0, done.stderr
    run = only_run_dir(tmp_path / "runs")
    record = json.loads((run / "episodes.jsonl").read_text().splitlines()[0])
    assert (record["agent"], record["status"]) == ("first-legal", "ok")
    assert json.loads((run / "run.json").read_text())["config"]["agent_params"] == {"last": True}
    refused = run_cli("eval", "smartplay/hanoi-3", "--agent", "first-legal", "--episodes", "1",
                      "--log-dir", str(tmp_path / "runs2"), env={EXTRA_AGENTS_ENV: "first_agent"})  # not importable
    assert refused.returncode == 2 and "PLAYBENCH_AGENTS: no module 'first_agent'" in refused.stderr


def test_a_name_is_declared_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "twice_agent.py").write_text(textwrap.dedent('''\
        from playbench.agents.registry import AgentSpec
        AGENTS = (AgentSpec("random", "another random", "twice_agent:nothing"),)
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(EXTRA_AGENTS_ENV, "twice_agent")
    with pytest.raises(PlaybenchError, match="agent 'random' is declared twice"):
        list_agents()
