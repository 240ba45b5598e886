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


def leaderboard(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One row per run (model or agent): the mean score of every task, with its standard error."""
    tasks = list(dict.fromkeys(t for r in reports for t in r["tasks"]))
    rows = []
    for r in reports:
        rows.append({"run_id": r["run"]["run_id"], "who": r["run"]["model"] or r["run"]["agent"],
                     "scores": {t: r["tasks"][t]["score"] for t in tasks if t in r["tasks"]}})
    return {"tasks": tasks, "rows": rows}


def print_leaderboard(board: dict[str, Any]) -> None:
    """The leaderboard as a table."""
    table = Table(title="leaderboard (score mean ± stderr)")
    table.add_column("model / agent")
    for t in board["tasks"]:
        table.add_column(t, justify="right")
    for row in board["rows"]:
        table.add_row(f"{row['who']} ({row['run_id']})",
                      *[fmt_stat(row["scores"][t]) if t in row["scores"] else "-" for t in board["tasks"]])
    console.print(table)


@click.command("report")
@click.argument("runs", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
def command(runs: tuple[str, ...], as_json: bool) -> None:
    """Summarize one or more RUN directories (never re-runs anything)."""
    reports = [build_report(store) for store in open_runs(runs)]
    if as_json:
        out = reports[0] if len(reports) == 1 else {"runs": reports, "leaderboard": leaderboard(reports)}
        click.echo(json.dumps(out, indent=2))
        return
    for report in reports:
        print_report(report)
    if len(reports) > 1:
        print_leaderboard(leaderboard(reports))
