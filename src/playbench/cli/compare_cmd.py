"""``playbench compare``: B − A per task with paired statistics."""

import json

import click
from rich.table import Table

from playbench.cli.common import console, open_runs
from playbench.report.compare import compare_runs


def _fmt(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


@click.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(run_a: str, run_b: str, as_json: bool) -> None:
    """Compare RUN_B against RUN_A, pairing episodes by (task, episode seed)."""
    a, b = open_runs((run_a, run_b))
    result = compare_runs(a, b)
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    who = lambda side: side["model"] or side["agent"]  # noqa: E731
    table = Table(title=f"{who(result['b'])} (B) − {who(result['a'])} (A): score")
    for col in ("task", "pairs", "mean A", "mean B", "B − A", "95% CI", "test", "p"):
        table.add_column(col, justify="left" if col in ("task", "test") else "right")
    rows = list(result["tasks"].items()) + [("overall", result["overall"])]
    for task, r in rows:
        ci = r.get("ci95", [None, None])
        table.add_row(task, str(r.get("n", 0)), _fmt(r.get("mean_a")), _fmt(r.get("mean_b")), _fmt(r.get("mean_diff")),
                      f"[{_fmt(ci[0])}, {_fmt(ci[1])}]", r.get("test", "-") + ("" if r.get("paired") else " (unpaired)"),
                      _fmt(r.get("p_value"), 4))
    console.print(table)
