"""The Table-1 breakdown: mean executed length and energy by every control, per agent (pure functions)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from playbench.suites.grasp.grid import DISTRIBUTIONS, Constraints

DIMENSIONS = ("distribution", "obstacle", "start", "movement", "carry", "cost")
ORDER = {
    "distribution": DISTRIBUTIONS,
    "obstacle": ("block", "free"),
    "start": ("inner", "outer"),
    "movement": ("4", "8"),
    "carry": ("none", "2"),
    "cost": ("0", "0.3"),
}
LABELS = {
    "distribution": {"random": "random", "upDown": "upDown (vertically-skewed)",
                     "leftRight": "leftRight (horizontally-skewed)", "cluster": "cluster", "spiral": "spiral"},
    "obstacle": {"block": "yes", "free": "no"},
    "start": {"inner": "inner", "outer": "outer"},
    "movement": {"4": "μ1 (4)", "8": "μ2 (8)"},
    "carry": {"none": "none", "2": "2 units"},
    "cost": {"0": "0", "0.3": "0.3"},
}


@dataclass(frozen=True)
class Scored:
    """One scored instance: its controls, the executed length, the energy and the parser rule."""

    dims: dict[str, str]
    length: int
    energy: float
    rule: str


def dims_of(distribution: str, obstacle: str, start_region: str, constraints: Constraints) -> dict[str, str]:
    """The six controls of an instance as strings."""
    return {
        "distribution": distribution,
        "obstacle": obstacle,
        "start": start_region,
        "movement": str(constraints.movement),
        "carry": "none" if constraints.carry is None else str(constraints.carry),
        "cost": "0.3" if constraints.cost else "0",
    }


def _stats(items: list[Scored]) -> dict[str, Any]:
    n = len(items)
    if not n:
        return {"n": 0, "length": None, "energy": None, "length_stderr": None, "energy_stderr": None}

    def mean_se(values: list[float]) -> tuple[float, float | None]:
        m = math.fsum(values) / n
        if n < 2:
            return m, None
        return m, math.sqrt(math.fsum((v - m) ** 2 for v in values) / (n - 1) / n)

    lm, ls = mean_se([float(i.length) for i in items])
    em, es = mean_se([i.energy for i in items])
    return {"n": n, "length": lm, "energy": em, "length_stderr": ls, "energy_stderr": es}


def breakdown(items: Iterable[Scored]) -> dict[str, Any]:
    """``{"overall": {...}, "by": {dimension: {value: {...}}}, "parser_rules": {...}}``."""
    items = list(items)
    by: dict[str, dict[str, Any]] = {}
    for dim in DIMENSIONS:
        groups: dict[str, list[Scored]] = defaultdict(list)
        for it in items:
            groups[it.dims.get(dim, "?")].append(it)
        known = [v for v in ORDER[dim] if v in groups] + sorted(set(groups) - set(ORDER[dim]))
        by[dim] = {v: _stats(groups[v]) for v in known}
    return {"overall": _stats(items), "by": by, "parser_rules": dict(Counter(i.rule for i in items))}


def _cell(stats: dict[str, Any] | None, with_se: bool) -> str:
    if not stats or not stats.get("n"):
        return "—"
    length = f"{stats['length']:.1f}"
    if with_se and stats.get("length_stderr") is not None:
        length += f" ± {stats['length_stderr']:.1f}"
    text = f"{length} / {stats['energy']:.2f}"
    if with_se and stats.get("energy_stderr") is not None:
        text += f" ± {stats['energy_stderr']:.2f}"
    return text


SWAP_NOTE = ("official grid files: upDown files skew columns and leftRight files rows, the transposition of "
             "their paper labels (spec §2.1)")


def render_table(
    agents: dict[str, dict[str, Any]], title: str, with_se: bool = True, caption: str | None = None
) -> Any:
    """A rich Table in the paper's layout: one row per control value, one column per agent (length / energy)."""
    from rich.table import Table

    table = Table(title=title, caption=caption)
    table.add_column("control")
    table.add_column("value")
    for name in agents:
        table.add_column(name, justify="right")
    for dim in DIMENSIONS:
        values: list[str] = []
        for a in agents.values():
            values += [v for v in a["by"].get(dim, {}) if v not in values]
        for i, value in enumerate(values):
            label = LABELS[dim].get(value, value)
            table.add_row(dim if i == 0 else "", label, *(_cell(a["by"].get(dim, {}).get(value), with_se)
                                                          for a in agents.values()))
    table.add_row("average", "", *(_cell(a["overall"], with_se) for a in agents.values()), style="bold")
    return table
