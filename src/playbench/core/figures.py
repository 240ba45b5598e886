"""What a suite's figures show, as data: ``playbench plot`` (``report/plots.py``) draws them.

A suite's ``SummaryHooks.figures`` turns the summaries of several runs into these; the report draws every
figure alike (colours, error bars, labels made inert), so no suite draws and the report knows no suite.
Text here may come from records: the report makes it inert before drawing.
"""

from dataclasses import dataclass
from typing import Any

#: (below, above) error-bar lengths, or None: the mean has no interval
Err = tuple[float, float] | None
#: one bar: (mean or None, its error bar)
Cell = tuple[float | None, Err]
#: one run's part of the figures: (its place on the command line, which fixes its colour and label; its suite's
#: summary, as the report holds it)
RunSummary = tuple[int, dict[str, Any]]


def ci_err(mean: float | None, ci: Any) -> Err:
    """(below, above) error-bar lengths from a report's [lo, hi] interval; None without one."""
    if mean is None or not ci or ci[0] is None or ci[1] is None:
        return None
    return max(0.0, mean - ci[0]), max(0.0, ci[1] - mean)


def se_err(mean: float | None, stderr: float | None) -> Err:
    """± one standard error, for tables that have no interval."""
    return None if mean is None or stderr is None else (stderr, stderr)


@dataclass(frozen=True)
class Series:
    """One run's bars in a panel, one cell per group.

    ``part`` names which of the run's several series this is (added to its label); ``hatch`` tells them
    apart (0: plain), the run's colour being the same.
    """

    run: int
    cells: list[Cell]
    part: str | None = None
    hatch: int = 0


@dataclass(frozen=True)
class Panel:
    """Bars of several series over the same groups (the x axis), with an optional title."""

    groups: list[str]
    series: list[Series]
    title: str | None = None


@dataclass(frozen=True)
class Bars:
    """A figure of bar panels side by side, saved as ``name``.png and .svg.

    ``size``: inches; ``ylim``: the y range (None: automatic); ``line``: a dashed reference line at this y.
    """

    name: str
    title: str | None
    ylabel: str
    panels: list[Panel]
    size: tuple[float, float]
    ylim: tuple[float, float] | None = None
    line: float | None = None


@dataclass(frozen=True)
class Polygon:
    """One run on a radar: a value per axis (None: not measured, left as a gap) and its ± band."""

    run: int
    values: list[float | None]
    errors: list[float]


@dataclass(frozen=True)
class Radar:
    """A radar of named axes, one polygon per run; an axis no run measures says ``n/a``."""

    name: str
    title: str
    axes: list[str]
    polygons: list[Polygon]


Figure = Bars | Radar
