"""One flat row per episode, for export and plotting."""

import json
from typing import Any

from playbench.log.read import RunLog

COLUMNS = ["run_id", "task", "index", "seed", "instance", "agent", "model", "status", "score", "completion",
           "progress", "reward", "steps", "invalid_actions", "input_tokens", "output_tokens", "error"]


def episode_rows(store: RunLog) -> list[dict[str, Any]]:
    """The latest record of every episode as a flat dict (nested values as JSON text)."""
    rows = []
    latest = store.latest_episodes()
    for key in sorted(latest):
        r = latest[key]
        rows.append({
            "run_id": store.meta.run_id, "task": r.task, "index": r.index, "seed": r.seed,
            "instance": json.dumps(r.instance, sort_keys=True), "agent": r.agent, "model": r.model,
            "status": r.status, "score": r.score, "completion": r.completion, "progress": r.progress,
            "reward": r.reward, "steps": r.steps, "invalid_actions": r.invalid_actions,
            "input_tokens": r.usage.get("input_tokens", 0), "output_tokens": r.usage.get("output_tokens", 0),
            "error": r.error,
        })
    return rows
