"""``playbench --help`` lists the commands from a table, without importing them: the table must say what
each command's own help says."""

import importlib
import inspect
import re
import subprocess
import sys

from playbench.cli.main import COMMANDS, SUMMARIES


def test_the_summaries_are_each_commands_own_first_paragraph() -> None:
    assert set(SUMMARIES) <= set(COMMANDS)
    for name, summary in SUMMARIES.items():
        command = importlib.import_module(f"playbench.cli.{COMMANDS[name]}").command
        assert summary == inspect.cleandoc(command.help or "").split("\n\n")[0].replace("\n", " "), name


def _imports_of(args: list[str], wanted: str) -> tuple[str, str]:
    """(stdout, last line) of ``playbench ARGS`` in a fresh interpreter whose last line lists the imported
    modules for which the expression ``wanted`` (about ``m``) is true."""
    code = (f"import sys, runpy\nsys.argv = ['playbench', *{args!r}]\n"
            "try:\n    runpy.run_module('playbench.cli.main', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            f"print([m for m in sys.modules if {wanted}])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stdout.strip().splitlines()[-1]


def test_help_imports_no_command_and_no_gymnasium() -> None:
    out, imported = _imports_of(["--help"], "m.endswith('_cmd') or m.startswith(('gymnasium', 'numpy', 'pydantic'))")
    assert re.search(r"^  eval +Run TASKS", out, re.M)  # padded to the longest command name
    assert imported == "[]"


def test_list_imports_no_engine_numpy_or_gymnasium() -> None:
    """Listing tasks reads the suites' task tables and parameter models only: no game module is imported."""
    out, imported = _imports_of(["list"], "m.startswith(('gymnasium', 'numpy', 'aiohttp', 'crafter', 'nle', "
                                          "'textworld', 'minigrid')) or m.endswith('.game')")
    assert "smartplay/hanoi-3" in out and "balrog/nle/nethackchallenge" in out
    assert imported == "[]"


def test_list_and_help_import_no_pydantic() -> None:
    """Listing reads the parameter declarations as plain rows: pydantic loads only to validate values."""
    for args in (["list"], ["--help"], ["list", "--json"]):
        _, imported = _imports_of(args, "m == 'pydantic' or m.startswith(('pydantic.', 'pydantic_core'))")
        assert imported == "[]", args
