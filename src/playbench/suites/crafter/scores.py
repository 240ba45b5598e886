"""Crafter's scores over episodes: the native Crafter score (Hafner 2021) and per-achievement success rates.

Pure functions of episode records (their ``metrics["achievements"]`` lists), so any run can be
re-scored. SmartPlay's running-sum score and BALROG's progression are per-episode and live in the games.
"""

import math
from collections.abc import Iterable
from typing import Any

from playbench.suites.crafter.names import ACHIEVEMENTS


def success_rates(unlocked_per_episode: Iterable[Iterable[str]]) -> dict[str, float] | None:
    """Percentage of episodes in which each of the 22 achievements unlocked at least once."""
    episodes = [set(e) for e in unlocked_per_episode]
    if not episodes:
        return None
    return {a: 100.0 * sum(a in e for e in episodes) / len(episodes) for a in ACHIEVEMENTS}


def crafter_score(unlocked_per_episode: Iterable[Iterable[str]]) -> float | None:
    """``exp(mean_i ln(1 + s_i)) - 1`` over the 22 success rates ``s_i`` in percent (None without episodes)."""
    rates = success_rates(unlocked_per_episode)
    if rates is None:
        return None
    return math.exp(sum(math.log(1.0 + s) for s in rates.values()) / len(rates)) - 1.0


def task_extras(records: list[Any]) -> dict[str, Any]:
    """Crafter's native figures for one task's ``ok`` episode records (for a suite's ``task_extras``)."""
    unlocked = [r.metrics.get("achievements", []) for r in records if r.status == "ok" and r.metrics]
    rates = success_rates(unlocked)
    return {
        "crafter_score": crafter_score(unlocked),
        "achievement_success_rates": rates,
        "mean_achievements_unlocked": (sum(len(u) for u in unlocked) / len(unlocked)) if unlocked else None,
    }
