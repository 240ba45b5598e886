"""Task parameters of the two Crafter tasks (kept free of engine imports so registration stays light)."""

from typing import Literal

from playbench.core.params import Params
from playbench.suites.smartplay.base import SmartPlayParams

#: Episodes per task under BALROG's two presets (balrog.md §1: both 10 for Crafter).
BALROG_EPISODES = {"config": 10, "paper": 10}


class SmartPlayCrafterParams(SmartPlayParams):
    """``smartplay/crafter``: SmartPlay's ``compat``/``history``/``steps``/``trials`` plus ``images``.

    Defaults are the original code's: 10,000 steps, history 2 (the paper says 5), 10 trials.
    ``images=true`` also renders the 64x64 frame into ``info["image"]`` (the text is the same).
    """

    images: bool = False


class BalrogCrafterParams(Params):
    """``balrog/crafter/default`` (balrog.md §6.2, §12).

    ``images`` turns on VLM mode (256x256 RGB in ``info["image"]``); ``preset`` picks the episode
    count (``config`` or ``paper``, both 10 for Crafter) unless ``episodes`` is given; ``max_steps``
    is BALROG's per-episode cap (2000); ``compat`` changes nothing observable for Crafter (the world
    seed fix B1b is always on: there is nothing reproducible to be compatible with).
    """

    compat: bool = False
    images: bool = False
    preset: Literal["config", "paper"] = "config"
    episodes: int | None = None
    max_steps: int = 2000
