"""Registers the 40 Baba Is AI tasks ``balrog/babaisai/<level>`` (imported by ``suites/balrog/tasks.py``).

The engine is imported lazily inside ``make_game``; only the level list (plain data) is read here.
"""

from playbench.core.registry import register_task
from playbench.core.task import Task
from playbench.suites.balrog.babaisai.data import LEVELS
from playbench.suites.balrog.babaisai.params import BabaParams
from playbench.suites.balrog.protocol import episodes_for


def _make_game(params: BabaParams, index: int, level: str):
    from playbench.suites.balrog.babaisai.game import BabaGame

    return BabaGame.from_params(level, params)


def _episodes(params: BabaParams) -> int:
    return episodes_for("babaisai", params.preset)


#: The task ids, in BALROG's config order.
TASK_IDS: list[str] = [f"balrog/babaisai/{level}" for level in LEVELS]

for _level in LEVELS:
    register_task(Task(
        id=f"balrog/babaisai/{_level}",
        description=f"BALROG Baba Is AI level env/{_level}: rewrite the rules and reach a WIN object (100 steps)",
        make_game=lambda params, index, lv=_level: _make_game(params, index, lv),
        default_episodes=_episodes,
        params_model=BabaParams,
        aliases=(f"env/{_level}",),
        reference_agents=("random", "oracle"),
        tags=("balrog", "babaisai"),
    ))
