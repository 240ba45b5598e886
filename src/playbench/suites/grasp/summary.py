"""GRASP's native report: the paper's Table-1 breakdown of a run, with standard errors (pure functions)."""

from __future__ import annotations

import math
from typing import Any

from playbench.core.records import EpisodeRecord
from playbench.core.suite import SummaryHooks
from playbench.suites.grasp.figures import figures
from playbench.suites.grasp.grid import Constraints
from playbench.suites.grasp.table import SWAP_NOTE, Scored, breakdown, dims_of, render_table


def _scored(record: EpisodeRecord) -> Scored | None:
    m, inst = record.metrics, record.instance
    if record.status != "ok" or "energy" not in m or "constraints" not in inst:
        return None
    c = inst["constraints"]
    cons = Constraints(int(c["movement"]), None if c.get("carry") is None else int(c["carry"]), float(c["cost"]))
    dims = dims_of(inst.get("distribution", "?"), inst.get("obstacle", "?"), inst.get("start_region", "?"), cons)
    return Scored(dims, int(m.get("length", 0)), float(m["energy"]), str(m.get("parser_rule", "?")))


def summarize(records_by_task: dict[str, list[EpisodeRecord]], scheduled: dict[str, int]) -> dict[str, Any] | None:
    """Per task: the Table-1 breakdown (overall, by control, parser rules) and the scoring rule used."""
    out: dict[str, Any] = {}
    for task_id, records in records_by_task.items():
        items = [s for s in map(_scored, records) if s is not None]
        if not items:
            continue
        scorings = sorted({r.metrics.get("scoring", "?") for r in records if r.status == "ok"})
        official = any(r.instance.get("source") == "official" for r in records)
        out[task_id] = {"scoring": ",".join(scorings), "scheduled": scheduled.get(task_id), "official": official,
                        **breakdown(items)}
    return {"tables": out} if out else None


def task_extras(task_id: str, records: list[EpisodeRecord]) -> dict[str, Any]:
    """Mean executed length and energy under both rules, and how many answers the parser could not read."""
    ok = [r for r in records if r.status == "ok" and "energy_fixed" in r.metrics]
    if not ok:
        return {}

    def mean(key: str) -> float:
        return math.fsum(float(r.metrics[key]) for r in ok) / len(ok)

    return {"grasp": {"length": mean("length"), "energy_fixed": mean("energy_fixed"),
                      "energy_compat": mean("energy_compat"),
                      "parse_failed": sum(bool(r.metrics.get("parse_failed")) for r in ok)}}


def render(summary: dict[str, Any]) -> list[Any]:
    """One Table-1 style table per run, one column per GRASP task."""
    tables = summary.get("tables", {})
    if not tables:
        return []
    columns = {f"{tid} ({t['scoring']})": t for tid, t in tables.items()}
    caption = SWAP_NOTE if any(t.get("official") for t in tables.values()) else None
    return [render_table(columns, "GRASP (Table 1): length / energy ± s.e.", caption=caption)]


#: what ``playbench report`` and ``plot`` call (``SUITE.summary`` names it)
SUMMARY = SummaryHooks(summarize=summarize, task_extras=task_extras, render=render, figures=figures)
