"""TextWorld as a BALROG game (``specs/balrog.md`` §6.3) on PyPI ``textworld`` with locally generated games."""

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from playbench.suites.balrog import facts
from playbench.suites.balrog.game import BalrogGame, Frame
from playbench.suites.balrog.protocol import textworld_prompt
from playbench.suites.balrog.textworld.cache import ensure_games, task_dir, textworld_version


def clean_observation(text: str, objective: str) -> str:
    """BALROG's cleaning: keep what follows the last occurrence of the objective, stripped.

    This removes the banner and the objective from the first observation and blanks the output of
    ``goal``; the prompt marker and the status line (``-= Room =-score/moves``) stay, as in BALROG.
    """
    return text.split(objective)[-1].strip() if objective else text.strip()


def game_seed(index: int, n_games: int, compat: bool) -> int:
    """The generation seed (1..n) of the game played in episode ``index`` (B1c).

    fixed: episode i plays game ``i mod n`` (distinct games across a task's episodes); compat: the
    original's per-process counter, incremented before use, as in a sequential run (games 2, 3, ...).
    """
    position = (index + 1) % n_games if compat else index % n_games
    return position + 1


class TextWorldGame(BalrogGame):
    """One episode of a generated TextWorld game; any text is a valid command."""

    env_name = "textworld"
    reference_policies = ("random", "oracle")

    def __init__(
        self,
        task: str,
        index: int,
        n_games: int,
        *,
        compat: bool = False,
        step_limit: str = "engine",
        root: Path | None = None,
        settings: dict[str, Any] | None = None,
        generate_all: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.index = index
        self.n_games = n_games
        self.compat = compat
        row = facts.task("textworld", task)
        self.engine_limit = int(row.prompt_steps or row.step_limit) if step_limit == "prompt" else row.step_limit
        self.root = root
        self.settings = settings
        self.generate_all = generate_all
        self.seed_used = game_seed(index, n_games, compat)
        self._entry: dict[str, Any] = {}
        self._env: Any = None
        self._state: Any = None
        self._objective = ""
        self._progression = 0.0
        self._won = False
        self._walkthrough: list[str] = []
        self._commands: list[str] = []
        self._admissible = False

    def legal_actions(self) -> None:
        """Free text: every string is sent to the game."""
        return None

    def is_legal(self, action: str) -> bool:
        """Any text without a backslash.

        The interpreter reads a backslash as its own escape: a line starting with one makes it loop forever.
        """
        return "\\" not in action

    @property
    def default_action(self) -> str:
        """TextWorld has no default action; an empty command is sent (``I beg your pardon?``)."""
        return ""

    def _open(self) -> None:
        import textworld

        if not self._entry:
            # The whole set is generated on first use (in parallel); generate_all=False makes only this game.
            seeds = list(range(1, self.n_games + 1)) if self.generate_all else [self.seed_used]
            entries = ensure_games(self.task, seeds, self.root, settings=self.settings)
            self._entry = entries[seeds.index(self.seed_used)]
        path = task_dir(self.task, self.root, self.settings) / self._entry["file"]
        # Admissible commands cost ~3x per step; they are only tracked once the random policy asks.
        infos = textworld.EnvInfos(
            objective=True, description=True, score=True, max_score=True, won=True, lost=True,
            admissible_commands=self._admissible, extras=["walkthrough"],
        )
        with warnings.catch_warnings():
            # Jericho does not know TextWorld's games and says so; TextWorld tracks score itself.
            warnings.filterwarnings("ignore", message=".*is not fully supported.*")
            self._env = textworld.start(str(path), request_infos=infos)

    def _track_admissible(self) -> None:
        """Reopen the game with admissible-command tracking and replay this episode's commands."""
        self.close()
        self._admissible = True
        self._open()
        self._state = self._env.reset()
        for command in self._commands:
            self._state, _, _ = self._env.step(command)

    def _engine_reset(self, seed: int) -> tuple[Frame, str, int]:
        if self._env is None:
            self._open()
        self._state = self._env.reset()
        self._commands = []
        self._objective = self._state.objective or ""
        self._walkthrough = list(self._state.get("extra.walkthrough") or [])
        self._progression = 0.0
        self._won = False
        text = clean_observation(self._state.feedback, self._objective)
        return Frame(text), textworld_prompt(self.task), self.engine_limit

    def _current(self) -> float:
        score, max_score = self._state.score or 0, self._state.max_score or 0
        ratio = score / max_score if max_score else 0.0
        return max(ratio, 1.0 if self._state.won else 0.0)

    def _engine_step(self, action: str) -> tuple[Frame, float, bool, bool]:
        self._state, reward, done = self._env.step(action)
        self._commands.append(action)
        self._won = self._won or bool(self._state.won)
        terminated = bool(self._state.won or self._state.lost)
        engine_done = bool(done) or self.steps + 1 >= self.engine_limit
        if not self.compat or engine_done:
            # compat (B11): progression is only set on a step that returns done.
            self._progression = self._current()
        return Frame(clean_observation(self._state.feedback, self._objective)), float(reward), terminated, False

    def progression(self) -> float:
        """max(score/max_score, 1 if won) (fixed: at any end; compat: only when the engine said done)."""
        return self._progression

    def won(self) -> bool:
        """Whether the game was won."""
        return self._won

    def stats(self) -> dict[str, Any]:
        """Raw score and maximum."""
        if self._state is None:
            return {}
        return {"score": self._state.score, "max_score": self._state.max_score}

    def instance(self) -> dict[str, Any]:
        """The generated game file: task, seed, sha256, TextWorld version (a regenerated set)."""
        return {
            "env": "textworld",
            "task": self.task,
            "game_seed": self.seed_used,
            "file": self._entry.get("file"),
            "sha256": self._entry.get("sha256"),
            "command": self._entry.get("command"),
            "textworld": self._entry.get("textworld", textworld_version()),
            "set": "regenerated TextWorld set",
        }

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``oracle``: the game's own winning command sequence; ``random``: a random admissible command."""
        if policy == "oracle":
            return self._walkthrough[self.steps] if self.steps < len(self._walkthrough) else "look"
        if policy == "random":
            if not self._admissible:
                self._track_admissible()
            commands = sorted(self._state.admissible_commands or ["look"])
            return commands[int(rng.integers(len(commands)))]
        return super().reference_action(policy, rng)

    def close(self) -> None:
        """Close the interpreter."""
        if self._env is not None:
            self._env.close()
            self._env = None
