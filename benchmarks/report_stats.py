"""Time of the report's statistics: one task's mean, SE and 95% interval, by number of episodes.

Bootstrap intervals (scipy.stats.bootstrap, 2,000 resamples) cost more than a t interval; this prints
what a report pays per task and metric, and what an 83-task report with 10 episodes each pays in all.
Three interleaved repetitions; min / median / max of wall and CPU time, the goal beside each figure.
Run: .venv/bin/python benchmarks/report_stats.py
"""

import statistics
import time

import numpy as np
from common import machine_note, spread

from playbench.stats import summarize
from playbench.stats.metric import Metric

#: the two methods timed: a bounded mean's bootstrap (values in 0..3) and a rate's Wilson interval
METRICS = {False: Metric("score", "bounded-mean", 0.0, 3.0), True: Metric("success", "rate")}

SIZES = (10, 100, 1000, 2000, 10_000)
#: goal: milliseconds for one summary of n values
GOALS_MS = {10: 10, 100: 25, 1000: 100, 2000: 200, 10_000: 50}
REPS = 3


def once(values: list[float], proportion: bool) -> tuple[float, float]:
    """(wall, cpu) seconds of one summary."""
    w, c = time.perf_counter(), time.process_time()
    summarize(values, METRICS[proportion])
    return time.perf_counter() - w, time.process_time() - c


def main() -> None:
    rng = np.random.default_rng(0)
    data = {n: list(rng.random(n) * 3) for n in SIZES}
    binary = {n: [float(x) for x in rng.integers(0, 2, n)] for n in SIZES}
    walls: dict[tuple[str, int], list[float]] = {}
    cpus: dict[tuple[str, int], list[float]] = {}
    for _ in range(REPS):  # interleaved: every size once per repetition
        for n in SIZES:
            for kind, values, prop in (("bootstrap", data[n], False), ("wilson", binary[n], True)):
                w, c = once(values, prop)
                walls.setdefault((kind, n), []).append(w)
                cpus.setdefault((kind, n), []).append(c)
    print(machine_note())
    for (kind, n), ws in walls.items():
        goal = GOALS_MS[n] if kind == "bootstrap" else 5
        print(f"{kind:10} {n:>6} values: wall {spread(ws, 1e3, 1)} ms, CPU {spread(cpus[(kind, n)], 1e3, 1)} ms "
              f"(goal <= {goal} ms)")
    per_task = statistics.median(walls[("bootstrap", 10)]) + statistics.median(walls[("wilson", 10)])
    print(f"83 tasks × 10 episodes (score by bootstrap, completion by Wilson): about {83 * per_task:.2f} s "
          f"(goal 1 s)")


if __name__ == "__main__":
    main()
