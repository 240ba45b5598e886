"""``playbench compare``: B − A per task, per environment and overall, with paired statistics."""

import json
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.table import Table
from rich.text import Text

from playbench.api import formats
from playbench.cli.common import console, fmt_num, id_width, plain, plain_lines, split_ids, wrap_ids
from playbench.core.errors import PlaybenchError
from playbench.log.read import RunLog, read_run
from playbench.report.compare import Folder, compare

#: What each kind of key is called in the table's caption.
KEY_NAMES = {"seed": "episode seed"}


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


def _settings(values: tuple[str, ...]) -> dict[str, str]:
    """``-S KEY=VALUE`` pairs as a dict; a malformed or repeated one is refused in one line."""
    out: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise PlaybenchError(f"-S {item!r}: expected KEY=VALUE (e.g. data=DIR)")
        if key.strip() in out:
            raise PlaybenchError(f"-S {key.strip()} given twice")
        out[key.strip()] = value.strip()
    return out


def open_sides(paths: tuple[str, str], settings: dict[str, str]) -> list[RunLog | Folder]:
    """Each path as a run, or as a folder a suite's format reads for compare (one line when it is neither)."""
    read = formats.compared(tuple(Path(p) for p in paths), settings)
    return [read_run(path) if found is None else Folder(Path(path), *found) for path, found in zip(paths, read,
                                                                                                  strict=True)]


@click.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@click.option("-S", "settings", multiple=True, metavar="KEY=VALUE",
              help="A setting of a side of published answers: data=DIR (the official data they are scored on: "
                   "GRASP's grids, MANGO's mazes), scoring=fixed|compat (GRASP), mode=fixed|compat (MANGO).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(run_a: str, run_b: str, settings: tuple[str, ...], as_json: bool) -> None:
    """Compare B against A, pairing episodes that share a task and an instance.

    A and B are runs or published folders: a BALROG submission (a leaderboard row, or one 'export --format
    balrog' wrote), GRASP's published answers, a MANGO answer set. Runs pair by (task, episode seed); a BALROG
    folder's episode files hold their seed, which pairs with a run's; GRASP's answers pair by instance id and
    MANGO's by question with a run of the official data.

    Per task: mean difference, bootstrap 95% interval, Wilcoxon test (Welch's test when nothing pairs). Per
    environment, the same over its pairs; overall, BALROG's aggregate (each environment's mean, then their
    mean) with a bootstrap stratified by environment. Above the table: the protocol differences, each marked
    as changing what the numbers mean or not.
    """
    side_a, side_b = open_sides((run_a, run_b), _settings(settings))
    result = compare(side_a, side_b)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=True))
        return
    _print_protocol(result)
    _print_table(result)
    _print_notes(result)


def _meaning(changes: bool | None) -> Text:
    if changes is None:
        return Text("unknown: one side does not state it", style="dim")
    return Text("changes what the numbers mean", style="yellow") if changes else Text("same meaning", style="dim")


def _print_protocol(result: dict[str, Any]) -> None:
    rows = result["protocol"]
    if not rows:
        console.print(Text("protocol: no difference in what both sides state", style="dim"))
        return
    table = Table(title="protocol differences", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("setting", overflow="fold")
    for col in ("A", "B"):
        table.add_column(col, overflow="fold")
    table.add_column("", overflow="fold")
    for row in rows:
        shown = row["label"] + (f" ({', '.join(row['tasks'][:2])}{', …' if len(row['tasks']) > 2 else ''})"
                                if row.get("tasks") else "")
        table.add_row(plain(shown), *(plain("not stated" if row[s] is None else row[s]) for s in ("a", "b")),
                      _meaning(row["changes_meaning"]))
    console.print(table)


def _print_table(result: dict[str, Any]) -> None:
    title = Text.assemble(_who(result["b"]), " (B) − ", _who(result["a"]), " (A): score")
    key = KEY_NAMES.get(result["key"], result["key"])
    table = Table(title=title, box=box.SIMPLE_HEAD,
                  caption=f"pairs share the task and the {key}; p: Wilcoxon signed-rank (Welch t if unpaired)")
    id_rows = wrap_ids(split_ids(list(result["tasks"])), 28)
    table.add_column("task", overflow="fold", min_width=id_width(id_rows))
    for col in ("pairs", "mean A", "mean B", "B − A [95% CI]", "p", "err A/B"):
        table.add_column(col, justify="right", no_wrap=True)
    rows: list[tuple[str, dict[str, Any] | None]] = [(shown, result["tasks"][tid] if tid else None)
                                                     for tid, shown in id_rows]
    if len(result["environments"]) > 1:
        rows.append(("per environment", None))
        rows += [(f"  {env}", r) for env, r in result["environments"].items()]
    rows.append(("overall*", result["overall"]))
    for shown, r in rows:
        if r is None:
            table.add_row(plain(shown), style="bold")
            continue
        if not r.get("n") and r.get("mean_diff") is None:  # nothing compared: said once below, not dashes
            continue
        pairs = str(r["n"]) if r.get("paired") else f"0 ({r.get('n_a', 0)}/{r.get('n_b', 0)})"
        # plain Text cells: "[lo, hi]" and record task ids must not be read as rich markup
        table.add_row(plain_lines(shown), pairs, _fmt(r.get("mean_a")), _fmt(r.get("mean_b")),
                      Text(_diff(r)), _p(r.get("p_value")), _errors(r.get("errors", {})))
    console.print(table)


def _print_notes(result: dict[str, Any]) -> None:
    overall = result["overall"]
    if overall.get("pooling"):
        test = overall.get("test", "")
        console.print(f"* overall: {overall['pooling']}; interval: bootstrap stratified by environment"
                      + (f"; p: {test}" if overall.get("paired") else " (unpaired: no p)"))
    for kind, rows in (("tasks", result["tasks"]), ("environments", result["environments"]),
                       ("", {"overall": overall})):
        _print_grouped(kind, {name: r["note"] for name, r in rows.items() if r.get("note")})
    for name in ("a", "b"):
        side = result[name]
        lines = list(side.get("notes", []))
        if not side["episodes"].get("complete", True):
            lines.append(side["episodes"]["note"])
        for note in lines:
            line = Text(f"{name.upper()} (", style="yellow")
            line.append_text(_who(side))
            line.append("): ")
            line.append_text(plain(note, limit=None))  # a folder's notes quote its files: shown inert
            console.print(line)


def _print_grouped(kind: str, notes: dict[str, str], named: int = 3) -> None:
    """Each note once: ``name: note`` alone, or ``N tasks (a, b, c, …): note`` when it is shared."""
    by_note: dict[str, list[str]] = {}
    for name, note in notes.items():
        by_note.setdefault(note, []).append(name)
    for note, names in by_note.items():
        if len(names) == 1:
            who = plain(names[0])
        else:
            shown = ", ".join(names[:named]) + (", …" if len(names) > named else "")
            who = Text.assemble(f"{len(names)} {kind} (", plain(shown, limit=None), ")")
        console.print(Text.assemble(who, f": {note}"), style="yellow")
