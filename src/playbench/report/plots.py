"""Figures from reports (PNG and SVG via matplotlib), one per suite and one of every task's score.

Every bar carries its uncertainty: the report's 95% interval, by the method the metric declares
(``stats.metric``: Wilson for a rate, a bootstrap inside the range for a bounded mean), so two runs of the
same metric are measured alike; a mean without an interval says ``no CI`` above its bar. GRASP's table has
standard errors only, and its axis says ``± SE``. Each run has one colour in every figure (its place in
the command line), whatever tasks it holds; a run's several GRASP tasks differ by hatching. A mean of 0
is drawn as a thick line at 0, so it reads as measured rather than missing (a missing mean says ``n/a``).
Each run is labelled by its own label (``eval --label``), else model + agent; equal labels get the run id
appended.
"""

import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text in SVG: searchable, smaller
import matplotlib.pyplot as plt  # noqa: E402

from playbench.report.inert import inert_text  # noqa: E402


def _text(value: object, limit: int = 60) -> str:
    """Record text as a figure label: inert, short, ``$`` escaped.

    Matplotlib reads text between ``$`` signs as mathtext, and a malformed formula fails the whole plot.
    """
    return inert_text(value, limit=limit, one_line=True).replace("$", r"\$")


def _raw_label(report: dict[str, Any]) -> str:
    run = report["run"]
    if run.get("label"):
        return str(run["label"])
    return f"{run['model']} + {run['agent']}" if run.get("model") else str(run["agent"])


def labels(reports: list[dict[str, Any]]) -> list[str]:
    """Each run's label; runs whose labels are equal get their run id appended, so no two look alike."""
    raw = [_raw_label(r) for r in reports]
    return [_text(f"{name} ({r['run']['run_id']})" if raw.count(name) > 1 else name)
            for name, r in zip(raw, reports, strict=True)]


def _save(fig: Any, out: Path, name: str, tight: bool = True) -> list[Path]:
    paths = [out / f"{name}.png", out / f"{name}.svg"]
    if tight:
        fig.tight_layout()
    for p in paths:
        fig.savefig(p, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return paths


#: GRASP: a run's several tasks share its colour and differ by hatching (the first plain)
HATCHES: tuple[str | None, ...] = (None, "//", "..", "xx")


def colour(k: int) -> str:
    """Run ``k``'s colour, the same in every figure."""
    return f"C{k % 10}"


#: (below, above) error-bar lengths, or None: the mean has no interval
Err = tuple[float, float] | None
#: one bar: (mean or None, its error bar)
Cell = tuple[float | None, Err]


def _err(mean: float | None, ci: Any) -> Err:
    """(below, above) error-bar lengths from the report's [lo, hi] interval; None without one."""
    if mean is None or not ci or ci[0] is None or ci[1] is None:
        return None
    return max(0.0, mean - ci[0]), max(0.0, ci[1] - mean)


def _se(mean: float | None, stderr: float | None) -> Err:
    """± one standard error, for tables that have no interval (GRASP)."""
    return None if mean is None or stderr is None else (stderr, stderr)


def _bar(ax: Any, x: float, width: float, cell: Cell, color: str, hatch: str | None = None) -> None:
    """One bar with its error bar; ``n/a`` for no mean, a thick line at 0 for a mean of 0, ``no CI``."""
    value, err = cell
    if value is None:
        ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize=6, rotation=90)
        return
    yerr = None if err is None else [[err[0]], [err[1]]]
    ax.bar([x], [value], width, yerr=yerr, capsize=3, color=color, hatch=hatch, edgecolor="white" if hatch else None)
    if value == 0:  # a bar of height 0 is invisible: mark the measured 0
        ax.hlines(0.0, x - width / 2, x + width / 2, colors=color, linewidth=3, zorder=3)
    if err is None:
        ax.text(x, value, "no CI", ha="center", va="bottom", fontsize=5, rotation=90)


def _grouped_bars(ax: Any, groups: list[str], series: list[tuple[str, str, str | None, list[Cell]]]) -> None:
    """Bars of several series over groups: ``series`` = [(label, colour, hatch, [(value, error bar)])]."""
    width = 0.8 / max(1, len(series))
    for k, (label, color, hatch, cells) in enumerate(series):
        for i, cell in enumerate(cells):
            _bar(ax, i + k * width, width, cell, color, hatch)
        ax.bar([0], [0], 0, color=color, hatch=hatch, edgecolor="white" if hatch else None, label=label)  # legend
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))], groups, rotation=25, ha="right", fontsize=7)


def _runs(reports: list[dict[str, Any]], keep: Any) -> list[tuple[int, str, dict[str, Any]]]:
    """(place, label, report) of the runs ``keep`` accepts, the place fixing the run's colour."""
    return [(k, name, r) for k, (name, r) in enumerate(zip(labels(reports), reports, strict=True)) if keep(r)]


def task_scores(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """One panel per task: mean score of each run with its 95% CI (one colour per run, legend below)."""
    tasks = list(dict.fromkeys(t for r in reports for t in r["tasks"]))
    if not tasks:
        return []
    names = labels(reports)
    colors = [colour(k) for k in range(len(reports))]
    cols = min(4, len(tasks))
    rows = math.ceil(len(tasks) / cols)
    legend_h = 0.2 * math.ceil(len(reports) / 2) + 0.2
    height = 2.4 * rows + 0.5 + legend_h
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, height), squeeze=False)
    for ax, task in zip(axes.flat, tasks, strict=False):
        for k, r in enumerate(reports):
            stat = r["tasks"].get(task, {}).get("score", {})
            if stat.get("mean") is None:
                continue
            _bar(ax, k, 0.8, (stat["mean"], _err(stat["mean"], stat.get("ci95"))), colors[k])
        ax.set_xticks([])
        ax.set_xlim(-0.6, len(reports) - 0.4)
        ax.set_title(_text(task), fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(tasks):]:
        ax.axis("off")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colors]
    fig.legend(handles, names, loc="lower center", ncol=min(2, len(names)), fontsize=7, frameon=False)
    fig.suptitle("score per task (mean, 95% CI)", fontsize=10)
    fig.tight_layout(rect=(0, legend_h / height, 1, 1))
    return _save(fig, out, "task_scores", tight=False)


def smartplay_scores(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """SmartPlay normalized score per game (human- or range-normalized, as labelled), 95% CI, one bar per run."""
    runs = _runs(reports, lambda r: r.get("smartplay", {}).get("normalized"))
    if not runs:
        return []
    games = list(dict.fromkeys(t for _, _, r in runs for t in r["smartplay"]["normalized"]))
    series: list[tuple[str, str, str | None, list[Cell]]] = []
    for k, name, r in runs:
        sp = r["smartplay"]
        cells: list[Cell] = []
        for g in games:
            value = sp["normalized"].get(g)
            cells.append((value, _err(value, sp.get("normalized_ci95", {}).get(g))))
        series.append((name, colour(k), None, cells))
    fig, ax = plt.subplots(figsize=(1.0 * len(games) + 3.5, 3.8))
    kinds = runs[0][2]["smartplay"].get("normalization", {})
    _grouped_bars(ax, [_text(g.split("/", 1)[-1] + ("" if kinds.get(g) != "range" else " (range)")) for g in games],
                  series)
    ax.axhline(1.0, color="grey", lw=0.6, ls="--")
    ax.set_ylabel("normalized score (1 = human / max)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title("SmartPlay normalized score per game (mean, 95% CI)", fontsize=9)
    return _save(fig, out, "smartplay_games")


def capability_radar(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """SmartPlay's nine capabilities as a radar, one polygon per run, for runs with two or more games.

    A capability that no supplied game measures is left out of the polygon (a gap), never drawn as 0, and
    its axis says ``n/a``; the shaded band is ± one standard error.
    """
    runs = [(n, r) for n, r in zip(labels(reports), reports, strict=True)
            if r.get("smartplay", {}).get("capabilities") and len(r["smartplay"].get("capability_tasks", [])) >= 2]
    if not runs:
        return []
    names = list(runs[0][1]["smartplay"]["capabilities"])
    angles = [2 * math.pi * i / len(names) for i in range(len(names))] + [0.0]
    fig = plt.figure(figsize=(7, 7.5))
    ax = fig.add_axes((0.15, 0.22, 0.7, 0.66), projection="polar")
    measured = set()
    for label, r in runs:
        caps = r["smartplay"]["capabilities"]
        errs = r["smartplay"].get("capabilities_stderr", {})
        values = [caps[n] if isinstance(caps[n], int | float) else math.nan for n in names]
        measured |= {n for n, v in zip(names, values, strict=True) if not math.isnan(v)}
        line = ax.plot(angles, values + values[:1], marker="o", label=label)[0]
        lo = [v - (errs.get(n) or 0.0) for v, n in zip(values, names, strict=True)]
        hi = [v + (errs.get(n) or 0.0) for v, n in zip(values, names, strict=True)]
        ax.fill_between(angles, lo + lo[:1], hi + hi[:1], alpha=0.2, color=line.get_color())
    ticks = [_text(n).replace(" ", "\n", 1) + ("" if n in measured else "\n(n/a)") for n in names]
    ax.set_xticks(angles[:-1], ticks, fontsize=7)
    ax.tick_params(axis="x", pad=12)
    ax.tick_params(axis="y", labelsize=6)
    ax.set_rlabel_position(100)  # type: ignore[attr-defined]  # a PolarAxes
    ax.set_ylim(0, max(1.0, *[v for _, r in runs for v in r["smartplay"]["capabilities"].values()
                              if isinstance(v, int | float)]))
    fig.legend(loc="lower center", fontsize=7, ncol=min(2, len(runs)), frameon=False)
    fig.suptitle("SmartPlay capabilities (band: ± SE; n/a: no supplied game measures it)", fontsize=9)
    return _save(fig, out, "smartplay_capabilities", tight=False)


def balrog_progress(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """BALROG average progress (%) per environment and overall, 95% CI, one bar per run."""
    runs = _runs(reports, lambda r: r.get("balrog", {}).get("envs"))
    if not runs:
        return []
    envs = list(dict.fromkeys(e for _, _, r in runs for e in r["balrog"]["envs"]))
    series: list[tuple[str, str, str | None, list[Cell]]] = []
    for k, name, r in runs:
        blocks = [r["balrog"]["envs"].get(e, {}) for e in envs] + [r["balrog"]["overall"]]
        series.append((name, colour(k), None, [(b.get("mean"), _err(b.get("mean"), b.get("ci95"))) for b in blocks]))
    fig, ax = plt.subplots(figsize=(1.2 * len(envs) + 4, 3.8))
    _grouped_bars(ax, [_text(e) for e in envs] + ["overall"], series)
    ax.set_ylim(0, 100)
    ax.set_ylabel("progress (%)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title("BALROG progress per environment and overall (mean, 95% CI)", fontsize=9)
    return _save(fig, out, "balrog_progress")


def mango_success(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """MANGO strict success rate for DF and RF, easy and hard, with 95% Wilson intervals (a declared rate)."""
    runs = _runs(reports, lambda r: any(k in r.get("mango", {}) for k in ("df", "rf")))
    if not runs:
        return []
    groups = [(kind, part) for kind in ("df", "rf") for part in ("easy", "hard", "all")
              if any(kind in r["mango"] for _, _, r in runs)]
    series: list[tuple[str, str, str | None, list[Cell]]] = []
    for k, name, r in runs:
        cells: list[Cell] = []
        for kind, part in groups:
            b = r["mango"].get(kind, {}).get("overall", {}).get(part, {})
            value = b.get("success_rate")
            cells.append((value, _err(value, (b.get("ci95") or {}).get("success_rate"))))
        series.append((name, colour(k), None, cells))
    fig, ax = plt.subplots(figsize=(1.0 * len(groups) + 3.5, 3.6))
    _grouped_bars(ax, [f"{kind.upper()} {part}" for kind, part in groups], series)
    ax.set_ylim(0, 1)
    ax.set_ylabel("strict success rate")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title("MANGO success (95% Wilson CI)", fontsize=9)
    return _save(fig, out, "mango_success")


def grasp_energy(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """GRASP mean energy by each control (distribution, obstacle, start, movement, carry, cost), ± SE.

    One series per run and GRASP task (``grasp.tables[task].by``): the run's colour, one hatching per task.
    """
    series_src = []
    for k, name, r in _runs(reports, lambda r: True):
        tables = (r.get("grasp") or {}).get("tables") or {}
        for j, (task, table) in enumerate(tables.items()):
            if table.get("by"):
                series_src.append((name if len(tables) == 1 else f"{name}: {_text(task)}", colour(k),
                                   HATCHES[j % len(HATCHES)], table))
    if not series_src:
        return []
    controls = list(dict.fromkeys(c for *_, t in series_src for c in t["by"]))
    fig, axes = plt.subplots(1, len(controls), figsize=(2.9 * len(controls), 3.4), squeeze=False)
    for ax, control in zip(axes.flat, controls, strict=True):
        levels = list(dict.fromkeys(lv for *_, t in series_src for lv in t["by"].get(control, {})))
        series: list[tuple[str, str, str | None, list[Cell]]] = []
        for name, color, hatch, t in series_src:
            cells: list[Cell] = []
            for lv in levels:
                stat = t["by"].get(control, {}).get(lv) or {}
                value = stat.get("energy")
                cells.append((value, _se(value, stat.get("energy_stderr"))))
            series.append((name, color, hatch, cells))
        _grouped_bars(ax, [_text(lv) for lv in levels], series)
        ax.set_title(_text(control), fontsize=8)
    axes.flat[0].set_ylabel("mean energy (± SE)")
    axes.flat[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return _save(fig, out, "grasp_energy")


def write_plots(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """Every figure that the reports have data for."""
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for fn in (task_scores, smartplay_scores, capability_radar, balrog_progress, mango_success, grasp_energy):
        paths += fn(reports, out)
    return paths
