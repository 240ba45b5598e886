"""Figures from reports (PNG and SVG via matplotlib): scores with CIs, capability radar, BALROG, GRASP."""

import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from playbench.report.inert import inert_text  # noqa: E402


def _text(value: object, limit: int = 60) -> str:
    """Record text as a figure label: inert, short, ``$`` escaped.

    Matplotlib reads text between ``$`` signs as mathtext, and a malformed formula fails the whole plot.
    """
    return inert_text(value, limit=limit, one_line=True).replace("$", r"\$")


def _label(report: dict[str, Any]) -> str:
    run = report["run"]
    return _text(run["model"] or run["agent"])


def _save(fig: Any, out: Path, name: str) -> list[Path]:
    paths = [out / f"{name}.png", out / f"{name}.svg"]
    fig.tight_layout()
    for p in paths:
        fig.savefig(p, dpi=120)
    plt.close(fig)
    return paths


def task_scores(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """One panel per task: mean score of each run with its 95% CI."""
    tasks = sorted({t for r in reports for t in r["tasks"]})
    if not tasks:
        return []
    cols = min(4, len(tasks))
    rows = math.ceil(len(tasks) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows), squeeze=False)
    errs: list[list[float]]
    for ax, task in zip(axes.flat, tasks, strict=False):
        labels, means, errs = [], [], [[], []]
        for r in reports:
            stat = r["tasks"].get(task, {}).get("score", {})
            if stat.get("mean") is None:
                continue
            lo, hi = stat["ci95"] if stat["ci95"][0] is not None else (stat["mean"], stat["mean"])
            labels.append(_label(r))
            means.append(stat["mean"])
            errs[0].append(stat["mean"] - lo)
            errs[1].append(hi - stat["mean"])
        ax.bar(range(len(means)), means, yerr=errs, capsize=4, color="#4c72b0")
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=7)
        ax.set_title(_text(task), fontsize=8)
    for ax in list(axes.flat)[len(tasks):]:
        ax.axis("off")
    fig.suptitle("score per task (mean, 95% CI)", fontsize=10)
    return _save(fig, out, "task_scores")


def capability_radar(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """SmartPlay's nine capabilities as a radar, one polygon per run (null capabilities plotted as 0)."""
    runs = [r for r in reports if r.get("smartplay", {}).get("capabilities")]
    if not runs:
        return []
    names = list(runs[0]["smartplay"]["capabilities"])
    angles = [2 * math.pi * i / len(names) for i in range(len(names))] + [0.0]
    fig = plt.figure(figsize=(6, 6))
    ax = fig.add_subplot(projection="polar")
    for r in runs:
        caps = r["smartplay"]["capabilities"]
        values = [v if isinstance(v, int | float) else 0.0 for v in (caps[n] for n in names)]
        ax.plot(angles, values + values[:1], label=_label(r))
        ax.fill(angles, values + values[:1], alpha=0.15)
    ax.set_xticks(angles[:-1], [_text(n).replace(" ", "\n", 1) for n in names], fontsize=7)
    ax.set_ylim(0, 1)
    ax.legend(loc="lower right", fontsize=7)
    ax.set_title("SmartPlay capabilities")
    return _save(fig, out, "smartplay_capabilities")


def balrog_progress(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """BALROG average progress (%) per environment with standard errors, one bar per run."""
    runs = [r for r in reports if r.get("balrog", {}).get("envs")]
    if not runs:
        return []
    envs = sorted({e for r in runs for e in r["balrog"]["envs"]})
    width = 0.8 / len(runs)
    fig, ax = plt.subplots(figsize=(1.2 * len(envs) + 3, 3.5))
    for k, r in enumerate(runs):
        vals = [r["balrog"]["envs"].get(e, {}) for e in envs]
        ax.bar([i + k * width for i in range(len(envs))], [v.get("mean") or 0 for v in vals], width,
               yerr=[v.get("stderr") or 0 for v in vals], capsize=3, label=_label(r))
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(envs))], [_text(e) for e in envs], rotation=20)
    ax.set_ylabel("progress (%)")
    ax.legend(fontsize=7)
    ax.set_title("BALROG progress per environment")
    return _save(fig, out, "balrog_progress")


def grasp_energy(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """GRASP mean energy by each control (distribution, obstacle, start, movement, carry, cost)."""
    runs = [r for r in reports if isinstance(r.get("grasp"), dict) and r["grasp"].get("by")]
    if not runs:
        return []
    controls = list(runs[0]["grasp"]["by"])
    fig, axes = plt.subplots(1, len(controls), figsize=(2.8 * len(controls), 3), squeeze=False)
    for ax, control in zip(axes.flat, controls, strict=True):
        levels = sorted({lv for r in runs for lv in r["grasp"]["by"].get(control, {})})
        width = 0.8 / len(runs)
        for k, r in enumerate(runs):
            cells = r["grasp"]["by"].get(control, {})
            means = [(cells.get(lv, {}).get("energy") or {}).get("mean") or 0 for lv in levels]
            ax.bar([i + k * width for i in range(len(levels))], means, width, label=_label(r))
        ax.set_xticks(range(len(levels)), [_text(lv) for lv in levels], rotation=30, fontsize=7)
        ax.set_title(_text(control), fontsize=8)
    axes.flat[0].set_ylabel("mean energy")
    axes.flat[0].legend(fontsize=7)
    return _save(fig, out, "grasp_energy")


def write_plots(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """Every figure that the reports have data for."""
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for fn in (task_scores, capability_radar, balrog_progress, grasp_energy):
        paths += fn(reports, out)
    return paths
