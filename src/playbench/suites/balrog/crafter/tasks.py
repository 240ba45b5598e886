"""Registers ``balrog/crafter/default`` (imported by ``suites/balrog/tasks.py``).

The engine (PyPI ``crafter``, extra ``[crafter]``, wrapped once in ``suites/crafter``) is imported only
when a game is built.
"""

from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.game import Game
from playbench.core.registry import register_task
from playbench.core.task import Task
from playbench.suites.balrog.crafter.params import BalrogCrafterParams
from playbench.suites.balrog.protocol import episodes_for


def _games() -> Any:
    try:
        from playbench.suites.balrog.crafter import game as games
    except ModuleNotFoundError as exc:  # the optional engine is missing
        raise PlaybenchError(
            f"Crafter needs the 'crafter' package ({exc.name} missing): pip install 'playbench[crafter]'"
        ) from None
    return games


def _balrog(params: BalrogCrafterParams, index: int) -> Game:
    return _games().BalrogCrafter(params)


register_task(Task(
    id="balrog/crafter/default",
    description=(
        "BALROG Crafter on the real crafter 1.8.3 engine (reproducible): 2,000 steps, "
        "progression = achievements unlocked / 22; images=true for VLM mode (256x256)"
    ),
    make_game=_balrog,
    default_episodes=lambda params: episodes_for("crafter", params.preset),
    params_model=BalrogCrafterParams,
    metrics=("score", "progression", "achievements_unlocked"),
    reference_agents=("random", "oracle"),
    tags=("balrog", "crafter"),
))
