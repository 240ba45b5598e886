"""``-T`` parameters of the MANGO tasks (apart from the games: listing tasks loads no engine or numpy)."""

from typing import Literal

from playbench.core.params import ExistingPath, Field, Params
from playbench.suites.mango.walkthrough import TOKEN_BUDGET

DEFAULT_PROCEDURAL_EPISODES = 20


class MangoParams(Params):
    """``-T`` parameters of ``mango/df`` and ``mango/rf``.

    ``compat=true`` means ``mode=compat`` (the official evaluator) unless ``mode`` is given; ``cutoff`` and
    ``prompt`` already default to the release's. It is not recorded itself: ``mode`` says it all.
    """

    compat_values = {"mode": "compat"}

    compat: bool = Field(False, exclude=True)
    data: ExistingPath | None = None  # an official data folder (one sub-folder per game); default: procedural mazes
    games: str | None = None  # comma-separated game names to keep (data only)
    cutoff: Literal["release", "paper"] = "release"
    prompt: Literal["release", "paper"] = "release"
    mode: Literal["fixed", "compat"] = "fixed"
    locations: int = 8  # procedural mazes: number of locations
    episodes: int | None = Field(default=None, ge=1)  # procedural mazes: default episode count (20)


class MinigameParams(Params):
    """``-T`` parameters of ``mango/minigame``.

    ``compat`` is accepted for uniformity and changes nothing: the original task set was never released,
    this is a reconstruction with no original behaviour to reproduce (so it is not recorded).
    """

    compat: bool = Field(False, exclude=True)
    data: ExistingPath | None = None
    games: str | None = None
    hint: bool = False  # add the "small local map info" sentence
    locations: int = 8
    budget: int = TOKEN_BUDGET  # walkthrough tokens kept (the latest steps)
    max_step: int = Field(default=70, ge=1)  # only moves annotated in the map (the release's 70 steps)
    episodes: int | None = Field(default=None, ge=1)
