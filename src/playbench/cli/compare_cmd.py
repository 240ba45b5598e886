"""``playbench compare``: B − A per task with paired statistics."""

import json
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from playbench.cli.common import console, open_runs, plain
from playbench.report.compare import compare_runs


def _fmt(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _errors(errors: dict[str, dict[str, int]]) -> str:
    """Episodes left out for an error status, A / B (``0 / 2``)."""
    return f"{sum(errors.get('a', {}).values())} / {sum(errors.get('b', {}).values())}"


def _who(side: dict[str, Any]) -> Text:
    return plain(side["model"] or side["agent"])


@click.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(run_a: str, run_b: str, as_json: bool) -> None:
    """Compare RUN_B against RUN_A, pairing episodes by (task, episode seed)."""
    a, b = open_runs((run_a, run_b))
    result = compare_runs(a, b)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=True))
        return
    table = Table(title=Text.assemble(_who(result["b"]), " (B) − ", _who(result["a"]), " (A): score"))
    for col in ("task", "pairs", "mean A", "mean B", "B − A", "95% CI", "test", "p", "errors A / B"):
        table.add_column(col, justify="left" if col in ("task", "test") else "right")
    rows = list(result["tasks"].items()) + [("overall", result["overall"])]
    for task, r in rows:
        ci = r.get("ci95", [None, None])
        # plain Text cells: "[lo, hi]" and record task ids must not be read as rich markup
        table.add_row(plain(task), str(r.get("n", 0)), _fmt(r.get("mean_a")), _fmt(r.get("mean_b")),
                      _fmt(r.get("mean_diff")), Text(f"[{_fmt(ci[0])}, {_fmt(ci[1])}]"),
                      r.get("test", "-") + ("" if r.get("paired") else " (unpaired)"), _fmt(r.get("p_value"), 4),
                      _errors(r.get("errors", {})))
    console.print(table)
    for name in ("a", "b"):
        coverage = result[name]["episodes"]
        if not coverage["complete"]:
            line = Text(f"{name.upper()} (", style="yellow")
            line.append_text(_who(result[name]))
            line.append(f"): {coverage['note']}")
            console.print(line)
