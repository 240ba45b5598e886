"""A Task: a named benchmark unit that knows its parameters, episode count and how to build games."""

import contextlib
import importlib
import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, Protocol

from playbench.core.bounds import check_episode_count
from playbench.core.errors import PlaybenchError
from playbench.core.params import NoParams, Params, build_params

if TYPE_CHECKING:  # games (and gymnasium, numpy under them) load when a game is made, not to list tasks
    from playbench.core.game import Game


class MakeGame(Protocol):
    """``make_game(params, index)``.

    A callable protocol rather than ``Callable[[Any, int], Game]`` so that mypy can type the
    ``lambda params, index, v=v: ...`` factories that bind a loop variable.
    """

    def __call__(self, params: Any, index: int, /) -> "Game":
        """The Game for episode ``index``."""
        ...


@dataclass(frozen=True)
class Engine:
    """An optional engine a task needs: the modules that must import, and the command that installs them."""

    name: str
    modules: tuple[str, ...]
    install: str


@cache
def import_problem(module: str) -> str | None:
    """Why ``module`` cannot be imported (None if it can).

    Imported for real, once per process (games import it next anyway): a package that is present but
    broken counts as missing. Engines' import-time notices are kept off the terminal.
    """
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            importlib.import_module(module)
    except (ImportError, OSError) as exc:  # OSError: a shared library that does not load
        return f"{type(exc).__name__}: {exc}"
    return None


def check_engine(task_id: str, engine: "Engine") -> None:
    """Refuse a task whose engine does not import: one line with the install command (PlaybenchError)."""
    for module in engine.modules:
        problem = import_problem(module)
        if problem is not None:
            raise PlaybenchError(f"{task_id} needs {engine.name}, which is not installed ({problem}); "
                                 f"install it with: {engine.install}")


#: Pictures the viewer draws from observation text: Hanoi's rods, a tty map (NetHack, MiniHack, Boxoban), a local
#: map of objects placed relative to where the agent faces (BabyAI), on the screen (Baba Is AI), by compass
#: direction (Messenger, Crafter) or of blocks around the player (the voxel world).
PictureKind = Literal["hanoi", "tty", "facing-map", "screen-map", "compass-map", "block-map"]


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
    #: The optional engine the task's games run on (None: pure Python, always there).
    engine: Engine | None = None
    #: The row of the suite's facts table this task was built from (reference scores, step limits ...).
    facts: Any = None
    #: The episode step limit its row declares (None: the row declares none); its games play to it unless
    #: ``-T max_steps=`` gives another, and it is the gymnasium id's ``max_episode_steps``.
    max_steps: int | None = None
    #: Why the same seed and actions may not give the same records (``playbench verify`` then counts the task's
    #: episodes not verifiable); None: the games are reproducible from the seed and the executed actions.
    not_reproducible: str | None = None
    #: What the viewer draws from a step's observation text (``report/viewer_assets/pictures.js``); None: nothing.
    picture: PictureKind | None = None

    @property
    def suite(self) -> str:
        """The suite: the first part of the id."""
        return self.id.split("/", 1)[0]

    def params(self, values: dict[str, Any] | None = None) -> Params:
        """Validated parameters from ``key=value`` strings (or typed values)."""
        return build_params(self.params_model, dict(values or {}), self.id)

    def validate_inputs(self, params: Params) -> None:
        """Refuse a missing engine and bad data files up front (see ``engine`` and ``check_inputs``)."""
        if self.engine is not None:
            check_engine(self.id, self.engine)
        if self.check_inputs is not None:
            self.check_inputs(params)

    def check_episodes(self, params: Params, episodes: int) -> None:
        """Refuse fewer than one episode, more than a run plays, or more than the task's data holds (PlaybenchError)."""
        if episodes < 1:  # a group's preset or a task's own default (the caller's --episodes is checked first)
            raise PlaybenchError(f"{self.id}: episodes={episodes}: a task runs at least 1 episode")
        check_episode_count(episodes)
        limit = self.episode_limit(params) if self.episode_limit is not None else None
        if limit is not None and episodes > limit:
            raise PlaybenchError(f"--episodes {episodes}: {self.id} has {limit} episodes with these parameters")

    def episodes(self, params: Params) -> int:
        """How many episodes this task runs by default with these parameters."""
        if callable(self.default_episodes):
            return int(self.default_episodes(params))
        return self.default_episodes
