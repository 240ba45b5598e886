"""The games of a leaderboard row's episodes, made as the BALROG code of the row's date made them.

What decided each episode's instance in BALROG (``evaluator.run_episode`` calls ``make_env``, then
``random.seed(seed)``, ``np.random.seed(seed)`` and ``env.reset(seed=seed)``):

- BabyAI, Baba Is AI: the level is a function of the reset seed (playbench builds the same levels). Until
  ``9377968`` (2024-12-10) BALROG's public code made BabyAI without its ``babyai_kwargs`` (``num_dists: 0``),
  so the level held the original's default 8 distractors; rows of that time were run with either code (the
  Qwen2.5-7B row of 2024-11-25 without, rows of 2024-12-09 with), so an episode is re-played on the level
  whose mission is the recorded one, and where both are, whose first step gives the recorded text.
- TextWorld: the game is not seeded; BALROG's factory is a per-process singleton whose counter, per task,
  is incremented before each episode: a worker's k-th episode of a task plays game ``k mod 25`` of the
  sorted list. The episode files say which worker played which episode (``process_num``) and the queue
  hands a worker its episodes in index order, so k follows from the folder. BALROG played treasure hunter
  and coin collector as Glulx (``.ulx``), whose text ends without the prompt and status line that the
  ``.z8`` playbench makes ends with: those are removed for them (the cooking games were ``.z8`` there too).
  The Glulx build took an answer as one line of input, line breaks included (a line break is then part of a
  word): the ``.z8`` is given it with a word character in their place. The ``.z8`` reads at most 15 words
  and 198 bytes of a line, the Glulx build more: a longer answer whose reply differs is not verifiable.
- Crafter: see ``leaderboard_crafter``.
"""

import asyncio
import re
from collections.abc import Callable
from typing import Any

from playbench.core.registry import find_task
from playbench.core.task import Task
from playbench.core.verdict import NotVerifiable
from playbench.suites.balrog.leaderboard import Opener, Played, Player, Row, valid, with_note

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


#: BabyAI's distractors: BALROG's ``babyai_kwargs`` (``num_dists: 0``), then the original level's default (8),
#: which BALROG's code before 9377968 (2024-12-10) left in place.
BABYAI_DISTRACTORS = (0, 8)


def open_seeded(episode: Played, row: Row) -> Player:
    """Baba Is AI: the episode's game reset with its recorded seed."""
    task = task_of(episode)
    game = compat_game(task, {})
    game.reset(seed=episode.seed)
    return BabaPlayer(game, task.facts.max_steps)


def _babyai(task: Task, episode: Played, distractors: int) -> GamePlayer:
    from playbench.suites.balrog.babyai.levels import MixedTrainLocal

    game = compat_game(task, {})
    game.env = MixedTrainLocal(game.kind, num_dists=distractors)
    game.reset(seed=episode.seed)
    return GamePlayer(game, task.facts.max_steps)


def _babyai_fits(task: Task, episode: Played, row: Row, distractors: int, step: bool) -> bool:
    """Whether that level has the recorded mission (``step``: and its first step the recorded text)."""
    player = _babyai(task, episode, distractors)
    try:
        if player.game.env.mission != episode.data.get("mission"):
            return False
        if not step:
            return True
        first = episode.steps[0]
        action = first.answer if valid(first.answer, player.legal) else player.default
        text = player.step(action)[0]
        if action != first.answer:
            text = with_note(row.style, episode.early, first.answer, action, text)
        return text == first.observation
    finally:
        player.close()


def open_babyai(episode: Played, row: Row) -> Player:
    """BabyAI: the level of the recorded seed with the distractors of the BALROG code that played it (above)."""
    task = task_of(episode)
    fitting = [n for n in BABYAI_DISTRACTORS if _babyai_fits(task, episode, row, n, step=False)]
    if len(fitting) > 1:
        fitting = [n for n in fitting if _babyai_fits(task, episode, row, n, step=True)]
    return _babyai(task, episode, (fitting or list(BABYAI_DISTRACTORS))[0])


#: A memory address in the reprs BALROG printed after a Baba Is AI reset (``broken_you_text``).
_ADDRESS = re.compile(r"(?<= at )0x[0-9a-fA-F]+(?=>)")


class BabaPlayer(GamePlayer):
    """Baba Is AI: the recorded memory addresses (of BALROG's process, in a repr it printed) are not compared."""

    def recorded(self, text: str) -> str:
        """The recorded text with each ``at 0x…>`` address written as playbench writes it."""
        from playbench.suites.balrog.babaisai.text import ADDRESS, BROKEN_YOU_PREFIX

        return _ADDRESS.sub(ADDRESS, text) if BROKEN_YOU_PREFIX in text else text


# -- TextWorld --------------------------------------------------------------------------------------------

#: The prompt and status line (``>`` then ``-= Room =-score/moves``) TextWorld 1.7 ends its text with.
_STATUS = re.compile(r"\s*>[ \t]*-= [^\n]*=-\d+/\d+\s*\Z")
_GAMES = 25
#: What the ``.z8`` reads of a line at most (its parse buffer's words, jericho's bytes); the Glulx build more.
Z8_WORDS, Z8_BYTES = 15, 198
#: Inform's words: a run of letters, or one of its word separators.
_WORD = re.compile(r'[.,"]|[^\s.,"]+')
#: Given to the ``.z8`` for a line break inside an answer: a character that is part of a word, as the break was.
LINE_BREAK = "|"


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
        self._command = ""
        self._done = False

    def step(self, action: str) -> tuple[str, float, bool]:
        """One command (for a Glulx game: one line, its line breaks given as word characters)."""
        if "\\" in action:
            raise NotVerifiable("an answer holds a backslash, on which TextWorld 1.7's interpreter loops")
        self._command = action.strip().replace("\n", LINE_BREAK) if self.glulx else action
        text, reward, done = super().step(self._command)
        self.steps += 1
        self._last, self._done = text, done
        return text, reward, done

    def recorded(self, text: str) -> str:
        """The recorded text, as the ``.z8`` gives it where only the Glulx build's wording differs.

        A banner centred for another screen width (the same words) is taken as the ``.z8``'s, and so is the
        end screen with the Glulx build's last prompt (``>``); a disambiguation question the ``.z8`` asks
        where the Glulx build chose, or a reply to an answer longer than the ``.z8`` reads, makes the rest
        not verifiable.
        """
        if not self.glulx or text == self._last:
            return text
        words, ours = text.split(), self._last.split()
        if words == ours or (self._done and words == [*ours, ">"]):
            return self._last
        at = f"BALROG played this game's Glulx build (.ulx), which textworld 1.7 cannot run; at step {self.steps - 1}"
        if self._last.startswith("Which do you mean") and not text.startswith("Which do you mean"):
            raise NotVerifiable(f"{at} the .z8 playbench makes asks which object is meant where the Glulx build "
                                "chose one (the steps before agree)")
        count, size = len(_WORD.findall(self._command)), len(self._command.encode("utf-8"))
        if count > Z8_WORDS or size > Z8_BYTES:
            raise NotVerifiable(f"{at} the answer has {count} words and {size} bytes, more than the .z8 playbench "
                                f"makes reads ({Z8_WORDS} words, {Z8_BYTES} bytes), and the replies differ (the steps "
                                "before agree)")
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
    "babyai": open_babyai,
    "babaisai": open_seeded,
    "textworld": open_textworld,
}
