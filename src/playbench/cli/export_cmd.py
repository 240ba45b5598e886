"""``playbench export``: episodes as one table (CSV, Parquet, JSON lines), chat data, or a suite's folder.

Tables hold one flat row per episode of every run given, readable by pandas as is (``report/table.py``);
``--format chat`` writes JSON lines of requests and answers (``report/chat.py``); ``--format NAME`` for a
folder format a suite declares (``Suite.formats``: ``balrog`` writes the folder BALROG's evaluator writes and
its leaderboard publishes) hands the run's episodes to that format's ``write`` hook.

Nothing the user did not ask for is replaced: a table goes to a new file, or replaces one that is itself
an export of the same format (``is_export_table``); a folder must be new or empty; no symbolic
link is followed at the target. A failed write is one line naming the file (exit 1) and leaves an earlier
export as it was.
"""

import contextlib
import csv
import json
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import click
import orjson

from playbench.api import formats
from playbench.cli.common import OutputError, err_console, open_runs, plain, safe_text, writable_run
from playbench.core.errors import PlaybenchError
from playbench.core.suite import FormatHooks
from playbench.log.durable import describe
from playbench.log.read import RunLog
from playbench.report.chat import chat_lines, is_chat_line
from playbench.report.table import episode_frame, episode_rows, is_table_header

HEAD_BYTES = 65536  # how much of an existing file is read to recognise an export table
LINE_BYTES = 64 * 2**20  # the longest first line of a chat export read to recognise it
TABLES = ("csv", "parquet", "jsonl")
#: the formats export writes itself, beside the suites' folder formats
OWN = (*TABLES, "chat", "inspect")


def folder_formats() -> dict[str, FormatHooks]:
    """The folder formats the suites declare that export can write (a ``write`` hook), by name.

    A suite's format named like one of export's own is refused in one line.
    """
    found = {name: hooks for name, hooks in formats.every().items() if hooks.write is not None}
    clash = sorted(set(found) & set(OWN))
    if clash:
        raise PlaybenchError(f"a suite declares the folder format {clash[0]!r}, which is export's own; rename it")
    return found


FOLDERS = folder_formats()


def _lstat_mode(target: Path) -> int | None:
    """``target``'s own file type and mode (a link's, not its target's); None when nothing is there."""
    try:
        return os.lstat(target).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputError(describe(exc, target)) from None


def is_export_table(path: Path, fmt: str) -> bool:
    """``path`` holds what ``export --format fmt`` writes (or no data at all).

    A table must have exactly export's columns, chat lines exactly their keys.
    """
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq  # type: ignore[import-untyped]

            return is_table_header(list(pq.read_schema(path).names))
        with path.open("rb") as fh:
            if fmt == "chat":
                line = fh.readline(LINE_BYTES)
                return line.endswith(b"\n") and is_chat_line(json.loads(line))
            head = fh.read(HEAD_BYTES)
        if not head.strip() and len(head) < HEAD_BYTES:
            return True  # the lone newline pandas writes for an empty JSON-lines table
        first = head.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8")
        if fmt == "csv":
            return is_table_header(next(csv.reader([first])))
        row = json.loads(first)
        return isinstance(row, dict) and is_table_header(list(row))
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
        what = "chat export" if fmt == "chat" else f"{fmt} table"
        raise PlaybenchError(f"{target} exists and is not a {what} written by playbench export; "
                             "choose a new file as --output (or remove it)")


def replace_file(target: Path, write: Callable[[Path], None]) -> None:
    """``write`` a new file beside ``target``, then rename it over ``target`` (never through a link)."""
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666))
        write(tmp)
        os.replace(tmp, target)
    except OSError as exc:
        raise OutputError(describe(exc, target)) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def write_table(stores: list[RunLog], target: Path, fmt: str) -> None:
    """Write the episode table of ``stores`` as ``fmt`` over ``target`` (see ``replace_file``)."""
    rows, columns = episode_rows(stores)

    def write(tmp: Path) -> None:
        if fmt == "jsonl":  # written here: pandas would round floats to 10 digits
            with tmp.open("wb") as fh:
                for row in rows:
                    _dump({name: row.get(name) for name in columns}, fh)
            return
        frame = episode_frame(rows, columns)
        if fmt == "csv":
            frame.to_csv(tmp, index=False)
        else:
            frame.to_parquet(tmp, index=False)

    try:
        replace_file(target, write)
    except ImportError:
        raise PlaybenchError("parquet export needs pyarrow: pip install 'playbench[export]'") from None


def _dump(line: dict[str, Any], fh: IO[bytes]) -> None:
    try:
        fh.write(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE))
    except TypeError:  # what orjson refuses (a lone surrogate, an integer beyond 64 bits): escaped by json
        fh.write(json.dumps(line, ensure_ascii=True).encode() + b"\n")


def write_chat(stores: list[RunLog], per: str, target: Path) -> None:
    """Write the chat lines of ``stores`` over ``target``, one at a time (see ``replace_file``)."""
    def write(tmp: Path) -> None:
        with tmp.open("wb") as fh:
            for line in chat_lines(stores, per):
                _dump(line, fh)

    replace_file(target, write)


def export_folder(store: RunLog, target: Path, fmt: str) -> None:
    """Write ``store``'s episodes as the suite's folder format ``fmt`` into ``target`` (which must be new or empty).

    Each latest record goes with its steps; what the format leaves out is said on stderr, one line each.
    """
    hooks = FOLDERS[fmt]
    write = hooks.write
    assert write is not None  # FOLDERS holds writable formats only
    mode = _lstat_mode(target)
    if mode is not None and stat.S_ISLNK(mode):
        raise PlaybenchError(f"{target} is a symbolic link; choose a new or empty folder as --output")
    if mode is not None and (not stat.S_ISDIR(mode) or any(target.iterdir())):
        raise PlaybenchError(f"{target} already exists and is not an empty folder; choose another --output")
    latest = store.latest_episodes()
    episodes = ((latest[key], store.read_trajectory(latest[key]) if latest[key].trajectory else None)
                for key in sorted(latest))
    try:
        written, notes = write(target, episodes, store.config)
    except OSError as exc:
        failed = Path(exc.filename) if isinstance(exc.filename, str) else target
        raise OutputError(describe(exc, failed)) from None
    for note in notes:  # a note may quote record text (task ids): shown inertly
        err_console.print(plain(note, limit=None), style="yellow")
    if not written:
        raise PlaybenchError(f"{store.path} has no episode to export as a {hooks.title} folder")


def export_inspect(store: RunLog, target: Path) -> None:
    """Write ``store`` as an Inspect log ``target`` (``.eval``): new, or an earlier export of this command."""
    try:
        from playbench.inspect import export
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] != "inspect_ai":
            raise
        raise PlaybenchError("--format inspect needs Inspect AI: pip install 'playbench[inspect]'") from None
    if target.suffix != ".eval":
        raise PlaybenchError(f"{target}: an Inspect log is a .eval file; name --output NAME.eval")
    mode = _lstat_mode(target)
    if mode is not None:
        if stat.S_ISLNK(mode) or not stat.S_ISREG(mode):
            raise PlaybenchError(f"{target} exists and is not a file; choose a new file as --output")
        if target.stat().st_size and not export.is_inspect_export(target):
            raise PlaybenchError(f"{target} exists and is not an Inspect log written by playbench export; "
                                 "choose a new file as --output (or remove it)")
    replace_file(target, lambda tmp: export.write_inspect_log(store, tmp))


def default_target(store: RunLog, fmt: str, per: str) -> Path:
    """Where an export of one run goes without ``--output``: inside the run."""
    if fmt in FOLDERS:
        return store.path / fmt
    if fmt == "inspect":
        return store.path / "export.eval"
    if fmt == "chat":
        return store.path / ("export.chat-episodes.jsonl" if per == "episode" else "export.chat.jsonl")
    return store.path / f"export.{fmt}"


@click.command("export")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("--format", "fmt", type=click.Choice([*TABLES, "chat", *FOLDERS, "inspect"]), default="csv",
              show_default=True,
              help="A table of episodes, chat: JSON lines of requests and answers, "
                   + "".join(f"{name}: a {hooks.title} folder (one run), " for name, hooks in FOLDERS.items())
                   + "or inspect: an Inspect AI log for 'inspect view' (one run; needs playbench[inspect]).")
@click.option("--per", type=click.Choice(["step", "episode"]), default=None,
              help="With --format chat: a line per step (default), or per episode as one conversation.")
@click.option("--output", "-o", type=click.Path(), default=None,
              help="File to write: new, or an earlier export of the same format (default: RUN/export.<format>, "
                   "for chat RUN/export.chat.jsonl or RUN/export.chat-episodes.jsonl; needed with several runs); "
                   "for a suite's folder format a new or empty folder (default: RUN/<format>).")
def command(runs: tuple[str, ...], fmt: str, per: str | None, output: str | None) -> None:
    """Write RUN's episodes as a table, or as BALROG's submission folder.

    Several RUNs make one table (a row per episode); --format chat writes them as chat lines instead.

    An existing file is replaced only when export wrote it in the same format; any other file is refused
    untouched.
    """
    if per is not None and fmt != "chat":
        raise PlaybenchError(f"--per applies to --format chat, not {fmt}")
    stores = open_runs(runs)
    roots = [store.root for store in stores]
    twice = next((store.path for store, root in zip(stores, roots, strict=True) if roots.count(root) > 1), None)
    if twice is not None:
        raise PlaybenchError(f"{twice} is given twice; give each run once")
    if len(stores) > 1 and (fmt in FOLDERS or fmt == "inspect"):
        raise PlaybenchError(f"--format {fmt} writes one run's {'folder' if fmt in FOLDERS else 'log'}; give one run")
    if len(stores) > 1 and not output:
        raise PlaybenchError("several runs make one file: name it with --output (-o)")
    target = Path(output) if output else default_target(stores[0], fmt, per or "step")
    if not output:
        writable_run(stores[0].path, target)
    if fmt in FOLDERS:
        export_folder(stores[0], target, fmt)
    elif fmt == "inspect":
        export_inspect(stores[0], target)
    elif fmt == "chat":
        check_table_target(target, fmt)
        write_chat(stores, per or "step", target)
    else:
        if fmt != "jsonl":
            try:
                import pandas  # noqa: F401
            except ModuleNotFoundError:
                raise PlaybenchError(f"{fmt} export needs pandas: pip install 'playbench[export]'") from None
        check_table_target(target, fmt)
        write_table(stores, target, fmt)
    click.echo(safe_text(target))
