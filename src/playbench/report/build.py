"""The JSON report of a run: per-task counts and statistics plus each suite's native summary."""

from collections import defaultdict
from typing import Any

from playbench.core import registry
from playbench.core.records import STATUSES, EpisodeRecord
from playbench.core.suite import PictureHooks, SummaryHooks
from playbench.log.read import RunLog
from playbench.stats import summarize
from playbench.stats.metric import COMPLETION, PROGRESS, SCORE, Metric


def suite_of(task_id: str) -> str:
    """The suite a task id names: its first part."""
    return task_id.split("/", 1)[0]


def summary_hooks(suite: str) -> SummaryHooks | None:
    """The summary hooks a registered suite declares (``Suite.summary``), or None.

    ``suite`` may come from a record: it is only looked up among the registered suites' names. A suite
    declared by several modules (a variant added from outside) uses the first declaration that names hooks.
    """
    for declaration in registry.suites().get(suite, []):
        hooks = declaration.summary_hooks()
        if hooks is not None:
            return hooks
    return None


def picture_hooks(suite: str) -> PictureHooks | None:
    """The picture hooks a registered suite declares (``Suite.pictures``), or None (see ``summary_hooks``)."""
    for declaration in registry.suites().get(suite, []):
        hooks = declaration.picture_hooks()
        if hooks is not None:
            return hooks
    return None


def run_label(store: RunLog) -> str:
    """A run's own label (``eval --label``), else ``model + agent`` (or the agent alone, without a model)."""
    label = store.meta.settings.label
    if isinstance(label, str) and label:
        return label
    config = store.meta.config
    return f"{config.model} + {config.agent}" if config.model else config.agent


#: usage keys summed into a report, in the order the text report shows them
USAGE_KEYS = ("calls", "input_tokens", "output_tokens", "cached_input_tokens", "cached_output_tokens",
              "cache_read_tokens", "cache_write_tokens")


#: figures ``usage_total`` derives from the counts (never summed again)
DERIVED_USAGE = ("cost_usd", "cache_hit_rate", "cost_usd_at_least", "usage_note")


def unreported_note(answers: int) -> str:
    """What a total is worth when ``answers`` answers came without token counts (one line)."""
    return (f"usage not reported for {answers} answer{'s' if answers != 1 else ''} (the server sent no token "
            "counts): token counts and cost are lower bounds")


def usage_total(usages: list[dict[str, int]]) -> dict[str, Any]:
    """Summed usage of several episodes or tasks, with ``cost_usd`` (None when no price was known).

    ``cache_hit_rate``: the share of input tokens the provider's prompt cache served (only when it said).
    When some answers carried no token counts (``tokens_unreported``), the cost is not known: ``cost_usd``
    is None, ``cost_usd_at_least`` the cost of the others (None without a price) and ``usage_note`` says so.
    """
    total: dict[str, int] = defaultdict(int)
    for usage in usages:
        for k, v in usage.items():
            if k not in DERIVED_USAGE:
                total[k] += int(v)
    out: dict[str, Any] = dict(total)
    cost = total["cost_micro_usd"] / 1e6 if "cost_micro_usd" in total else None
    unreported = total.get("tokens_unreported", 0)
    out["cost_usd"] = None if unreported else cost
    if unreported:
        out["cost_usd_at_least"] = cost
        out["usage_note"] = unreported_note(unreported)
    if "cache_read_tokens" in total:  # the provider reported its prompt cache: the share of input it served
        out["cache_hit_rate"] = total["cache_read_tokens"] / total["input_tokens"] if total["input_tokens"] else None
    return out


def score_metric(task_id: str) -> Metric:
    """What a task's score is, as its suite declares it (``score_metric`` of the suite's summary hooks).

    Every face that shows a score's interval (report, compare, viewer, plots) reads it from here, so a
    metric gets one method whatever values a run holds; a suite that declares nothing gets a plain mean.
    """
    hooks = summary_hooks(suite_of(task_id))
    declared = hooks.score_metric(task_id) if hooks is not None else None
    return declared if isinstance(declared, Metric) else SCORE


def task_report(task_id: str, records: list[EpisodeRecord], scheduled: int = 0) -> dict[str, Any]:
    """Counts over every episode (``errors``: every status but ``ok``); scores over ``ok`` episodes only."""
    ok = [r for r in records if r.status == "ok"]
    # suite extras assume a task the run scheduled; a stray record's task id may name anything
    hooks = summary_hooks(suite_of(task_id)) if scheduled else None
    metric = score_metric(task_id) if scheduled else SCORE
    status = {s: 0 for s in STATUSES}
    usage: dict[str, int] = defaultdict(int)
    for r in records:
        status[r.status] += 1
        for k, v in r.usage.items():
            usage[k] += v
    entry: dict[str, Any] = {
        "episodes": len(records),
        "scheduled": scheduled,
        "status": status,
        "errors": len(records) - status["ok"],
        "score": summarize([r.score for r in ok if r.score is not None], metric),
        "completion": summarize([r.completion for r in ok if r.completion is not None], COMPLETION),
        "progress": summarize([r.progress for r in ok if r.progress is not None], PROGRESS),
        "steps": sum(r.steps for r in records),
        "invalid_actions": sum(r.invalid_actions for r in records),
        "usage": usage_total([dict(usage)]),
    }
    if hooks is not None:
        entry.update(hooks.task_extras(task_id, records))
    return entry


def in_schedule(scheduled: dict[str, int], key: tuple[str, int]) -> bool:
    """Whether the recorded episode ``key`` (task, index) is one that ``scheduled`` (task id -> count) asks for.

    A comparison, not a set of every scheduled episode: the work follows the records, not the counts.
    """
    task, index = key
    return 0 <= index < scheduled.get(task, 0)


def coverage(scheduled: dict[str, int], keys: set[tuple[str, int]]) -> dict[str, Any]:
    """How many of the scheduled episodes have a record, and how many records the schedule never asked for.

    ``scheduled`` maps task ids to episode counts (run.json); ``keys`` are the recorded (task, index).
    ``note`` says "N of M scheduled …" whenever an episode is missing, so a partial run never reads as whole.
    """
    total = sum(scheduled.values())
    recorded = sum(1 for key in keys if in_schedule(scheduled, key))
    out: dict[str, Any] = {"recorded": recorded, "scheduled": total, "missing": total - recorded,
                           "unscheduled": len(keys) - recorded, "complete": recorded == total}
    if recorded < total:
        out["note"] = f"{recorded} of {total} scheduled episodes recorded ({total - recorded} missing)"
    else:
        out["note"] = f"{recorded} episodes"
    if out["unscheduled"]:
        out["note"] += f"; {out['unscheduled']} record(s) outside the run's schedule"
    return out


def errors_text(status: dict[str, int]) -> str:
    """Every non-``ok`` episode, with the statuses they ended in: ``3 (1 agent, 2 game)``."""
    parts = [(s.removesuffix("-error"), n) for s, n in status.items() if s != "ok" and n]
    total = sum(n for _, n in parts)
    return str(total) if not parts else f"{total} (" + ", ".join(f"{n} {name}" for name, n in parts) + ")"


def episodes_text(entry: dict[str, Any]) -> str:
    """A task's recorded episodes, as ``N of M`` when fewer than scheduled."""
    n, m = entry["episodes"], entry.get("scheduled", 0)
    return f"{n} of {m}" if n < m else str(n)


def build_report(store: RunLog) -> dict[str, Any]:
    """The whole report of one run (a pure function of its records)."""
    latest = store.latest_episodes()
    by_task: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for key in sorted(latest):
        by_task[key[0]].append(latest[key])
    config = store.meta.config
    scheduled = {t.id: t.episodes for t in config.tasks}
    order = [t.id for t in config.tasks] + sorted(set(by_task) - set(scheduled))
    report: dict[str, Any] = {
        "run": {
            "path": str(store.path),
            "run_id": store.meta.run_id,
            "agent": config.agent,
            "model": config.model,
            "label": run_label(store),
            "seed": config.seed,
            "config_hash": store.meta.config_hash,
            "scheduled": scheduled,
            "episodes": coverage(scheduled, set(latest)),
        },
        "tasks": {tid: task_report(tid, by_task.get(tid, []), scheduled.get(tid, 0)) for tid in order},
    }
    report["run"]["usage"] = usage_total([t["usage"] for t in report["tasks"].values()])
    # Suite summaries see the scheduled tasks only: a record for a task the run never asked for is shown
    # in the task table and counted as unscheduled, but it does not enter a suite's paper numbers.
    for suite in sorted({suite_of(tid) for tid in scheduled}):
        hooks = summary_hooks(suite)
        if hooks is not None:
            part = {tid: recs for tid, recs in by_task.items() if tid in scheduled and suite_of(tid) == suite}
            in_suite = {tid: n for tid, n in scheduled.items() if suite_of(tid) == suite}
            summary = hooks.summarize(part, in_suite)
            if summary is not None:
                report[suite] = summary
    return report
