"""Small helpers shared by commands."""

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from playbench.core.errors import PlaybenchError
from playbench.log.read import RunLog, read_run
from playbench.report.inert import inert_text

console = Console()
if not console.is_terminal:  # pipes and CI logs: wide enough that task ids are not cut
    console = Console(width=160)
err_console = Console(stderr=True)

def open_runs(paths: tuple[str, ...]) -> list[RunLog]:
    """Open several run directories, failing with one clear line on the first bad one."""
    if not paths:
        raise PlaybenchError("give at least one run directory")
    return [read_run(p) for p in paths]


def fmt_stat(stat: dict, digits: int = 3) -> str:
    """``mean ± stderr`` for a summary dict, ``-`` when empty."""
    if stat.get("mean") is None:
        return "-"
    if stat.get("stderr") is None:
        return f"{stat['mean']:.{digits}f}"
    return f"{stat['mean']:.{digits}f} ± {stat['stderr']:.{digits}f}"


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
