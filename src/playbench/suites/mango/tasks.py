"""The MANGO suite: a Task for every row of ``facts.TASKS`` (heavy work happens only in ``make_game``)."""

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from playbench.core.suite import Command, Group, Suite
from playbench.core.task import Task
from playbench.suites.mango.facts import BENCHMARK_GROUP, TASKS, MangoTask
from playbench.suites.mango.params import DEFAULT_PROCEDURAL_EPISODES, MangoParams, MinigameParams

if TYPE_CHECKING:  # games load when one is made, not to list tasks
    from playbench.suites.mango.evaluate import TaskKind
    from playbench.suites.mango.game import MangoGame
    from playbench.suites.mango.minigame import MinigameGame

_P = TypeVar("_P", MangoParams, MinigameParams)


def _episodes(task: "TaskKind") -> Callable[[MangoParams], int]:
    def count(params: MangoParams) -> int:
        if params.data:
            from playbench.suites.mango.sources import data_question_count

            return data_question_count(params.data, params.games, params.cutoff, task)
        return params.episodes or DEFAULT_PROCEDURAL_EPISODES

    return count


def _check_data(params: MangoParams) -> None:
    from playbench.suites.mango.sources import check_data

    check_data(params)


def _check_minigame_data(params: MinigameParams) -> None:
    from playbench.suites.mango.minigame import check_data

    check_data(params)


def _make(task: "TaskKind") -> Callable[[MangoParams, int], "MangoGame"]:
    def make(params: MangoParams, index: int) -> "MangoGame":
        from playbench.suites.mango.game import MangoGame

        return MangoGame(task, params, index)

    return make


def _data_limit(count: Callable[[_P], int]) -> Callable[[_P], int | None]:
    """With official data the question count is all there is; procedural mazes have no limit."""
    return lambda params: count(params) if params.data else None


def _minigame_episodes(params: MinigameParams) -> int:
    if params.data:
        from playbench.suites.mango.minigame import data_minigame_count

        return data_minigame_count(params.data, params.games, params.max_step)
    return params.episodes or DEFAULT_PROCEDURAL_EPISODES


def _make_minigame(params: MinigameParams, index: int) -> "MinigameGame":
    from playbench.suites.mango.minigame import MinigameGame

    return MinigameGame(params, index)


_COMMON = "one question per episode; procedural mazes unless -T data=PATH (official folder)"


def build_task(row: MangoTask) -> Task:
    """The Task of one facts row: a DF/RF question task, or the minigames."""
    if row.question is None:
        return Task(
            id=row.id,
            description=row.about,
            make_game=_make_minigame,
            default_episodes=_minigame_episodes,
            params_model=MinigameParams,
            aliases=row.aliases,
            reference_agents=("random", "oracle"),
            one_step=True,
            check_inputs=_check_minigame_data,
            episode_limit=_data_limit(_minigame_episodes),
            facts=row,
        )
    return Task(
        id=row.id,
        description=f"{row.about} ({_COMMON})",
        make_game=_make(row.question),
        default_episodes=_episodes(row.question),
        params_model=MangoParams,
        reference_agents=("random", "oracle"),
        one_step=True,
        aliases=row.aliases,
        check_inputs=_check_data,
        episode_limit=_data_limit(_episodes(row.question)),
        facts=row,
    )


def check_facts(task: Task) -> list[str]:
    """The MANGO report needs each task's row (its question kind names the report's DF/RF part)."""
    return [] if isinstance(task.facts, MangoTask) else [f"{task.id}: no MANGO facts row"]


SUITE = Suite(
    name="mango",
    tasks=tuple(build_task(row) for row in TASKS),
    groups=(Group.of(*BENCHMARK_GROUP, [row.id for row in TASKS if row.question is not None]),),
    check_facts=check_facts,
    summary="playbench.suites.mango.summary:SUMMARY",
    pictures="playbench.suites.mango.pictures:PICTURES",
    formats={"mango": "playbench.suites.mango.published:FORMAT"},
    commands=(Command("mango", "MANGO tools: skeletons, stats, score, compare.", "playbench.suites.mango.cli:group"),),
)
