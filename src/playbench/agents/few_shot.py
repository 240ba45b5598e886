"""Demonstrations for the few-shot agent, read from playbench run directories (specs/balrog.md §3.5).

The originals' demonstration files cannot be downloaded here, so any playbench run (typically of a
reference agent such as ``oracle``) serves: every ``ok`` episode of the same task is a demo.
"""

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from playbench.agents.prompts import balrog
from playbench.core.errors import PlaybenchError
from playbench.log.read import find_runs, read_run
from playbench.models.types import Message


@dataclass(frozen=True)
class Demo:
    """One demonstration episode: its seed and (observation, executed action) pairs."""

    task: str
    seed: int
    steps: tuple[tuple[str, str], ...]


@lru_cache(maxsize=8)
def load_demos(path: str) -> dict[str, tuple[Demo, ...]]:
    """All ``ok`` episodes under ``path`` (a run directory or a folder of runs), by task id."""
    root = Path(path)
    if not root.exists():
        raise PlaybenchError(f"demonstrations folder {path} does not exist")
    runs = find_runs(root)
    if not runs:
        raise PlaybenchError(f"{path} holds no playbench run (no run.json); record one with e.g. "
                             "'playbench eval TASK --agent oracle'")
    found: dict[str, list[Demo]] = {}
    for run in runs:
        log = read_run(run)
        for record in log.episodes():
            if record.status != "ok":
                continue
            steps = tuple((s.observation, s.executed) for s in log.read_trajectory(record))
            if steps:
                found.setdefault(record.task, []).append(Demo(record.task, record.seed, steps))
    return {task: tuple(demos) for task, demos in found.items()}


def demo_messages(demos: list[Demo], max_steps: int, compat: bool) -> list[Message]:
    """The demonstration block: START, observations and actions, END per episode; at most ``max_steps`` steps."""
    template = balrog.ICL_OBS_COMPAT if compat else balrog.ICL_OBS_FIXED
    out: list[Message] = []
    budget = max_steps
    for k, demo in enumerate(demos, 1):
        if budget <= 0:
            break
        out.append(Message("user", balrog.ICL_START.format(k=k)))
        for observation, action in demo.steps[:budget]:
            out.append(Message("user", template.format(text=observation)))
            out.append(Message("assistant", action))
        budget -= len(demo.steps)
        out.append(Message("user", balrog.ICL_END.format(k=k)))
    return out
