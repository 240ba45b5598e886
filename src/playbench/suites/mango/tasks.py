"""Registers ``mango/df``, ``mango/rf`` and ``mango/minigame`` (heavy work happens only in ``make_game``)."""

from typing import Any

from playbench.core.registry import register_group, register_task
from playbench.core.task import Task
from playbench.suites.mango.game import DEFAULT_PROCEDURAL_EPISODES, MangoParams
from playbench.suites.mango.minigame import MinigameParams


def _episodes(task: str):  # noqa: ANN202 - returns a callable(params) -> int
    def count(params: MangoParams) -> int:
        if params.data:
            from playbench.suites.mango.sources import data_question_count

            return data_question_count(params.data, params.games, params.cutoff, task)  # type: ignore[arg-type]
        return params.episodes or DEFAULT_PROCEDURAL_EPISODES

    return count


def _check_data(params: MangoParams) -> None:
    from playbench.suites.mango.sources import check_data

    check_data(params)


def _check_minigame_data(params: MinigameParams) -> None:
    from playbench.suites.mango.minigame import check_data

    check_data(params)


def _make(task: str):  # noqa: ANN202 - returns make_game
    def make(params: MangoParams, index: int):  # noqa: ANN202
        from playbench.suites.mango.game import MangoGame

        return MangoGame(task, params, index)  # type: ignore[arg-type]

    return make


def _data_limit(count: Any) -> Any:
    """With official data the question count is all there is; procedural mazes have no limit."""
    return lambda params: count(params) if params.data else None


def _minigame_episodes(params: MinigameParams) -> int:
    if params.data:
        from playbench.suites.mango.minigame import data_minigame_count

        return data_minigame_count(params.data, params.games, params.max_step)
    return params.episodes or DEFAULT_PROCEDURAL_EPISODES


def _make_minigame(params: MinigameParams, index: int):  # noqa: ANN202
    from playbench.suites.mango.minigame import MinigameGame

    return MinigameGame(params, index)


_COMMON = "one question per episode; procedural mazes unless -T data=PATH (official folder)"
_QUESTIONS = {
    "df": "MANGO destination finding: where do these actions lead?",
    "rf": "MANGO route finding: how do you get from S to D?",
}
for _task, _what in _QUESTIONS.items():
    register_task(
        Task(
            id=f"mango/{_task}",
            description=f"{_what} ({_COMMON})",
            make_game=_make(_task),
            default_episodes=_episodes(_task),
            params_model=MangoParams,
            metrics=("score", "completion", "loose", "reasoning"),
            reference_agents=("random", "oracle"),
            one_step=True,
            aliases=(f"mango-{_task}",),
            check_inputs=_check_data,
            episode_limit=_data_limit(_episodes(_task)),
        )
    )
register_task(
    Task(
        id="mango/minigame",
        description="MANGO downstream minigames: name the walkthrough's next move (reconstruction of paper §3.5)",
        make_game=_make_minigame,
        default_episodes=_minigame_episodes,
        params_model=MinigameParams,
        reference_agents=("random", "oracle"),
        one_step=True,
        check_inputs=_check_minigame_data,
        episode_limit=_data_limit(_minigame_episodes),
    )
)
register_group("mango/benchmark", "MANGO: destination finding and route finding", ["mango/df", "mango/rf"])
