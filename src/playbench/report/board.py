"""The board: your runs ranked among published rows, as a static site that works from ``file://``.

A row is a playbench run or a folder a suite's format reads for compare (a BALROG leaderboard row), read by
compare's own functions (``run_side``, ``folder_side``), so a score, a key and a protocol setting mean here
what they mean in ``playbench compare``. What the board adds:

- **figures** per environment (the task id's parent) and overall, as BALROG computes its leaderboard: each
  environment's mean over its episodes, then the mean of the environments. Scores are put on [0, 1] by the
  range each task declares (``score_metric``); a task that declares none is left off, said in a note. A
  figure compares only what every row it ranks holds: an environment's figure is over the tasks every row
  holding that environment holds, and the overall figure over the environments every row holds (as
  ``compare`` restricts two sides to what both have). Each row's own figure over everything it holds (for a
  leaderboard row: its published number) is shown beside it.
- **intervals**: an environment's by its metric's declared method (``stats.intervals``), the overall one
  a bootstrap stratified by environment (``stats.compare``); **rank intervals** from the same bootstrap
  draws: each row's episodes resampled within each environment, independently of the other rows, the rows
  ranked in every draw, the 2.5th and 97.5th percentiles of a row's rank.
- **pairs**: for every two rows that share instances, ``compare``'s overall row (BALROG's aggregate of the
  paired differences, its stratified bootstrap interval and sign-flip p) and its protocol differences.
- **cost**: a run's as its records carry it (priced when it ran); a folder's from the token counts its
  episode files record and the model it names, at the list price ``models.pricing`` holds now, when it
  holds one (else unknown, never $0).
- **links**: the runs' own viewer (``playbench view``, written into ``view/``) for each of their episodes;
  a folder's episode files (BALROG's CSV of steps) by a relative link.

Rows are a trust boundary: every string from a run or a folder is shown inert and HTML-escaped, every link
is built from numbers and percent-quoted paths, and the pages carry no script at all (their policy forbids
any). The site folder follows the viewer's rules (``viewer.claim_site``): new, empty or marked, and nothing
in it is written through a link.
"""

import html
import os
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from playbench.core.errors import PlaybenchError
from playbench.log.read import RunLog
from playbench.models.pricing import price_for, token_cost_usd
from playbench.models.types import GenerateConfig
from playbench.report.build import score_metric, usage_total
from playbench.report.compare import (
    PROTOCOL,
    Folder,
    Side,
    _episodes_per_task,
    compare_overalls,
    environment,
    folder_side,
    run_side,
)
from playbench.report.inert import inert_text
from playbench.report.viewer import ASSETS, LABEL_LIMIT, _fresh_dir, _remove, _write, claim_site, write_site
from playbench.stats.compare import aggregate, bootstrap_aggregates
from playbench.stats.intervals import interval
from playbench.stats.metric import Metric

Source = RunLog | Folder
#: A figure on [0, 1] (each task's score rescaled by its declared range): its interval's method.
PROGRESSION = Metric("progression", "bounded-mean", 0.0, 1.0)
RESAMPLES = 10_000  # bootstrap draws per row, as compare draws them
NOTE_LIMIT = 1000  # longest note shown below the tables
#: Settings shown per row: compare's protocol settings, then the episodes per task.
SETTINGS = [(s.name, s.label) for s in PROTOCOL if s.name != "episodes"] + [("episodes", "episodes per task")]
CSS = """
.yours td:first-child, .yours th { border-left: 4px solid #0a7d32; }
td.differs { background: #fff4d6; }
.rank { color: #555; font-size: 12px; display: block; }
.partial { color: #8a5a00; }
table.board td { white-space: nowrap; }
table.board td.wrap { white-space: normal; min-width: 24em; }
table.episodes td { white-space: nowrap; overflow-wrap: normal; }
"""


@dataclass
class Row:
    """One row of the board: what it was read from, compare's side of it and its scores on [0, 1] by task."""

    k: int
    source: Source
    yours: bool
    side: Side
    values: dict[str, list[float]]


# -- reading ---------------------------------------------------------------------------------------------


def read_rows(sources: list[tuple[Source, bool]]) -> tuple[list[Row], list[str]]:
    """Each source as a row (``yours``: a run of yours, shown first), and the notes on tasks left off."""
    paths = Counter(str(Path(_path(s)).resolve()) for s, _ in sources)
    twice = [p for p, n in paths.items() if n > 1]
    if twice:
        raise PlaybenchError(f"{twice[0]} is given twice; give each run or folder once")
    rows, unscaled = [], set()
    for k, (source, yours) in enumerate(sources):
        side = folder_side(source) if isinstance(source, Folder) else run_side(source)
        values = {}
        for task, scores in sorted(side.scores.items()):
            metric = score_metric(task)
            if metric.low is None or metric.high is None:
                unscaled.add(task)
                continue
            low, span = metric.low, metric.high - metric.low
            values[task] = [(scores[key] - low) / span for key in sorted(scores, key=str)]
        rows.append(Row(k, source, yours, side, values))
    notes = [f"{inert_text(task, limit=LABEL_LIMIT, one_line=True)}: its score declares no range, so it cannot be "
             "put on the board's scale; left off" for task in sorted(unscaled)]
    return rows, notes


def _path(source: Source) -> Path:
    return source.path


# -- the figures -----------------------------------------------------------------------------------------


def _ci(draws: np.ndarray) -> list[float] | None:
    return None if not len(draws) else [float(np.percentile(draws, 2.5)), float(np.percentile(draws, 97.5))]


def _ranks(points: dict[int, float], draws: dict[int, np.ndarray]) -> dict[int, dict[str, int]]:
    """Each row's rank by its figure (1: best; ties share the better rank) and its 95% bootstrap rank interval."""
    keys = list(points)
    table = np.vstack([draws[k] for k in keys])  # rows x draws
    above = (table[None, :, :] > table[:, None, :]).sum(axis=1)  # per row and draw: rows strictly above it
    out = {}
    for i, k in enumerate(keys):
        ranks = 1 + above[i]
        out[k] = {"rank": 1 + sum(points[j] > points[k] for j in keys),
                  "low": int(np.quantile(ranks, 0.025, method="lower")),
                  "high": int(np.quantile(ranks, 0.975, method="higher"))}
    return out


def _seed(row: Row) -> int:
    """A row's own bootstrap seed: from its path, so its draws do not depend on where it sits on the board."""
    return zlib.crc32(str(Path(row.side.path).resolve()).encode())


def rankings(rows: list[Row]) -> dict[str, Any]:
    """Per environment and overall: each row's figure, its 95% interval and its rank with a rank interval."""
    envs_of = {row.k: {environment(t) for t in row.values} for row in rows}
    pooled: dict[int, dict[str, list[float]]] = {row.k: {} for row in rows}
    environments = {env: _environment(env, [row for row in rows if env in envs_of[row.k]], pooled)
                    for env in sorted(set().union(*envs_of.values()))}
    common = sorted(set.intersection(*envs_of.values())) if rows else []
    overall: dict[int, dict[str, Any]] = {}
    draws = {}
    for row in rows:
        groups = [pooled[row.k][env] for env in common]
        draws[row.k] = bootstrap_aggregates(groups, RESAMPLES, _seed(row))
        own = [[x for t in row.values if environment(t) == env for x in row.values[t]]
               for env in sorted(envs_of[row.k])]
        overall[row.k] = {"mean": aggregate(groups), "ci95": _ci(draws[row.k]),
                          "n": sum(len(g) for g in groups), "own": aggregate(own), "own_environments": len(own)}
    _rank(overall, draws)
    return {"environments": environments, "common": common, "overall": overall}


def _environment(env: str, holders: list[Row], pooled: dict[int, dict[str, list[float]]]) -> dict[str, Any]:
    """One environment's figures over the tasks every row holding it holds (each row's values kept in ``pooled``)."""
    tasks = sorted(set.intersection(*({t for t in r.values if environment(t) == env} for r in holders)))
    figures: dict[int, dict[str, Any]] = {}
    draws = {}
    for row in holders:
        values = pooled[row.k][env] = [x for t in tasks for x in row.values[t]]
        ci, _ = interval(values, PROGRESSION)
        held = sum(1 for t in row.values if environment(t) == env)
        figures[row.k] = {"mean": float(np.mean(values)) if values else None, "n": len(values),
                          "ci95": list(ci) if ci else None, "partial": held > len(tasks)}
        draws[row.k] = bootstrap_aggregates([values], RESAMPLES, _seed(row))
    _rank(figures, draws)
    return {"tasks": tasks, "rows": figures}


def _rank(figures: dict[int, dict[str, Any]], draws: dict[int, np.ndarray]) -> None:
    """Add ``rank`` to each figure that has a mean (see ``_ranks``)."""
    ranked = {k: float(f["mean"]) for k, f in figures.items() if f["mean"] is not None}
    if ranked:
        for k, rank in _ranks(ranked, {k: draws[k] for k in ranked}).items():
            figures[k]["rank"] = rank


def _keyed(row: Row, other: Row) -> Side:
    """``row``'s side as ``compare`` keys it beside ``other`` (``sides``): a run beside a folder as the folder says."""
    if isinstance(row.source, RunLog) and isinstance(other.source, Folder):
        return run_side(row.source, other.source.read)
    return row.side


def _shared(a: Side, b: Side) -> int:
    """How many (task, key) instances both sides scored (0 when their keys are of different kinds)."""
    if a.key != b.key:
        return 0
    return sum(len(a.scores[t].keys() & b.scores[t].keys()) for t in a.scores.keys() & b.scores.keys())


def pairs(rows: list[Row]) -> list[dict[str, Any]]:
    """``compare``'s overall row and protocol differences for every two rows that share an instance.

    Each row's side is read once (``read_rows``; a run beside a folder is keyed again, as ``compare`` keys it)
    and only the figures shown are computed, all pairs together (``compare_overalls``): the same as ``compare`` gives.
    """
    keep = ("paired", "n", "groups", "mean_a", "mean_b", "mean_diff", "ci95", "p_value", "test", "note", "pooling",
            "environments")
    out: list[dict[str, Any]] = []
    sharing: list[tuple[int, Side, Side]] = []  # where in ``out`` each sharing pair goes, and its sides
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            try:
                side_a, side_b = _keyed(a, b), _keyed(b, a)
            except PlaybenchError as exc:
                out.append({"a": a.k, "b": b.k, "refused": str(exc)})
                continue
            if _shared(side_a, side_b):
                sharing.append((len(out), side_a, side_b))
                out.append({"a": a.k, "b": b.k})
    for (at, _, _), result in zip(sharing, compare_overalls([(sa, sb) for _, sa, sb in sharing]), strict=True):
        out[at].update(overall={k: v for k, v in result["overall"].items() if k in keep}, protocol=result["protocol"])
    return out


def cost(row: Row) -> dict[str, Any]:
    """The row's cost: ``usd`` (None: unknown), ``at_least`` (a lower bound when counts are missing), ``how``.

    ``none`` marks a run no model played (a reference agent): nothing was spent, which is not "unknown".
    """
    if isinstance(row.source, Folder):
        return _folder_cost(row.source)
    total = usage_total(list(row.side.usage.values()))
    episodes = row.side.episodes.get("recorded", 0)
    if row.side.model is None:
        return {"usd": None, "at_least": None, "episodes": episodes, "how": "no model played", "none": True}
    if "cost_micro_usd" not in total:
        return {"usd": None, "at_least": None, "episodes": episodes,
                "how": f"unknown: no price for {row.side.model} when it ran"}
    if total["cost_usd"] is None:
        return {"usd": None, "at_least": total["cost_usd_at_least"], "episodes": episodes, "how": total["usage_note"]}
    return {"usd": total["cost_usd"], "at_least": None, "episodes": episodes,
            "how": "recorded by the run, at the prices of its day"}


def _folder_cost(folder: Folder) -> dict[str, Any]:
    """A folder's episodes priced from their token counts at the model's list price now (None without one)."""
    episodes = folder.read.episodes
    model = folder.read.model
    price = price_for(model, GenerateConfig()) if model else None
    if price is None:
        why = f"no listed price for {model}" if model else "the folder names no single model"
        return {"usd": None, "at_least": None, "episodes": len(episodes), "how": f"unknown: {why}"}
    usd, missing = 0.0, 0
    for episode in episodes:
        usage = episode.usage
        calls = usage.get("calls")
        if "input_tokens" not in usage or (price.tiers and not calls):  # no counts, or no way to tell the tier
            missing += 1
            continue
        # the tier by the episode's mean prompt: the file sums its requests
        prompt = usage["input_tokens"] // calls if calls else usage["input_tokens"]
        usd += token_cost_usd(price, usage["input_tokens"], usage["output_tokens"], prompt_tokens=prompt)
    how = f"list price now ({price.source}), no prompt-cache discount (the files record none)"
    if missing:
        return {"usd": None, "at_least": usd, "episodes": len(episodes),
                "how": f"{missing} episodes record no token counts (or no steps to tell the price tier); {how}"}
    return {"usd": usd, "at_least": None, "episodes": len(episodes), "how": how}


def settings(rows: list[Row]) -> dict[str, Any]:
    """Each row's protocol labels, and the row the others are held against: your first run, else the first row.

    ``differs`` lists, per row, the settings it states otherwise than that row (``0`` and ``0.0`` are equal).
    """
    stated = {row.k: {**{name: row.side.settings.get(name) for name, _ in SETTINGS},
                      "episodes": _episodes_per_task(row.side)} for row in rows}
    reference = next((row.k for row in rows if row.yours), rows[0].k)
    differs = {k: [name for name, _ in SETTINGS if values[name] is not None
                   and stated[reference][name] is not None and values[name] != stated[reference][name]]
               for k, values in stated.items()}
    return {"rows": stated, "reference": reference, "differs": differs}


def board(rows: list[Row], notes: list[str]) -> dict[str, Any]:
    """The board's figures as JSON (``board.json``): rows, rankings, pairs, costs and protocol labels."""
    ranking = rankings(rows)
    costs = {row.k: cost(row) for row in rows}
    for k, c in costs.items():
        own = ranking["overall"][k]["own"]
        c["per_episode"] = c["usd"] / c["episodes"] if c["usd"] is not None and c["episodes"] else None
        c["per_point"] = c["usd"] / (100 * own) if c["usd"] is not None and own else None
    return {
        "rows": [{"k": row.k, "label": row.side.label, "kind": "run" if isinstance(row.source, RunLog) else row.side.kind,
                  "yours": row.yours, "path": row.side.path, "model": _model(row), "coverage": row.side.episodes,
                  "left_out": {t: dict(c) for t, c in row.side.errors.items()}, "notes": row.side.notes}
                 for row in rows],
        **ranking,
        "pairs": pairs(rows),
        "costs": costs,
        "settings": settings(rows),
        "notes": notes,
    }


def _model(row: Row) -> str | None:
    return row.source.read.model if isinstance(row.source, Folder) else row.side.model


# -- the site --------------------------------------------------------------------------------------------


def _e(value: object) -> str:
    """Row text for a page: inert, one line, cut to a readable length, HTML-escaped."""
    return html.escape(inert_text(value, limit=LABEL_LIMIT, one_line=True))


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _figure(f: dict[str, Any] | None) -> str:
    """``12.3 [8.1, 16.0]`` and the rank line ``#2 (1–3)`` of one figure, as a table cell."""
    if f is None:
        return "<td class='meta'>—</td>"
    ci = f.get("ci95")
    text = _pct(f["mean"]) + (f" [{_pct(ci[0])}, {_pct(ci[1])}]" if ci else " (no interval)")
    rank = f.get("rank")
    line = f"<span class='rank'>#{rank['rank']} ({rank['low']}–{rank['high']})</span>" if rank else ""
    partial = (" <span class='partial' title='this row holds more tasks here; the figure is over the tasks "
               "every row holding this environment holds'>*</span>") if f.get("partial") else ""
    return f"<td data-v='{f['mean']!r}'>{html.escape(text)}{partial}{line}</td>"


def _usd(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"${x:,.{digits}f}"


def _cost_cells(c: dict[str, Any]) -> str:
    if c["usd"] is None:
        shown = "none" if c.get("none") else f"≥ {_usd(c['at_least'])}" if c["at_least"] else "unknown"
        return (f"<td class='l' title='{_e(c['how'])}'>{html.escape(shown)}</td><td>-</td><td>-</td>"
                f"<td class='l meta wrap'>{_e(c['how'])}</td>")
    per_point = "-" if c["per_point"] is None else _usd(c["per_point"], 4)
    return (f"<td>{_usd(c['usd'])}</td><td>{_usd(c['per_episode'], 4)}</td><td>{per_point}</td>"
            f"<td class='l meta wrap'>{_e(c['how'])}</td>")


def _row_name(row: dict[str, Any]) -> str:
    kind = "your run" if row["yours"] else row["kind"]
    return f"<a href='row-{row['k']}.html'>{_e(row['label'])}</a> <span class='meta'>({_e(kind)})</span>"


def _ranking_table(data: dict[str, Any]) -> str:
    envs = list(data["environments"])
    head = "".join(f"<th title='{_e(', '.join(data['environments'][e]['tasks']))}'>{_e(e)}</th>" for e in envs)
    order = sorted(data["rows"], key=lambda r: -(data["overall"][r["k"]]["mean"] or -1.0))
    lines = []
    for row in order:
        k = row["k"]
        over = data["overall"][k]
        own = f"{_pct(over['own'])} ({over['own_environments']} env.)"
        cells = "".join(_figure(data["environments"][e]["rows"].get(k)) for e in envs)
        lines.append(f"<tr class='{'yours' if row['yours'] else ''}'><td class='l'>{_row_name(row)}</td>"
                     f"{_figure(over)}<td>{html.escape(own)}</td>{cells}</tr>")
    common = ", ".join(data["common"]) or "none"
    return (f"<h2>Ranking</h2><p class='meta'>Progression in % [95% interval], rank (95% rank interval). Overall: "
            f"BALROG's mean of environment means over the environments every row holds ({_e(common)}).</p>"
            f"<table class='board ranking'><thead><tr><th class='l'>row</th><th>overall</th>"
            f"<th title='the row over everything it holds (a leaderboard row: its published figure)'>own</th>"
            f"{head}</tr></thead><tbody>{''.join(lines)}</tbody></table>")


def _cost_table(data: dict[str, Any]) -> str:
    lines = "".join(f"<tr class='{'yours' if r['yours'] else ''}'><td class='l'>{_row_name(r)}</td>"
                    f"<td class='l'>{_e(r['model'] or '-')}</td><td>{data['costs'][r['k']]['episodes']}</td>"
                    f"{_cost_cells(data['costs'][r['k']])}</tr>" for r in data["rows"])
    return ("<h2>Cost</h2><table class='board cost'><thead><tr><th class='l'>row</th><th class='l'>model</th>"
            "<th>episodes</th><th>cost</th><th>per episode</th>"
            "<th title='the cost divided by the row&#39;s own progression in points; it grows with the number of "
            "episodes, so compare rows of different sizes per episode'>per point</th><th class='l'>how</th></tr>"
            f"</thead><tbody>{lines}</tbody></table>")


def _protocol_table(data: dict[str, Any]) -> str:
    meaning = {s.name: (s.why + ("; it changes what the numbers mean" if s.changes_meaning else "; same meaning"))
               for s in PROTOCOL}
    stated, differs = data["settings"]["rows"], data["settings"]["differs"]
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in SETTINGS)
    lines = []
    for r in data["rows"]:
        cells = []
        for name, _ in SETTINGS:
            value = stated[r["k"]][name]
            marked = name in differs[r["k"]]
            title = f" title='{html.escape(meaning[name])}'" if marked else ""
            cells.append(f"<td class='l{' differs' if marked else ''}'{title}>"
                         f"{_e('not stated' if value is None else value)}</td>")
        lines.append(f"<tr class='{'yours' if r['yours'] else ''}'><td class='l'>{_row_name(r)}</td>"
                     f"{''.join(cells)}</tr>")
    reference = _row_name(data["rows"][data["settings"]["reference"]])
    return (f"<h2>Protocol</h2><p class='meta'>A marked cell differs from {reference}.</p>"
            f"<table class='board protocol'><thead><tr><th class='l'>row</th>{head}</tr></thead>"
            f"<tbody>{''.join(lines)}</tbody></table>")


def _stated(value: Any) -> str:
    return "not stated" if value is None else str(value)


def _pairs_table(data: dict[str, Any]) -> str:
    names = {r["k"]: r for r in data["rows"]}
    if not data["pairs"]:
        return "<h2>Pairs</h2><p class='meta'>No two rows share an instance: nothing to pair.</p>"
    lines = []
    for p in data["pairs"]:
        a, b = _row_name(names[p["a"]]), _row_name(names[p["b"]])
        if "refused" in p:
            lines.append(f"<tr><td class='l'>{a}</td><td class='l'>{b}</td><td colspan='4' class='l bad'>"
                         f"{_e(p['refused'])}</td></tr>")
            continue
        o = p["overall"]
        ci = o.get("ci95") or [None, None]
        diff = (f"{_pct(o.get('mean_diff'))} [{_pct(ci[0])}, {_pct(ci[1])}]" if ci[0] is not None
                else _pct(o.get("mean_diff")))
        pv = o.get("p_value")
        proto = "; ".join(f"{x['label']}: {_stated(x['a'])} vs {_stated(x['b'])}"
                          + (" (changes what the numbers mean)" if x["changes_meaning"] else "")
                          for x in p["protocol"]) or "none"
        lines.append(f"<tr><td class='l'>{a}</td><td class='l'>{b}</td><td>{o.get('n', 0)}</td>"
                     f"<td>{html.escape(diff)}</td><td>{'-' if pv is None else f'{pv:.3g}'}</td>"
                     f"<td class='l wrap'>{_e(proto)}</td></tr>")
    return ("<h2>Pairs</h2><p class='meta'>Every two rows that share instances, as <code>playbench compare A B</code> "
            "gives them: B − A in points of progression over the shared episodes (BALROG's aggregate), its 95% "
            "bootstrap interval stratified by environment, the sign-flip p, and the protocol differences.</p>"
            "<table class='board pairs'><thead><tr><th class='l'>A</th><th class='l'>B</th><th>shared</th>"
            f"<th>B − A [95%]</th><th>p</th><th class='l'>protocol differences</th></tr></thead>"
            f"<tbody>{''.join(lines)}</tbody></table>")


def _notes(data: dict[str, Any]) -> str:
    lines = list(data["notes"])
    for r in data["rows"]:
        if not r["coverage"].get("complete", True):
            lines.append(f"{r['label']}: {r['coverage']['note']}")
        left = sum(sum(c.values()) for c in r["left_out"].values())
        if left:
            lines.append(f"{r['label']}: {left} episodes ended without a score (an error) and are left out")
        lines += [f"{r['label']}: {n}" for n in r["notes"]]
    # a note is a sentence with its reason (a folder's unpaired episodes and why): not cut to a label's length
    shown = (html.escape(inert_text(n, limit=NOTE_LIMIT, one_line=True)) for n in lines)
    return "" if not lines else "<ul class='notes'>" + "".join(f"<li>{n}</li>" for n in shown) + "</ul>"


def _page(title: str, body: str) -> str:
    """A page with no script at all: its policy forbids every one, so no row text can ever run."""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            "<meta http-equiv='Content-Security-Policy' content=\"default-src 'self'; style-src 'self'; "
            "script-src 'none'; object-src 'none'\">"
            "<link rel='stylesheet' href='viewer.css'><link rel='stylesheet' href='board.css'></head><body>"
            "<header><b>playbench</b> · <a href='index.html'>board</a></header>"
            f"<main>{body}</main></body></html>")


def _link(base: str, relative: str) -> str:
    """A percent-quoted link to ``relative`` inside the folder at ``base`` (relative to the site, POSIX).

    Percent-quoted and led by ``./``: a row's text can never make it a scheme (``javascript:``).
    """
    return "./" + quote(f"{base}/{relative}")


def _episode_rows(row: Row, run_index: dict[int, int], out: Path) -> list[str]:
    """One table row per episode of the row, each with its link: the viewer's page, or the folder's file."""
    lines = []
    if isinstance(row.source, RunLog):
        for rec in row.source.episodes():
            href = f"view/episode.html#r={run_index[row.k]}&t={quote(rec.task, safe='')}&i={rec.index}"
            score = "-" if rec.score is None else f"{rec.score:.4g}"
            lines.append(f"<tr><td class='l'>{_e(rec.task)}</td><td>{rec.seed}</td><td>{_e(rec.status)}</td>"
                         f"<td>{score}</td><td class='l'><a class='episode' href='{html.escape(href)}'>"
                         f"episode {rec.index}</a></td></tr>")
        return lines
    base = Path(os.path.relpath(row.source.path.resolve(), out.resolve())).as_posix()
    for episode in row.source.read.episodes:
        link = "-"
        if episode.source is not None:
            href = html.escape(_link(base, episode.source))
            link = f"<a class='episode' href='{href}'>{_e(Path(episode.source).name)}</a>"
        score = "-" if episode.score is None else f"{episode.score:.4g}"
        lines.append(f"<tr><td class='l'>{_e(episode.task)}</td><td>{_e(episode.key)}</td><td>{_e(episode.status)}"
                     f"</td><td>{score}</td><td class='l'>{link}</td></tr>")
    return lines


def _row_page(row: Row, data: dict[str, Any], run_index: dict[int, int], out: Path) -> str:
    info = data["rows"][row.k]
    key = "seed" if isinstance(row.source, RunLog) else row.side.key
    body = (f"<h1>{_e(info['label'])}</h1><p class='meta'>{_e(info['kind'])} · {_e(info['path'])}</p>"
            f"<table class='episodes'><thead><tr><th class='l'>task</th><th>{_e(key)}</th><th>status</th>"
            f"<th>score</th><th class='l'>episode</th></tr></thead>"
            f"<tbody>{''.join(_episode_rows(row, run_index, out))}</tbody></table>")
    return _page(f"playbench board: {inert_text(info['label'], limit=80, one_line=True)}", body)


def _remove_stale(out: Path, rows: int) -> None:
    """Row pages an earlier board wrote here past this board's last row (removed, never followed)."""
    with os.scandir(out) as entries:
        for entry in list(entries):
            number = entry.name.removeprefix("row-").removesuffix(".html")
            if entry.name.startswith("row-") and number.isdigit() and int(number) >= rows:
                _remove(Path(entry.path))


def write_board(sources: list[tuple[Source, bool]], out: Path) -> Path:
    """Write the board of ``sources`` (each with whether it is yours) into ``out``; returns ``index.html``.

    ``out`` must be new, empty or a site written before (``claim_site``: else PlaybenchError); a failed
    write is a SiteWriteError. The runs' viewer goes into ``out/view``, written afresh.
    """
    import json

    rows, notes = read_rows(sources)
    if not rows:
        raise PlaybenchError("give at least one run or folder")
    data = board(rows, notes)
    claim_site(out)
    runs = [row.source for row in rows if isinstance(row.source, RunLog)]
    view = _fresh_dir(out / "view")
    if runs:
        write_site(runs, view)
    run_index = {row.k: i for i, row in enumerate(r for r in rows if isinstance(r.source, RunLog))}
    _remove_stale(out, len(rows))
    _write(out / "viewer.css", (ASSETS / "viewer.css").read_bytes())
    _write(out / "board.css", CSS)
    _write(out / "board.json", json.dumps(data, indent=1, ensure_ascii=True))
    for row in rows:
        _write(out / f"row-{row.k}.html", _row_page(row, data, run_index, out))
    yours = sum(row.yours for row in rows)
    body = (f"<h1>Board</h1><p class='meta'>{len(rows)} rows: {yours} of yours (marked green), "
            f"{len(rows) - yours} beside them. Figures and pairs as <code>playbench compare</code> computes them."
            f"</p>{_ranking_table(data)}{_pairs_table(data)}{_cost_table(data)}{_protocol_table(data)}{_notes(data)}")
    _write(out / "index.html", _page("playbench board", body))
    return out / "index.html"
