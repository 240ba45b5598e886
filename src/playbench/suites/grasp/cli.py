"""``playbench grasp ...``: GRASP-specific commands (re-scoring published answers).

The suite's own command (``SUITE.commands`` in ``tasks.py``): the command line imports it only to run it.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from playbench.core.errors import PlaybenchError


@click.group("grasp")
def group() -> None:
    """GRASP tools that work on the official data files."""


@group.command("rescore")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--grids", "grids", required=True, type=click.Path(path_type=Path),
              help="Directory (or file) of the official grid files (*_*_*.jsonl).")
@click.option("--scoring", type=click.Choice(["fixed", "compat"]), default="fixed", show_default=True,
              help="fixed: energy on the start cell (the paper's objective); compat: on the final cell (Table 1).")
@click.option("--parser", "parser_mode", type=click.Choice(["grasp-v1", "list-only", "all-upper", "all-words"]),
              default="grasp-v1", show_default=True, help="How free-text answers become plans.")
@click.option("--parser-list", type=click.Choice(["first", "last", "longest"]), default="first", show_default=True,
              help="Which bracketed list wins when an answer has several.")
@click.option("--parser-comments", type=click.Choice(["strip", "keep"]), default="strip", show_default=True,
              help="Remove # and // comments inside lists before reading actions.")
@click.option("--indices", default=None, metavar="RANGES",
              help="Only these grid indices, e.g. 0-9 (the paper's Table 1) or 0-4,7.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
def rescore_cmd(
    files: tuple[Path, ...], grids: Path, scoring: str, parser_mode: str, parser_list: str, parser_comments: str,
    indices: str | None, as_json: bool,
) -> None:
    """Re-score published answers in FILES (baseline results, OpenAI batch output, o1-mini output).

    A directory stands for every *.jsonl file in it.

    Never calls a model. Answers are joined to grids by custom_id or by (file, index, constraints).
    """
    from playbench.suites.grasp.parse import ParserOptions
    from playbench.suites.grasp.rescore import rescore

    missing = [str(f) for f in files if not f.exists()]
    if missing:
        raise PlaybenchError(f"file not found: {missing[0]}")
    # a directory stands for every *.jsonl file in it (e.g. data/results/greedy_results/)
    files = tuple(p for f in files for p in (sorted(f.glob("*.jsonl")) if f.is_dir() else [f]))
    options = ParserOptions(parser_mode, parser_list, parser_comments)  # type: ignore[arg-type]
    chosen = None if indices is None else parse_indices(indices)
    result = rescore(list(files), grids, scoring, options, chosen)  # type: ignore[arg-type]
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    from playbench.core.terminal import console
    from playbench.suites.grasp.table import SWAP_NOTE, render_table

    if result["agents"]:
        subset = "" if indices is None else f", indices {indices}"
        title = f"GRASP re-scored ({scoring} scoring, parser {result['parser']}{subset}): length / energy ± s.e."
        console.print(render_table(result["agents"], title, caption=SWAP_NOTE))
    else:
        console.print("no answers could be scored")
    counts = result["counts"]
    console.print(f"{counts['scored']} answers scored, {counts['problems']} problem lines")
    for p in result["problems"][:50]:
        console.print(f"  {p['file']}:{p['line']}: {p['reason']}", markup=False, highlight=False)
    if len(result["problems"]) > 50:
        console.print(f"  ... and {len(result['problems']) - 50} more (see --json)")


def parse_indices(text: str) -> frozenset[int]:
    """``0-9`` or ``0-4,7`` as a set of grid indices (0–99); a malformed list is a PlaybenchError."""
    chosen: set[int] = set()
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        try:
            first, last = int(low), int(high or low)
        except ValueError:
            raise PlaybenchError(f"--indices: {part.strip()!r} is not an index or a range like 0-9") from None
        if not 0 <= first <= last <= 99:
            raise PlaybenchError(f"--indices: {part.strip()!r} is not within 0-99 (low to high)")
        chosen.update(range(first, last + 1))
    return frozenset(chosen)
