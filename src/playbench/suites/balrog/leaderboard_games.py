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
- Crafter: ``crafter.Env(seed=None)`` draws its world seed from NumPy's global state when ``make_env``
  builds it, before the episode's seed is set. So the world follows from the state the worker was left in:
  ``np.random.seed(s)`` of the worker's previous episode, plus the draws made since (the first import of
  BALROG's crafter module draws once, for a throw-away env). The candidates are the first draws after each
  seed recorded for the same worker; the one whose world gives the first recorded observations is taken. A
  worker's first episode draws from a seed made of the clock and the pid, recorded nowhere: not verifiable.
  BALROG's text of the world changed on 2025-04-24 (the facing cell was read transposed before); the
  episode is compared with the version whose text it shows. Crafter despawns one of a chunk's surplus
  creatures by its position in a Python ``set`` (memory addresses); playbench keeps a stable order, so a
  re-play that parts after such a choice is not verifiable from there.
"""

import asyncio
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from playbench.core.registry import find_task
from playbench.core.task import Task
from playbench.core.verdict import NotVerifiable
from playbench.suites.balrog.leaderboard import Opener, Played, Player, Row

#: A step limit past any BALROG loop: the engines keep their own limits, as BALROG's environments do.
_NO_LIMIT = 10**9
#: How many draws after a worker's recorded seed a Crafter world seed may be (the crafter module's import
#: draws one for a throw-away env; an episode of another environment may draw a few).
CRAFTER_DRAWS = 4
#: The first recorded steps a candidate Crafter world must give, all of them, to be taken as the episode's.
CRAFTER_PROBE = 8


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


def _task(episode: Played) -> Task:
    task = find_task(episode.task_id)
    if task is None:  # the caller found it by this id
        raise NotVerifiable(f"this playbench has no task {episode.task_id}")
    return task


def _game(task: Task, values: dict[str, Any], index: int = 0) -> Any:
    """The task's game with BALROG's behaviour (compat), no playbench note and no playbench step limit."""
    params = task.params({"compat": True, "feedback": False, "max_steps": _NO_LIMIT, **values})
    game = task.make_game(params, index)
    asyncio.run(game.prepare())
    return game


def open_seeded(episode: Played, row: Row) -> Player:
    """BabyAI and Baba Is AI: the episode's game reset with its recorded seed."""
    task = _task(episode)
    game = _game(task, {})
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

    task = _task(episode)
    position = textworld_game(episode, row)
    # the 80-step limit is TextWorld's own there (its gym env's max_episode_steps): kept; compat plays game
    # (index + 1) mod 25
    game = _game(task, {"max_steps": task.facts.max_steps}, index=(position - 1) % _GAMES)
    game.reset(seed=episode.seed)
    return TextWorldPlayer(game, task.facts.max_steps, RECIPES[task.facts.level].published_format == ".ulx")


# -- Crafter ----------------------------------------------------------------------------------------------


def crafter_candidates(episode: Played, row: Row) -> list[int]:
    """World seeds the worker's state could have given ``crafter.Env(seed=None)``: draws after its seeds."""
    found: list[int] = []
    for seed in row.seeds_of(episode.process, episode):
        state = np.random.RandomState(seed)
        for _ in range(CRAFTER_DRAWS):
            drawn = int(state.randint(0, 2**31 - 1))
            if drawn not in found:
                found.append(drawn)
    return found


def crafter_texts(engine: Any) -> tuple[str, str]:
    """BALROG's long-term Crafter text before 2025-04-24 (facing cell transposed) and after (fixed)."""
    from playbench.suites.crafter import describe

    win = describe.window(engine)
    if win.low_edge:  # BALROG's slice fails there (before: a breakpoint, so no such row was recorded)
        return describe.OUT_OF_MAP, describe.OUT_OF_MAP
    seen = _seen(win)
    player = engine.player
    px, py = int(player.pos[0]), int(player.pos[1])
    fx, fy = int(player.facing[0]), int(player.facing[1])
    width, height = engine.semantic().shape
    # Before the fix BALROG read semantic[target_y, target_x] of its 9x7 window: the cell (fy - 1, fx + 1)
    # away, when that cell is inside the window (which the world's far edges may cut).
    x, y = px + fy - 1, py + fx + 1
    transposed = engine.id_names()[int(engine.semantic()[x, y])] if x < width and y < height else "nothing"
    status = describe.SLEEPING if win.sleeping else describe.DIED if win.dead else ""

    def text(target: str) -> str:
        return ((status + "\n\n" if status else "") + "\n\n" + seen + f"\n\nYou face {target} at your front.").strip()

    return text(transposed), text(win.target if win.target is not None else "nothing")


def _seen(win: Any) -> str:
    """``You see:`` as BALROG wrote it until 2025-08: one line per id in id order, always ``steps``."""
    from playbench.suites.crafter import describe

    best: dict[int, tuple[int, int, int]] = {}
    for dx, dy, sem in win.cells:  # x-major: the first cell met wins a tie, as numpy's argmin
        dist = abs(dx) + abs(dy)
        if sem not in best or dist < best[sem][0]:
            best[sem] = (dist, dx, dy)
    if not best:
        return "You see nothing away from you."
    lines = [f"- {win.names[s]} {d} steps to your {describe.direction(dx, dy)}" for s, (d, dx, dy) in sorted(best.items())]
    return "You see:\n" + "\n".join(lines)


class CrafterPlayer:
    """Crafter on a given world seed, with BALROG's text of the versions still consistent with the record."""

    def __init__(self, task: Task, world: int, versions: tuple[int, ...] = (0, 1)) -> None:
        self.game = _game(task, {})
        self.game.reset(seed=world)  # crafter.Env(seed=world)'s first world, and the reset's noop
        self.legal: list[str] | None = self.game.legal_actions()
        self.default: str = self.game.default_action
        self.limit: int = task.facts.max_steps
        self.versions = versions  # 0: before 2025-04-24, 1: after; narrowed as the texts part
        self.steps = 0
        self.ambiguous: tuple[int, int] | None = None  # (step, creatures) of the first set-order despawn
        self._watch_despawns()

    def _watch_despawns(self) -> None:
        engine = self.game.engine
        original = engine._balance_object

        def balance(chunk: Any, objs: Any, cls: Any, material: str, span: int, despan: int, spawn: float,
                    despawn: float, ctor: Any, target_fn: Any) -> None:
            if self.ambiguous is None:
                self._check_despawn(engine, chunk, objs, cls, material, despan, despawn, target_fn)
            original(chunk, objs, cls, material, span, despan, spawn, despawn, ctor, target_fn)

        engine._balance_object = balance

    def _check_despawn(self, engine: Any, chunk: Any, objs: Any, cls: Any, material: str, despan: int,
                       despawn: float, target_fn: Any) -> None:
        """Note a despawn whose victim depends on the set's order: two creatures or more, one of them away."""
        creatures = [obj for obj in objs if isinstance(obj, cls)]
        if len(creatures) < 2:
            return
        low, high = target_fn(len(creatures), engine._world.mask(*chunk, material).sum())
        if len(creatures) < int(low) or len(creatures) <= int(high):
            return
        random = engine._world.random
        state = random.get_state()
        draw = random.uniform()
        random.set_state(state)  # only peeked: the engine draws it itself
        if draw < despawn and any(engine._player.distance(obj.pos) >= despan for obj in creatures):
            self.ambiguous = (self.steps, len(creatures))

    def texts(self) -> tuple[str, ...]:
        """The text of each version still in play."""
        both = crafter_texts(self.game.engine)
        return tuple(both[v] for v in self.versions)

    def step(self, action: str) -> tuple[str, float, bool]:
        """One action; the text of the first version still in play (narrowed by ``keep``)."""
        _, reward, terminated, truncated, _ = self.game.step(action)
        self.steps += 1
        return self.texts()[0], float(reward), bool(terminated or truncated)

    def keep(self, recorded: str) -> None:
        """Keep only the versions whose text is the recorded one (all of them when none is)."""
        texts = crafter_texts(self.game.engine)
        matching = tuple(v for v in self.versions if texts[v] == recorded)
        if matching:
            self.versions = matching

    def progression(self) -> float:
        """Achievements unlocked of 22 (BALROG's score tracker)."""
        return float(self.game.progression())

    def close(self) -> None:
        """Close the game."""
        self.game.close()


def _prefix(task: Task, world: int, episode: Played, row: Row, count: int) -> int:
    """How many of the first ``count`` recorded steps the world gives (either text version)."""
    from playbench.suites.balrog.leaderboard import valid, with_note

    player = CrafterPlayer(task, world)
    try:
        for k, step in enumerate(episode.steps[:count]):
            action = step.answer if valid(step.answer, player.legal) else player.default
            _, reward, done = player.step(action)
            texts = [with_note(row.style, episode.early, step.answer, action, t) if action != step.answer else t
                     for t in crafter_texts(player.game.engine)]
            if step.observation not in texts or float(step.reward) != reward or step.done != str(done):
                return k
        return count
    finally:
        player.close()


class ReplayedCrafter:
    """The player ``leaderboard`` steps: narrows the text version each step, and names set-order despawns."""

    def __init__(self, player: CrafterPlayer, episode: Played, row: Row) -> None:
        self.player = player
        self.legal = player.legal
        self.default = player.default
        self.limit = player.limit
        self._steps = episode.steps
        self._episode = episode
        self._row = row
        self._k = 0

    def step(self, action: str) -> tuple[str, float, bool]:
        """One action; the text of the version that gives the recorded one, where one does."""
        from playbench.suites.balrog.leaderboard import with_note

        step = self._steps[self._k]
        _, reward, done = self.player.step(action)
        recorded = step.observation
        if action != step.answer:  # the note is compared by the caller; the versions by the text after it
            texts = crafter_texts(self.player.game.engine)
            noted = [with_note(self._row.style, self._episode.early, step.answer, action, t) for t in texts]
            for version, text in enumerate(noted):
                if text == recorded:
                    recorded = texts[version]
        self.player.keep(recorded)
        text = self.player.texts()[0]
        self._k += 1
        if self.player.ambiguous is not None and text != recorded:
            at, creatures = self.player.ambiguous
            raise NotVerifiable(f"at step {at} crafter despawned one of {creatures} creatures by their order in a "
                                "Python set (memory addresses, not reproducible: SmartPlay B12); the re-play parts "
                                f"from step {self._k - 1} (the steps before agree)")
        return text, reward, done

    def recorded(self, text: str) -> str:
        """The whole recorded text."""
        return text

    def progression(self) -> float:
        """Achievements unlocked of 22."""
        return self.player.progression()

    def close(self) -> None:
        """Close the game."""
        self.player.close()


def open_crafter(episode: Played, row: Row) -> Player:
    """The world of the worker's state (see the module doc), found among its recorded seeds' draws."""
    task = _task(episode)
    if episode.process is None:
        raise NotVerifiable("its episode file names no process (process_num): its world seed came from the "
                            "worker's NumPy state")
    count = min(len(episode.steps), CRAFTER_PROBE)
    for world in crafter_candidates(episode, row):
        if _prefix(task, world, episode, row, count) == count:
            return ReplayedCrafter(CrafterPlayer(task, world), episode, row)
    raise NotVerifiable(f"world seed drawn from the clock: no seed recorded for its worker ({episode.process}) "
                        "gives its world, so it is the worker's first episode (BALROG seeds a worker's NumPy "
                        "state from the time and pid, recorded nowhere) or follows an episode that left no file")


#: env -> opener; MiniHack and NetHack are opened by ``leaderboard_nle``.
OPENERS: dict[str, Opener] = {
    "babyai": open_seeded,
    "babaisai": open_seeded,
    "textworld": open_textworld,
    "crafter": open_crafter,
}
