"""Entry point: a click group whose commands are imported only when used.

Its own commands are named in ``COMMANDS``; a suite adds its own (``playbench mango``) by declaring a
``Command`` row in its ``SUITE``, read from there: this module names no suite.
"""

import importlib
import importlib.util
import sys
import warnings
from typing import TYPE_CHECKING, Any

import click

from playbench.core.errors import PlaybenchError
from playbench.report.inert import inert_text as safe_text

if TYPE_CHECKING:
    from playbench.core.suite import Command

# command name -> module under playbench.cli holding a click command called ``command``
COMMANDS = {
    "eval": "eval_cmd",
    "list": "list_cmd",
    "describe": "describe_cmd",
    "report": "report_cmd",
    "compare": "compare_cmd",
    "view": "view_cmd",
    "board": "board_cmd",
    "plot": "plot_cmd",
    "export": "export_cmd",
    "merge": "merge_cmd",
    "play": "play_cmd",
    "verify": "verify_cmd",
    "serve-env": "serve_env_cmd",
}


#: command name -> the first paragraph of its help, so ``playbench --help`` lists the commands without
#: importing them (``tests/cli/test_cli_startup.py`` checks it against each command's own help)
SUMMARIES = {
    "eval": "Run TASKS (ids, aliases or groups) and record every episode.",
    "list": "List tasks and groups: id, episodes, one-line description, then parameters with their defaults.",
    "describe": "Describe TASK (an id, alias or group): full description, parameters with types and defaults.",
    "report": "Summarize one or more RUN directories (never re-runs anything).",
    "compare": "Compare B against A, pairing episodes that share a task and an instance.",
    "view": "Write a static site (works from file://, no network) for RUNS and print the page to open.",
    "board": "Rank RUNS among published rows in a static site (works from file://, no network).",
    "plot": "Plot RUNS side by side (scores with 95% CIs, SmartPlay radar, BALROG progress, GRASP energy).",
    "export": "Write RUN's episodes as a table, or as BALROG's submission folder.",
    "play": "Play TASK yourself through exactly the text interface a model sees.",
    "merge": "Merge SHARDS (run directories of one config, each a --shard K/N) into one run.",
    "verify": "Re-play RUN's episodes from their seeds and actions and check every recorded value.",
    "serve-env": "Serve TASKS over OpenEnv's HTTP reset/step/state interface, for RL trainers.",
}


def _available() -> list[str]:
    return [n for n, m in COMMANDS.items() if importlib.util.find_spec(f"playbench.cli.{m}") is not None]


def suite_commands() -> dict[str, "Command"]:
    """The commands the suites declare (``Suite.commands``), by name: reading their rows imports none of them.

    A name that is one of playbench's own commands, or that two suites declare, is refused in one line.
    """
    from playbench.core import registry

    found: dict[str, Command] = {}
    for declarations in registry.suites().values():
        for suite in declarations:
            for row in suite.commands:
                if row.name in COMMANDS or row.name in found:
                    raise PlaybenchError(f"suite {suite.name!r} declares the command {row.name!r}, which playbench "
                                         "already has; rename it")
                found[row.name] = row
    return found


def _suite_command(row: "Command") -> click.Command:
    """The click command a suite's row names, imported now."""
    from playbench.core.suite import load_hook

    command = load_hook(row.command)
    if not isinstance(command, click.Command):
        raise PlaybenchError(f"command {row.name!r}: {row.command!r} is a {type(command).__name__}, not a click command")
    return command


class LazyGroup(click.Group):
    """Loads a command's module on first use, so ``playbench list`` does not import every engine."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The commands whose modules exist, then the suites' commands."""
        return [*_available(), *suite_commands()]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import the command's module only now (a suite's command: its row is read first)."""
        if cmd_name in COMMANDS:
            if cmd_name not in _available():
                return None
            command: click.Command = importlib.import_module(f"playbench.cli.{COMMANDS[cmd_name]}").command
            return command
        row = suite_commands().get(cmd_name)
        return None if row is None else _suite_command(row)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, from ``SUMMARIES`` and the suites' rows (a command in neither is imported)."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        summaries = {**SUMMARIES, **{name: row.help for name, row in suite_commands().items()}}
        rows = []
        for name in names:
            if name in summaries:
                rows.append((name, click.Command(name, help=summaries[name]).get_short_help_str(limit)))
            else:
                command = self.get_command(ctx, name)
                if command is not None and not command.hidden:
                    rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="playbench")
def cli() -> None:
    """playbench: evaluate LLM/VLM agents on MANGO, GRASP, SmartPlay and BALROG."""


_show_warning = warnings.showwarning


def _show(message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None,
          line: str | None = None) -> None:
    """Deprecation notices as one plain line on stderr; other warnings as Python shows them."""
    from playbench.core.params import PlaybenchDeprecation

    if issubclass(category, PlaybenchDeprecation):
        click.echo(f"warning: {safe_text(str(message))}", err=True)
    else:
        _show_warning(message, category, filename, lineno, file, line)


def main() -> None:
    """Run the CLI; user errors become one line on stderr and exit code 2."""
    warnings.showwarning = _show
    try:
        cli.main(standalone_mode=False)
    except PlaybenchError as exc:
        click.echo(f"error: {safe_text(exc)}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        click.echo(f"error: {safe_text(exc.format_message())}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted: finished episodes are saved; continue with --resume", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
