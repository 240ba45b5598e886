"""``playbench board``: your runs ranked among published rows, as a static site (works from file://)."""

import os
import stat
import webbrowser
from collections.abc import Mapping
from pathlib import Path

import click

from playbench.api import formats
from playbench.cli.common import OutputError, safe_text
from playbench.cli.compare_cmd import _settings as parse_settings
from playbench.core.errors import PlaybenchError
from playbench.log import is_run
from playbench.log.read import RunLog, read_run
from playbench.report.board import Given, LeftOut
from playbench.report.compare import Folder

#: How deep ``--with`` looks inside a folder that is no row itself (``submissions/LLM/<row>``: two levels).
SEARCH_DEPTH = 2


def _is_row(path: Path) -> bool:
    """Whether ``path`` is a run or a folder of a declared format (a folder two formats claim: PlaybenchError)."""
    return is_run(path) or formats.format_of(path) is not None


def _rows_below(folder: Path, left: list[LeftOut], depth: int = SEARCH_DEPTH) -> list[Path]:
    """The runs and declared-format folders inside ``folder``, sorted (symbolic links are never followed).

    A folder that cannot be told apart (two formats claim it) is added to ``left`` with why, not searched.
    """
    found: list[Path] = []
    try:
        with os.scandir(folder) as entries:
            children = sorted(Path(e.path) for e in entries if e.is_dir(follow_symlinks=False))
    except OSError as exc:
        raise PlaybenchError(f"cannot read {folder}: {exc.strerror or exc}") from None
    for child in children:
        try:
            row = _is_row(child)
        except PlaybenchError as exc:
            left.append(LeftOut(str(child), str(exc)))
            continue
        if row:
            found.append(child)
        elif depth > 1:
            found += _rows_below(child, left, depth - 1)
    return found


def _expand(given: tuple[str, ...], yours: list[Path], left: list[LeftOut]) -> list[tuple[Path, bool]]:
    """Each ``--with`` path as ``(row, found by a search)``: a row itself, or the rows of a folder holding them.

    A row a folder search finds that is one of ``yours`` is left to its place among yours; one found that
    cannot be told apart goes to ``left``.
    """
    out: list[tuple[Path, bool]] = []
    mine = {path.resolve() for path in yours}
    for text in given:
        path = Path(text)
        if _is_row(path):
            out.append((path, False))
            continue
        try:
            folder = stat.S_ISDIR(os.lstat(path).st_mode)
        except OSError:
            folder = False
        before = len(left)
        rows = _rows_below(path, left) if folder else []
        if not rows and len(left) == before:
            raise PlaybenchError(f"{path} is neither a run, nor a folder compare reads, nor a folder holding such "
                                 f"rows ({SEARCH_DEPTH} levels down)")
        out += [(row, True) for row in rows if row.resolve() not in mine]
    return out


def open_row(path: Path, settings: Mapping[str, str]) -> RunLog | Folder:
    """The path as a run, or as a folder a suite's format reads for compare, given the ``-S`` settings it declares."""
    found = formats.format_of(path)
    given = {name: value for name, value in settings.items() if found is not None and name in found[1].options}
    read = formats.compared((path,), given)[0]
    return read_run(path) if read is None else Folder(path, *read)


def open_rows(paths: list[tuple[Path, bool]], settings: Mapping[str, str],
              yours: int = 0) -> tuple[list[Given], list[LeftOut]]:
    """Each ``(path, found by a search)`` opened (the first ``yours`` are yours), and the found ones that cannot be.

    A path named that cannot be opened stops the board (PlaybenchError, one line); so does an ``-S`` setting no
    format of the rows declares.
    """
    declared: set[str] = set()
    for path, _ in paths:
        try:
            found = formats.format_of(path)
        except PlaybenchError:
            continue  # a named one stops below; a found one is left out below
        declared |= set(found[1].options) if found is not None else set()
    unknown = sorted(set(settings) - declared)
    if unknown:
        raise PlaybenchError(f"-S {unknown[0]}: no setting of the rows' formats (-S is for published answers)")
    opened: list[Given] = []
    left: list[LeftOut] = []
    for k, (path, found_by_search) in enumerate(paths):
        try:
            opened.append(Given(open_row(path, settings), k < yours, found_by_search))
        except PlaybenchError as exc:
            if not found_by_search:
                raise
            left.append(LeftOut(str(path), str(exc)))
    return opened, left


@click.command("board")
@click.argument("runs", nargs=-1, required=True)
@click.option("--with", "published", multiple=True, metavar="FOLDER",
              help="Rows to rank yours among: a leaderboard row (a BALROG submission), a run, or a folder holding "
                   "such rows (two levels down). Repeat it for more.")
@click.option("-S", "settings", multiple=True, metavar="KEY=VALUE",
              help="A setting of published answers, as compare takes it (GRASP's and MANGO's data=DIR).")
@click.option("--output", "-o", type=click.Path(file_okay=False), required=True,
              help="Folder for the site: new, empty, or a site written before.")
@click.option("--open", "open_browser", is_flag=True, help="Open the board in a browser.")
def command(runs: tuple[str, ...], published: tuple[str, ...], settings: tuple[str, ...], output: str,
            open_browser: bool) -> None:
    """Rank RUNS among published rows in a static site (works from file://, no network).

    Per environment and overall: progression with 95% intervals and rank intervals (BALROG's aggregate over
    what every row holds); for every two rows that share instances, compare's paired difference; cost per
    row (recorded, or priced from a folder's token counts, else unknown) and per point; protocol labels;
    links to each episode (your runs' viewer pages, a folder's episode files). RUNS may also be folders.
    A row that publishes its summary alone is shown with its published figures (not ranked, not paired); a
    row found in a --with folder that cannot be read is left out with one line on stderr and a note.
    """
    from playbench.report.board import read_rows, write_rows
    from playbench.report.viewer import SiteWriteError

    yours = [Path(p) for p in runs]
    left: list[LeftOut] = []
    paths = [(path, False) for path in yours] + _expand(published, yours, left)
    given, unopened = open_rows(paths, parse_settings(settings), len(yours))
    rows, notes, unread = read_rows(given)
    left += unopened + unread
    for one in left:
        click.echo(safe_text(f"left out: {one.path}: {one.why}"), err=True)
    try:
        index = write_rows(rows, notes, left, Path(output))
    except SiteWriteError as exc:
        raise OutputError(str(exc)) from None
    click.echo(safe_text(index.resolve()))
    if open_browser:
        webbrowser.open(index.resolve().as_uri())
