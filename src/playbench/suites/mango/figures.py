"""MANGO's figure for ``playbench plot``: strict success of DF and RF questions."""

from playbench.core.figures import Bars, Cell, Figure, Panel, RunSummary, Series, ci_err


def figures(runs: list[RunSummary]) -> list[Figure]:
    """Strict success rate for DF and RF, easy and hard, with 95% Wilson intervals (a declared rate)."""
    runs = [(k, s) for k, s in runs if any(kind in s for kind in ("df", "rf"))]
    if not runs:
        return []
    groups = [(kind, part) for kind in ("df", "rf") for part in ("easy", "hard", "all")
              if any(kind in s for _, s in runs)]
    series = []
    for k, s in runs:
        cells: list[Cell] = []
        for kind, part in groups:
            b = s.get(kind, {}).get("overall", {}).get(part, {})
            value = b.get("success_rate")
            cells.append((value, ci_err(value, (b.get("ci95") or {}).get("success_rate"))))
        series.append(Series(k, cells))
    return [Bars("mango_success", "MANGO success (95% Wilson CI)", "strict success rate",
                 [Panel([f"{kind.upper()} {part}" for kind, part in groups], series)],
                 size=(1.0 * len(groups) + 3.5, 3.6), ylim=(0, 1))]
