"""Figures from reports (PNG and SVG via matplotlib): one of every task's score, and those each suite declares.

A suite's figures come from its summary hooks as data (``core.figures``: bars in panels, radars); this
module draws them all alike and knows no suite.

Every bar carries its uncertainty: the report's 95% interval, by the method the metric declares
(``stats.metric``: Wilson for a rate, a bootstrap inside the range for a bounded mean), so two runs of the
same metric are measured alike; a mean without an interval says ``no CI`` above its bar (a suite's table
with standard errors only says ``± SE`` on its axis). Each run has one colour in every figure (its place in
the command line), whatever tasks it holds; a run's several series in one panel differ by hatching. A mean of 0
is drawn as a thick line at 0, so it reads as measured rather than missing (a missing mean says ``n/a``).
Each run is labelled by its own label (``eval --label``), else model + agent; equal labels get the run id
appended.
"""

import math
import re
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text in SVG: searchable, smaller
import matplotlib.pyplot as plt  # noqa: E402

from playbench.core.errors import PlaybenchError  # noqa: E402
from playbench.core.figures import Bars, Cell, Radar, ci_err  # noqa: E402
from playbench.report.build import summary_hooks  # noqa: E402
from playbench.report.inert import inert_text  # noqa: E402

TITLE_LIMIT = 120  # titles and axis labels come from suite code, not records: longer, still inert
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")  # a figure's file name


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


#: a run's several series in a panel share its colour and differ by hatching (the first plain)
HATCHES: tuple[str | None, ...] = (None, "//", "..", "xx")


def colour(k: int) -> str:
    """Run ``k``'s colour, the same in every figure."""
    return f"C{k % 10}"


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
            _bar(ax, k, 0.8, (stat["mean"], ci_err(stat["mean"], stat.get("ci95"))), colors[k])
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


def _bars(spec: Bars, names: list[str], out: Path) -> list[Path]:
    """A suite's bar figure: its panels side by side, every series in its run's colour."""
    fig, axes = plt.subplots(1, len(spec.panels), figsize=spec.size, squeeze=False)
    for ax, panel in zip(axes.flat, spec.panels, strict=True):
        series = [(names[s.run] if s.part is None else f"{names[s.run]}: {_text(s.part)}", colour(s.run),
                   HATCHES[s.hatch % len(HATCHES)], s.cells) for s in panel.series]
        _grouped_bars(ax, [_text(g) for g in panel.groups], series)
        if panel.title is not None:
            ax.set_title(_text(panel.title), fontsize=8)
        if spec.line is not None:
            ax.axhline(spec.line, color="grey", lw=0.6, ls="--")
        if spec.ylim is not None:
            ax.set_ylim(*spec.ylim)
    axes.flat[0].set_ylabel(_text(spec.ylabel, limit=TITLE_LIMIT))
    axes.flat[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    if spec.title is not None:
        axes.flat[0].set_title(_text(spec.title, limit=TITLE_LIMIT), fontsize=9)
    return _save(fig, out, spec.name)


def _radar(spec: Radar, names: list[str], out: Path) -> list[Path]:
    """A suite's radar, one polygon per run; an unmeasured axis is a gap (never 0) and says ``n/a``."""
    axes = list(spec.axes)
    angles = [2 * math.pi * i / len(axes) for i in range(len(axes))] + [0.0]
    fig = plt.figure(figsize=(7, 7.5))
    ax = fig.add_axes((0.15, 0.22, 0.7, 0.66), projection="polar")
    measured = set()
    for polygon in spec.polygons:
        values = [math.nan if v is None else v for v in polygon.values]
        measured |= {n for n, v in zip(axes, values, strict=True) if not math.isnan(v)}
        line = ax.plot(angles, values + values[:1], marker="o", label=names[polygon.run])[0]
        lo = [v - e for v, e in zip(values, polygon.errors, strict=True)]
        hi = [v + e for v, e in zip(values, polygon.errors, strict=True)]
        ax.fill_between(angles, lo + lo[:1], hi + hi[:1], alpha=0.2, color=line.get_color())
    ticks = [_text(n).replace(" ", "\n", 1) + ("" if n in measured else "\n(n/a)") for n in axes]
    ax.set_xticks(angles[:-1], ticks, fontsize=7)
    ax.tick_params(axis="x", pad=12)
    ax.tick_params(axis="y", labelsize=6)
    ax.set_rlabel_position(100)  # type: ignore[attr-defined]  # a PolarAxes
    ax.set_ylim(0, max(1.0, *[v for p in spec.polygons for v in p.values if v is not None]))
    fig.legend(loc="lower center", fontsize=7, ncol=min(2, len(spec.polygons)), frameon=False)
    fig.suptitle(_text(spec.title, limit=TITLE_LIMIT), fontsize=9)
    return _save(fig, out, spec.name, tight=False)


def suite_plots(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """The figures each suite declares (``SummaryHooks.figures``) from its summaries, suites in name order."""
    names = labels(reports)
    paths: list[Path] = []
    for suite in sorted({key for r in reports for key in r} - {"run", "tasks"}):
        hooks = summary_hooks(suite)
        runs = [(k, r[suite]) for k, r in enumerate(reports) if isinstance(r.get(suite), dict)]
        for spec in hooks.figures(runs) if hooks is not None and runs else []:
            if not _NAME.fullmatch(spec.name) or spec.name == "task_scores":
                raise PlaybenchError(f"suite {suite!r}: figure name {spec.name!r} is not a plain file name")
            paths += _bars(spec, names, out) if isinstance(spec, Bars) else _radar(spec, names, out)
    return paths


def write_plots(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """Every figure that the reports have data for: every task's score, then each suite's own figures."""
    out.mkdir(parents=True, exist_ok=True)
    return task_scores(reports, out) + suite_plots(reports, out)
