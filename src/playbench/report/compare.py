"""Compare two runs episode by episode: pairs are (task, episode seed), which fixes the instance."""

from collections import defaultdict
from typing import Any

from playbench.runner.store import RunStore
from playbench.stats.compare import paired, unpaired


def _scores(store: RunStore) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = defaultdict(dict)
    for rec in store.latest_episodes().values():
        if rec.status == "ok" and rec.score is not None:
            out[rec.task][rec.seed] = rec.score
    return out


def compare_runs(a: RunStore, b: RunStore, metric: str = "score") -> dict[str, Any]:
    """Per task and overall: paired statistics of B − A, or an unpaired test when no episodes are shared."""
    sa, sb = _scores(a), _scores(b)
    tasks: dict[str, Any] = {}
    all_a: list[float] = []
    all_b: list[float] = []
    for task in sorted(set(sa) | set(sb)):
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
    overall = paired(all_a, all_b) if all_a else {"paired": False, "n": 0, "note": "no shared episodes"}
    return {
        "a": {"path": str(a.path), "agent": a.meta.config.agent, "model": a.meta.config.model},
        "b": {"path": str(b.path), "agent": b.meta.config.agent, "model": b.meta.config.model},
        "metric": metric,
        "tasks": tasks,
        "overall": overall,
    }
