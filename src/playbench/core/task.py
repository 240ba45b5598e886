"""A Task: a named benchmark unit that knows its parameters, episode count and how to build games."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from playbench.core.errors import PlaybenchError
from playbench.core.game import Game
from playbench.core.params import NoParams, Params, build_params


class MakeGame(Protocol):
    """``make_game(params, index)``.

    A callable protocol rather than ``Callable[[Any, int], Game]`` so that mypy can type the
    ``lambda params, index, v=v: ...`` factories that bind a loop variable.
    """

    def __call__(self, params: Any, index: int, /) -> Game:
        """The Game for episode ``index``."""
        ...


@dataclass(frozen=True)
class Task:
    """A registered task ``suite/name``.

    ``make_game(params, index)`` builds the Game for episode ``index`` (the runner then resets it
    with the episode seed). ``episodes`` gives the default episode count for given parameters.
    """

    id: str
    description: str
    make_game: MakeGame
    default_episodes: int | Callable[[Any], int] = 1
    params_model: type[Params] = NoParams
    aliases: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ("score", "completion")
    reference_agents: tuple[str, ...] = ("random",)
    #: One-step tasks send an official prompt unchanged; prompt strategies must not alter it.
    one_step: bool = False
    tags: tuple[str, ...] = field(default_factory=tuple)
    #: Validates every data file the task will read with these parameters, before a run exists; raises
    #: PlaybenchError naming the file, the line and what is wrong.
    check_inputs: Callable[[Any], None] | None = None
    #: How many episodes the task's data holds with these parameters (None: as many as asked for).
    episode_limit: Callable[[Any], int | None] | None = None
    #: A line ``eval`` prints beside the task when a run starts (e.g. which data source it reads).
    note: Callable[[Any], str | None] | None = None

    @property
    def suite(self) -> str:
        """The suite: the first part of the id."""
        return self.id.split("/", 1)[0]

    def params(self, values: dict[str, Any] | None = None) -> Params:
        """Validated parameters from ``key=value`` strings (or typed values)."""
        return build_params(self.params_model, dict(values or {}), self.id)

    def validate_inputs(self, params: Params) -> None:
        """Refuse bad data files up front (see ``check_inputs``)."""
        if self.check_inputs is not None:
            self.check_inputs(params)

    def check_episodes(self, params: Params, episodes: int) -> None:
        """Refuse more episodes than the task's data holds (PlaybenchError)."""
        limit = self.episode_limit(params) if self.episode_limit is not None else None
        if limit is not None and episodes > limit:
            raise PlaybenchError(f"--episodes {episodes}: {self.id} has {limit} episodes with these parameters")

    def episodes(self, params: Params) -> int:
        """How many episodes this task runs by default with these parameters."""
        if callable(self.default_episodes):
            return int(self.default_episodes(params))
        return self.default_episodes
