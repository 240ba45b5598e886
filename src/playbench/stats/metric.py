"""What a metric is, for its 95% interval: declared once, beside the metric, and read by every report.

A ``Metric`` names the kind of number its values are, which fixes the interval method (``intervals``):

- ``rate``: a success rate, each value 0 or 1 (the Wilson interval);
- ``bounded-mean``: a mean of values that lie in a declared ``[low, high]`` (a percentile bootstrap
  inside that range);
- ``mean``: a mean with no declared range (a percentile bootstrap inside the observed values).

The method follows the declaration, never the values a run happens to hold: a Crafter progression of 0 in
every episode is the same kind of number as a mixed one. This module imports nothing heavy, so the suites'
facts tables can declare their metrics without loading numpy (``playbench list`` stays cheap).
"""

from dataclasses import dataclass
from typing import Literal

Kind = Literal["rate", "bounded-mean", "mean"]


@dataclass(frozen=True)
class Metric:
    """A metric's name, kind and declared range (``low``/``high``: 0 and 1 for a rate, None for a plain mean)."""

    name: str
    kind: Kind = "mean"
    low: float | None = None
    high: float | None = None

    def __post_init__(self) -> None:
        if self.kind == "rate":
            object.__setattr__(self, "low", 0.0)
            object.__setattr__(self, "high", 1.0)
        elif self.kind == "bounded-mean":
            if self.low is None or self.high is None or not self.low < self.high:
                raise ValueError(f"metric {self.name}: a bounded mean needs low < high (got {self.low}, {self.high})")
        elif self.low is not None or self.high is not None:
            raise ValueError(f"metric {self.name}: a plain mean declares no range")

    @property
    def method(self) -> str:
        """The name of the interval method this kind gets (``ci_method`` in reports)."""
        return "wilson" if self.kind == "rate" else "bootstrap"

    def holds(self, value: float) -> bool:
        """Whether ``value`` lies in the declared range (always, for a plain mean)."""
        if self.low is None or self.high is None:
            return True
        return self.low <= value <= self.high


#: Every task's ``completion``: 1 when the episode reached its goal, else 0.
COMPLETION = Metric("completion", "rate")
#: Every task's ``progress``: the game's own progress in [0, 1].
PROGRESS = Metric("progress", "bounded-mean", 0.0, 1.0)
#: A score whose suite declares nothing about it: a plain mean.
SCORE = Metric("score")
