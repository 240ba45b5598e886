"""Compare two runs episode by episode: pairs are (task, episode seed), which fixes the instance.

Per task, statistics are on the task's own scale. The ``overall`` row pools every pair after
normalizing each task's scores to [0, 1] by the range the task's scores span across both runs
(``(x - min) / (max - min)``; a task whose scores are all equal contributes 0 differences), so a task
scored 0–50 (RPS) does not outweigh one scored 0–3 (Hanoi). Runs that share no task are refused.

Each task also gives each run's own 95% interval of the mean it compares (``interval_a``, ``interval_b``)
by the method the task's score declares (``build.score_metric``), the same as ``report``, the viewer and
plots give it.
"""

import warnings
from collections import Counter, defaultdict
from typing import Any

import numpy as np

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord
from playbench.log.read import RunLog
from playbench.report.build import coverage, run_label, score_metric, usage_total
from playbench.stats.compare import paired, unpaired
from playbench.stats.intervals import interval

#: How the overall row pools tasks (shown in reports and docs).
POOLING = "per-task min-max normalized over both runs, then pooled"


def _scores(latest: dict[tuple[str, int], EpisodeRecord]) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = defaultdict(dict)
    for rec in latest.values():
        if rec.status == "ok" and rec.score is not None:
            out[rec.task][rec.seed] = rec.score
    return out


def _errors(latest: dict[tuple[str, int], EpisodeRecord]) -> dict[str, Counter[str]]:
    """Per task, how many episodes ended in each non-``ok`` status (they are left out of the pairs)."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for rec in latest.values():
        if rec.status != "ok":
            out[rec.task][rec.status] += 1
    return out


def _usage(latest: dict[tuple[str, int], EpisodeRecord]) -> dict[str, dict[str, Any]]:
    """Per task, the summed usage of every recorded episode (``report``'s usage figures)."""
    out: dict[str, list[dict[str, int]]] = defaultdict(list)
    for rec in latest.values():
        out[rec.task].append(rec.usage)
    return {task: usage_total(usages) for task, usages in out.items()}


def _costs(ua: dict[str, Any], ub: dict[str, Any]) -> dict[str, Any]:
    """Each run's input tokens, prompt-cache reads (None: not reported), cache-hit rate and cost.

    With answers that carried no token counts (``tokens_unreported``), the cost is None and
    ``cost_usd_at_least`` its lower bound (see ``usage_total``).
    """
    return {key: {"a": ua.get(key), "b": ub.get(key)}
            for key in ("input_tokens", "cache_read_tokens", "cache_hit_rate", "cost_usd", "cost_usd_at_least",
                        "tokens_unreported")}


def _side(store: RunLog, latest: dict[tuple[str, int], EpisodeRecord]) -> dict[str, Any]:
    config = store.meta.config
    return {"path": str(store.path), "agent": config.agent, "model": config.model,
            "label": run_label(store),
            "episodes": coverage({t.id: t.episodes for t in config.tasks}, set(latest))}


def _normalizer(xa: list[float], xb: list[float]) -> tuple[float, float]:
    """(low, span) of a task's scores across both runs; span 0 when every score is equal."""
    values = xa + xb
    low, high = min(values), max(values)
    return low, high - low


def _intervals(task: str, xa: list[float], xb: list[float]) -> dict[str, Any]:
    """Each run's 95% interval of its compared mean, by the task's declared method (None: no interval)."""
    metric = score_metric(task)
    ci_a, method = interval(xa, metric)
    ci_b, method_b = interval(xb, metric)
    return {"interval_a": None if ci_a is None else list(ci_a), "interval_b": None if ci_b is None else list(ci_b),
            "interval_method": method or method_b}


def _task_names(store: RunLog) -> set[str]:
    return {t.id for t in store.meta.config.tasks}


def compare_runs(a: RunLog, b: RunLog, metric: str = "score") -> dict[str, Any]:
    """Per task and overall: paired statistics of B − A, or an unpaired test when no episodes are shared.

    Each task also says how many episodes of each run were left out for ending in an error status
    (``errors``: ``{"a": {status: n}, "b": {...}}``) and what each run's episodes used (``usage``: input
    tokens, the provider's prompt-cache reads and hit rate, cost; each ``{"a", "b"}``, None where a run has
    no figure), and each run says how many of its scheduled
    episodes it recorded (``a.episodes``, ``b.episodes``). Raises PlaybenchError when the runs share no
    task. Library warnings (scipy's precision notices on constant data) never reach the caller.
    """
    shared_tasks = _task_names(a) & _task_names(b)
    if not shared_tasks:
        raise PlaybenchError(f"the runs share no task, nothing to compare: A ran {', '.join(sorted(_task_names(a)))}"
                             f"; B ran {', '.join(sorted(_task_names(b)))}")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _compare(a, b, metric, shared_tasks)


def _compare(a: RunLog, b: RunLog, metric: str, shared_tasks: set[str]) -> dict[str, Any]:
    latest_a, latest_b = a.latest_episodes(), b.latest_episodes()
    sa, sb = _scores(latest_a), _scores(latest_b)
    ea, eb = _errors(latest_a), _errors(latest_b)
    usage_a, usage_b = _usage(latest_a), _usage(latest_b)
    tasks: dict[str, Any] = {}
    norm_a: list[float] = []
    norm_b: list[float] = []
    for task in sorted(set(sa) | set(sb) | set(ea) | set(eb) | shared_tasks):
        if task not in shared_tasks:
            only = "A" if task in _task_names(a) else "B"
            tasks[task] = {"paired": False, "n": 0, "note": f"only in run {only}: not compared"}
            continue
        common = sorted(set(sa.get(task, {})) & set(sb.get(task, {})))
        # the means compared: over the shared episodes, else over each run's own
        xa = [sa[task][s] for s in common] if common else list(sa.get(task, {}).values())
        xb = [sb[task][s] for s in common] if common else list(sb.get(task, {}).values())
        if common:
            tasks[task] = paired(xa, xb)
            low, span = _normalizer(xa, xb)
            norm_a += [(x - low) / span if span else 0.0 for x in xa]
            norm_b += [(x - low) / span if span else 0.0 for x in xb]
        else:
            tasks[task] = unpaired(xa, xb)
            tasks[task]["note"] = "no shared episodes (different seeds?): unpaired test"
        tasks[task].update(_intervals(task, xa, xb))
        tasks[task]["errors"] = {"a": dict(ea.get(task, {})), "b": dict(eb.get(task, {}))}
        tasks[task]["usage"] = _costs(usage_a.get(task, {}), usage_b.get(task, {}))
    if norm_a:
        overall = {**paired(norm_a, norm_b), "pooling": POOLING}
    else:
        overall = {"paired": False, "n": 0,
                   "note": "no episode is shared by both runs (different seeds or instances): no overall row"}
    overall["errors"] = {"a": dict(sum(ea.values(), Counter())), "b": dict(sum(eb.values(), Counter()))}
    return {
        "a": _side(a, latest_a),
        "b": _side(b, latest_b),
        "metric": metric,
        "tasks": tasks,
        "overall": overall,
    }
