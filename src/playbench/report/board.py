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
- **published summaries**: a folder that publishes its figures alone (no episodes: ``Comparable.published``)
  is shown with them as it states them (each figure with its standard error as published: no interval,
  nothing recomputed, not ranked with the rows above, not paired), priced only from token counts it states.
- **rows that cannot pair**: a folder holding two scored episodes of a task under one key is ranked from all
  its episodes but paired with no row (which one pairs would be a guess), the reason shown.
- **links**: the runs' own viewer (``playbench view``, written into ``view/``) for each of their episodes;
  a folder's episode files (BALROG's CSV of steps) by a relative link.

A row found by searching a folder (``Given.found``) that cannot be read is left out, named with the reason on
the page; a row given by name that cannot be read stops the board (PlaybenchError).

Rows are a trust boundary: every string from a run or a folder is shown inert and HTML-escaped, every link
is built from numbers and percent-quoted paths, and the pages carry no script at all (their policy forbids
any). The site folder follows the viewer's rules (``viewer.claim_site``): new, empty or marked, and nothing
in it is written through a link.
"""

import html
import os
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from playbench.core.errors import PlaybenchError
from playbench.core.suite import Comparable, Published, PublishedFigure
from playbench.log.read import RunLog
from playbench.models.pricing import price_for, token_cost_usd
from playbench.models.types import GenerateConfig
from playbench.report.build import score_metric, usage_total
from playbench.report.compare import (
    PROTOCOL,
    Folder,
    Side,
    _episodes_per_task,
    _text,
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
.where { color: #555; font-size: 12px; }
td .where { display: block; }
.partial { color: #8a5a00; }
table.board td { white-space: nowrap; }
table.board td.wrap { white-space: normal; min-width: 24em; }
table.episodes td { white-space: nowrap; overflow-wrap: normal; }
"""


@dataclass(frozen=True)
class Given:
    """A row to put on the board: what it is read from, whether it is yours, whether a folder search found it."""

    source: Source
    yours: bool = False
    found: bool = False  # found by searching a folder: left out with a note, not stopping the board, if unreadable


@dataclass(frozen=True)
class LeftOut:
    """A row found by searching a folder that could not be read: where it is and why (one line)."""

    path: str
    why: str


@dataclass
class Row:
    """One row of the board: what it was read from, compare's side of it and its scores on [0, 1] by task.

    ``published``: the figures of a folder that publishes them alone (it has no ``values``); ``unpaired``: why
    the row pairs with none (None: it pairs where it shares instances).
    """

    k: int
    source: Source
    yours: bool
    side: Side
    values: dict[str, list[float]]
    published: Published | None = None
    unpaired: str | None = None


# -- reading ---------------------------------------------------------------------------------------------


def read_rows(given: Sequence[Given]) -> tuple[list[Row], list[str], list[LeftOut]]:
    """Each given source as a row (yours shown first), the notes on tasks left off, and the found rows left out.

    A row that cannot be read stops the board (PlaybenchError) unless a folder search found it: then it is
    left out, with the reason.
    """
    paths = Counter(str(Path(g.source.path).resolve()) for g in given)
    twice = [p for p, n in paths.items() if n > 1]
    if twice:
        raise PlaybenchError(f"{twice[0]} is given twice; give each run or folder once")
    rows: list[Row] = []
    unscaled: set[str] = set()
    left: list[LeftOut] = []
    for one in given:
        try:
            row = _row(len(rows), one, unscaled)
        except PlaybenchError as exc:
            if not one.found:
                raise
            left.append(LeftOut(str(one.source.path), str(exc)))
            continue
        rows.append(row)
    notes = [f"{inert_text(task, limit=LABEL_LIMIT, one_line=True)}: its score declares no range, so it cannot be "
             "put on the board's scale; left off" for task in sorted(unscaled)]
    return rows, notes, left


def _row(k: int, given: Given, unscaled: set[str]) -> Row:
    """One row: a run's or a folder's side and scores on [0, 1] (tasks with no declared range added to ``unscaled``)."""
    source = given.source
    if isinstance(source, Folder) and source.read.published is not None and not source.read.episodes:
        return Row(k, source, given.yours, _published_side(source), {}, published=source.read.published)
    unpaired = None
    if isinstance(source, Folder):
        read, unpaired = _apart(source.read)
        side = folder_side(Folder(source.path, source.title, read))
    else:
        side = run_side(source)
    values = {}
    for task, scores in sorted(side.scores.items()):
        metric = score_metric(task)
        if metric.low is None or metric.high is None:
            unscaled.add(task)
            continue
        low, span = metric.low, metric.high - metric.low
        values[task] = [(scores[key] - low) / span for key in sorted(scores, key=str)]
    return Row(k, source, given.yours, side, values, unpaired=unpaired)


def _apart(read: Comparable) -> tuple[Comparable, str | None]:
    """The folder as read, or, when two scored episodes of a task share a key, every episode keyed apart and why.

    Such a folder cannot say which of the two pairs with another row's episode: it is ranked from all its
    episodes (keyed by their place, so none hides another) and paired with none.
    """
    shared = Counter((e.task, e.key) for e in read.episodes if e.score is not None and e.status == "ok")
    twice = [(task, key) for (task, key), n in shared.items() if n > 1]
    if not twice:
        return read, None
    task, key = twice[0]
    more = f" (and {len(twice) - 1} more such)" if len(twice) > 1 else ""
    why = (f"two episodes of {task} share {read.key} {read.key_text(key)[:80]}{more}: cannot tell which one "
           "pairs, so this row is not paired")
    return replace(read, episodes=tuple(replace(e, key=i) for i, e in enumerate(read.episodes))), why


def _published_side(folder: Folder) -> Side:
    """A folder that publishes its figures alone, as a side with no episodes (its label, protocol and notes)."""
    read = folder.read
    return Side(path=str(folder.path), kind=folder.title, label=read.label, agent=_text(read.settings.get("agent")),
                model=None, key=read.key, tasks=set(), scores={}, errors={}, counts={},
                episodes={"recorded": 0, "complete": True}, settings=dict(read.settings), task_params={},
                notes=list(read.notes))


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
    A row with published figures alone, or one that cannot pair (``Row.unpaired``), is in no pair.
    """
    rows = [row for row in rows if row.published is None and row.unpaired is None]
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
    if row.published is not None:
        return _published_cost(row.published, row.source.read.model if isinstance(row.source, Folder) else None)
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


def _published_cost(published: Published, model: str | None) -> dict[str, Any]:
    """A published summary priced from the token totals it states, at the model's list price now (else unknown).

    Its totals add up every request, so a price in tiers by prompt length cannot be told: unknown then.
    """
    episodes = published.overall.episodes
    usage = published.usage
    price = price_for(model, GenerateConfig()) if model else None
    why = ("the published summary states no token counts" if not {"input_tokens", "output_tokens"} <= usage.keys()
           else f"no listed price for {model}" if model and price is None
           else "the summary names no model" if price is None
           else "the summary states token totals only, and the price's tier depends on each prompt's length"
           if price.tiers else None)
    if why is not None or price is None:
        return {"usd": None, "at_least": None, "episodes": episodes, "how": f"unknown: {why}"}
    usd = token_cost_usd(price, usage["input_tokens"], usage["output_tokens"])
    return {"usd": usd, "at_least": None, "episodes": episodes,
            "how": f"the summary's token totals at the list price now ({price.source}), no prompt-cache discount"}


def settings(rows: list[Row]) -> dict[str, Any]:
    """Each row's protocol labels, and the row the others are held against: your first run, else the first row.

    ``differs`` lists, per row, the settings it states otherwise than that row (``0`` and ``0.0`` are equal).
    """
    stated = {row.k: {**{name: row.side.settings.get(name) for name, _ in SETTINGS},
                      "episodes": None if row.published is not None else _episodes_per_task(row.side)}
              for row in rows}
    reference = next((row.k for row in rows if row.yours), rows[0].k)
    differs = {k: [name for name, _ in SETTINGS if values[name] is not None
                   and stated[reference][name] is not None and values[name] != stated[reference][name]]
               for k, values in stated.items()}
    return {"rows": stated, "reference": reference, "differs": differs}


def board(rows: list[Row], notes: list[str], left_out: Sequence[LeftOut] = ()) -> dict[str, Any]:
    """The board's figures as JSON (``board.json``): rows, rankings, published figures, pairs, costs, protocol labels.

    ``left_out``: the rows a folder search found that could not be read, each with why.
    """
    ranking = rankings([row for row in rows if row.published is None])
    published = {row.k: _published(row.published) for row in rows if row.published is not None}
    costs = {row.k: cost(row) for row in rows}
    for k, c in costs.items():
        own = published[k]["overall"]["mean"] if k in published else ranking["overall"][k]["own"]
        c["per_episode"] = c["usd"] / c["episodes"] if c["usd"] is not None and c["episodes"] else None
        c["per_point"] = c["usd"] / (100 * own) if c["usd"] is not None and own else None
    labels = Counter(row.side.label for row in rows)
    return {
        "rows": [{"k": row.k, "label": row.side.label, "kind": "run" if isinstance(row.source, RunLog) else row.side.kind,
                  "yours": row.yours, "path": row.side.path, "where": _where(row) if labels[row.side.label] > 1 else None, "model": _model(row), "coverage": row.side.episodes,
                  "left_out": {t: dict(c) for t, c in row.side.errors.items()}, "notes": row.side.notes,
                  "published": row.published is not None, "unpaired": row.unpaired}
                 for row in rows],
        **ranking,
        "published": published,
        "pairs": pairs(rows),
        "costs": costs,
        "settings": settings(rows),
        "notes": notes,
        "rows_left_out": [{"path": one.path, "why": one.why} for one in left_out],
    }


def _where(row: Row) -> str:
    """The last two parts of the row's path (``LLM/20240924_naive-Gemini-1.5-Flash``): rows of one label told apart."""
    return "/".join(Path(row.side.path).parts[-2:])


def _published(published: Published) -> dict[str, Any]:
    """Published figures as JSON, on [0, 1] as the folder states them (``se``: its standard error)."""
    def figure(f: PublishedFigure) -> dict[str, Any]:
        def shown(x: float | None) -> float | None:  # 33.66 / 100 kept as 0.3366, not 0.33659999999999995
            return None if x is None else float(f"{x:.15g}")

        return {"mean": shown(f.mean), "se": shown(f.standard_error), "episodes": f.episodes}

    return {"overall": figure(published.overall),
            "environments": {env: figure(f) for env, f in sorted(published.environments.items())}}


def _model(row: Row) -> str | None:
    return row.source.read.model if isinstance(row.source, Folder) else row.side.model


# -- the site --------------------------------------------------------------------------------------------


def _e(value: object) -> str:
    """Row text for a page: inert, one line, cut to a readable length, HTML-escaped."""
    return html.escape(inert_text(value, limit=LABEL_LIMIT, one_line=True))


def _pct(x: float | None, digits: int = 1) -> str:
    return "-" if x is None else f"{100 * x:.{digits}f}"


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


#: How a row with published figures alone is labelled wherever it is named
SUMMARY_ONLY = "published summary, no episodes"


def _row_name(row: dict[str, Any]) -> str:
    kind = "your run" if row["yours"] else row["kind"]
    if row["published"]:
        kind += f"; {SUMMARY_ONLY}"
    where = f" <span class='where'>{_e(row['where'])}</span>" if row["where"] else ""
    return f"<a href='row-{row['k']}.html'>{_e(row['label'])}</a> <span class='meta'>({_e(kind)})</span>{where}"


def _ranking_table(data: dict[str, Any]) -> str:
    envs = list(data["environments"])
    head = "".join(f"<th title='{_e(', '.join(data['environments'][e]['tasks']))}'>{_e(e)}</th>" for e in envs)
    order = sorted((r for r in data["rows"] if not r["published"]),
                   key=lambda r: -(data["overall"][r["k"]]["mean"] or -1.0))
    if not order:
        return "<h2>Ranking</h2><p class='meta'>No row holds episodes to rank.</p>"
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


def _stated_figure(f: dict[str, Any] | None) -> str:
    """``77.60 ± 3.73`` (the published standard error) as a table cell, its episodes in the title."""
    if f is None:
        return "<td class='meta'>—</td>"
    text = _pct(f["mean"], 2) + ("" if f["se"] is None else f" ± {_pct(f['se'], 2)}")
    played = "" if f["episodes"] is None else f" title='{f['episodes']} episodes, as published'"
    return f"<td data-v='{f['mean']!r}'{played}>{html.escape(text)}</td>"


def _published_table(data: dict[str, Any]) -> str:
    """The rows with published figures alone, by their published overall figure, each figure as stated."""
    shown = [r for r in data["rows"] if r["published"]]
    if not shown:
        return ""
    figures = data["published"]
    envs = sorted({env for r in shown for env in figures[r["k"]]["environments"]})
    head = "".join(f"<th>{_e(env)}</th>" for env in envs)
    lines = []
    for row in sorted(shown, key=lambda r: -figures[r["k"]]["overall"]["mean"]):
        f = figures[row["k"]]
        cells = "".join(_stated_figure(f["environments"].get(env)) for env in envs)
        lines.append(f"<tr class='{'yours' if row['yours'] else ''}'><td class='l'>{_row_name(row)}</td>"
                     f"{_stated_figure(f['overall'])}{cells}</tr>")
    return (f"<h2>Published summaries</h2><p class='meta'>{len(shown)} rows publish their summary alone, without "
            "episodes: their figures are shown as the summary states them, progression in % ± the standard error "
            "it publishes (no interval, nothing recomputed). With no episodes they are neither ranked with the rows "
            "above (whose figures are over what every row holds) nor paired with any row.</p>"
            f"<table class='board published'><thead><tr><th class='l'>row</th><th>overall</th>{head}</tr></thead>"
            f"<tbody>{''.join(lines)}</tbody></table>")


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


def _unpaired(data: dict[str, Any]) -> str:
    """The rows that pair with none and why: one that cannot tell its pairs apart; those with no episodes."""
    lines = [f"<li>{_row_name(r)}: {html.escape(inert_text(r['unpaired'], limit=NOTE_LIMIT, one_line=True))}</li>"
             for r in data["rows"] if r["unpaired"]]
    summaries = sum(r["published"] for r in data["rows"])
    if summaries:
        lines.append(f"<li>{summaries} rows with a {SUMMARY_ONLY}: nothing to pair</li>")
    return "" if not lines else f"<p class='meta'>Not paired:</p><ul class='unpaired'>{''.join(lines)}</ul>"


def _pairs_table(data: dict[str, Any]) -> str:
    names = {r["k"]: r for r in data["rows"]}
    if not data["pairs"]:
        return f"<h2>Pairs</h2><p class='meta'>No two rows share an instance: nothing to pair.</p>{_unpaired(data)}"
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
            f"<tbody>{''.join(lines)}</tbody></table>{_unpaired(data)}")


def _notes(data: dict[str, Any]) -> str:
    lines = list(data["notes"])
    lines += [f"left out: {one['path']}: {one['why']}" for one in data["rows_left_out"]]
    for r in data["rows"]:
        if r["published"]:  # their notes say what the published table says; each row's page has them
            continue
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
    read = row.source.read
    for episode in read.episodes:
        link = "-"
        if episode.source is not None:
            href = html.escape(_link(base, episode.source))
            link = f"<a class='episode' href='{href}'>{_e(Path(episode.source).name)}</a>"
        score = "-" if episode.score is None else f"{episode.score:.4g}"
        lines.append(f"<tr><td class='l'>{_e(episode.task)}</td><td>{_e(read.key_text(episode.key))}</td>"
                     f"<td>{_e(episode.status)}</td><td>{score}</td><td class='l'>{link}</td></tr>")
    return lines


def _row_page(row: Row, data: dict[str, Any], run_index: dict[int, int], out: Path) -> str:
    info = data["rows"][row.k]
    if row.published is not None:
        return _published_page(info, data["published"][row.k])
    key = "seed" if isinstance(row.source, RunLog) else row.side.key
    body = (f"<h1>{_e(info['label'])}</h1><p class='meta'>{_e(info['kind'])} · {_e(info['path'])}</p>"
            f"<table class='episodes'><thead><tr><th class='l'>task</th><th>{_e(key)}</th><th>status</th>"
            f"<th>score</th><th class='l'>episode</th></tr></thead>"
            f"<tbody>{''.join(_episode_rows(row, run_index, out))}</tbody></table>")
    return _page(f"playbench board: {inert_text(info['label'], limit=80, one_line=True)}", body)


def _published_page(info: dict[str, Any], figures: dict[str, Any]) -> str:
    """A row with published figures alone: each figure as stated, and its notes (there are no episodes to link)."""
    lines = [f"<tr><td class='l'>{_e(env)}</td>{_stated_figure(f)}<td>{_stated(f['episodes'])}</td></tr>"
             for env, f in (("overall", figures["overall"]), *figures["environments"].items())]
    notes = "".join(f"<li>{html.escape(inert_text(n, limit=NOTE_LIMIT, one_line=True))}</li>" for n in info["notes"])
    body = (f"<h1>{_e(info['label'])}</h1><p class='meta'>{_e(info['kind'])} · {SUMMARY_ONLY} · {_e(info['path'])}"
            "</p><p class='meta'>Progression in % ± the standard error, as the summary states them: nothing "
            "recomputed, no episodes to link.</p><table class='episodes published'><thead><tr><th class='l'>"
            f"environment</th><th>published</th><th>episodes</th></tr></thead><tbody>{''.join(lines)}</tbody></table>"
            f"<ul class='notes'>{notes}</ul>")
    return _page(f"playbench board: {inert_text(info['label'], limit=80, one_line=True)}", body)


def _remove_stale(out: Path, rows: int) -> None:
    """Row pages an earlier board wrote here past this board's last row (removed, never followed)."""
    with os.scandir(out) as entries:
        for entry in list(entries):
            number = entry.name.removeprefix("row-").removesuffix(".html")
            if entry.name.startswith("row-") and number.isdigit() and int(number) >= rows:
                _remove(Path(entry.path))


def write_board(given: Sequence[Given], out: Path, left_out: Sequence[LeftOut] = ()) -> Path:
    """Write the board of the ``given`` rows into ``out`` (``read_rows``, then ``write_rows``); returns ``index.html``.

    ``left_out``: rows a folder search found that could not be opened, named on the page with why.
    """
    rows, notes, unread = read_rows(given)
    return write_rows(rows, notes, [*left_out, *unread], out)


def write_rows(rows: list[Row], notes: list[str], left_out: Sequence[LeftOut], out: Path) -> Path:
    """Write the board of ``rows`` into ``out``, naming the rows ``left_out``; returns ``index.html``.

    ``out`` must be new, empty or a site written before (``claim_site``: else PlaybenchError); a failed
    write is a SiteWriteError. The runs' viewer goes into ``out/view``, written afresh.
    """
    import json

    if not rows:
        raise PlaybenchError("give at least one run or folder")
    data = board(rows, notes, left_out)
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
    summaries = sum(row.published is not None for row in rows)
    told = (f" {summaries} of them publish a summary alone (shown apart, as published)." if summaries else "") + (
        f" {len(left_out)} rows found could not be read and are left out (named below)." if left_out else "")
    body = (f"<h1>Board</h1><p class='meta'>{len(rows)} rows: {yours} of yours (marked green), "
            f"{len(rows) - yours} beside them.{told} Figures and pairs as <code>playbench compare</code> computes "
            f"them.</p>{_ranking_table(data)}{_published_table(data)}{_pairs_table(data)}{_cost_table(data)}"
            f"{_protocol_table(data)}{_notes(data)}")
    _write(out / "index.html", _page("playbench board", body))
    return out / "index.html"
