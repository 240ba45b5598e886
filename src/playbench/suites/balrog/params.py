"""Task parameters shared by the BALROG tasks (``-T key=value``)."""

from pathlib import Path
from typing import Any, Literal

from playbench.core.params import Field, Params, field_validator, model_validator


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
    """TextWorld adds the games played and the mode of its step limit (B10).

    ``games``: ``None`` = BALROG's 25 published games of the task (regenerated locally); a number N = the
    first N of them; a folder PATH = the user's games (``.z8``, or ``.ulx``/``.json`` with the game's
    ``.json``). Episode ``i`` plays game ``i mod n``. ``game_set=legacy`` is the set playbench generated
    before it played BALROG's games (``games`` = how many, default the preset's episode count); run
    records written before this parameter existed name it implicitly, so those runs resume unchanged.
    ``max_steps_mode=prompt`` plays to the 40/80/25 steps the prompts state instead of the engine's 80 (its
    name before was ``step_limit``, still accepted: runs recorded with it resume unchanged).
    """

    renamed = {"step_limit": "max_steps_mode"}

    games: int | str | None = None
    game_set: Literal["balrog", "legacy"] = "balrog"
    max_steps_mode: Literal["engine", "prompt"] = "engine"

    @model_validator(mode="before")
    @classmethod
    def _recorded_before_balrog_games(cls, data: Any) -> Any:
        # A full record of the parameters as runs stored them before ``game_set`` existed (every key,
        # ``games`` a count or null) played the legacy set: keep it for them.
        keys = {cls.renamed.get(key, key) for key in data} if isinstance(data, dict) else set()  # old names too
        if isinstance(data, dict) and "game_set" not in data and _LEGACY_RECORD <= keys \
                and not isinstance(data.get("games"), str):
            return {**data, "game_set": "legacy"}
        return data

    @field_validator("games", mode="before")
    @classmethod
    def _count_or_folder(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or (isinstance(value, int) and value < 1):
            raise ValueError("games is a count of at least 1 or a folder of games")
        if isinstance(value, str):
            if not Path(value).expanduser().is_dir():
                raise ValueError(f"no such folder of games: {value}")
            value = str(Path(value).expanduser().resolve())  # recorded absolute: a resume may run elsewhere
        return value

    @model_validator(mode="after")
    def _at_most_published(self) -> "TextWorldParams":
        if self.game_set == "balrog" and isinstance(self.games, int) and self.games > 25:
            raise ValueError(f"games={self.games}: BALROG publishes 25 games per TextWorld task")
        return self


#: The keys of a TextWorld parameter record written before ``game_set`` existed.
_LEGACY_RECORD = frozenset({"preset", "images", "compat", "feedback", "max_steps", "games", "max_steps_mode"})
