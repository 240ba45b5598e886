"""A suite's folder formats and commands are declared rows (``Suite.formats``, ``Suite.commands``): the command
line and the library reach them by name only. The suite declared outside playbench (``tests/outside_suite``,
through ``PLAYBENCH_SUITES``) brings a folder format that export writes, report reads and verify re-plays, and a
command of its own."""

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from helpers import only_run_dir, run_cli
from playbench.cli import main
from playbench.core import registry
from playbench.core.errors import PlaybenchError
from playbench.core.suite import Command, Suite, load_hook

TESTS = Path(__file__).resolve().parents[1]
OUTSIDE = {"PYTHONPATH": os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH", "")) if p),
           "PLAYBENCH_SUITES": "outside_suite.tasks"}


def test_each_suite_command_row_says_its_commands_own_help() -> None:
    rows = main.suite_commands()
    assert {"mango", "grasp"} <= set(rows) and not set(rows) & set(main.COMMANDS)
    for name, row in rows.items():
        command = load_hook(row.command)
        assert isinstance(command, click.Command) and command.name == name
        assert row.help == inspect.cleandoc(command.help or "").split("\n\n")[0].replace("\n", " "), name


def test_help_lists_the_suites_commands_from_their_rows_importing_none() -> None:
    code = ("import sys, runpy\nsys.argv = ['playbench', '--help']\n"
            "try:\n    runpy.run_module('playbench.cli.main', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.endswith(('suites.mango.cli', 'suites.grasp.cli', '.folder', "
            "'outside_suite.cli'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **OUTSIDE})
    assert done.returncode == 0, done.stderr
    assert "tiny-hello" in done.stdout and "MANGO tools" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_suite_command_named_like_playbenchs_own_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    clash = Suite(name="clash", commands=(Command("eval", "Shadow eval.", "outside_suite.cli:command"),))
    monkeypatch.setattr(registry, "suites", lambda: {"clash": [clash]})
    with pytest.raises(PlaybenchError, match="declares the command 'eval', which playbench already has"):
        main.suite_commands()


def test_format_and_command_rows_are_checked_when_declared() -> None:
    with pytest.raises(PlaybenchError, match=r"formats\['x'\]='nocolon' is not 'package.module:NAME'"):
        Suite(name="x", formats={"x": "nocolon"})
    with pytest.raises(PlaybenchError, match="format name 'Bad Name' is not lower-case"):
        Suite(name="x", formats={"Bad Name": "m:NAME"})
    with pytest.raises(PlaybenchError, match="command name '--x' is not lower-case"):
        Suite(name="x", commands=(Command("--x", "help", "m:NAME"),))
    with pytest.raises(PlaybenchError, match="is a Suite, not a FormatHooks"):  # a row names the wrong object
        Suite(name="x", formats={"x": "outside_suite.tasks:SUITE"}).format_hooks("x")


def test_an_outside_suites_command_runs_through_playbench() -> None:
    helped = run_cli("--help", env=OUTSIDE)
    assert helped.returncode == 0 and "tiny-hello" in helped.stdout and "Say hello from the tiny suite." in helped.stdout
    said = run_cli("tiny-hello", "Ada", "--times", "2", env=OUTSIDE)
    assert said.returncode == 0, said.stderr
    assert said.stdout == "tiny says hello to Ada\n" * 2
    bad = run_cli("tiny-hello", "Ada", "--times", "x", env=OUTSIDE)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert run_cli("tiny-hello", "Ada").returncode == 2  # without the module there is no such command


def test_an_outside_suites_folder_is_exported_reported_and_verified(tmp_path: Path) -> None:
    ran = run_cli("eval", "tiny/two", "--agent", "random", "--quiet", "--log-dir", str(tmp_path / "runs"), env=OUTSIDE)
    assert ran.returncode == 0, ran.stderr
    run = only_run_dir(tmp_path / "runs")
    lefts = sum(json.loads(line)["score"] for line in (run / "episodes.jsonl").read_text().splitlines())

    exported = run_cli("export", str(run), "--format", "tiny", env=OUTSIDE)
    assert exported.returncode == 0, exported.stderr
    folder = run / "tiny"  # the default target: RUN/<format>
    assert exported.stdout.strip() == str(folder) and (folder / "tiny.json").is_file()

    figures = json.loads(run_cli("report", str(folder), "--json", env=OUTSIDE).stdout)
    assert figures == {"folder": str(folder), "agent": "random", "episodes": 2, "lefts": lefts}
    text = run_cli("report", str(folder), env=OUTSIDE)
    assert text.returncode == 0 and "TINY FOLDER" in text.stdout, text.stderr

    verified = run_cli("verify", str(folder), env=OUTSIDE)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("2 verified, 0 differing, 0 not verifiable (2 episodes of TINY FOLDER ")

    data = json.loads((folder / "tiny.json").read_text())  # an action the random policy did not choose
    first = data["episodes"][0]["actions"]
    first[0] = "left" if first[0] == "right" else "right"
    (folder / "tiny.json").write_text(json.dumps(data))
    differs = run_cli("verify", str(folder), env=OUTSIDE)
    assert differs.returncode == 1 and "differs: tiny/two #0 step 0 action:" in differs.stdout, differs.stdout

    # without the module the folder is nobody's: refused in one line, naming what verify knows
    alone = run_cli("verify", str(folder))
    assert alone.returncode == 2 and "neither a playbench run (no run.json) nor a BALROG submission folder" in \
        alone.stderr and "Traceback" not in alone.stderr
