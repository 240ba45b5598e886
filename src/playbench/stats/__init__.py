"""Statistics used by report, compare and the viewer: one small package, one place.

Names load on first use (PEP 562), so declaring a metric (``playbench.stats.metric``) in a suite's facts
table imports no numpy.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real names for type checkers; at run time they load on first use
    from playbench.stats.intervals import bootstrap_mean, interval, wilson
    from playbench.stats.metric import Metric
    from playbench.stats.summary import mean_stderr, summarize

_WHERE = {"bootstrap_mean": "intervals", "interval": "intervals", "wilson": "intervals",
          "mean_stderr": "summary", "summarize": "summary", "Metric": "metric"}

__all__ = ["Metric", "bootstrap_mean", "interval", "mean_stderr", "summarize", "wilson"]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'playbench.stats' has no attribute {name!r}")
    return getattr(importlib.import_module(f"playbench.stats.{_WHERE[name]}"), name)
