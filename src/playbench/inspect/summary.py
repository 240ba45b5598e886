"""A suite's own aggregate from an Inspect log: the episodes' records rebuilt, the suite's summary called.

Each sample's transcript ends its episode with the record (``events.py``), so ``suite_summary`` gives
what ``playbench report`` shows under the suite's name (BALROG's progression table, SmartPlay's normalised
score and capability errors) from the same records. A sample that ended in an Inspect error has no record:
it is counted as scheduled and missing, as a run's missing episode is.
"""

from collections import defaultdict
from typing import Any

from inspect_ai.log import EvalLog

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord
from playbench.inspect.events import episode_record
from playbench.report.build import suite_of, summary_hooks


def episode_records(log: EvalLog) -> tuple[dict[str, list[EpisodeRecord]], dict[str, int]]:
    """The records of ``log``'s samples by task, and each task's scheduled count (its samples)."""
    if log.samples is None:
        raise PlaybenchError(f"{log.location or 'the log'} holds no samples (read it with header_only=False)")
    records: dict[str, list[EpisodeRecord]] = defaultdict(list)
    scheduled: dict[str, int] = defaultdict(int)
    for sample in log.samples:
        task = (sample.metadata or {}).get("task")
        if not isinstance(task, str):
            continue  # not a playbench sample
        scheduled[task] += 1
        record = episode_record(sample.events) if sample.error is None else None
        if record is not None:
            records[task].append(record)
    return dict(records), dict(scheduled)


def suite_summary(log: EvalLog) -> dict[str, Any]:
    """Each suite's own summary of ``log`` (``{suite: summary}``), as ``playbench report`` computes it."""
    records, scheduled = episode_records(log)
    out: dict[str, Any] = {}
    for suite in sorted({suite_of(t) for t in scheduled}):
        hooks = summary_hooks(suite)
        if hooks is None:
            continue
        part = {t: r for t, r in records.items() if suite_of(t) == suite}
        summary = hooks.summarize(part, {t: n for t, n in scheduled.items() if suite_of(t) == suite})
        if summary is not None:
            out[suite] = summary
    return out
