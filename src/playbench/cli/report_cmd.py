"""``playbench report``: tables and JSON computed from run records only.

Every string shown comes from records or run.json, so it is printed through ``plain``/``safe_markup``:
no terminal escape sequence, control character or rich markup in a record reaches the terminal.
"""

import json
import shlex
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from playbench.cli.common import console, fmt_stat, inert_tree, open_runs, plain
from playbench.core.errors import PlaybenchError
from playbench.core.records import STATUSES
from playbench.report.build import build_report, episodes_text, errors_text, suite_module


def print_report(report: dict[str, Any]) -> None:
    """Print the per-task table, the coverage line when episodes are missing, and each suite's tables."""
    run = report["run"]
    who = run["model"] or run["agent"]
    title = Text.assemble(plain(run["run_id"]), " — ", plain(who), f" (seed {run['seed']})")
    table = Table(title=title)
    for col in ("task", "episodes", "ok", "errors", "score", "completion", "steps", "invalid"):
        table.add_column(col, justify="left" if col == "task" else "right")
    for tid, e in report["tasks"].items():
        status = {s: e["status"].get(s, 0) for s in STATUSES}
        name = plain(tid)
        if e.get("note"):  # e.g. which Messenger manual the episodes read (record text: shown inertly)
            note = plain(f" ({e['note']})", limit=None)
            note.stylize("yellow")
            name.append_text(note)
        table.add_row(name, episodes_text(e), str(status["ok"]), errors_text(status), fmt_stat(e["score"]),
                      fmt_stat(e["completion"]), str(e["steps"]), str(e["invalid_actions"]))
    console.print(table)
    coverage = run.get("episodes")
    if coverage and (not coverage["complete"] or coverage["unscheduled"]):
        line = Text(coverage["note"], style="bold yellow")
        if coverage["missing"]:
            line.append(" — continue with: playbench eval --resume ")
            line.append_text(plain(shlex.quote(run["path"]), limit=None))
        console.print(line)
    for suite, summary in report.items():
        if suite in ("run", "tasks"):
            continue
        module = suite_module(suite)
        if module is not None and hasattr(module, "render"):
            # suites build rich tables from plain strings (read as markup): hand them inert, escaped text
            for renderable in module.render(inert_tree(summary)):
                console.print(renderable)


def leaderboard(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One row per run (model or agent): the mean score of every task, with its standard error."""
    tasks = list(dict.fromkeys(t for r in reports for t in r["tasks"]))
    rows = []
    for r in reports:
        rows.append({"run_id": r["run"]["run_id"], "who": r["run"]["model"] or r["run"]["agent"],
                     "episodes": r["run"].get("episodes"),
                     "scores": {t: r["tasks"][t]["score"] for t in tasks if t in r["tasks"]}})
    return {"tasks": tasks, "rows": rows}


def print_leaderboard(board: dict[str, Any]) -> None:
    """The leaderboard as a table (a run with missing episodes says so beside its name)."""
    table = Table(title="leaderboard (score mean ± stderr)")
    table.add_column("model / agent")
    for t in board["tasks"]:
        table.add_column(plain(t), justify="right")
    for row in board["rows"]:
        name = Text.assemble(plain(row["who"]), " (", plain(row["run_id"]), ")")
        coverage = row.get("episodes")
        if coverage and not coverage["complete"]:
            name.append(f" [{coverage['recorded']} of {coverage['scheduled']} scheduled]", style="yellow")
        table.add_row(name, *[fmt_stat(row["scores"][t]) if t in row["scores"] else "-" for t in board["tasks"]])
    console.print(table)


def print_submission(result: dict[str, Any]) -> None:
    """A BALROG submission folder's leaderboard figure, as BALROG prints it, and any disagreement."""
    from playbench.suites.balrog.submission import leaderboard_line

    summary = result["summary"]
    table = Table(title=Text.assemble("BALROG submission ", plain(result["folder"])))
    for col in ("environment", "progression % ± SE", "episodes"):
        table.add_column(col, justify="left" if col == "environment" else "right")
    for env, block in summary["environments"].items():
        table.add_row(plain(env), f"{block['progression_percentage']:.2f} ± {block['standard_error']:.2f}",
                      str(block["episodes_played"]))
    console.print(table)
    console.print(Text(leaderboard_line(summary)))
    if result["recorded"] is None:
        console.print(Text("no summary.json: figure computed from the episode files", style="yellow"))
    elif result["mismatches"]:
        console.print(Text("summary.json disagrees with its episode files (figure above: the episode files):",
                           style="bold red"))
        for line in result["mismatches"]:
            console.print(plain(f"  {line}", limit=None))
    else:
        console.print(Text("summary.json agrees with the episode files", style="green"))


@click.command("report")
@click.argument("runs", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
def command(runs: tuple[str, ...], as_json: bool) -> None:
    """Summarize one or more RUN directories (never re-runs anything).

    A BALROG submission folder (BALROG's summary.json and per-environment episode files) is read too:
    its leaderboard figure is recomputed from the episode files as BALROG computes it.
    """
    from playbench.suites.balrog.submission import is_submission, read_submission

    submissions = [read_submission(Path(p)) for p in runs if is_submission(Path(p))]
    runs = tuple(p for p in runs if not is_submission(Path(p)))
    if submissions and not runs:
        if as_json:
            out = submissions[0] if len(submissions) == 1 else {"submissions": submissions}
            click.echo(json.dumps(out, indent=2, ensure_ascii=True))
        else:
            for result in submissions:
                print_submission(result)
        return
    reports = [build_report(store) for store in open_runs(runs)]
    if submissions:
        if as_json:
            raise PlaybenchError("report --json takes either runs or BALROG submission folders, not both")
        for result in submissions:
            print_submission(result)
    if as_json:
        out = reports[0] if len(reports) == 1 else {"runs": reports, "leaderboard": leaderboard(reports)}
        # ASCII JSON: control characters in record text stay \u escapes, never raw bytes on the terminal
        click.echo(json.dumps(out, indent=2, ensure_ascii=True))
        return
    for report in reports:
        print_report(report)
    if len(reports) > 1:
        print_leaderboard(leaderboard(reports))
