"""The Task of a Baba Is AI row of the BALROG facts table (``balrog/babaisai/<level>``).

The engine is imported lazily inside ``make_game``.
"""

from typing import TYPE_CHECKING

from playbench.core.task import Task
from playbench.suites.balrog.babaisai.params import BabaParams
from playbench.suites.balrog.facts import TASKS, BalrogTask
from playbench.suites.balrog.protocol import episodes_for

if TYPE_CHECKING:  # games load when one is made, not to list tasks
    from playbench.core.game import Game

#: The task ids, in BALROG's config order.
TASK_IDS: list[str] = [row.id for row in TASKS if row.env == "babaisai"]


def _make_game(params: BabaParams, row: BalrogTask) -> "Game":
    from playbench.suites.balrog.babaisai.game import BabaGame

    return BabaGame.from_params(row, params)


def build_task(row: BalrogTask) -> Task:
    """The Task of one Baba Is AI row."""
    return Task(
        id=row.id,
        description=(f"BALROG Baba Is AI level env/{row.level}: rewrite the rules and reach a WIN object "
                     f"({row.max_steps} steps)"),
        make_game=lambda params, index: _make_game(params, row),
        default_episodes=lambda params: episodes_for("babaisai", params.preset),
        params_model=BabaParams,
        aliases=row.aliases,
        reference_agents=("random", "oracle"),
        tags=("balrog", "babaisai"),
        picture="screen-map",
        facts=row,
        max_steps=row.max_steps,
    )
