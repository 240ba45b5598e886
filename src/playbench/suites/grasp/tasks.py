"""Registers ``grasp/energy`` (one-step plans) and ``grasp/energy-interactive`` (one action per turn)."""

from __future__ import annotations

from typing import Any

from playbench.core.registry import register_task
from playbench.core.task import Task
from playbench.suites.grasp.params import GraspParams


def _episodes(params: Any) -> int:
    from playbench.suites.grasp.instances import default_episodes

    return default_episodes(params)


def _interactive_episodes(params: Any) -> int:
    # 40 = the 8 constraint combinations x the 5 distributions (inner start, obstacles); each episode is
    # up to 20 model calls, so a default run stays in the same range of calls as the one-step task.
    return min(40, _episodes(params))


def _limit(params: Any) -> int | None:
    """With official data, the selected instances are all there is."""
    from playbench.suites.grasp.instances import count

    return count(params) if params.data is not None else None


def _check_data(params: Any) -> None:
    from playbench.suites.grasp.instances import check_data

    check_data(params)


def _one_step(params: Any, index: int):  # noqa: ANN202
    from playbench.suites.grasp.game import GraspGame

    return GraspGame(params, index)


def _interactive(params: Any, index: int):  # noqa: ANN202
    from playbench.suites.grasp.game import GraspInteractiveGame

    return GraspInteractiveGame(params, index)


register_task(
    Task(
        id="grasp/energy",
        description="GRASP: plan up to 20 actions on an 11x11 grid to bring energy home (one answer per grid)",
        make_game=_one_step,
        default_episodes=_episodes,
        params_model=GraspParams,
        aliases=("GRASP-v0",),
        metrics=("score", "completion", "length", "energy_fixed", "energy_compat"),
        reference_agents=("random", "greedy", "optimal"),
        one_step=True,
        tags=("spatial", "planning", "one-step"),
        check_inputs=_check_data,
        episode_limit=_limit,
    )
)
register_task(
    Task(
        id="grasp/energy-interactive",
        description="GRASP instances played one action per turn, seeing the grid after each action (playbench)",
        make_game=_interactive,
        default_episodes=_interactive_episodes,
        params_model=GraspParams,
        metrics=("score", "completion", "length", "energy_fixed", "energy_compat"),
        reference_agents=("random", "greedy", "optimal"),
        tags=("spatial", "planning", "interactive"),
        check_inputs=_check_data,
        episode_limit=_limit,
    )
)
