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


def demo_messages(demos: list[Demo], max_messages: int) -> list[Message]:
    """The demonstration block as BALROG builds it (``few_shot.py``, ``dataset.py``).

    Per episode: START, the first observation, then (action, the observation it led to) pairs, END.
    A playbench trajectory does not keep the observation after the final action, so that action is
    left out: the demonstration ends on an observation, as BALROG's do. Observations are labelled
    ``Obesrvation:`` (BALROG's spelling: the request it sends). ``max_messages`` is
    ``max_icl_history``, which counts demonstration messages; the episode that would pass it is cut
    short, keeps its END line and is the last one.
    """
    out: list[Message] = []
    used = 0
    for k, demo in enumerate(demos, 1):
        body = [Message("user", balrog.ICL_OBS.format(text=demo.steps[0][0]))]
        for (_, action), (observation, _) in zip(demo.steps, demo.steps[1:], strict=False):
            body += [Message("assistant", action), Message("user", balrog.ICL_OBS.format(text=observation))]
        start, end = Message("user", balrog.ICL_START.format(k=k)), Message("user", balrog.ICL_END.format(k=k))
        if used + len(body) <= max_messages:
            out += [start, *body, end]
            used += len(body)
            continue
        out += [start, *body[: max(0, max_messages - used)], end]
        break
    return out
