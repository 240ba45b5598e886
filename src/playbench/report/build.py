"""The JSON report of a run: per-task counts and statistics plus each suite's native summary."""

import importlib
import importlib.util
from collections import defaultdict
from typing import Any

from playbench.core.records import STATUSES, EpisodeRecord
from playbench.runner.store import RunStore
from playbench.stats import summarize


def suite_module(suite: str) -> Any | None:
    """A suite's optional ``summary`` module (``summarize``, ``task_extras``, ``render``)."""
    name = f"playbench.suites.{suite}.summary"
    if importlib.util.find_spec(f"playbench.suites.{suite}") is None or importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def task_report(task_id: str, records: list[EpisodeRecord]) -> dict[str, Any]:
    """Counts over every episode; scores over ``ok`` episodes only."""
    ok = [r for r in records if r.status == "ok"]
    status = {s: 0 for s in STATUSES}
    usage: dict[str, int] = defaultdict(int)
    for r in records:
        status[r.status] += 1
        for k, v in r.usage.items():
            usage[k] += v
    entry: dict[str, Any] = {
        "episodes": len(records),
        "status": status,
        "score": summarize([r.score for r in ok if r.score is not None]),
        "completion": summarize([r.completion for r in ok if r.completion is not None]),
        "progress": summarize([r.progress for r in ok if r.progress is not None]),
        "steps": sum(r.steps for r in records),
        "invalid_actions": sum(r.invalid_actions for r in records),
        "usage": dict(usage),
    }
    module = suite_module(task_id.split("/", 1)[0])
    if module is not None and hasattr(module, "task_extras"):
        entry.update(module.task_extras(task_id, records))
    return entry


def build_report(store: RunStore) -> dict[str, Any]:
    """The whole report of one run (a pure function of its records)."""
    latest = store.latest_episodes()
    by_task: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for key in sorted(latest):
        by_task[key[0]].append(latest[key])
    config = store.meta.config
    order = [t.id for t in config.tasks] + sorted(set(by_task) - {t.id for t in config.tasks})
    report: dict[str, Any] = {
        "run": {
            "path": str(store.path),
            "run_id": store.meta.run_id,
            "agent": config.agent,
            "model": config.model,
            "seed": config.seed,
            "config_hash": store.meta.config_hash,
            "scheduled": {t.id: t.episodes for t in config.tasks},
        },
        "tasks": {tid: task_report(tid, by_task.get(tid, [])) for tid in order},
    }
    suites = sorted({tid.split("/", 1)[0] for tid in order})
    for suite in suites:
        module = suite_module(suite)
        if module is not None and hasattr(module, "summarize"):
            part = {tid: recs for tid, recs in by_task.items() if tid.startswith(suite + "/")}
            scheduled = {t.id: t.episodes for t in config.tasks if t.id.startswith(suite + "/")}
            summary = module.summarize(part, scheduled)
            if summary is not None:
                report[suite] = summary
    return report
