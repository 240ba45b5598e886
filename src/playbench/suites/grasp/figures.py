"""GRASP's figure for ``playbench plot``: mean energy by each control of the paper's table."""

from typing import Any

from playbench.core.figures import Bars, Cell, Figure, Panel, RunSummary, Series, se_err


def figures(runs: list[RunSummary]) -> list[Figure]:
    """Mean energy by each control (distribution, obstacle, start, movement, carry, cost), ± SE.

    One series per run and GRASP task (``tables[task].by``): a run with several tasks names the task and
    hatches each differently. The table has standard errors only, and the axis says so.
    """
    found: list[tuple[int, str | None, int, dict[str, Any]]] = []
    for k, s in runs:
        tables = s.get("tables") or {}
        for j, (task, table) in enumerate(tables.items()):
            if table.get("by"):
                found.append((k, None if len(tables) == 1 else task, j, table))
    if not found:
        return []
    controls = list(dict.fromkeys(c for *_, t in found for c in t["by"]))
    panels = []
    for control in controls:
        levels = list(dict.fromkeys(lv for *_, t in found for lv in t["by"].get(control, {})))
        series = []
        for k, part, j, t in found:
            cells: list[Cell] = []
            for lv in levels:
                stat = t["by"].get(control, {}).get(lv) or {}
                value = stat.get("energy")
                cells.append((value, se_err(value, stat.get("energy_stderr"))))
            series.append(Series(k, cells, part, j))
        panels.append(Panel(levels, series, control))
    return [Bars("grasp_energy", None, "mean energy (± SE)", panels, size=(2.9 * len(controls), 3.4))]
