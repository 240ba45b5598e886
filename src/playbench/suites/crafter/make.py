"""Game factories of the two Crafter tasks, ``smartplay/crafter`` and ``balrog/crafter/default``.

Their facts live in their suites' tables; the engine (PyPI ``crafter``, extra ``[crafter]``) is imported
only when a game is built.
"""

from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.game import Game
from playbench.suites.crafter.params import BalrogCrafterParams, SmartPlayCrafterParams


def _games() -> Any:
    try:
        from playbench.suites.crafter import games
    except ModuleNotFoundError as exc:  # the optional engine is missing
        raise PlaybenchError(
            f"Crafter needs the 'crafter' package ({exc.name} missing): pip install 'playbench[crafter]'"
        ) from None
    return games


def smartplay_game(params: SmartPlayCrafterParams, limits: tuple[int, int]) -> Game:
    """SmartPlay's Crafter game with the ``(steps, history)`` of its facts row."""
    return _games().SmartPlayCrafter(params, limits)


def balrog_game(params: BalrogCrafterParams) -> Game:
    """BALROG's Crafter game (its step limit comes from the BALROG facts row)."""
    return _games().BalrogCrafter(params)
