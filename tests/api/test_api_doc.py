"""docs/api.md's examples run as written (offline, mock model) and give what the page says they give."""

import ast
import asyncio
import contextlib
import inspect
import io
import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import only_run_dir, run_cli  # noqa: E402

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def _blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(), flags=re.S | re.M)


def test_the_page_has_examples() -> None:
    assert len(_blocks()) >= 4


def test_the_examples_run_and_give_what_the_page_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the examples write under ./runs
    namespace: dict = {"__name__": "api_doc"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in _blocks():
            # a block with a top-level await is a notebook cell: it runs inside a running event loop
            code = compile(block, str(DOC), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            if code.co_flags & inspect.CO_COROUTINE:
                asyncio.run(eval(code, namespace))  # noqa: S307  (our own documentation)
            else:
                exec(code, namespace)  # noqa: S102  (our own documentation)
    printed = out.getvalue()

    result = namespace["result"]
    assert result.path.parent == Path("runs") and result.path.is_dir()
    assert result.status_counts == {"ok": 2} and result.complete and result.stopped is None
    assert result.model_stats.calls == sum(r.steps for r in result.log.episodes()) > 0
    assert "{'ok': 2}" in printed

    log = namespace["log"]
    assert [(r.task, r.index) for r in log.episodes()] == [("smartplay/hanoi-3", 0), ("smartplay/hanoi-3", 1)]
    assert log.config.model == "mock/demo" and log.config.seed == 0
    assert all(len(log.read_trajectory(r)) == r.steps for r in log.episodes())

    assert namespace["again"].episodes == 0
    assert "--seed would change the results of a resumed run: recorded 0, given 7" in printed

    mine = namespace["mine"]
    assert mine.played == {"ok": 3} and {r.agent for r in mine.log.episodes()} == {"first-legal"}
    assert "{'ok': 3} first-legal" in printed

    oracle = namespace["oracle"]  # the notebook cell: eval_async ran, eval refused inside the loop
    assert oracle.played == {"ok": 2} and oracle.path.parent == Path("runs") and oracle.config.agent == "oracle"
    assert "{'ok': 2} runs" in printed and "use `await playbench.eval_async(...)`" in printed

    hook, counted = namespace["hook"], namespace["counted"]
    assert hook.plan == {"smartplay/rps-basic": (2, 0)}
    assert sorted(hook.episodes) == [0, 1] and hook.steps == counted.steps > 0


def test_the_library_writes_what_the_command_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same request through ``playbench.eval`` and ``playbench eval``: the same config and records."""
    import playbench

    monkeypatch.chdir(tmp_path)
    lib = playbench.eval(["smartplay/hanoi-3"], model="mock/demo", episodes=2, task_params={"compat": True},
                         model_params={"temperature": 0.5}, log_dir="lib")
    cli = run_cli("eval", "smartplay/hanoi-3", "--model", "mock/demo", "--episodes", "2", "-T", "compat=true",
                  "-M", "temperature=0.5", "--quiet", "--log-dir", str(tmp_path / "cli"))
    assert cli.returncode == 0, cli.stderr
    cli_log = playbench.read_run(only_run_dir(tmp_path / "cli"))
    assert lib.log.meta.config == cli_log.meta.config
    assert lib.log.meta.settings == cli_log.meta.settings

    def stable(log: playbench.RunLog) -> list[str]:
        return [json.dumps(r.model_dump(exclude={"timing"}), sort_keys=True) for r in log.episodes()]

    assert stable(lib.log) == stable(cli_log)


def test_library_errors_are_exceptions_and_nothing_is_created(tmp_path: Path) -> None:
    import playbench

    with pytest.raises(playbench.PlaybenchError, match="unknown option"):
        playbench.eval("smartplay/hanoi-3", log_dir=tmp_path, episode=3)  # type: ignore[call-arg]
    with pytest.raises(playbench.PlaybenchError, match="needs no model"):
        playbench.eval("smartplay/hanoi-3", agent="oracle", model="mock/demo", log_dir=tmp_path)
    with pytest.raises(playbench.PlaybenchError, match="--retry-errors goes with --resume"):
        playbench.eval("smartplay/hanoi-3", retry_errors=True, log_dir=tmp_path)
    assert not list(tmp_path.iterdir())


def test_import_playbench_stays_cheap() -> None:
    import subprocess

    code = "import sys, playbench; print(sorted(m for m in sys.modules if m.startswith('playbench')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # the gymnasium ids are registered on import (from a fixed list): no suite, runner or library module loads
    assert done.stdout.strip() == "['playbench', 'playbench.gymenvs']"
