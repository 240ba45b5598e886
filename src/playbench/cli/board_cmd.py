"""``playbench board``: your runs ranked among published rows, as a static site (works from file://)."""

import os
import stat
import webbrowser
from pathlib import Path

import click

from playbench.api import formats
from playbench.cli.common import OutputError, safe_text
from playbench.cli.compare_cmd import _settings as parse_settings
from playbench.core.errors import PlaybenchError
from playbench.log import is_run
from playbench.log.read import RunLog, read_run
from playbench.report.compare import Folder

#: How deep ``--with`` looks inside a folder that is no row itself (``submissions/LLM/<row>``: two levels).
SEARCH_DEPTH = 2


def _rows_below(folder: Path, depth: int = SEARCH_DEPTH) -> list[Path]:
    """The runs and declared-format folders inside ``folder``, sorted (symbolic links are never followed)."""
    found: list[Path] = []
    try:
        with os.scandir(folder) as entries:
            children = sorted(Path(e.path) for e in entries if e.is_dir(follow_symlinks=False))
    except OSError as exc:
        raise PlaybenchError(f"cannot read {folder}: {exc.strerror or exc}") from None
    for child in children:
        if is_run(child) or formats.format_of(child) is not None:
            found.append(child)
        elif depth > 1:
            found += _rows_below(child, depth - 1)
    return found


def _expand(given: tuple[str, ...], yours: list[Path]) -> list[Path]:
    """Each ``--with`` path: a row itself, or a folder of rows (a leaderboard's ``submissions/``).

    A row a folder search finds that is one of ``yours`` is left to its place among yours.
    """
    out: list[Path] = []
    mine = {path.resolve() for path in yours}
    for text in given:
        path = Path(text)
        if is_run(path) or formats.format_of(path) is not None:
            out.append(path)
            continue
        try:
            folder = stat.S_ISDIR(os.lstat(path).st_mode)
        except OSError:
            folder = False
        rows = _rows_below(path) if folder else []
        if not rows:
            raise PlaybenchError(f"{path} is neither a run, nor a folder compare reads, nor a folder holding such "
                                 f"rows ({SEARCH_DEPTH} levels down)")
        out += [row for row in rows if row.resolve() not in mine]
    return out


def open_rows(paths: list[Path], settings: dict[str, str]) -> list[RunLog | Folder]:
    """Each path as a run, or as a folder a suite's format reads for compare (one line when it is neither)."""
    read = formats.compared(tuple(paths), settings)
    return [read_run(path) if found is None else Folder(path, *found) for path, found in zip(paths, read, strict=True)]


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
    """
    from playbench.report.board import write_board
    from playbench.report.viewer import SiteWriteError

    yours = [Path(p) for p in runs]
    paths = yours + _expand(published, yours)
    sources = open_rows(paths, parse_settings(settings))
    try:
        index = write_board([(s, i < len(yours)) for i, s in enumerate(sources)], Path(output))
    except SiteWriteError as exc:
        raise OutputError(str(exc)) from None
    click.echo(safe_text(index.resolve()))
    if open_browser:
        webbrowser.open(index.resolve().as_uri())
