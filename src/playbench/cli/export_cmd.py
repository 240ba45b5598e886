"""``playbench export``: episodes as a table (CSV, Parquet, JSON lines) or BALROG's submission folder.

Tables hold one flat row per episode, readable by pandas as is; ``--format balrog`` writes the folder
BALROG's evaluator writes and its leaderboard publishes (``suites/balrog/submission.py``).

Nothing the user did not ask for is replaced: a table goes to a new file, or replaces one that is itself
an export table (``is_export_table``); the BALROG folder must be new or empty; no symbolic link is followed
at the target. A failed write is one line naming the file (exit 1) and leaves an earlier table as it was.
"""

import contextlib
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

import click

from playbench.cli.common import OutputError, err_console, open_runs, safe_markup, safe_text, writable_run
from playbench.core.errors import PlaybenchError
from playbench.log.durable import describe
from playbench.log.read import RunLog
from playbench.report.table import COLUMNS, episode_rows

HEAD_BYTES = 65536  # how much of an existing file is read to recognise an export table


def _lstat_mode(target: Path) -> int | None:
    """``target``'s own file type and mode (a link's, not its target's); None when nothing is there."""
    try:
        return os.lstat(target).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputError(describe(exc, target)) from None


def is_export_table(path: Path, fmt: str) -> bool:
    """``path`` holds a table ``export --format fmt`` wrote: exactly its columns (or no data at all)."""
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq  # type: ignore[import-untyped]

            return list(pq.read_schema(path).names) == COLUMNS
        with path.open("rb") as fh:
            head = fh.read(HEAD_BYTES)
        if not head.strip() and len(head) < HEAD_BYTES:
            return True  # the lone newline pandas writes for an empty JSON-lines table
        first = head.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8")
        if fmt == "csv":
            return first == ",".join(COLUMNS)
        row = json.loads(first)
        return isinstance(row, dict) and list(row) == COLUMNS
    except Exception:  # anything unreadable or foreign is simply not an export table
        return False


def check_table_target(target: Path, fmt: str) -> None:
    """Refuse (one line, before anything is written) a target that is not a new file or an earlier export."""
    mode = _lstat_mode(target)
    if mode is None:
        return
    if stat.S_ISLNK(mode):
        raise PlaybenchError(f"{target} is a symbolic link; choose a new file as --output")
    if not stat.S_ISREG(mode):
        raise PlaybenchError(f"{target} exists and is not a file; choose a new file as --output")
    if target.stat().st_size and not is_export_table(target, fmt):  # an empty file holds nothing to lose
        raise PlaybenchError(f"{target} exists and is not a {fmt} table written by playbench export; "
                             "choose a new file as --output (or remove it)")


def write_table(frame: Any, target: Path, fmt: str) -> None:
    """Write ``frame`` to a new name beside ``target``, then rename it over ``target`` (never through a link)."""
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666))
        if fmt == "csv":
            frame.to_csv(tmp, index=False)
        elif fmt == "jsonl":
            frame.to_json(tmp, orient="records", lines=True)
        else:
            frame.to_parquet(tmp, index=False)
        os.replace(tmp, target)
    except OSError as exc:
        raise OutputError(describe(exc, target)) from None
    except ImportError:
        raise PlaybenchError("parquet export needs pyarrow: pip install 'playbench[export]'") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def export_balrog(store: RunLog, target: Path) -> None:
    """Write ``store``'s BALROG episodes as BALROG's submission folder ``target`` (which must be new or empty)."""
    from playbench.suites.balrog import submission

    mode = _lstat_mode(target)
    if mode is not None and stat.S_ISLNK(mode):
        raise PlaybenchError(f"{target} is a symbolic link; choose a new or empty folder as --output")
    if mode is not None and (not stat.S_ISDIR(mode) or any(target.iterdir())):
        raise PlaybenchError(f"{target} already exists and is not an empty folder; choose another --output")
    config = store.config
    latest = store.latest_episodes()
    episodes = ((latest[key], store.read_trajectory(latest[key]) if latest[key].trajectory else None)
                for key in sorted(latest))
    try:
        written = submission.write_submission(
            target, episodes, submission.agent_config(config.agent, config.agent_params),
            submission.client_config(config.model, config.model_params))
    except OSError as exc:
        failed = Path(exc.filename) if isinstance(exc.filename, str) else target
        raise OutputError(describe(exc, failed)) from None
    if written.other_tasks:
        err_console.print(f"[yellow]not BALROG tasks, left out: {safe_markup(', '.join(written.other_tasks))}[/]")
    if written.left_out:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(written.left_out.items()))
        err_console.print(f"[yellow]episodes not ok, left out as BALROG leaves them ({counts}); "
                          "'playbench eval --resume RUN --retry-errors' re-runs them[/]")
    if not written.episodes:
        raise PlaybenchError(f"{store.path} has no finished BALROG episode to export")


@click.command("export")
@click.argument("run")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet", "jsonl", "balrog"]), default="csv",
              show_default=True, help="A table of episodes, or balrog: BALROG's submission folder.")
@click.option("--output", "-o", type=click.Path(), default=None,
              help="File to write: new, or an earlier export table (default: RUN/export.<format>); "
                   "for balrog a new or empty folder (default: RUN/balrog).")
def command(run: str, fmt: str, output: str | None) -> None:
    """Write RUN's episodes as a table, or as BALROG's submission folder.

    An existing file is replaced only when it is a table export wrote in the same format; any other file
    is refused untouched.
    """
    (store,) = open_runs((run,))
    target = Path(output) if output else store.path / ("balrog" if fmt == "balrog" else f"export.{fmt}")
    if not output:
        writable_run(store.path, target)
    if fmt == "balrog":
        export_balrog(store, target)
        click.echo(safe_text(target))
        return
    try:
        import pandas as pd
    except ModuleNotFoundError:
        raise PlaybenchError("export needs pandas: pip install 'playbench[export]'") from None
    check_table_target(target, fmt)
    write_table(pd.DataFrame(episode_rows(store), columns=COLUMNS), target, fmt)
    click.echo(safe_text(target))
