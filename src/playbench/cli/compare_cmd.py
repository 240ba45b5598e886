"""``playbench compare``: B − A per task with paired statistics."""

import json
from typing import Any

import click
from rich import box
from rich.table import Table
from rich.text import Text

from playbench.cli.common import console, fmt_num, id_width, open_runs, plain, plain_lines, split_ids, wrap_ids
from playbench.report.compare import POOLING, compare_runs


def _fmt(x: float | None) -> str:
    return "-" if x is None else fmt_num(x)


def _p(x: float | None) -> str:
    return "-" if x is None else ("<0.001" if x < 0.001 else f"{x:.3f}")


def _errors(errors: dict[str, dict[str, int]]) -> str:
    """Episodes left out for an error status, A / B (``0 / 2``)."""
    return f"{sum(errors.get('a', {}).values())} / {sum(errors.get('b', {}).values())}"


def _who(side: dict[str, Any]) -> Text:
    return plain(side.get("label") or side["model"] or side["agent"])


def _diff(r: dict[str, Any]) -> str:
    """``B − A`` over its 95% CI on a second line."""
    lo, hi = r.get("ci95") or (None, None)
    text = _fmt(r.get("mean_diff"))
    return text if lo is None or hi is None else f"{text}\n[{_fmt(lo)}, {_fmt(hi)}]"


@click.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(run_a: str, run_b: str, as_json: bool) -> None:
    """Compare RUN_B against RUN_A, pairing episodes by (task, episode seed).

    Each task is compared on its own scale; the overall row pools the pairs after normalizing each
    task's scores to [0, 1] by their range over both runs. Runs that share no task are refused.
    """
    a, b = open_runs((run_a, run_b))
    result = compare_runs(a, b)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=True))
        return
    title = Text.assemble(_who(result["b"]), " (B) − ", _who(result["a"]), " (A): score")
    table = Table(title=title, box=box.SIMPLE_HEAD,
                  caption="pairs share an episode seed; p: Wilcoxon signed-rank (Welch t if unpaired)")
    id_rows = wrap_ids(split_ids(list(result["tasks"])), 28)
    table.add_column("task", overflow="fold", min_width=id_width(id_rows))
    for col in ("pairs", "mean A", "mean B", "B − A [95% CI]", "p", "err A/B"):
        table.add_column(col, justify="right", no_wrap=True)
    rows = [(tid, shown, result["tasks"][tid] if tid else None) for tid, shown in id_rows]
    rows.append(("overall", "overall*", result["overall"]))
    notes = []
    for tid, shown, r in rows:
        if r is None:
            table.add_row(plain(shown), style="bold")
            continue
        if r.get("note"):
            notes.append(Text.assemble(plain(tid), f": {r['note']}"))
        if not r.get("n") and r.get("mean_diff") is None:  # nothing compared: said once below, not dashes
            continue
        p = _p(r.get("p_value"))
        # plain Text cells: "[lo, hi]" and record task ids must not be read as rich markup
        table.add_row(plain_lines(shown), str(r.get("n", 0)), _fmt(r.get("mean_a")), _fmt(r.get("mean_b")),
                      Text(_diff(r)), p, _errors(r.get("errors", {})))
    console.print(table)
    if result["overall"].get("n"):
        console.print(f"* overall: {POOLING} (tasks on different scales weigh alike)")
    for note in notes:
        console.print(note, style="yellow")
    for name in ("a", "b"):
        coverage = result[name]["episodes"]
        if not coverage["complete"]:
            line = Text(f"{name.upper()} (", style="yellow")
            line.append_text(_who(result[name]))
            line.append(f"): {coverage['note']}")
            console.print(line)
