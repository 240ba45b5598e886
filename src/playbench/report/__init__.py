"""Reports: pure functions from run records to tables, statistics, plots and the HTML viewer."""

from playbench.report.build import build_report

__all__ = ["build_report"]
