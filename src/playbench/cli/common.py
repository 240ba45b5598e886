"""Small helpers shared by commands."""

import os
import re
from pathlib import Path
from typing import Any

import click
from rich.markup import escape
from rich.text import Text

from playbench.core.errors import PlaybenchError
from playbench.core.terminal import console as console  # the commands' consoles, shared with the suites' own
from playbench.core.terminal import err_console as err_console
from playbench.log.read import RunLog, read_run
from playbench.report.inert import inert_text


class OutputError(click.ClickException):
    """Writing a command's output failed (a read-only place, a full disk, no permission): one line, exit 1.

    Refusals before anything is written (a folder that is not ours, a read-only run as the default place)
    are PlaybenchError instead: exit 2.
    """

    exit_code = 1


def writable_run(run: Path, default: Path) -> None:
    """Refuse, in one line, to write ``default`` (a place inside ``run``) when the run cannot be written."""
    if not os.access(run, os.W_OK):
        raise PlaybenchError(f"{run} is read-only, so nothing can be written to {default}; give --output "
                             "(-o) a place of your own")


def open_runs(paths: tuple[str, ...]) -> list[RunLog]:
    """Open several run directories, failing with one clear line on the first bad one."""
    if not paths:
        raise PlaybenchError("give at least one run directory")
    return [read_run(p) for p in paths]


def fmt_stat(stat: dict[str, Any], digits: int = 3) -> str:
    """``mean ± stderr`` for a summary dict, ``-`` when empty."""
    if stat.get("mean") is None:
        return "-"
    if stat.get("stderr") is None:
        return f"{stat['mean']:.{digits}f}"
    return f"{stat['mean']:.{digits}f} ± {stat['stderr']:.{digits}f}"


def fmt_num(x: float) -> str:
    """A number in about three significant digits: ``0.540``, ``2.75``, ``24.5``, ``312``."""
    size = abs(x)
    if size >= 100:
        return f"{x:.0f}"
    if size >= 10:
        return f"{x:.1f}"
    if size >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def fmt_short(stat: dict[str, Any]) -> str:
    """``mean ± SE`` in about three significant digits (for tables that must fit 80 columns)."""
    if stat.get("mean") is None:
        return "-"
    if stat.get("stderr") is None:
        return fmt_num(stat["mean"])
    return f"{fmt_num(stat['mean'])} ± {fmt_num(stat['stderr'])}"


def fmt_ci(stat: dict[str, Any]) -> str:
    """A summary's 95% interval as ``lo–hi``, ``-`` when it has none."""
    lo, hi = stat.get("ci95") or (None, None)
    if lo is None or hi is None:
        return "-"
    return f"{fmt_num(lo)}–{fmt_num(hi)}"


def fmt_count(n: int | float | None) -> str:
    """A token count in a few characters: ``812``, ``12.3k``, ``4.56M``."""
    if n is None:
        return "-"
    if n < 10_000:
        return f"{n:,.0f}"
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.2f}M"


def fmt_cost(usd: float | None) -> str:
    """A cost in dollars (``-`` when no price was known)."""
    if usd is None:
        return "-"
    return f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"


def split_ids(ids: list[str]) -> list[tuple[str | None, str]]:
    """Rows of a task table: ``(task id, shown name)``, with a ``(None, "suite/")`` header before each suite.

    The suite prefix is printed once per run of same-suite ids and the rest indented, so tables fit 80
    columns without cutting ids: ``["smartplay/hanoi-3", "smartplay/rps"]`` -> ``[(None, "smartplay/"),
    ("smartplay/hanoi-3", "  hanoi-3"), ("smartplay/rps", "  rps")]``. An id whose first part is not a
    plain suite name (a stray record's), or that holds a character that is not printable (a newline, an
    escape), is shown whole, so the only line breaks in a shown name are those ``wrap_ids`` puts there.
    """
    out: list[tuple[str | None, str]] = []
    current: str | None = None
    for tid in ids:
        suite, _, rest = tid.partition("/")
        if not rest or not _SUITE_NAME.fullmatch(suite) or not tid.isprintable():
            out.append((tid, tid))
            current = None
            continue
        if suite != current:
            out.append((None, suite + "/"))
            current = suite
        out.append((tid, "  " + rest))
    return out


def id_width(rows: list[tuple[str | None, str]], cap: int = 28) -> int:
    """The task column's minimum width: its longest shown name, up to ``cap`` (longer names fold)."""
    return min(cap, max((max(len(line) for line in shown.split("\n")) for _, shown in rows), default=12))


def wrap_ids(rows: list[tuple[str | None, str]], width: int) -> list[tuple[str | None, str]]:
    """Shown names longer than ``width`` broken after their inner ``/`` (``babaisai/``, then the level).

    A narrow column then breaks an id where it has a joint rather than mid-word.
    """
    out = []
    for tid, shown in rows:
        head, sep, rest = shown.partition("/")
        if tid is not None and sep and len(shown) > width and shown.startswith("  "):
            shown = f"{head}/\n    {rest}"
        out.append((tid, shown))
    return out


_SUITE_NAME = re.compile(r"[a-z][a-z0-9_]*")


#: Longest label (task id, model name, path) printed in a table; record text can be megabytes.
LABEL_LIMIT = 200


def safe_text(value: object, limit: int | None = None, one_line: bool = False) -> str:
    """``value`` made inert for a terminal: control characters visible (ESC as ``␛``), no escape sequences.

    Use it for any user or record text printed with ``click.echo``; for rich, use ``safe_markup`` or
    ``plain``, which also keep rich from reading ``[...]`` as markup.
    """
    return inert_text(value, limit=limit, one_line=one_line)


def safe_markup(value: object, limit: int | None = LABEL_LIMIT) -> str:
    """``value`` as inert text to embed in a rich markup string (its ``[`` cannot open a tag)."""
    return escape(inert_text(value, limit=limit, one_line=True))


def plain_lines(value: str) -> Text:
    """``value`` as ``plain`` text, its own line breaks kept (each line made inert on its own)."""
    return Text("\n").join(plain(line) for line in value.split("\n"))


def plain(value: object, limit: int | None = LABEL_LIMIT) -> Text:
    """``value`` as a rich ``Text`` for a table cell or title: inert, no markup, no emoji codes."""
    return Text(inert_text(value, limit=limit, one_line=True))


def inert_tree(value: Any) -> Any:
    """A copy of a JSON-like value whose strings (keys too) are ``safe_markup``; other values are kept.

    For code that puts record strings into rich tables as markup (the suites' ``render``).
    """
    if isinstance(value, str):
        return safe_markup(value)
    if isinstance(value, dict):
        return {safe_markup(k) if isinstance(k, str) else k: inert_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(inert_tree(v) for v in value)
    return value
