"""``playbench mango``: rebuild skeletons, dataset statistics, and re-score answer folders or runs.

The suite's own command (``SUITE.commands`` in ``tasks.py``): the command line imports it only to run it.
"""

import json
from pathlib import Path
from typing import Any, Literal

import click

from playbench.core.errors import PlaybenchError


@click.group(name="mango")
def group() -> None:
    """MANGO tools: skeletons, stats, score, compare."""


@group.command()
@click.argument("game_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--output", "-o", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for X.all2all.jsonl and X.all_pairs.jsonl.")
def skeletons(game_dir: Path, output: Path) -> None:
    """Rebuild X.all2all.jsonl and X.all_pairs.jsonl from GAME_DIR/X.edges.json (spec §4)."""
    from playbench.core.terminal import console
    from playbench.suites.mango.formats import open_game
    from playbench.suites.mango.skeletons import skeleton_texts

    game = open_game(game_dir)
    all2all, all_pairs = skeleton_texts(game.edges)
    output.mkdir(parents=True, exist_ok=True)
    (output / f"{game.name}.all2all.jsonl").write_text(all2all, encoding="utf-8")
    (output / f"{game.name}.all_pairs.jsonl").write_text(all_pairs, encoding="utf-8")
    console.print(f"{game.name}: {all2all.count(chr(10))} DF and {all_pairs.count(chr(10))} RF skeletons -> {output}")


@group.command()
@click.argument("data_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--games", default=None, help="Comma-separated game names.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def stats(data_dir: Path, games: str | None, as_json: bool) -> None:
    """Table 3 of the paper per game and in total, plus the counts at the release cutoff (spec §8)."""
    from playbench.core.terminal import console
    from playbench.suites.mango.formats import open_data
    from playbench.suites.mango.stats import TABLE_COLUMNS, game_stats, totals

    names = [g.strip() for g in games.split(",")] if games else None
    rows = [game_stats(g) for g in open_data(data_dir, names)]
    total = totals(rows)
    if as_json:
        click.echo(json.dumps({"games": {r["game"]: r for r in rows}, "total": total}, indent=2))
        return
    from rich.table import Table

    table = Table(title=f"MANGO statistics of {data_dir}")
    for key, label in TABLE_COLUMNS:
        table.add_column(label, justify="left" if key == "game" else "right")
    for r in [*rows, total]:
        table.add_row(*[_cell(r.get(k)) for k, _ in TABLE_COLUMNS])
    console.print(table)


def _cell(v: object) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


@group.command()
@click.argument("results_dir", type=click.Path(exists=True, path_type=Path))
@click.option("--data", "data_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Official data folder (needed for official-format answers and data runs).")
@click.option("--compat", is_flag=True, help="Reproduce the official evaluator, bugs included (spec §7.8).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--format", "fmt", type=click.Choice(["playbench", "official"]), default="playbench",
              help="'official': the official summary layout (per game all/easy/hard sums and averages).")
@click.option("--output", "-o", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="With --format official: also write <set>/<game>.json with per-file results.")
def score(results_dir: Path, data_dir: Path | None, compat: bool, as_json: bool, fmt: str, output: Path | None) -> None:
    """Score RESULTS_DIR: answer folders ({model}_{task}_{tag}/{game}/result_sample_id_*.json) or a run."""
    from playbench.suites.mango.results import load_answers, score_items

    mode: Literal["fixed", "compat"] = "compat" if compat else "fixed"
    rows = score_items(load_answers(results_dir, mode), data_dir, mode)
    sets = sorted({r["set"] for r in rows})
    by_set = {s: [r for r in rows if r["set"] == s] for s in sets}
    if fmt == "official":
        _official(by_set, output)
        return
    from playbench.suites.mango.aggregate import summarize_rows

    summaries = {s: summarize_rows(rs) for s, rs in by_set.items()}
    if as_json:
        # one shape whatever the number of answer sets
        click.echo(json.dumps({"mode": mode, "sets": summaries}, indent=2))
        return
    _print(summaries, mode)


def _official(by_set: dict[str, list[dict[str, Any]]], output: Path | None) -> None:
    from playbench.suites.mango.aggregate import official_summary

    out = {s: official_summary(rs) for s, rs in by_set.items()}
    if output is not None:
        for s, rs in by_set.items():
            folder = output / s.replace(":", "_").replace("/", "_")
            folder.mkdir(parents=True, exist_ok=True)
            for game, summary in out[s]["games"].items():
                results = [r for r in rs if r["game"] == game]
                (folder / f"{game}.json").write_text(json.dumps({"summary": summary, "results": results}, indent=2))
            (folder / "overall.json").write_text(json.dumps(out[s]["overall"], indent=2))
    click.echo(json.dumps(out[next(iter(out))] if len(out) == 1 else out, indent=2))


def _rate(b: dict[str, Any], key: str) -> str:
    """A rate over its 95% Wilson interval (second line); ``-`` when nothing was valid."""
    value, ci = b.get(key), (b.get("ci95") or {}).get(key)
    if value is None:
        return "-"
    return f"{value:.3f}" if not ci else f"{value:.3f}\n{ci[0]:.2f}–{ci[1]:.2f}"


def _print(summaries: dict[str, dict[str, Any]], mode: str) -> None:
    from rich import box
    from rich.table import Table

    from playbench.core.terminal import console

    for name, s in summaries.items():
        table = Table(title=f"{name} ({mode})", box=box.SIMPLE_HEAD,
                      caption="rates over their 95% interval (Wilson; bootstrap for loose); wtd.: length-weighted "
                              "strict; len: path length, mean ± SE")
        width = max(len(f"{g} hard") for g in [*s["games"], "ALL (micro)"])
        table.add_column("game", min_width=min(width, 20), overflow="fold")
        for col in ("valid/n", "strict", "loose", "reasoning", "wtd.", "len"):
            table.add_column(col, justify="right", no_wrap=True)
        for game, g in [*s["games"].items(), ("ALL (micro)", s["overall"])]:
            for part in ("all", "easy", "hard"):
                b = g[part]
                path = _cell(b["path_len"]) if b["path_len"] is None else f"{b['path_len']:.2f}" + (
                    "" if b.get("path_len_stderr") is None else f"\n±{b['path_len_stderr']:.2f}")
                table.add_row(f"{game} {part}", f"{b['valid']}/{b['n']}",
                              *[_rate(b, k) for k in ("success_rate", "loose", "reasoning")],
                              _cell(b["weighted"]) if b["weighted"] is None else f"{b['weighted']:.3f}", path)
        console.print(table)
        e = s["errors"]
        console.print(f"errors: parse {e['parse']}, id {e['id']}, unanswerable {e['unanswerable']}, "
                      f"step_num {e['step_num']} of {e['n']} records")


@group.command()
@click.argument("results_a", type=click.Path(exists=True, path_type=Path))
@click.argument("results_b", type=click.Path(exists=True, path_type=Path))
@click.option("--data", "data_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None)
@click.option("--compat", is_flag=True)
def compare(results_a: Path, results_b: Path, data_dir: Path | None, compat: bool) -> None:
    """Pairwise intersection (paper Table 1): A's and B's success on questions both answered validly."""
    from playbench.suites.mango.aggregate import pairwise
    from playbench.suites.mango.results import load_answers, score_items

    mode: Literal["fixed", "compat"] = "compat" if compat else "fixed"
    a = score_items(load_answers(results_a, mode), data_dir, mode)
    b = score_items(load_answers(results_b, mode), data_dir, mode)
    out = {}
    for task in ("df", "rf"):
        ta, tb = [r for r in a if r["task"] == task], [r for r in b if r["task"] == task]
        if ta and tb:
            out[task] = pairwise(ta, tb)
    if not out:
        raise PlaybenchError("the two result sets share no task")
    click.echo(json.dumps(out, indent=2))
