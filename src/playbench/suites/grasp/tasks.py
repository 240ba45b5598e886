"""The GRASP suite: a Task for every row of ``facts.TASKS`` (one-step plans, or one action per turn)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playbench.core.suite import Command, Suite
from playbench.core.task import Task
from playbench.suites.grasp.facts import TASKS, GraspTask
from playbench.suites.grasp.params import GraspParams

if TYPE_CHECKING:  # games load when one is made, not to list tasks
    from playbench.suites.grasp.game import GraspGame, GraspInteractiveGame


def _episodes(params: Any) -> int:
    from playbench.suites.grasp.instances import default_episodes

    return default_episodes(params)


def _limit(params: Any) -> int | None:
    """With official data, the selected instances are all there is."""
    from playbench.suites.grasp.instances import count

    return count(params) if params.data is not None else None


def _check_data(params: Any) -> None:
    from playbench.suites.grasp.instances import check_data

    check_data(params)


def _one_step(params: Any, index: int) -> GraspGame:
    from playbench.suites.grasp.game import GraspGame

    return GraspGame(params, index)


def _interactive(params: Any, index: int) -> GraspInteractiveGame:
    from playbench.suites.grasp.game import GraspInteractiveGame

    return GraspInteractiveGame(params, index)


def build_task(row: GraspTask) -> Task:
    """The Task of one facts row."""
    cap = row.episode_cap

    def episodes(params: Any) -> int:
        return _episodes(params) if cap is None else min(cap, _episodes(params))

    return Task(
        id=row.id,
        description=row.about,
        make_game=_interactive if row.interactive else _one_step,
        default_episodes=episodes,
        params_model=GraspParams,
        aliases=row.aliases,
        reference_agents=("random", "greedy", "optimal"),
        one_step=not row.interactive,
        tags=("spatial", "planning", "interactive" if row.interactive else "one-step"),
        check_inputs=_check_data,
        episode_limit=_limit,
        facts=row,
    )


def check_facts(task: Task) -> list[str]:
    """The GRASP report needs each task's row."""
    return [] if isinstance(task.facts, GraspTask) else [f"{task.id}: no GRASP facts row"]


SUITE = Suite(name="grasp", tasks=tuple(build_task(row) for row in TASKS), check_facts=check_facts,
              summary="playbench.suites.grasp.summary:SUMMARY", pictures="playbench.suites.grasp.pictures:PICTURES",
              formats={"grasp": "playbench.suites.grasp.published:FORMAT"},
              commands=(Command("grasp", "GRASP tools that work on the official data files.",
                                "playbench.suites.grasp.cli:group"),))
