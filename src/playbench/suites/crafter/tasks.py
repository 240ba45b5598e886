"""Registers the Crafter tasks of both suites: ``smartplay/crafter`` and ``balrog/crafter/default``.

The ids keep their suites' prefixes (reports group by them); the engine, descriptors and reference
policies live here once. The engine (PyPI ``crafter``, extra ``[crafter]``) is imported only when a game
is built.
"""

from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.game import Game
from playbench.core.registry import register_task
from playbench.core.task import Task
from playbench.suites.balrog.protocol import episodes_for
from playbench.suites.crafter.params import BalrogCrafterParams, SmartPlayCrafterParams
from playbench.suites.engines import CRAFTER


def _games() -> Any:
    try:
        from playbench.suites.crafter import games
    except ModuleNotFoundError as exc:  # the optional engine is missing
        raise PlaybenchError(
            f"Crafter needs the 'crafter' package ({exc.name} missing): pip install 'playbench[crafter]'"
        ) from None
    return games


def _smartplay(params: SmartPlayCrafterParams, index: int) -> Game:
    return _games().SmartPlayCrafter(params)


def _balrog(params: BalrogCrafterParams, index: int) -> Game:
    return _games().BalrogCrafter(params)


register_task(Task(
    id="smartplay/crafter",
    description=(
        "SmartPlay Crafter on the real crafter 1.8.3 engine (reproducible, text-only by default): 64x64 world, "
        "10,000 steps, score = running sum of achievements unlocked (human 2680)"
    ),
    make_game=_smartplay,
    default_episodes=lambda params: params.episodes or 10,
    params_model=SmartPlayCrafterParams,
    aliases=("Crafter-v0", "Crafter"),
    metrics=("score", "completion", "achievements_unlocked", "return"),
    reference_agents=("random", "oracle"),
    tags=("smartplay", "crafter"),
    engine=CRAFTER,
))

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
    engine=CRAFTER,
))
