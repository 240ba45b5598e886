"""SmartPlay's per-game score normalization (§4.1), from each task's facts row.

The 7 benchmark games are human-normalized: ``(raw - min) / (human - min)``, not clipped. The other
games have no recorded human score (calling the original's normalizer on them crashes, bug B9); for them
playbench reports a range-normalized score over the theoretical bounds, labelled as such.
"""

from playbench.core.registry import find_task, suite_tasks
from playbench.suites.smartplay.facts import SmartPlayTask


def facts_of(task_id: str) -> SmartPlayTask | None:
    """The facts row of a registered SmartPlay task (None for other ids)."""
    task = find_task(task_id) if task_id.startswith("smartplay/") else None
    return task.facts if task is not None and isinstance(task.facts, SmartPlayTask) else None


def benchmark_rows() -> list[SmartPlayTask]:
    """The rows with a Table 2 column (the benchmark games), in table order."""
    rows = [task.facts for task in suite_tasks("smartplay")]
    return [row for row in rows if isinstance(row, SmartPlayTask) and row.table2 is not None]


def benchmark_tasks() -> tuple[str, ...]:
    """The ids of the benchmark games (``smartplay/benchmark-v0``)."""
    return tuple(row.id for row in benchmark_rows())


def normalize(task_id: str, raw: float) -> tuple[float, str] | None:
    """``(value, kind)`` with kind ``human`` or ``range``; None for unknown ids."""
    row = facts_of(task_id)
    if row is None:
        return None
    ref = row.reference
    return (raw - ref.low) / (ref.high - ref.low), ref.kind
