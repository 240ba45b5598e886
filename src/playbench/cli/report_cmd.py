"""``playbench report``: tables and JSON computed from run records only.

Every string shown comes from records or run.json, so it is printed through ``plain``/``safe_markup``:
no terminal escape sequence, control character or rich markup in a record reaches the terminal.
"""

import json
import shlex
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.table import Table
from rich.text import Text

from playbench.api import formats
from playbench.cli.common import (
    console,
    fmt_ci,
    fmt_cost,
    fmt_count,
    fmt_short,
    id_width,
    inert_tree,
    open_runs,
    plain,
    plain_lines,
    split_ids,
    wrap_ids,
)
from playbench.core.errors import PlaybenchError
from playbench.core.records import STATUSES
from playbench.core.suite import FormatHooks
from playbench.report.build import build_report, episodes_text, errors_text, summary_hooks


def _stat_cell(stat: dict[str, Any]) -> str:
    """``mean ± SE`` over its 95% interval on a second line (one value alone when there is no interval)."""
    text = fmt_short(stat)
    ci = fmt_ci(stat)
    return text if ci == "-" else f"{text}\n[{ci}]"


def task_table(report: dict[str, Any]) -> Table:
    """Per task: episodes, errors, score and completion with SE and 95% CI, steps, invalid actions.

    Fits 80 columns: the suite prefix is printed once as a header row, ids are folded, never cut.
    """
    run = report["run"]
    title = Text.assemble(plain(run["run_id"]), " — ", plain(run.get("label") or run["model"] or run["agent"]),
                          f" (seed {run['seed']})")
    table = Table(title=title, box=box.SIMPLE_HEAD, caption="score, completion: mean ± SE [95% CI]")
    tasks = report["tasks"]
    id_rows = wrap_ids(split_ids(list(tasks)), 18)
    table.add_column("task", overflow="fold", min_width=id_width(id_rows, cap=18))
    for col in ("eps", "err", "score", "compl.", "steps", "inv."):
        table.add_column(col, justify="right", no_wrap=True)
    for tid, shown in id_rows:
        if tid is None:
            table.add_row(plain(shown), style="bold")
            continue
        e = tasks[tid]
        status = {s: e["status"].get(s, 0) for s in STATUSES}
        name = plain_lines(shown)
        if e.get("note"):  # e.g. which Messenger manual the episodes read (record text: shown inertly)
            note = plain(f" ({e['note']})", limit=None)
            note.stylize("yellow")
            name.append_text(note)
        table.add_row(name, episodes_text(e), errors_text(status), _stat_cell(e["score"]),
                      _stat_cell(e["completion"]), str(e["steps"]), str(e["invalid_actions"]))
    return table


def _cache_read_cell(usage: dict[str, Any]) -> str:
    """Input tokens the provider's prompt cache served, with their share of the input: ``12.3k (61%)``."""
    if "cache_read_tokens" not in usage:
        return "-"
    rate = usage.get("cache_hit_rate")
    return fmt_count(usage["cache_read_tokens"]) + (f" ({rate:.0%})" if rate is not None else "")


def _cost_cell(usage: dict[str, Any]) -> str:
    """The cost; ``≥ $x`` when some answers carried no token counts (``n/a`` when none of the cost was counted)."""
    least = usage.get("cost_usd_at_least")
    if "usage_note" not in usage or least is None:  # all reported, or no price known
        return fmt_cost(usage.get("cost_usd"))
    return f"≥ {fmt_cost(least)}" if least else "n/a"


def cost_table(report: dict[str, Any]) -> Table | None:
    """Tokens (input, output, served from cache) and cost per task and for the run; None without model calls."""
    tasks = {t: e for t, e in report["tasks"].items() if e.get("usage", {}).get("calls")}
    if not tasks:
        return None
    # the provider's prompt cache, when it reported one: input tokens it served and their share of the input
    prompt_cache = any("cache_read_tokens" in e["usage"] for e in tasks.values())
    caption = "cached: answered from the response cache (not paid); cost -: no price known"
    if prompt_cache:
        caption += "; cache read: input served by the provider's prompt cache (its share), at the cached price"
    table = Table(title="model usage and cost", box=box.SIMPLE_HEAD, caption=caption)
    id_rows = wrap_ids(split_ids(list(tasks)), 28)
    table.add_column("task", overflow="fold", min_width=id_width(id_rows))
    for col in ("calls", "input tok", "output tok", "cached tok", *(("cache read",) if prompt_cache else ()), "cost"):
        table.add_column(col, justify="right", no_wrap=True)

    def row(name: Text, u: dict[str, Any], **style: Any) -> None:
        cached = u.get("cached_input_tokens", 0) + u.get("cached_output_tokens", 0)
        read = [_cache_read_cell(u)] if prompt_cache else []
        table.add_row(name, fmt_count(u.get("calls", 0)), fmt_count(u.get("input_tokens", 0)),
                      fmt_count(u.get("output_tokens", 0)), fmt_count(cached), *read, _cost_cell(u), **style)

    for tid, shown in id_rows:
        if tid is None:
            table.add_row(plain(shown), style="bold")
        else:
            row(plain_lines(shown), tasks[tid]["usage"])
    row(Text("total (run)"), report["run"].get("usage", {}), style="bold")
    return table


def print_report(report: dict[str, Any]) -> None:
    """Print the per-task table, usage and cost, the coverage line when episodes are missing, and each suite's tables."""
    console.print(task_table(report))
    costs = cost_table(report)
    if costs is not None:
        console.print(costs)
    note = report["run"].get("usage", {}).get("usage_note")
    if note:
        console.print(Text(note, style="bold yellow"))
    run = report["run"]
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
        hooks = summary_hooks(suite)
        if hooks is not None:
            # suites build rich tables from plain strings (read as markup): hand them inert, escaped text
            for renderable in hooks.render(inert_tree(summary)):
                console.print(renderable)


def leaderboard(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One row per run (its label, model or agent): the mean score of every task, with SE and 95% interval."""
    tasks = list(dict.fromkeys(t for r in reports for t in r["tasks"]))
    rows = []
    for r in reports:
        rows.append({"run_id": r["run"]["run_id"], "who": r["run"]["model"] or r["run"]["agent"],
                     "label": r["run"].get("label"), "episodes": r["run"].get("episodes"),
                     "scores": {t: r["tasks"][t]["score"] for t in tasks if t in r["tasks"]}})
    return {"tasks": tasks, "rows": rows}


def print_leaderboard(board: dict[str, Any]) -> None:
    """The leaderboard: one row per task, one numbered column per run, the runs named below the table.

    Numbered columns keep it within 80 columns for a few runs; a run with missing episodes says so.
    """
    table = Table(title="leaderboard: score mean ± SE [95% CI]", box=box.SIMPLE_HEAD)
    id_rows = wrap_ids(split_ids(board["tasks"]), 18)
    table.add_column("task", overflow="fold", min_width=id_width(id_rows, cap=18))
    for k in range(len(board["rows"])):
        table.add_column(f"run {k + 1}", justify="right", no_wrap=True)
    for tid, shown in id_rows:
        if tid is None:
            table.add_row(plain(shown), style="bold")
            continue
        table.add_row(plain_lines(shown), *[_stat_cell(row["scores"][tid]) if tid in row["scores"] else "-"
                                      for row in board["rows"]])
    console.print(table)
    for k, row in enumerate(board["rows"]):
        name = Text.assemble(f"run {k + 1}: ", plain(row.get("label") or row["who"]), " (", plain(row["run_id"]), ")")
        coverage = row.get("episodes")
        if coverage and not coverage["complete"]:
            name.append(f" [{coverage['recorded']} of {coverage['scheduled']} scheduled]", style="yellow")
        console.print(name)


def print_folder(hooks: FormatHooks, figures: dict[str, Any]) -> None:
    """A suite's folder (BALROG's submission folder) as its format shows it; its strings handed over inert."""
    for renderable in hooks.render(inert_tree(figures)):
        console.print(renderable)


def _folders(paths: tuple[str, ...]) -> tuple[list[tuple[FormatHooks, dict[str, Any]]], tuple[str, ...]]:
    """The paths that are folders of a format a suite declares, read, and the rest (runs, or refused as runs)."""
    folders, runs = [], []
    for path in paths:
        found = formats.format_of(Path(path))
        if found is None:
            runs.append(path)
        else:
            folders.append((found[1], found[1].read(Path(path))))
    return folders, tuple(runs)


@click.command("report")
@click.argument("runs", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
def command(runs: tuple[str, ...], as_json: bool) -> None:
    """Summarize one or more RUN directories (never re-runs anything).

    A folder of a format a suite declares is read too: a BALROG submission folder (BALROG's summary.json and
    per-environment episode files) has its leaderboard figure recomputed from the episode files as BALROG
    computes it; a folder that publishes its summary.json alone is shown as published, marked as not
    recomputed.
    """
    folders, runs = _folders(runs)
    if folders and not runs:
        if as_json:
            out = folders[0][1] if len(folders) == 1 else {"submissions": [figures for _, figures in folders]}
            click.echo(json.dumps(out, indent=2, ensure_ascii=True))
        else:
            for hooks, figures in folders:
                print_folder(hooks, figures)
        return
    reports = [build_report(store) for store in open_runs(runs)]
    if folders:
        if as_json:
            raise PlaybenchError(f"report --json takes either runs or {folders[0][0].title} folders, not both")
        for hooks, figures in folders:
            print_folder(hooks, figures)
    if as_json:
        out = reports[0] if len(reports) == 1 else {"runs": reports, "leaderboard": leaderboard(reports)}
        # ASCII JSON: control characters in record text stay \u escapes, never raw bytes on the terminal
        click.echo(json.dumps(out, indent=2, ensure_ascii=True))
        return
    for report in reports:
        print_report(report)
    if len(reports) > 1:
        print_leaderboard(leaderboard(reports))
