"""Demonstrations for the few-shot agent (specs/balrog.md §3.5): BALROG's records or playbench runs.

``-A demos=PATH`` is either BALROG's own ``records`` folder (``<env>/<task>/**/*.npz``, read by the
suite's ``demos`` hook, ``suites/balrog/records.py``; a download, not available offline) or a playbench run directory or folder of runs
(typically of a reference agent such as ``oracle``), where every ``ok`` episode of the same task is a demo.
"""

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from playbench.agents.base import EpisodeContext
from playbench.agents.prompts import balrog
from playbench.core import registry
from playbench.core.errors import PlaybenchError
from playbench.log.read import find_runs, read_run
from playbench.models.types import Message


@dataclass(frozen=True)
class Demo:
    """One demonstration episode: its seed and (observation, executed action) pairs."""

    task: str
    seed: int
    steps: tuple[tuple[str, str], ...]
    #: from BALROG's records (``.npz``) rather than a playbench run
    original: bool = False


#: Shown when no demonstrations are given: BALROG's own are a download this machine may not have.
MISSING = ("few-shot needs demonstrations: -A demos=PATH, either BALROG's records folder "
           "(<env>/<task>/**/*.npz; a Google Drive download, see BALROG's docs/few_shot_learning.md, "
           "not available offline) or a playbench run of a reference agent (e.g. 'playbench eval TASK --agent oracle')")


def _load_records(root: Path) -> dict[str, list[Demo]] | None:
    """A suite's own demonstration records under ``root`` (its ``demos`` hook), by task id; None: none there."""
    for declarations in registry.suites().values():
        for suite in declarations:
            reader = suite.demo_reader()
            found = None if reader is None else reader(root)
            if found is not None:
                return {task: [Demo(task, seed, tuple(steps), original=True) for seed, steps in episodes]
                        for task, episodes in found.items()}
    return None


@lru_cache(maxsize=8)
def load_demos(path: str) -> dict[str, tuple[Demo, ...]]:
    """The demonstrations under ``path`` by task id: BALROG's records, or every ``ok`` episode of its runs."""
    root = Path(path)
    if not root.exists():
        raise PlaybenchError(f"demonstrations folder {path} does not exist")
    runs = find_runs(root)
    records = None if runs else _load_records(root)
    if records is not None:
        return {task: tuple(demos) for task, demos in records.items()}
    if not runs:
        raise PlaybenchError(f"{path} holds no playbench run (no run.json) and no BALROG record "
                             f"(<env>/<task>/**/*.npz). {MISSING}")
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


def demo_candidates(pool: dict[str, tuple[Demo, ...]], task_id: str, rng: Any) -> tuple[Demo, ...]:
    """The demonstrations an episode of ``task_id`` draws from.

    From BALROG's records, Baba Is AI takes another task's demonstrations, that task drawn uniformly
    among the other Baba Is AI tasks that have records (``dataset.py``: no solution in the context);
    every other case takes the task's own.
    """
    own = pool.get(task_id, ())
    if task_id.startswith("balrog/babaisai/") and any(d.original for demos in pool.values() for d in demos):
        others = sorted(t for t in pool if t.startswith("balrog/babaisai/") and t != task_id)
        if not others:
            return ()
        return pool[others[int(rng.integers(len(others)))]]
    return own


def same_instance(demo: Demo, ctx: EpisodeContext) -> bool:
    """Whether ``demo`` is of the instance the episode plays: it is never shown (no solution in the context).

    A playbench run's episode: the same seed (same task and seed, same instance). BALROG's TextWorld records:
    the seed in the file name is the position of the game in the task's list (balrog-demo records
    ``get_textworld_env(task, seed)``, game ``seed mod n``), and BALROG's ``dataset.py`` (``demo_path``) passes
    over the record whose seed is the game it plays.
    """
    if demo.original and ctx.task_id.startswith("balrog/textworld/"):
        return bool(demo.seed == ctx.game.instance().get("position"))
    return demo.seed == ctx.seed
