"""Compare two runs episode by episode: pairs are (task, episode seed), which fixes the instance."""

from collections import Counter, defaultdict
from typing import Any

from playbench.core.records import EpisodeRecord
from playbench.log.read import RunLog
from playbench.report.build import coverage
from playbench.stats.compare import paired, unpaired


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


def _side(store: RunLog, latest: dict[tuple[str, int], EpisodeRecord]) -> dict[str, Any]:
    config = store.meta.config
    return {"path": str(store.path), "agent": config.agent, "model": config.model,
            "episodes": coverage({t.id: t.episodes for t in config.tasks}, set(latest))}


def compare_runs(a: RunLog, b: RunLog, metric: str = "score") -> dict[str, Any]:
    """Per task and overall: paired statistics of B − A, or an unpaired test when no episodes are shared.

    Each task also says how many episodes of each run were left out for ending in an error status
    (``errors``: ``{"a": {status: n}, "b": {...}}``), and each run says how many of its scheduled
    episodes it recorded (``a.episodes``, ``b.episodes``).
    """
    latest_a, latest_b = a.latest_episodes(), b.latest_episodes()
    sa, sb = _scores(latest_a), _scores(latest_b)
    ea, eb = _errors(latest_a), _errors(latest_b)
    tasks: dict[str, Any] = {}
    all_a: list[float] = []
    all_b: list[float] = []
    for task in sorted(set(sa) | set(sb) | set(ea) | set(eb)):
        common = sorted(set(sa.get(task, {})) & set(sb.get(task, {})))
        if common:
            xa = [sa[task][s] for s in common]
            xb = [sb[task][s] for s in common]
            tasks[task] = paired(xa, xb)
            all_a += xa
            all_b += xb
        else:
            tasks[task] = unpaired(list(sa.get(task, {}).values()), list(sb.get(task, {}).values()))
            tasks[task]["note"] = "no shared episodes: unpaired test"
        tasks[task]["errors"] = {"a": dict(ea.get(task, {})), "b": dict(eb.get(task, {}))}
    overall = paired(all_a, all_b) if all_a else {"paired": False, "n": 0, "note": "no shared episodes"}
    overall["errors"] = {"a": dict(sum(ea.values(), Counter())), "b": dict(sum(eb.values(), Counter()))}
    return {
        "a": _side(a, latest_a),
        "b": _side(b, latest_b),
        "metric": metric,
        "tasks": tasks,
        "overall": overall,
    }
