"""Statistics used by report, compare and the viewer: one small module, one place."""

from playbench.stats.summary import mean_stderr, summarize

__all__ = ["mean_stderr", "summarize"]
