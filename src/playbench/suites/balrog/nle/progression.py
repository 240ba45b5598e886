"""Progress metrics: NetHack's Dlvl/Xp table (§6.6) and MiniHack's success from the end status (§6.5, B12)."""

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

# blstats indices (NLE 0.9): score, depth, gold, experience level, time.
BL_SCORE, BL_DEPTH, BL_GOLD, BL_XP, BL_TIME = 9, 12, 13, 18, 20

# NLE end statuses (StepStatus): aborted, running, death, task successful.
ABORTED, RUNNING, DEATH, TASK_SUCCESSFUL = -1, 0, 1, 2


@cache
def achievements() -> dict[str, float]:
    """The progression table: ``Dlvl:n`` / ``Xp:n`` (and a few unreachable keys) -> value in [0, 1]."""
    text = resources.files("playbench.suites.balrog.nle").joinpath("achievements.json").read_text()
    return dict(json.loads(text)["table"])


def table_progress(depth: int, xp_level: int) -> float:
    """max(T[Dlvl:depth], T[Xp:level]) for one state (levels missing from the table count 0)."""
    table = achievements()
    return max(table.get(f"Dlvl:{depth}", 0.0), table.get(f"Xp:{xp_level}", 0.0))


@dataclass
class NetHackProgress:
    """BALROG's ``Progress`` tracker: the maximum over visited states of the two table lookups.

    ``compat`` keeps the original's ceiling (ascension cannot score 1.0); fixed maps ascension to 1.0 (B16).
    """

    compat: bool = False
    episode_return: float = 0.0
    score: int = 0
    depth: int = 1
    gold: int = 0
    experience_level: int = 1
    time: int = 0
    dlvl_list: list[str] = field(default_factory=list)
    xplvl_list: list[str] = field(default_factory=list)
    highest_achievement: str | None = None
    progression: float = 0.0
    end_reason: str | None = None
    ascended: bool = False

    def update(self, blstats: Any, reward: float, done: bool, end_reason: str | None, ascended: bool) -> None:
        """Fold one step in: update stats, record newly reached Dlvl/Xp keys, keep the maximum."""
        self.episode_return += float(reward)
        self.score = int(blstats[BL_SCORE])
        self.depth = int(blstats[BL_DEPTH])
        self.gold = int(blstats[BL_GOLD])
        self.experience_level = int(blstats[BL_XP])
        self.time = int(blstats[BL_TIME])
        if done:
            self.end_reason = end_reason
        table = achievements()
        for key, seen in ((f"Xp:{self.experience_level}", self.xplvl_list), (f"Dlvl:{self.depth}", self.dlvl_list)):
            if key in seen or key not in table:
                continue
            seen.append(key)
            if table[key] > self.progression:
                self.progression = table[key]
                self.highest_achievement = key
        if ascended and not self.compat:
            self.ascended = True
            self.progression = 1.0
            self.highest_achievement = "You ascend t"

    def stats(self) -> dict[str, Any]:
        """The tracker as plain JSON (BALROG's ``get_stats()``)."""
        return {
            "episode_return": self.episode_return,
            "score": self.score,
            "depth": self.depth,
            "gold": self.gold,
            "experience_level": self.experience_level,
            "time": self.time,
            "dlvl_list": list(self.dlvl_list),
            "xplvl_list": list(self.xplvl_list),
            "highest_achievement": self.highest_achievement,
            "progression": self.progression,
            "end_reason": self.end_reason,
        }


@dataclass
class MiniHackProgress:
    """BALROG's ``BaseProgress``; fixed: success iff the end status is TASK_SUCCESSFUL (B12).

    compat: progression = 1 iff the last step's reward >= 1.0 (overwritten every step).
    """

    compat: bool = False
    episode_return: float = 0.0
    progression: float = 0.0
    end_reason: int | None = None

    def update(self, reward: float, end_status: int) -> None:
        """Fold one step in."""
        self.episode_return += float(reward)
        self.end_reason = int(end_status)
        if self.compat:
            self.progression = 1.0 if reward >= 1.0 else 0.0
        else:
            self.progression = 1.0 if end_status == TASK_SUCCESSFUL else 0.0

    def stats(self) -> dict[str, Any]:
        """The tracker as plain JSON."""
        return {"episode_return": self.episode_return, "progression": self.progression, "end_reason": self.end_reason}
