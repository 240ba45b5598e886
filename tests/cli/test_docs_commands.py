"""Every ``playbench …`` command shown in the README and docs is accepted by the CLI.

Each line is parsed by the real click command; an ``eval`` line without placeholders is also validated
the way a run would be (task ids, ``-T``/``-A``/``-M`` keys and values), without running anything.
"""

import re
import shlex
from pathlib import Path

import click
import pytest

from playbench.api.config import build_config
from playbench.cli.main import cli

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
# placeholders (shell variables too), and paths to the user's own data (which need not exist here)
PLACEHOLDER = re.compile(r"<[^>]*>|…|\.\.\.|\bDIR\b|\bFILE\b|\bRUN\b|\bPATH\b|\bTASK\b|\[|=\.{0,2}/|\$[A-Z]")


def _commands() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        fenced = False
        for line in doc.read_text().splitlines():
            if line.startswith("```"):
                fenced = not fenced
                continue
            text = line.split(" # ", 1)[0].strip()
            if fenced and text.startswith("playbench "):
                found.append((f"{doc.relative_to(REPO)}: {text}", text))
    return found


COMMANDS = _commands()


def test_the_docs_show_commands() -> None:
    assert len(COMMANDS) >= 20


@pytest.mark.parametrize(("where", "line"), COMMANDS, ids=[w for w, _ in COMMANDS])
def test_documented_command_is_accepted(where: str, line: str) -> None:
    args = shlex.split(line)[1:]
    if "[" in line:  # optional parts of a usage line: parse it without them
        args = shlex.split(re.sub(r"\[[^\]]*\]", "", line))[1:]
    ctx = cli.make_context("playbench", list(args[:1]), resilient_parsing=True)
    command = cli.get_command(ctx, args[0])
    assert command is not None, f"{where}: unknown command {args[0]!r}"
    sub = command.make_context(args[0], list(args[1:]))
    if args[0] == "eval" and not PLACEHOLDER.search(line) and sub.params["tasks"]:
        p = sub.params
        build_config(p["tasks"], p["agent"], p["model"], p["episodes"], p["seed"], p["task_params"],
                     p["agent_params"], p["model_params"])


def test_a_wrong_documented_option_would_be_caught() -> None:
    with pytest.raises(click.exceptions.NoSuchOption):
        cli.get_command(cli.make_context("playbench", ["eval"]), "eval").make_context("eval", ["--no-such"])
