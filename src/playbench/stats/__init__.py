"""Statistics used by report, compare and the viewer: one small package, one place.

Names load on first use (PEP 562), so declaring a metric (``playbench.stats.metric``) in a suite's facts
table imports no numpy.
"""

import importlib
from typing import Any

_WHERE = {"bootstrap_mean": "intervals", "interval": "intervals", "wilson": "intervals",
          "mean_stderr": "summary", "summarize": "summary", "Metric": "metric"}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'playbench.stats' has no attribute {name!r}")
    return getattr(importlib.import_module(f"playbench.stats.{_WHERE[name]}"), name)
