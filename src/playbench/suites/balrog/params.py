"""Task parameters shared by the BALROG tasks (``-T key=value``)."""

from typing import Literal

from pydantic import Field

from playbench.core.params import Params


class BalrogParams(Params):
    """Parameters of every BALROG task of this package.

    ``preset`` picks the default episode count (``config``: the repository's, ``paper``: the paper's);
    ``images`` turns on BALROG's VLM mode; ``compat`` reproduces the original's bugs where they change
    results; ``feedback`` is ``eval.feedback_on_invalid_action``; ``max_steps`` is
    ``eval.max_steps_per_episode`` (``None``: the environment's own limit).
    """

    preset: Literal["config", "paper"] = "config"
    images: bool = False
    compat: bool = False
    feedback: bool = True
    max_steps: int | None = Field(default=None, ge=1)


class TextWorldParams(BalrogParams):
    """TextWorld adds the size of the generated game set and the optional prompt step limits (B10).

    ``games``: how many games are generated (seeds 1..games) and cycled through; ``None`` = the
    preset's episode count. ``step_limit=prompt`` uses the 40/80/25 steps the prompts state.
    """

    games: int | None = Field(default=None, ge=1)
    step_limit: Literal["engine", "prompt"] = "engine"
