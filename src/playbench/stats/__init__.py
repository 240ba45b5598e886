"""Statistics used by report, compare and the viewer: one small package, one place."""

from playbench.stats.intervals import bootstrap_mean, wilson
from playbench.stats.summary import mean_stderr, summarize

__all__ = ["bootstrap_mean", "mean_stderr", "summarize", "wilson"]
