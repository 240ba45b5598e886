"""TextWorld as a BALROG game (``specs/balrog.md`` §6.3) on PyPI ``textworld``: BALROG's games, regenerated."""

import asyncio
import dataclasses
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from playbench.suites.balrog.facts import BalrogTask
from playbench.suites.balrog.game import BalrogGame, Frame
from playbench.suites.balrog.protocol import textworld_prompt
from playbench.suites.balrog.textworld.cache import abandon, ensure, textworld_version
from playbench.suites.balrog.textworld.generate import sha256_file
from playbench.suites.balrog.textworld.sets import GameRef, GameSet


def clean_observation(text: str, objective: str) -> str:
    """BALROG's cleaning: keep what follows the last occurrence of the objective, stripped.

    This removes the banner and the objective from the first observation and blanks the output of
    ``goal``; the prompt marker and the status line (``-= Room =-score/moves``) stay, as in BALROG.
    """
    return text.split(objective)[-1].strip() if objective else text.strip()


def game_position(index: int, n_games: int, compat: bool) -> int:
    """The position (0..n-1) in the task's game list of the game played in episode ``index`` (B1c).

    fixed: episode i plays game ``i mod n`` (distinct games across a task's episodes); compat: the
    original's per-process counter, incremented before use, as in a sequential run (games 1, 2, ...).
    """
    return (index + 1) % n_games if compat else index % n_games


def check_published(entry: dict[str, Any], ref: GameRef) -> None:
    """Refuse a regenerated game whose facts differ from the published game's (another TextWorld version ...)."""
    row = ref.published
    if row is None:
        return
    got = (entry.get("uuid"), entry.get("rooms"), entry.get("walkthrough_length"), entry.get("max_score"),
           entry.get("walkthrough_sha"), entry.get("objective_sha"), entry.get("world_sha"))
    want = (row.uuid, row.rooms, row.walkthrough, row.max_score, row.walkthrough_sha, row.objective_sha, row.world_sha)
    if got != want:
        names = ("uuid", "rooms", "walkthrough", "max_score", "walkthrough_sha", "objective_sha", "world_sha")
        diff = ", ".join(f"{n} {g!r} != {w!r}" for n, g, w in zip(names, got, want, strict=True) if g != w)
        raise RuntimeError(f"the regenerated TextWorld game {ref.label} is not BALROG's (textworld "
                           f"{entry.get('textworld')}): {diff}")


class TextWorldGame(BalrogGame):
    """One episode of one of a task's TextWorld games; any text is a valid command."""

    env_name = "textworld"
    reference_policies = ("random", "oracle")
    #: ``game``: the position (0..24) in BALROG's published game list of the game to play, whatever the episode's
    #: index (``--instances``: the game BALROG's per-process counter gave a leaderboard row's episode)
    option_names = frozenset({"game"})

    def __init__(
        self,
        row: BalrogTask,
        index: int,
        games: GameSet,
        *,
        compat: bool = False,
        max_steps_mode: str = "engine",
        root: Path | None = None,
        **kwargs: Any,
    ) -> None:
        """One episode's game of a task's set.

        ``row``: the task's facts row (its ``level`` is the TextWorld game kind); ``max_steps_mode="prompt"``: the engine plays to the step count the
        prompt states (the row's ``prompt_steps``, B10) instead of the row's step limit.
        """
        if max_steps_mode == "prompt":
            row = dataclasses.replace(row, max_steps=row.prompt_steps or row.max_steps)
        super().__init__(row, **kwargs)
        self.task = row.level
        self.index = index
        self.games = games
        self.compat = compat
        self.root = root
        self.position = game_position(index, len(games.games), compat)
        self.ref = games.games[self.position]
        self._entry: dict[str, Any] = {}
        self._env: Any = None
        self._state: Any = None
        self._objective = ""
        self._progression = 0.0
        self._won = False
        self._walkthrough: list[str] = []
        self._commands: list[str] = []
        self._admissible = False

    async def prepare(self, options: dict[str, Any] | None = None) -> None:
        """Make this episode's game file off the event loop (the runner awaits this before ``reset``).

        Cancelled (the run stops), the game is abandoned, so the process can exit without making it.
        """
        self._use_options(options)
        try:
            await asyncio.to_thread(self._load_entry)
        except asyncio.CancelledError:
            if self.ref.spec is not None:
                abandon([self.ref.spec], self.root)
            raise

    def _use_options(self, options: dict[str, Any] | None) -> None:
        """Check ``game`` and play that game (the index's own without it)."""
        super()._use_options(options)
        count = len(self.games.games)
        position = self.options.get("game", game_position(self.index, count, self.compat))
        if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < count:
            raise ValueError(f"{self.row.id}: the reset option game is a position 0..{count - 1} of its games")
        if "game" in self.options and any(ref.published is None for ref in self.games.games):
            raise ValueError(f"{self.row.id}: the reset option game counts BALROG's published games; this task "
                             f"plays others ({self.games.name})")
        if position != self.position:
            self.close()
            self.position, self.ref, self._entry = position, self.games.games[position], {}

    def _load_entry(self) -> None:
        if self._entry:
            return
        if self.ref.path is not None:  # a user's .z8, played as it is
            self._entry = {"file": self.ref.path.name, "dir": str(self.ref.path.parent),
                           "sha256": sha256_file(self.ref.path), "textworld": textworld_version()}
            return
        assert self.ref.spec is not None
        entry = ensure([self.ref.spec], self.root)[0]
        check_published(entry, self.ref)
        self._entry = entry

    def game_file(self) -> Path:
        """The ``.z8`` file this episode plays (made first if needed)."""
        self._load_entry()
        if self.ref.path is not None:
            return self.ref.path
        return Path(self._entry["dir"], self._entry["file"])

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

        path = self.game_file()
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

    def _engine_reset(self, seed: int) -> tuple[Frame, str]:
        if self._env is None:
            self._open()
        self._state = self._env.reset()
        self._commands = []
        self._objective = self._state.objective or ""
        self._walkthrough = list(self._state.get("extra.walkthrough") or [])
        self._progression = 0.0
        self._won = False
        text = clean_observation(self._state.feedback, self._objective)
        return Frame(text), textworld_prompt(self.task)

    def _current(self) -> float:
        score, max_score = self._state.score or 0, self._state.max_score or 0
        ratio = score / max_score if max_score else 0.0
        return max(ratio, 1.0 if self._state.won else 0.0)

    def _engine_step(self, action: str) -> tuple[Frame, float, bool, bool]:
        self._state, reward, done = self._env.step(action)
        self._commands.append(action)
        self._won = self._won or bool(self._state.won)
        terminated = bool(self._state.won or self._state.lost)
        engine_done = bool(done) or self.steps + 1 >= self.row.max_steps
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
        """The game played: its set, position and label, the file's SHA-256, how it was made, TextWorld's version."""
        out: dict[str, Any] = {
            "env": "textworld",
            "task": self.task,
            "set": self.games.name,
            "position": self.position,
            "game": self.ref.label,
            "file": self._entry.get("file"),
            "sha256": self._entry.get("sha256"),
            "textworld": self._entry.get("textworld", textworld_version()),
        }
        if self.ref.spec is not None:
            out["command"] = self._entry.get("command")
            out["uuid"] = self._entry.get("uuid")
        if self.games.name == "legacy" and self.ref.spec is not None:
            out["game_seed"] = self.ref.spec.seeds
        if self.games.name == "folder":
            out["folder"] = self.games.folder
        return out

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``oracle``: the game's own winning command sequence; ``random``: a random admissible command."""
        if policy == "oracle":
            return self._walkthrough[self.steps] if self.steps < len(self._walkthrough) else "look"
        if policy == "random":
            if not self._admissible:
                self._track_admissible()
            commands: list[str] = sorted(self._state.admissible_commands or ["look"])
            return commands[int(rng.integers(len(commands)))]
        return super().reference_action(policy, rng)

    def close(self) -> None:
        """Close the interpreter."""
        if self._env is not None:
            self._env.close()
            self._env = None
