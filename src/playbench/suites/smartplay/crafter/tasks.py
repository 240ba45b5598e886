"""Registers ``smartplay/crafter`` (imported by ``suites/smartplay/tasks.py``).

The engine (PyPI ``crafter``, extra ``[crafter]``, wrapped once in ``suites/crafter``) is imported only
when a game is built.
"""

from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.game import Game
from playbench.core.registry import register_task
from playbench.core.task import Task
from playbench.suites.smartplay.crafter.params import SmartPlayCrafterParams


def _games() -> Any:
    try:
        from playbench.suites.smartplay.crafter import game as games
    except ModuleNotFoundError as exc:  # the optional engine is missing
        raise PlaybenchError(
            f"Crafter needs the 'crafter' package ({exc.name} missing): pip install 'playbench[crafter]'"
        ) from None
    return games


def _smartplay(params: SmartPlayCrafterParams, index: int) -> Game:
    return _games().SmartPlayCrafter(params)


register_task(Task(
    id="smartplay/crafter",
    description=(
        "SmartPlay Crafter on the real crafter 1.8.3 engine (reproducible, text-only by default): 64x64 world, "
        "10,000 steps, score = running sum of achievements unlocked (human 2680)"
    ),
    make_game=_smartplay,
    default_episodes=lambda params: params.trials or 10,
    params_model=SmartPlayCrafterParams,
    aliases=("Crafter-v0", "Crafter"),
    metrics=("score", "completion", "achievements_unlocked", "return"),
    reference_agents=("random", "oracle"),
    tags=("smartplay", "crafter"),
))
