"""``playbench report``: tables and JSON computed from run records only."""

import json
from typing import Any

import click
from rich.table import Table

from playbench.cli.common import console, fmt_stat, open_runs
from playbench.report.build import build_report, suite_module


def print_report(report: dict[str, Any]) -> None:
    """Print the per-task table and each suite's native tables."""
    run = report["run"]
    who = run["model"] or run["agent"]
    table = Table(title=f"{run['run_id']} — {who} (seed {run['seed']})")
    for col in ("task", "episodes", "ok", "errors", "score", "completion", "steps", "invalid"):
        table.add_column(col, justify="left" if col == "task" else "right")
    for tid, e in report["tasks"].items():
        errors = e["status"]["agent-error"] + e["status"]["infra-error"]
        table.add_row(tid, str(e["episodes"]), str(e["status"]["ok"]), str(errors), fmt_stat(e["score"]),
                      fmt_stat(e["completion"]), str(e["steps"]), str(e["invalid_actions"]))
    console.print(table)
    for suite, summary in report.items():
        if suite in ("run", "tasks"):
            continue
        module = suite_module(suite)
        if module is not None and hasattr(module, "render"):
            for renderable in module.render(summary):
                console.print(renderable)


@click.command("report")
@click.argument("runs", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
def command(runs: tuple[str, ...], as_json: bool) -> None:
    """Summarize one or more RUN directories (never re-runs anything)."""
    reports = [build_report(store) for store in open_runs(runs)]
    if as_json:
        click.echo(json.dumps(reports[0] if len(reports) == 1 else {"runs": reports}, indent=2))
        return
    for report in reports:
        print_report(report)
