"""The games of a leaderboard row's episodes, made as the BALROG code of the row's date made them.

What decided each episode's instance in BALROG (``evaluator.run_episode`` calls ``make_env``, then
``random.seed(seed)``, ``np.random.seed(seed)`` and ``env.reset(seed=seed)``):

- BabyAI, Baba Is AI: the level is a function of the reset seed (playbench builds the same levels).
- TextWorld: the game is not seeded; BALROG's factory is a per-process singleton whose counter, per task,
  is incremented before each episode: a worker's k-th episode of a task plays game ``k mod 25`` of the
  sorted list. The episode files say which worker played which episode (``process_num``) and the queue
  hands a worker its episodes in index order, so k follows from the folder. BALROG played treasure hunter
  and coin collector as Glulx (``.ulx``), whose text ends without the prompt and status line that the
  ``.z8`` playbench makes ends with: those are removed for them (the cooking games were ``.z8`` there too).
- Crafter: see ``leaderboard_crafter``.
"""

import asyncio
import re
from collections.abc import Callable
from typing import Any

from playbench.core.registry import find_task
from playbench.core.task import Task
from playbench.core.verdict import NotVerifiable
from playbench.suites.balrog.leaderboard import Opener, Played, Player, Row

#: A step limit past any BALROG loop: the engines keep their own limits, as BALROG's environments do.
_NO_LIMIT = 10**9


class GamePlayer:
    """A playbench BALROG game stepped with valid actions; its observation text adapted by ``text``."""

    def __init__(self, game: Any, limit: int, text: Callable[[str], str] = lambda s: s) -> None:
        self.game = game
        self.legal: list[str] | None = game.legal_actions()
        self.default: str = game.default_action
        self.limit = limit
        self._text = text

    def step(self, action: str) -> tuple[str, float, bool]:
        """One action; done is the engine's own end (no step limit of playbench's)."""
        obs, reward, terminated, truncated, _ = self.game.step(action)
        return self._text(obs), float(reward), bool(terminated or truncated)

    def recorded(self, text: str) -> str:
        """The whole recorded text."""
        return text

    def progression(self) -> float:
        """The game's progression (compat: BALROG's)."""
        return float(self.game.progression())

    def close(self) -> None:
        """Close the game."""
        self.game.close()


def task_of(episode: Played) -> Task:
    """The playbench task of the episode (NotVerifiable when this playbench has none)."""
    task = find_task(episode.task_id)
    if task is None:  # the caller found it by this id
        raise NotVerifiable(f"this playbench has no task {episode.task_id}")
    return task


def compat_game(task: Task, values: dict[str, Any], index: int = 0) -> Any:
    """The task's game with BALROG's behaviour (compat), no playbench note and no playbench step limit."""
    params = task.params({"compat": True, "feedback": False, "max_steps": _NO_LIMIT, **values})
    game = task.make_game(params, index)
    asyncio.run(game.prepare())
    return game


def open_seeded(episode: Played, row: Row) -> Player:
    """BabyAI and Baba Is AI: the episode's game reset with its recorded seed."""
    task = task_of(episode)
    game = compat_game(task, {})
    game.reset(seed=episode.seed)
    return GamePlayer(game, task.facts.max_steps)


# -- TextWorld --------------------------------------------------------------------------------------------

#: The prompt and status line (``>`` then ``-= Room =-score/moves``) TextWorld 1.7 ends its text with.
_STATUS = re.compile(r"\s*>[ \t]*-= [^\n]*=-\d+/\d+\s*\Z")
_GAMES = 25


def textworld_game(episode: Played, row: Row) -> int:
    """The position (0..24) of the game BALROG's per-process counter gave the episode."""
    if episode.process is None:
        raise NotVerifiable("its episode file names no process (process_num): BALROG chose its TextWorld game "
                            "by a per-process counter")
    before = [index for env, task, index, _ in row.processes.get(episode.process, [])
              if env == episode.env and task == episode.task and index < episode.index]
    return (len(before) + 1) % _GAMES


def _glulx_text(text: str) -> str:
    """The text BALROG's Glulx game gave: the ``.z8``'s without its prompt and status line."""
    return _STATUS.sub("", text).strip()


class TextWorldPlayer(GamePlayer):
    """TextWorld: a command with a backslash cannot be re-played (the interpreter loops on it).

    BALROG played treasure hunter and coin collector as Glulx builds, which word a few replies otherwise than
    the ``.z8`` playbench makes (``recorded``).
    """

    def __init__(self, game: Any, limit: int, glulx: bool) -> None:
        super().__init__(game, limit, _glulx_text if glulx else lambda text: text)
        self.glulx = glulx
        self.steps = 0
        self._last = ""

    def step(self, action: str) -> tuple[str, float, bool]:
        """One command."""
        if "\\" in action:
            raise NotVerifiable("an answer holds a backslash, on which TextWorld 1.7's interpreter loops")
        text, reward, done = super().step(action)
        self.steps += 1
        self._last = text
        return text, reward, done

    def recorded(self, text: str) -> str:
        """The recorded text, as the ``.z8`` gives it where only the Glulx build's wording differs.

        A banner centred for another screen width (the same words) is taken as the ``.z8``'s; a
        disambiguation question the ``.z8`` asks where the Glulx build chose makes the rest not verifiable.
        """
        if not self.glulx or text == self._last:
            return text
        if text.split() == self._last.split():
            return self._last
        if self._last.startswith("Which do you mean") and not text.startswith("Which do you mean"):
            raise NotVerifiable(f"BALROG played this game's Glulx build (.ulx), which textworld 1.7 cannot run; at "
                                f"step {self.steps - 1} the .z8 playbench makes asks which object is meant where "
                                "the Glulx build chose one (the steps before agree)")
        return text


def open_textworld(episode: Played, row: Row) -> Player:
    """The game of the worker's counter, in compat mode (progression set on the engine's done, as BALROG)."""
    from playbench.suites.balrog.textworld.published import RECIPES

    task = task_of(episode)
    position = textworld_game(episode, row)
    # the 80-step limit is TextWorld's own there (its gym env's max_episode_steps): kept; compat plays game
    # (index + 1) mod 25
    game = compat_game(task, {"max_steps": task.facts.max_steps}, index=(position - 1) % _GAMES)
    game.reset(seed=episode.seed)
    return TextWorldPlayer(game, task.facts.max_steps, RECIPES[task.facts.level].published_format == ".ulx")


#: env -> opener; Crafter is opened by ``leaderboard_crafter``, MiniHack and NetHack by ``leaderboard_nle``.
OPENERS: dict[str, Opener] = {
    "babyai": open_seeded,
    "babaisai": open_seeded,
    "textworld": open_textworld,
}
